/**
 * A worker whose code "loads" slowly (a 300 ms await at top level, like the network
 * worker's dynamic import), then says `ready` and echoes every message. With `?hold` it
 * uses the real enterWorker() from src/cli/worker_env.ts first.
 *
 * @module
 */

import { enterWorker } from "../../src/cli/worker_env.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
};
const held = new URL(import.meta.url).searchParams.has("hold") ? enterWorker().held : [];
await new Promise((resolve) => setTimeout(resolve, 300));
const handle = (event: MessageEvent) => scope.postMessage({ echo: event.data });
scope.onmessage = handle;
scope.postMessage({ ready: true });
for (const event of held) handle(event);
