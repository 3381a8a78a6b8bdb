/**
 * The shipped job kinds and the GitHub configuration, wired to one store. Kept apart from
 * the tools (src/cli/product.ts) so the network worker loads no MCP code.
 *
 * @module
 */

import { type Clock, systemClock } from "../base/clock.ts";
import type { Logger } from "../base/log.ts";
import { GITHUB_API_URL_DEFAULT, GitHubClient, SqliteEtagCache } from "../github/client.ts";
import { clientObserver } from "../github/observer.ts";
import { syncKind } from "../github/sync_kind.ts";
import { checksObservationOf, watchKind } from "../github/watch_kind.ts";
import { type AnyJobKind, JobKindRegistry } from "../jobs/kinds.ts";
import { CorpusRows } from "../store/corpus_rows.ts";
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

/** The product's job kinds over one store. GitHub clients are created per job (per-job counters). */
export function productKinds(
  store: Store,
  gh: GitHubConfig,
  log: Logger,
  clock: Clock = systemClock,
): AnyJobKind[] {
  const corpus = new CorpusRows(store.conn);
  const etags = new SqliteEtagCache(store.conn, clock);
  const client = () =>
    new GitHubClient({
      baseUrl: gh.baseUrl,
      ...(gh.token === undefined ? {} : { token: gh.token }),
      clock,
      log: log.child("github"),
      etagCache: etags,
    });
  return [
    watchKind({
      observer: () => clientObserver(client()),
      saveObservation: async (r) => {
        await corpus.pullRequestChecksPut(checksObservationOf(r));
      },
    }),
    syncKind({ client, corpus: () => corpus }),
  ];
}

/** A registry of the product kinds. */
export function productRegistry(store: Store, gh: GitHubConfig, log: Logger, clock?: Clock): JobKindRegistry {
  return new JobKindRegistry(productKinds(store, gh, log, clock));
}
