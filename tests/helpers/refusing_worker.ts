/**
 * A network worker that fails: with `?at=entry` its entry throws before it runs (it never says
 * `entered`, as a worker whose code cannot load); with `?at=init` it enters, then throws on its first
 * message (the runtime's `init`), as a worker whose start fails; with `?at=later` it answers `init` ready, then
 * throws 200 ms later, as a worker that crashes while the server serves. tests/serve_late_load_test.ts starts a
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
  const at = new URL(import.meta.url).searchParams.get("at");
  if (at === "entry") refuse();
  enterWorker();
  if (at === "later") {
    // Starts as a worker that runs nothing (ready to the runtime's init), then crashes a moment later: as a
    // worker whose code hits an uncaught error after the server has been serving with it.
    const scope = self as unknown as { onmessage: () => void; postMessage(message: unknown): void };
    scope.onmessage = () => {
      scope.postMessage({ type: "ready", ownerId: "refusing-worker" });
      setTimeout(refuse, 200);
    };
  } else (self as unknown as { onmessage: () => void }).onmessage = refuse;
}
