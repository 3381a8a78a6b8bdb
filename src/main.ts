/**
 * longcall's entry point for `deno run`, `deno compile` and the bundle. The same module
 * is the network worker's entry (the server starts it with `new Worker(Deno.mainModule)`),
 * so a single file or binary carries both.
 *
 * @module
 */

import { run } from "./cli/main.ts";
import { inWorker, runNetworkWorker } from "./cli/network_worker.ts";

if (inWorker()) runNetworkWorker();
else if (import.meta.main) await run();
