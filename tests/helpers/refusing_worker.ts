/**
 * A network worker that fails: with `?at=entry` its entry throws before it runs (it never says
 * `entered`, as a worker whose code cannot load); with `?at=init` it enters, then throws on its first
 * message (the runtime's `init`), as a worker whose start fails. tests/serve_late_load_test.ts starts a
 * server with it. Right before it throws it says so on the {@linkcode REFUSING_CHANNEL} broadcast channel.
 */

import { enterWorker, inWorker } from "../../src/cli/worker_env.ts";

/** The broadcast channel the refusing worker announces its failure on. */
export const REFUSING_CHANNEL = "longcall-test-refusing-worker";

function refuse(): never {
  const channel = new BroadcastChannel(REFUSING_CHANNEL);
  channel.postMessage("refusing");
  channel.close();
  throw new Error("this worker refuses to start");
}

// Imported by the test server too (for the channel's name): only a worker refuses. No top-level await, so
// either throw is the worker's uncaught error, not a rejection.
if (inWorker()) {
  if (new URL(import.meta.url).searchParams.get("at") === "entry") refuse();
  enterWorker();
  (self as unknown as { onmessage: () => void }).onmessage = refuse;
}
