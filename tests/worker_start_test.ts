/**
 * When a server starts its network worker (src/cli/serve.ts): NETWORK_WORKER_START_DELAY_MS after it
 * begins serving, or at the first submission if that comes sooner, so the worker's code (loaded from
 * source on its first message) does not compete with the answers to a host's start-up exchange.
 */

import assert from "node:assert/strict";
import { NETWORK_WORKER_START_DELAY_MS, WORKER_START_TIMEOUT_MS } from "../src/base/limits.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { runServer, startUp } from "../src/cli/serve.ts";
import * as mcp from "../src/mcp/serving.ts";
import { RawStdioServer, REPO_ROOT } from "./helpers/longcall_procs.ts";
import { denoExecPath } from "../testing/mcp_clients.ts";
import { tempDir, waitFor } from "../testing/temp.ts";

const ENV = {
  GITHUB_TOKEN: "",
  GH_TOKEN: "",
  LONGCALL_GITHUB_TOKEN_FILE: "",
  LONGCALL_HTTP_TOKEN: "",
  LONGCALL_GITHUB_API_URL: "http://127.0.0.1:9",
  LONGCALL_LOG: "debug",
};
const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "worker-start-test", version: "0" },
};

/** The wall-clock stamp of the first stderr line containing `text`. */
function stampOf(stderr: string, text: string): number {
  const line = stderr.split("\n").find((l) => l.includes(text));
  assert.ok(line !== undefined, `no line with ${JSON.stringify(text)} in:\n${stderr}`);
  return Date.parse(line.slice(0, line.indexOf(" ")));
}

Deno.test(`serve from source: with no submission the worker starts ${NETWORK_WORKER_START_DELAY_MS} ms after serving begins`, async () => {
  await using dir = await tempDir("longcall-worker-start-");
  const server = new RawStdioServer({
    command: denoExecPath(),
    args: [
      "run",
      ...permissionFlags(),
      `${REPO_ROOT}src/main.ts`,
      "serve",
      "--linger-ms",
      "0",
      "--db",
      dir.file("x.db"),
    ],
    env: ENV,
  });
  try {
    await server.request("initialize", INITIALIZE);
    await server.request("tools/list");
    await waitFor("the worker's start", () => server.stderr().includes("network worker ready"));
  } finally {
    await server.endStdin();
    await server.exited();
  }
  const stderr = server.stderr();
  const serving = stderr.split("\n").find((l) => l.includes("] serving")) ?? "";
  const fields = JSON.parse(serving.slice(serving.indexOf("{"))) as ReturnType<typeof startUp>;
  const { entry, runtime, mcp: layer, narrow } = fields.start_ms;
  // Each phase is rounded on its own: their sum is within 2 ms of the rounded end.
  assert.ok(Math.abs(entry + runtime + layer + narrow - fields.serving_at_ms) <= 2, serving);
  assert.ok([entry, runtime, layer, narrow].every((ms) => Number.isInteger(ms) && ms >= 0), serving);
  const waited = stampOf(stderr, "network worker ready") - stampOf(stderr, "] serving");
  // Both stamps are this server's clock at millisecond resolution; the timer was set after the first.
  assert.ok(waited >= NETWORK_WORKER_START_DELAY_MS - 1, `ready ${waited} ms after serving began:\n${stderr}`);
});

Deno.test("a submission starts the worker at once, not when the start delay ends", async () => {
  await using dir = await tempDir("longcall-worker-wake-");
  const server = new RawStdioServer({
    command: denoExecPath(),
    args: [
      "run",
      ...permissionFlags({ githubHosts: ["127.0.0.1:9"] }),
      new URL("./helpers/late_worker_server.ts", import.meta.url).pathname,
      "--db",
      dir.file("x.db"),
      "--worker-start-delay-ms",
      String(WORKER_START_TIMEOUT_MS),
    ],
    env: ENV,
  });
  try {
    await server.request("initialize", INITIALIZE);
    const started = performance.now();
    const answer = await server.request("tools/call", {
      name: "github.sync_threads",
      arguments: { repositories: ["octocat/hello-world"] },
    });
    assert.equal((answer.result as { isError?: boolean }).isError, undefined, JSON.stringify(answer));
    // Past the bound this would wait for the delay (WORKER_START_TIMEOUT_MS), longer than waitFor's own timeout.
    await waitFor("the worker's start", () => server.stderr().includes("network worker ready"));
    assert.ok(performance.now() - started < WORKER_START_TIMEOUT_MS);
  } finally {
    await server.endStdin();
    await server.exited();
  }
});

Deno.test(`runServer: workerStartDelayMs is taken from 0 to ${WORKER_START_TIMEOUT_MS} and refused past either end`, async () => {
  for (const bad of [-1, WORKER_START_TIMEOUT_MS + 1, 1.5]) {
    await assert.rejects(
      runServer({ db: ":memory:", http: false, listen: "127.0.0.1:0", readOnly: false, lingerMs: 0 }, {
        kinds: { product: { github: { baseUrl: "http://127.0.0.1:9" } } },
        mcp,
        tools: () => [],
        networkWorker: { moduleUrl: new URL("../src/main.ts", import.meta.url).href },
        workerStartDelayMs: bad,
      }),
      new RangeError(
        `Cannot serve: workerStartDelayMs must be an integer from 0 to ${WORKER_START_TIMEOUT_MS}, current value is ${bad}`,
      ),
    );
  }
});

Deno.test("startUp(): the phases between the marks in whole milliseconds, serving_at_ms from the time origin", () => {
  assert.deepEqual(startUp({ runtimeAt: 29.6, mcpAt: 44.1, narrowAt: 115.5, servingAt: 121.4 }), {
    serving_at_ms: 121,
    start_ms: { entry: 30, runtime: 15, mcp: 71, narrow: 6 },
  });
});
