/**
 * The shipped job kinds as a process that only admits them sees them: their policies, and where
 * GitHub is. The runners that execute them are src/cli/product_runners.ts, loaded only where jobs
 * run. No MCP code and no zod (the specs are src/github/*_spec.ts): the network worker loads this
 * module too.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { apiRoot, GITHUB_API_URL_DEFAULT } from "../github/api_root.ts";
import { syncPolicy } from "../github/sync_kind.ts";
import { watchPolicy } from "../github/watch_kind.ts";
import type { AnyJobPolicy } from "../jobs/kinds.ts";
import { envGet, type EnvVar } from "./config.ts";

/** Where GitHub is and how to authenticate. The token is never stored or logged. */
export interface GitHubConfig {
  baseUrl: string;
  token?: string | undefined;
}

/** A host's configuration placeholder left unsubstituted, such as `${user_config.github_token}`. */
const UNFILLED_PLACEHOLDER = /^\$\{[A-Za-z_][\w.]*\}$/;

/** The characters a token may hold: visible ASCII, as an HTTP header value carries it and every GitHub token is. */
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

/**
 * Reads GitHub configuration: `LONGCALL_GITHUB_API_URL`, `GITHUB_TOKEN` / `GH_TOKEN`, `LONGCALL_GITHUB_TOKEN_FILE`,
 * checked now, so a command or a server refuses a bad value at start (exit 2, the variable named) instead of
 * admitting jobs that fail with it later, or storing it in them. Messages never show the token, nor any
 * credentials in the URL.
 *
 * @throws {AppError} `invalid_argument` for an API URL {@linkcode apiRoot} refuses, a token file that cannot
 *   be read, or a token holding a character an HTTP header cannot carry.
 */
export function githubConfigFromEnv(): GitHubConfig {
  const token = tokenFromEnv();
  const baseUrl = apiUrlFromEnv();
  try {
    apiRoot(baseUrl, { token, name: "LONGCALL_GITHUB_API_URL" });
  } catch (err) {
    throw new AppError("invalid_argument", err instanceof Error ? err.message : String(err));
  }
  return { baseUrl, token };
}

/** The GitHub API root as configured (`LONGCALL_GITHUB_API_URL`, else api.github.com), not yet checked. */
export function apiUrlFromEnv(): string {
  return envGet("LONGCALL_GITHUB_API_URL") ?? GITHUB_API_URL_DEFAULT;
}

/** The token and the variable it came from: GITHUB_TOKEN, else GH_TOKEN, else the file LONGCALL_GITHUB_TOKEN_FILE names. */
function tokenFromEnv(): string | undefined {
  // Surrounding whitespace is dropped, as HTTP drops it from a header value (`$(cat file)` keeps a \r).
  // A host's unfilled placeholder (an .mcpb bundle's `${user_config.github_token}`, left empty by the user) is no
  // token: sent, it would make every request a 401 instead of an anonymous one.
  const trimmed = (name: EnvVar) => {
    const value = envGet(name)?.trim() || undefined;
    return value !== undefined && UNFILLED_PLACEHOLDER.test(value) ? undefined : value;
  };
  let source: EnvVar = "GITHUB_TOKEN";
  let token = trimmed(source);
  if (token === undefined) token = trimmed(source = "GH_TOKEN");
  const file = envGet("LONGCALL_GITHUB_TOKEN_FILE");
  if (token === undefined && file !== undefined) {
    source = "LONGCALL_GITHUB_TOKEN_FILE";
    try {
      token = Deno.readTextFileSync(file).trim() || undefined;
    } catch (err) {
      throw new AppError(
        "invalid_argument",
        `Cannot read the GitHub token from the file LONGCALL_GITHUB_TOKEN_FILE names: ${
          err instanceof Error ? err.message : String(err)
        }`,
      );
    }
  }
  if (token !== undefined && !TOKEN_CHARS.test(token)) {
    throw new AppError(
      "invalid_argument",
      `Cannot use the GitHub token from ${source}: it holds a character an HTTP header cannot carry ` +
        "(a space, a line break, a control or non-ASCII character); the token is not shown",
    );
  }
  return token;
}

/** The policies of the product's kinds: what a control side needs when its jobs run elsewhere (the network worker). */
export function productPolicies(): AnyJobPolicy[] {
  return [watchPolicy, syncPolicy];
}
