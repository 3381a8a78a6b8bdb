/**
 * The shipped job kinds as a process that only admits them sees them: their policies, and where
 * GitHub is. The runners that execute them are src/cli/product_runners.ts, loaded only where jobs
 * run. No MCP code and no zod (the specs are src/github/*_spec.ts): the network worker loads this
 * module too.
 *
 * @module
 */

import { GITHUB_API_URL_DEFAULT } from "../github/api_root.ts";
import { syncPolicy } from "../github/sync_kind.ts";
import { watchPolicy } from "../github/watch_kind.ts";
import type { AnyJobPolicy } from "../jobs/kinds.ts";
import { envGet } from "./config.ts";

/** Where GitHub is and how to authenticate. The token is never stored or logged. */
export interface GitHubConfig {
  baseUrl: string;
  token?: string | undefined;
}

/** Reads GitHub configuration: `LONGCALL_GITHUB_API_URL`, `GITHUB_TOKEN` / `GH_TOKEN`, `LONGCALL_GITHUB_TOKEN_FILE`. */
export function githubConfigFromEnv(): GitHubConfig {
  let token = envGet("GITHUB_TOKEN") ?? envGet("GH_TOKEN");
  const file = envGet("LONGCALL_GITHUB_TOKEN_FILE");
  if (token === undefined && file !== undefined) {
    token = Deno.readTextFileSync(file).trim() || undefined;
  }
  return { baseUrl: envGet("LONGCALL_GITHUB_API_URL") ?? GITHUB_API_URL_DEFAULT, token };
}

/** The policies of the product's kinds: what a control side needs when its jobs run elsewhere (the network worker). */
export function productPolicies(): AnyJobPolicy[] {
  return [watchPolicy, syncPolicy];
}
