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

/** Runs tests/helpers/late_load_server.ts with its stdin closed: exit code, stdout, stderr. */
async function lateLoadServer(refuseAt: "entry" | "init") {
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
      "--refuse-at",
      refuseAt,
      "--settle-ms",
      "200",
    ],
    env: { LONGCALL_GITHUB_API_URL: "http://127.0.0.1:9", LONGCALL_LOG: "info" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // With stdin held open for `init` (the server must be serving when it starts its worker).
  if (refuseAt === "entry") await child.stdin.close();
  const { code, stdout, stderr } = await child.output();
  return { code, stdout: new TextDecoder().decode(stdout), stderr: new TextDecoder().decode(stderr) };
}

Deno.test("serve: a network worker whose entry fails while the MCP layer loads stops the server with exit 1, reported", async () => {
  const { code, stdout, stderr } = await lateLoadServer("entry");
  assert.equal(code, 1, stderr);
  assertNoUnhandledRejection(stderr);
  // The failure came while the MCP layer loaded: the worker crashed, and the wait for its entry reports it.
  assert.match(stderr, /network worker crashed/, stderr);
  assert.match(stderr, /the network worker could not load; stopping/, stderr);
  assert.doesNotMatch(stderr, /"serving"|\] serving/, "it never served");
  assert.equal(stdout, "", "nothing reached stdout");
});

Deno.test("serve: a network worker that fails when it is started stops the serving server with exit 1, reported", async () => {
  const { code, stdout, stderr } = await lateLoadServer("init");
  assert.equal(code, 1, stderr);
  assertNoUnhandledRejection(stderr);
  assert.match(stderr, /\] serving/, "it served first");
  assert.match(stderr, /network worker crashed/, stderr);
  assert.match(stderr, /the network worker could not start; stopping/, stderr);
  assert.equal(stdout, "", "nothing reached stdout");
});
