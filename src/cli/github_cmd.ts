/**
 * The terminal route to the GitHub workloads: `longcall checks watch` (src/cli/checks_watch_cmd.ts)
 * and `longcall sync` (src/cli/sync_cmd.ts) submit the same job kinds the MCP server runs and follow
 * them in this process (src/cli/follow_job.ts); `longcall search` (src/cli/search_cmd.ts) reads the
 * corpus offline.
 *
 * @module
 */

import { checksWatchCommand } from "./checks_watch_cmd.ts";
import type { Command } from "./command.ts";
import { searchCommand } from "./search_cmd.ts";
import { syncCommand } from "./sync_cmd.ts";

/** `checks watch`, `sync` and `search`. */
export function githubCommands(): Command[] {
  return [checksWatchCommand(), syncCommand(), searchCommand()];
}
