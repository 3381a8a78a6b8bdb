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
  // its network worker exists, the Tasks extension's adapter at its first modern connection, and no
  // command but `serve` when serving. The MCP layer and the adapter are this entry's imports outside cli/
  // (dynamic ones, handed to cli/main.ts as loaders); the bundle's generated entry (scripts/build.ts)
  // hands over the same modules imported statically. The adapter loads after the serving thread has
  // given up its read permission: Deno loads a dynamic import whose specifier is a string literal with the
  // module graph it builds at start-up, checking no permission then (its own test:
  // tests/specs/run/dynamic_import_static_analysis_no_permissions).
  await (await import("./cli/main.ts")).run({
    mcp: () => import("./mcp/serving.ts"),
    commands: () => import("./cli/commands.ts"),
    tasks: () => import("./tasks/adapter.ts"),
  });
}
