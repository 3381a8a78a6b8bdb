/**
 * longcall's entry point for `deno run`, `deno compile` and the bundle. From source and in a
 * compiled binary the same module is also the network worker's entry (the server starts it with
 * `new Worker(Deno.mainModule)`); the bundle embeds src/cli/network_worker_entry.ts instead and
 * starts it from memory (src/cli/worker_script.ts). Each role loads only its own code: the worker
 * never loads the MCP SDK, the CLI never loads the worker.
 *
 * @module
 */

import { enterWorker, inWorker } from "./cli/worker_env.ts";

if (inWorker()) {
  // Messages that arrive while the worker's code loads would find no handler and be lost. The code loads on
  // the first one (the server sends it once it serves, see src/cli/serve.ts), so it does not compete with the
  // serving thread's own start-up; a dynamic import is checked against the worker's grants, not the server's.
  const entry = enterWorker();
  await entry.first;
  (await import("./cli/network_worker.ts")).runNetworkWorker(entry.held);
} else if (import.meta.main) {
  // Loaded when asked for (see CliModules in src/cli/main.ts): `serve` imports the MCP layer once
  // its network worker exists, and no command but `serve` when serving. The MCP layer is this entry's
  // one import outside cli/ (a dynamic one, handed to cli/main.ts as a loader); the bundle's generated
  // entry (scripts/build.ts) hands over the same two modules imported statically.
  await (await import("./cli/main.ts")).run({
    mcp: () => import("./mcp/serving.ts"),
    commands: () => import("./cli/commands.ts"),
  });
}
