/**
 * serve loads its MCP layer after the runtime (and its network worker) exists (src/cli/serve.ts,
 * ServerParts.mcp). What fails meanwhile must stop the server cleanly: a loader that rejects closes
 * the runtime it opened, and a worker whose entry fails during the load, or whose start fails once
 * serving, is reported and ends the process with exit 1, never as an unhandled rejection.
 */

import assert from "node:assert/strict";
import { runServer } from "../src/cli/serve.ts";
import { openTempStore, tempDir } from "../testing/temp.ts";
import { testRegistry } from "../testing/test_kinds.ts";

Deno.test("runServer: an MCP layer that fails to load rejects, and the runtime it opened is closed", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const failure = new Error("Module not found: serving.ts");
  await assert.rejects(
    runServer({ db, http: false, listen: "127.0.0.1:0", readOnly: false, lingerMs: 0 }, {
      kinds: { registry: () => testRegistry() },
      mcp: () => Promise.reject(failure),
      tasks: () => Promise.reject(new Error("never loaded: the MCP layer failed first")),
      tools: () => [],
    }),
    (err) => err === failure,
  );
  // The executor had registered its owner; closing the runtime removed it again.
  using store = openTempStore(db);
  const owners = store.conn.stmt("SELECT count(*) AS n FROM job_owners").get() as { n: number };
  assert.equal(owners.n, 0, "the executor was stopped and its owner row deleted");
});

/**
 * The server thread rejected nothing unhandled: Deno would print `error: Uncaught (in promise)` for it. (It
 * prints the worker's own uncaught error as `error: Uncaught (in worker "longcall-network") ...`.)
 */
function assertNoUnhandledRejection(stderr: string): void {
  // deno-lint-ignore no-control-regex
  const lines = stderr.replace(/\x1b\[[0-9;]*m/g, "").split("\n");
  assert.deepEqual(lines.filter((l) => l.startsWith("error: Uncaught (in promise)")), [], stderr);
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "late-load-test", version: "0" } },
};
const SUBMIT = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "github.sync_threads", arguments: { repositories: ["octocat/hello-world"] } },
};

/**
 * Runs tests/helpers/late_load_server.ts (its flags after `--db`) until it exits: exit code, stdout, stderr.
 * With `lines`, writes them and ends stdin; without, stdin stays open (an `init` refusal needs a serving
 * server). Killed after 20 s, which fails the test: every case ends well before its worker's start timeout.
 */
async function lateLoadServer(flags: string[], lines?: Record<string, unknown>[]) {
  await using dir = await tempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net=127.0.0.1",
      new URL("./helpers/late_load_server.ts", import.meta.url).pathname,
      "--db",
      dir.file("jobs.db"),
      ...flags,
    ],
    env: { LONGCALL_GITHUB_API_URL: "http://127.0.0.1:9", LONGCALL_LOG: "debug" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, 20_000);
  if (lines !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(lines.map((l) => JSON.stringify(l) + "\n").join("")));
    await writer.close();
  }
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  clearTimeout(timer);
  if (lines === undefined) await child.stdin.close().catch(() => {});
  assert.equal(killed, false, `the server did not stop by itself:\n${stderr}`);
  return { code: status.code, stdout, stderr };
}

Deno.test("serve: a network worker whose entry fails while the MCP layer loads stops the server with exit 1, reported", async () => {
  const { code, stdout, stderr } = await lateLoadServer(["--refuse-at", "entry", "--settle-ms", "200"], []);
  assert.equal(code, 1, stderr);
  assertNoUnhandledRejection(stderr);
  // The failure came while the MCP layer loaded: the worker crashed, and the wait for its entry reports it.
  assert.match(stderr, /network worker crashed/, stderr);
  assert.match(stderr, /the network worker could not load; stopping/, stderr);
  assert.doesNotMatch(stderr, /\] serving/, "it never served");
  assert.equal(stdout, "", "nothing reached stdout");
});

Deno.test("serve: a network worker that fails when the start delay starts it stops the serving server with exit 1", async () => {
  const { code, stdout, stderr } = await lateLoadServer(["--refuse-at", "init"]);
  assert.equal(code, 1, stderr);
  assertNoUnhandledRejection(stderr);
  assert.match(stderr, /\] serving/, "it served first");
  assert.match(stderr, /starting the network worker \{"on":"start"\}/, stderr);
  assert.match(stderr, /network worker crashed/, stderr);
  assert.match(stderr, /the network worker could not start; stopping/, stderr);
  assert.equal(stdout, "", "nothing reached stdout");
});

Deno.test("serve: a network worker that crashes after its start stops the serving server with exit 1, reported", async () => {
  // Without it the server went on serving and admitting jobs that nothing in the process would run.
  const { code, stdout, stderr } = await lateLoadServer(["--refuse-at", "later"]);
  assert.equal(code, 1, stderr);
  assertNoUnhandledRejection(stderr);
  assert.match(stderr, /network worker ready/, "it started");
  assert.match(stderr, /network worker crashed/, stderr);
  assert.match(stderr, /the network worker stopped running jobs; stopping/, stderr);
  assert.doesNotMatch(stderr, /could not start/, "reported once, as a failure after the start");
  assert.equal(stdout, "", "nothing reached stdout");
});

Deno.test("serve: a start that a submission made and that fails is reported with exit 1, though the host left before the delay", async () => {
  const { code, stdout, stderr } = await lateLoadServer(["--refuse-at", "init"], [INITIALIZE, SUBMIT]);
  assert.equal(code, 1, stderr);
  assertNoUnhandledRejection(stderr);
  assert.match(stderr, /starting the network worker \{"on":"submission"\}/, stderr);
  assert.match(stderr, /the network worker could not start; stopping/, stderr);
  assert.match(stdout, /"id":2/, "the submission was answered");
});

Deno.test("serve: an embedded worker whose entry fails stops the server at once, not when its start would time out", async () => {
  const { code, stderr } = await lateLoadServer(["--from-memory"]);
  assert.equal(code, 1, stderr);
  assertNoUnhandledRejection(stderr);
  assert.match(stderr, /network worker crashed.*this embedded worker refuses to start/, stderr);
  // Nothing waited for its entry: its failure made the server try the start at once, not at the delay.
  assert.match(stderr, /the network worker's entry failed: starting it now/, stderr);
  assert.match(stderr, /the network worker could not start; stopping/, stderr);
  // Before the fix the start waited for an answer the crashed worker could never give.
  assert.doesNotMatch(stderr, /did not answer init within/, stderr);
});
