/**
 * When a server starts its network worker (src/cli/serve.ts): NETWORK_WORKER_START_DELAY_MS after it
 * begins serving, or at the first submission if that comes sooner, so the worker's code (loaded from
 * source on its first message) does not compete with the answers to a host's start-up exchange.
 */

import assert from "node:assert/strict";
import { NETWORK_WORKER_START_DELAY_MS } from "../src/base/limits.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { startUp } from "../src/cli/serve.ts";
import { RawStdioServer, REPO_ROOT } from "./helpers/longcall_procs.ts";
import { denoExecPath } from "../testing/mcp_clients.ts";
import { logLine } from "../testing/log_lines.ts";
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

/** `longcall serve` from source with the shipped flags and debug logs, never lingering. */
function sourceServer(db: string): RawStdioServer {
  return new RawStdioServer({
    command: denoExecPath(),
    args: ["run", ...permissionFlags(), `${REPO_ROOT}src/main.ts`, "serve", "--linger-ms", "0", "--db", db],
    env: ENV,
  });
}

Deno.test(`serve from source: with no submission the worker starts ${NETWORK_WORKER_START_DELAY_MS} ms after serving begins`, async () => {
  await using dir = await tempDir("longcall-worker-start-");
  const server = sourceServer(dir.file("x.db"));
  try {
    await server.request("initialize", INITIALIZE);
    await server.request("tools/list");
    await waitFor("the worker's start", () => server.stderr().includes("network worker ready"));
  } finally {
    await server.endStdin();
    assert.equal((await server.exited()).code, 0, server.stderr());
  }
  const stderr = server.stderr();
  assert.match(stderr, /starting the network worker \{"on":"start"\}/, "the delay started it, not a submission");
  const serving = logLine(stderr, "serving");
  const fields = serving.fields as ReturnType<typeof startUp>;
  const { entry, runtime, mcp: layer, narrow } = fields.start_ms;
  // Each phase is rounded on its own: their sum is within 2 ms of the rounded end.
  const said = JSON.stringify(serving.fields);
  assert.ok(Math.abs(entry + runtime + layer + narrow - fields.serving_at_ms) <= 2, said);
  assert.ok([entry, runtime, layer, narrow].every((ms) => Number.isInteger(ms) && ms >= 0), said);
  const waited = logLine(stderr, "network worker ready").at - serving.at;
  // Both stamps are this server's clock at millisecond resolution; the timer was set after the first.
  assert.ok(waited >= NETWORK_WORKER_START_DELAY_MS - 1, `ready ${waited} ms after serving began:\n${stderr}`);
});

Deno.test("a submission starts the worker at once, not the start delay", async () => {
  await using dir = await tempDir("longcall-worker-wake-");
  const server = sourceServer(dir.file("x.db"));
  try {
    await server.request("initialize", INITIALIZE);
    const answer = await server.request("tools/call", {
      name: "github.sync_threads",
      arguments: { repositories: ["octocat/hello-world"] },
    });
    assert.equal((answer.result as { isError?: boolean }).isError, undefined, JSON.stringify(answer));
    await waitFor("the worker's start", () => server.stderr().includes("network worker ready"));
  } finally {
    await server.endStdin();
    assert.equal((await server.exited()).code, 0, server.stderr());
  }
  assert.match(server.stderr(), /starting the network worker \{"on":"submission"\}/);
  assert.doesNotMatch(server.stderr(), /"on":"start"/, "started once");
});

Deno.test("a server whose host leaves before the start delay never starts its worker, and exits 0", async () => {
  await using dir = await tempDir("longcall-worker-never-");
  const server = sourceServer(dir.file("x.db"));
  // End of input at once: the server serves, reads it and shuts down long before the delay.
  await server.endStdin();
  assert.equal((await server.exited()).code, 0, server.stderr());
  // The start is logged when it is made, so a server that has exited would show it.
  assert.match(server.stderr(), /shutting down/);
  assert.doesNotMatch(server.stderr(), /starting the network worker|network worker ready/, server.stderr());
});

Deno.test("startUp(): the phases between the marks in whole milliseconds, serving_at_ms from the time origin", () => {
  assert.deepEqual(startUp({ runtimeAt: 29.6, mcpAt: 44.1, narrowAt: 115.5, servingAt: 121.4 }), {
    serving_at_ms: 121,
    start_ms: { entry: 30, runtime: 15, mcp: 71, narrow: 6 },
  });
});
