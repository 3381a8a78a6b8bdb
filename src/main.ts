/**
 * longcall's entry point for `deno run`, `deno compile` and the bundle. The same module
 * is the network worker's entry (the server starts it with `new Worker(Deno.mainModule)`),
 * so a single file or binary carries both. Each role loads only its own code: the worker
 * never loads the MCP SDK, the CLI never loads the worker.
 *
 * @module
 */

import { holdWorkerMessages, inWorker } from "./cli/worker_env.ts";

if (inWorker()) {
  // Messages that arrive while the worker's code loads would find no handler and be lost.
  const held = holdWorkerMessages();
  (await import("./cli/network_worker.ts")).runNetworkWorker(held);
} else if (import.meta.main) {
  await (await import("./cli/main.ts")).run();
}
