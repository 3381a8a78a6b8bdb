/**
 * serve loads its MCP layer after the runtime (and its network worker) exists (src/cli/serve.ts,
 * ServerParts.mcp). What fails meanwhile must stop the server cleanly: a loader that rejects closes
 * the runtime it opened, and a worker whose start fails during the load is reported and ends the
 * process with exit 1, never as an unhandled rejection.
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

Deno.test("serve: a network worker that fails while the MCP layer loads stops the server with exit 1, reported", async () => {
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
      "--settle-ms",
      "200",
    ],
    env: { LONGCALL_GITHUB_API_URL: "http://127.0.0.1:9", LONGCALL_LOG: "info" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await child.stdin.close();
  const { code, stdout, stderr } = await child.output();
  const err = new TextDecoder().decode(stderr);
  assert.equal(code, 1, err);
  assert.doesNotMatch(err, /Uncaught \(in promise\)/, "no unhandled rejection");
  // The failure came while the MCP layer loaded: the worker crashed, and the wait for its code reports it.
  assert.match(err, /network worker crashed/, err);
  assert.match(err, /the network worker could not load; stopping/, err);
  assert.equal(new TextDecoder().decode(stdout), "", "nothing reached stdout");
});
