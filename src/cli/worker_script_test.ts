/**
 * src/cli/worker_script.ts: where the network worker's code comes from. From source, the entry
 * module's URL and its directory as the one read the worker needs; once the bundle embedded its
 * script, a `blob:` URL that needs no read, released on demand. Embedding is refused when empty
 * or a second time. The tests run in order: the embedded state is the module's own.
 */

import assert from "node:assert/strict";
import { embedWorkerScript, networkWorkerScript } from "./worker_script.ts";

Deno.test("networkWorkerScript from source: the module URL itself, and its directory as the code read", () => {
  const script = networkWorkerScript("file:///opt/longcall/src/cli/network_worker_entry.ts");
  assert.equal(script.url, "file:///opt/longcall/src/cli/network_worker_entry.ts");
  assert.equal(script.fromMemory, false);
  assert.deepEqual(script.codeReads, ["/opt/longcall/src/cli"]);
  script.release();
  const remote = networkWorkerScript("https://example.invalid/x/entry.js");
  assert.deepEqual(remote.codeReads, ["https://example.invalid/x/"], "a non-file URL: its directory prefix");
});

Deno.test("embedWorkerScript: empty code is refused with TypeError and embeds nothing", () => {
  assert.throws(
    () => embedWorkerScript(""),
    (err: unknown) =>
      err instanceof TypeError && err.message === "Cannot embed the worker script: current value is empty",
  );
  assert.equal(networkWorkerScript("file:///a/b.ts").fromMemory, false);
});

Deno.test("networkWorkerScript once embedded: a blob: URL of the code, no reads; a second embed is refused", () => {
  const code = "self.postMessage('embedded');";
  embedWorkerScript(code);
  const script = networkWorkerScript("file:///ignored/entry.ts");
  assert.equal(script.fromMemory, true);
  assert.deepEqual(script.codeReads, []);
  assert.match(script.url, /^blob:/);
  // (Reading the blob back needs fetch, which only github/transport.ts may call; tests/runtime_test.ts
  // starts the worker for real.)
  const other = networkWorkerScript("file:///ignored/entry.ts");
  assert.notEqual(other.url, script.url, "each start gets its own blob URL");
  script.release();
  other.release();
  assert.throws(
    () => embedWorkerScript(code),
    (err: unknown) =>
      err instanceof TypeError && err.message === "Cannot embed the worker script: it is already embedded",
  );
});
