/**
 * The shipped job kinds' runners and the GitHub configuration, wired to one store (where jobs
 * execute), and their policies alone (where they are only admitted). No MCP code (the tools are
 * src/mcp/product_tools.ts) and no zod (the specs are src/github/*_spec.ts): the network worker
 * loads this module.
 *
 * @module
 */

import { type Clock, systemClock } from "../base/clock.ts";
import type { Logger } from "../base/log.ts";
import { GITHUB_API_URL_DEFAULT, GitHubClient, SqliteEtagCache } from "../github/client.ts";
import { clientObserver } from "../github/observer.ts";
import { syncPolicy } from "../github/sync_kind.ts";
import { syncRunner } from "../github/sync_runner.ts";
import { checksObservationOf, watchPolicy } from "../github/watch_kind.ts";
import { watchRunner } from "../github/watch_runner.ts";
import { type AnyJobKind, type AnyJobPolicy, JobKindRegistry } from "../jobs/kinds.ts";
import type { Store } from "../store/store.ts";
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

/**
 * The product's runnable kinds over one store. GitHub clients are created per job (per-job
 * counters); `fetch` replaces the global one (tests put a fault between the real client and the fake).
 */
export function productKinds(
  store: Store,
  gh: GitHubConfig,
  log: Logger,
  clock: Clock,
  fetch?: typeof globalThis.fetch,
): AnyJobKind[] {
  const corpus = store.corpus;
  const etags = new SqliteEtagCache(store.etags, clock);
  const client = () =>
    new GitHubClient({
      baseUrl: gh.baseUrl,
      ...(gh.token === undefined ? {} : { token: gh.token }),
      ...(fetch === undefined ? {} : { fetch }),
      clock,
      log: log.child("github"),
      etagCache: etags,
    });
  return [
    watchRunner({
      observer: () => clientObserver(client()),
      saveObservation: async (r) => {
        await corpus.pullRequestChecksPut(checksObservationOf(r));
      },
    }),
    syncRunner({ client, corpus: () => corpus }),
  ];
}

/** A registry of the product's runnable kinds. */
export function productRegistry(
  store: Store,
  gh: GitHubConfig,
  log: Logger,
  clock: Clock = systemClock,
  fetch?: typeof globalThis.fetch,
): JobKindRegistry {
  return new JobKindRegistry(productKinds(store, gh, log, clock, fetch));
}
