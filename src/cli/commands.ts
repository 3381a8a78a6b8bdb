/**
 * Every command but `serve`, in the order `longcall --help` lists them after it. src/cli/main.ts
 * takes this module from its entry, so a server's start-up never loads these commands' modules
 * (see {@linkcode CliModules} there).
 *
 * @module
 */

import type { Command } from "./command.ts";
import { githubCommands } from "./github_cmd.ts";
import { jobsCommands } from "./jobs_cmd.ts";
import { permissionsCommand } from "./permissions_cmd.ts";
import { productPolicies } from "./product_kinds.ts";
import { setupCommand } from "./setup_cmd.ts";

/** The commands besides `serve`. */
export function otherCommands(): Command[] {
  return [
    // Reading and cancelling jobs runs no kind; the kinds' policies give their poll guidance and subjects.
    ...jobsCommands(productPolicies()),
    ...githubCommands(),
    permissionsCommand(),
    setupCommand(),
  ];
}
