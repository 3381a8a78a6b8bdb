import assert from "node:assert/strict";
import { inWorker } from "../src/cli/worker_env.ts";

function firstReply(url: URL): Promise<unknown> {
  const worker = new Worker(url, { type: "module" });
  return new Promise<unknown>((resolve) => {
    const timer = setTimeout(() => resolve("no reply"), 2_000);
    worker.onmessage = (event) => {
      clearTimeout(timer);
      resolve(event.data);
    };
    worker.postMessage("init"); // posted before the worker's code finished loading
  }).finally(() => worker.terminate());
}

Deno.test("holdWorkerMessages() keeps a message posted while the worker's code still loads", async () => {
  const url = new URL("./helpers/slow_worker.ts?hold", import.meta.url);
  assert.deepEqual(await firstReply(url), { echo: "init" });
});

Deno.test("without holdWorkerMessages() such a message is lost (why the entry point holds them)", async () => {
  const url = new URL("./helpers/slow_worker.ts", import.meta.url);
  assert.equal(await firstReply(url), "no reply");
});

Deno.test("inWorker() is false on the main thread", () => {
  assert.equal(inWorker(), false);
});
