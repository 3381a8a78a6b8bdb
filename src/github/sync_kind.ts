/**
 * Job kind `github.sync_threads`: reads repository metadata and issue/PR headers
 * (paginated, conditional) into the offline corpus. Each repository is an isolated item
 * with outcome `complete | retryable | unavailable | failed`; the request budget is
 * shared across the whole job. This module holds its name, result types and policy
 * ({@linkcode syncPolicy}); the spec is src/github/sync_spec.ts, the runner sync_runner.ts.
 *
 * @module
 */

import { SYNC_SUBJECT_REPOSITORIES_MAX } from "../base/limits.ts";
import { type AnyJobPolicy, defineJobPolicy } from "../jobs/kinds.ts";
import type { SyncRequest } from "./sync_spec.ts";

export const SYNC_KIND = "github.sync_threads";

/** One repository's outcome. */
export interface SyncItem {
  key: string;
  item_status: "complete" | "retryable" | "unavailable" | "failed";
  reason?: string;
  message?: string;
  retry_after_ms?: number;
  value?: {
    threads_seen: number;
    inserted: number;
    updated: number;
    unchanged: number;
    stale: number;
    /** Every page was read (nothing left behind by the page bound or the limit) and no thread
     * was still moving between pages when the last re-listing was read. */
    listing_complete: boolean;
    /** False when threads still moved between pages after the last re-listing: one inside the synced
     * window may have been skipped (sync again). `listing_complete` is false then too. */
    listing_stable: boolean;
    synced_at: string;
  };
}

export interface SyncResult {
  batch_status: "complete" | "partial";
  items: SyncItem[];
  requests: number;
  not_modified: number;
  budget: { max: number; used: number };
  /** The last rate-limit state GitHub reported (limit, remaining, used, reset_at, resource). */
  rate_limit: Record<string, unknown>;
  authenticated: boolean;
}

/** The sync's policy: a sync with any repository not complete ends `partial`; its subject is its repositories. */
export const syncPolicy: AnyJobPolicy = defineJobPolicy<SyncRequest, SyncResult>({
  kind: SYNC_KIND,
  outcome: (result) => result.batch_status === "complete" ? "succeeded" : "partial",
  subject: ({ repositories }) => {
    const more = repositories.length - SYNC_SUBJECT_REPOSITORIES_MAX;
    return repositories.slice(0, SYNC_SUBJECT_REPOSITORIES_MAX).join(", ") + (more > 0 ? ` (+${more} more)` : "");
  },
});
