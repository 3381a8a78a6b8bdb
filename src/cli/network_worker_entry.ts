/**
 * The network worker's entry in the shipped bundle. `deno task bundle` (scripts/build.ts)
 * bundles this module into one self-contained script and embeds it in dist/longcall.js as a
 * string (src/cli/worker_script.ts); the server starts the worker from that string through a
 * `blob:` URL, so the worker reads no file to load its code. From source the worker starts from
 * src/main.ts instead (same code, loaded module by module).
 *
 * @module
 */

import { runNetworkWorker } from "./network_worker.ts";
import { enterWorker } from "./worker_env.ts";

// Evaluated as one script, the code is here already: the messages are handled as they come.
runNetworkWorker(enterWorker().held);
