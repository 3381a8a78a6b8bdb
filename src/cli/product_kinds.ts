/**
 * The shipped job kinds and the GitHub configuration, wired to one store. Kept apart from
 * the tools (src/cli/product.ts) so the network worker loads no MCP code, and apart from the
 * kinds' zod input schemas (src/github/*_input.ts, which product.ts passes in) so it loads no zod.
 *
 * @module
 */

import { type Clock, systemClock } from "../base/clock.ts";
import type { Logger } from "../base/log.ts";
import { GITHUB_API_URL_DEFAULT, GitHubClient, SqliteEtagCache } from "../github/client.ts";
import { clientObserver } from "../github/observer.ts";
import type { SyncRequest } from "../github/sync_input.ts";
import { SYNC_KIND, syncKind } from "../github/sync_kind.ts";
import type { WatchRequest } from "../github/watch_input.ts";
import { checksObservationOf, WATCH_KIND, watchKind } from "../github/watch_kind.ts";
import { type AnyJobKind, JobKindRegistry, runOnlyParse } from "../jobs/kinds.ts";
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

/**
 * How the product's kinds validate requests at admission (src/cli/product.ts passes the zod
 * parsers of src/github/*_input.ts), or `"run_only"` for a registry that never admits (the
 * network worker: each job's request was validated when it was admitted).
 */
export type ProductInputs = {
  watch(input: unknown): WatchRequest;
  sync(input: unknown): SyncRequest;
} | "run_only";

/**
 * The product's job kinds over one store. GitHub clients are created per job (per-job counters);
 * `fetch` replaces the global one (tests put a fault between the real client and the fake).
 */
export function productKinds(
  store: Store,
  gh: GitHubConfig,
  log: Logger,
  clock: Clock,
  inputs: ProductInputs,
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
    watchKind({
      parse: inputs === "run_only" ? runOnlyParse(WATCH_KIND) : inputs.watch,
      observer: () => clientObserver(client()),
      saveObservation: async (r) => {
        await corpus.pullRequestChecksPut(checksObservationOf(r));
      },
    }),
    syncKind({ parse: inputs === "run_only" ? runOnlyParse(SYNC_KIND) : inputs.sync, client, corpus: () => corpus }),
  ];
}

/** A registry of the product kinds. */
export function productRegistry(
  store: Store,
  gh: GitHubConfig,
  log: Logger,
  clock: Clock = systemClock,
  inputs: ProductInputs,
  fetch?: typeof globalThis.fetch,
): JobKindRegistry {
  return new JobKindRegistry(productKinds(store, gh, log, clock, inputs, fetch));
}
