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
import { silentLogger } from "../src/base/log.ts";
import { openRuntime, startNetworkWorker } from "../src/cli/runtime.ts";
import { logLine } from "../testing/log_lines.ts";
import { openTempStore, tempDir, waitFor } from "../testing/temp.ts";

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

Deno.test("serve: the serving thread's SQLite lock on the database survives the network worker's open", async () => {
  // POSIX record locks belong to the process: a descriptor of the file opened and closed anywhere in it (as a
  // probe in the worker's open once did) drops every lock its SQLite connections hold, unnoticed by SQLite.
  if (Deno.build.os !== "linux") {
    console.log(`skipped: reads /proc/locks, which only Linux has (this is ${Deno.build.os})`);
    return;
  }
  await using dir = await tempDir("longcall-worker-start-");
  const db = dir.file("x.db");
  const server = sourceServer(db);
  try {
    await server.request("initialize", INITIALIZE);
    await waitFor("the worker's start", () => server.stderr().includes("network worker ready"));
    const { ino } = await Deno.stat(db);
    // Through cat: Deno grants reading /proc only with --allow-all.
    const table = new TextDecoder().decode((await new Deno.Command("cat", { args: ["/proc/locks"] }).output()).stdout);
    const locks = table.split("\n").filter((l) => l.includes(`:${ino} `));
    assert.ok(locks.some((l) => /POSIX\s+ADVISORY\s+READ/.test(l)), `a shared lock on inode ${ino}:\n${locks}`);
  } finally {
    await server.endStdin();
    assert.equal((await server.exited()).code, 0, server.stderr());
  }
});

Deno.test("a submission starts the worker at once, not the start delay", async () => {
  await using dir = await tempDir("longcall-worker-wake-");
  const server = sourceServer(dir.file("x.db"));
  let submittedAt = NaN;
  try {
    await server.request("initialize", INITIALIZE);
    submittedAt = Date.now();
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
  // Wall clocks of one machine: the submission left before the delay ran out (else the timer may rightly win).
  const sinceServing = submittedAt - logLine(server.stderr(), "serving").at;
  if (sinceServing >= NETWORK_WORKER_START_DELAY_MS - 50) {
    console.log(`not checked: the machine was too slow, the submission left ${sinceServing} ms after serving began`);
    return;
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
  const stderr = server.stderr();
  const servedFor = logLine(stderr, "shutting down").at - logLine(stderr, "serving").at;
  if (servedFor >= NETWORK_WORKER_START_DELAY_MS - 50) {
    console.log(`not checked: the machine was too slow, the server shut down ${servedFor} ms after serving began`);
    return;
  }
  assert.doesNotMatch(stderr, /starting the network worker|network worker ready/, stderr);
});

Deno.test("startUp(): the phases between the marks in whole milliseconds, serving_at_ms from the time origin", () => {
  assert.deepEqual(startUp({ runtimeAt: 29.6, mcpAt: 44.1, narrowAt: 115.5, servingAt: 121.4 }), {
    serving_at_ms: 121,
    start_ms: { entry: 30, runtime: 15, mcp: 71, narrow: 6 },
  });
});

Deno.test("a linger right after the worker's start (a host that leaves right after a submission): the start completes, nothing runs, the owner row goes", async () => {
  await using dir = await tempDir("longcall-worker-order-");
  const db = dir.file("x.db");
  const runtime = openRuntime({
    db,
    kinds: { product: { github: { baseUrl: "http://127.0.0.1:9" } } },
    log: silentLogger,
    execution: { networkWorker: { moduleUrl: new URL("../src/main.ts", import.meta.url).href, logLevel: "silent" } },
  });
  try {
    // init, then linger at once: both are held while the worker loads its code, then handled in order.
    const started = runtime.execution.start();
    const lingered = await runtime.execution.linger();
    await started;
    assert.equal(lingered.running, 0, "it lingered after its start, with nothing running");
  } finally {
    await runtime.close();
  }
  using store = openTempStore(db);
  const owners = store.conn.stmt("SELECT count(*) AS n FROM job_owners").get() as { n: number };
  assert.equal(owners.n, 0, "the worker's executor started and stopped, deleting its owner row");
});

Deno.test({
  name: "a stopped worker answers nothing: a request sent after stop() fails at once, not at its timeout",
  // Opt-in since Deno 2.9: the op sanitizer reports the start timeout's timer if it is left pending.
  sanitizeOps: true,
}, async () => {
  await using dir = await tempDir("longcall-worker-stopped-");
  const db = dir.file("x.db");
  const worker = startNetworkWorker({
    db,
    githubBaseUrl: "http://127.0.0.1:9",
    moduleUrl: new URL("../src/main.ts", import.meta.url).href,
    log: silentLogger,
  });
  await worker.executor.entered();
  await worker.executor.stop();
  worker.script.release();
  // The start timeout is WORKER_START_TIMEOUT_MS; the op sanitizer (on for this test) reports its pending timer.
  await assert.rejects(
    worker.executor.start({
      type: "init",
      db,
      github: { baseUrl: "http://127.0.0.1:9" },
      logLevel: "silent",
      executor: {},
    }),
    /network worker: the network worker was stopped/,
  );
  await assert.rejects(Deno.stat(db), Deno.errors.NotFound, "the stopped worker never opened the database");
});
