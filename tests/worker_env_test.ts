import assert from "node:assert/strict";
import { inWorker } from "../src/cli/worker_env.ts";

/**
 * Posts "early" at once (while the worker's code loads), then "late" once the worker said
 * ready, and collects every reply until "late" comes back: deterministic under any load.
 */
function replies(url: URL): Promise<unknown[]> {
  const worker = new Worker(url, { type: "module" });
  const seen: unknown[] = [];
  return new Promise<unknown[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "late" reply within 30 s: ${JSON.stringify(seen)}`)), 30_000);
    worker.onmessage = (event) => {
      seen.push(event.data);
      if ((event.data as { ready?: boolean }).ready === true) worker.postMessage("late");
      if ((event.data as { echo?: string }).echo === "late") {
        clearTimeout(timer);
        resolve(seen);
      }
    };
    worker.postMessage("early"); // posted before the worker's code finished loading
  }).finally(() => worker.terminate());
}

Deno.test("enterWorker() says entered and keeps a message posted while the worker's code still loads", async () => {
  const seen = await replies(new URL("./helpers/slow_worker.ts?hold", import.meta.url));
  assert.deepEqual(seen, [{ type: "entered" }, { ready: true }, { echo: "early" }, { echo: "late" }]);
});

Deno.test("without enterWorker() such a message is lost (why the entry point holds them)", async () => {
  const seen = await replies(new URL("./helpers/slow_worker.ts", import.meta.url));
  assert.deepEqual(seen, [{ ready: true }, { echo: "late" }]);
});

Deno.test("inWorker() is false on the main thread", () => {
  assert.equal(inWorker(), false);
});
