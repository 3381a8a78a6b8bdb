/**
 * The shipped job kinds' runners, wired to one store and the GitHub configuration: what a process
 * that executes the product's jobs needs (the network worker, the blocking CLI commands, in-process
 * test servers). From source, a serving thread whose jobs run in the network worker never loads this
 * module or the GitHub client behind it (the bundle evaluates it with the other commands, which its
 * entry imports statically); it admits with the kinds' policies alone (src/cli/product_kinds.ts),
 * and whoever executes hands {@linkcode productRegistry} to the runtime
 * (`kinds.product.runners`, src/cli/runtime.ts). No MCP code and no zod.
 *
 * @module
 */

import { type Clock, systemClock } from "../base/clock.ts";
import type { Logger } from "../base/log.ts";
import { GitHubClient, SqliteEtagCache } from "../github/client.ts";
import { clientObserver } from "../github/observer.ts";
import { newRateGate } from "../github/retry_policy.ts";
import { syncRunner } from "../github/sync_runner.ts";
import { checksObservationOf } from "../github/watch_kind.ts";
import { watchRunner } from "../github/watch_runner.ts";
import { type AnyJobKind, JobKindRegistry } from "../jobs/kinds.ts";
import type { Store } from "../store/store.ts";
import type { GitHubConfig } from "./product_kinds.ts";

/** What the product's runners run with, besides their store. */
export interface ProductRunnersOptions {
  /** Where GitHub is, and the token. */
  github: GitHubConfig;
  log: Logger;
  /** The clock the runners (and the ETag cache) run on; default the system clock. */
  clock?: Clock;
  /** Replaces the global fetch (tests put a fault between the real client and the fake). */
  fetch?: typeof globalThis.fetch;
}

/**
 * The product's runnable kinds over one store. GitHub clients are created per job (per-job
 * counters) and share one rate-limit gate; `options.fetch` replaces the global one (tests put a fault
 * between the real client and the fake).
 */
export function productKinds(store: Store, options: ProductRunnersOptions): AnyJobKind[] {
  const { github: gh, log, clock = systemClock, fetch } = options;
  const corpus = store.corpus;
  const etags = new SqliteEtagCache(store.etags, clock);
  // One token, one limit: a job that learns it is spent holds the others' requests too.
  const rateGate = newRateGate();
  const client = () =>
    new GitHubClient({
      baseUrl: gh.baseUrl,
      ...(gh.token === undefined ? {} : { token: gh.token }),
      ...(fetch === undefined ? {} : { fetch }),
      clock,
      log: log.child("github"),
      etagCache: etags,
      rateGate,
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
export function productRegistry(store: Store, options: ProductRunnersOptions): JobKindRegistry {
  return new JobKindRegistry(productKinds(store, options));
}
