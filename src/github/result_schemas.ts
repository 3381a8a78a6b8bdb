/**
 * Output schemas of the GitHub job results ({@linkcode WatchResult}, {@linkcode SyncResult}), as
 * clients see them inside a completed task or a `jobs.get` detailed item. Advertised in each tool's
 * `outputSchema` (see src/mcp/tools.ts `jobTool`), so they follow the result types field by field:
 * the compile-time checks at the end fail when a result type gains a field the schema lacks.
 *
 * @module
 */

import { z } from "zod";
import { SYNC_REPOSITORIES_MAX, WATCH_CHECKS_MAX, WATCH_TRANSITIONS_MAX } from "../base/limits.ts";
import type { SyncItem, SyncResult } from "./sync_kind.ts";
import type { Transition, WatchResult } from "./watch_kind.ts";
import type { CheckEntry, ChecksSummary } from "./checks_state.ts";
import type { RateLimitState } from "./rate_limit.ts";

const Count = z.number().int().min(0);

/**
 * `schema` or null, where null means `whenNull`. Spelled as a union with a described null so the
 * advertised schema is `anyOf[{type}, {type: "null"}]`: zod collapses a bare `string | null` into
 * a `type` array, which strict clients (MCP Inspector `--strict`) flag as less portable.
 */
function orNull<S extends z.ZodType>(schema: S, whenNull: string) {
  return z.union([schema, z.null().describe(whenNull)]);
}
const NOT_SEEN = "no rate-limit header seen yet";

/** The last `x-ratelimit-*` state seen ({@linkcode RateLimitState}; `reset_at` in epoch ms). */
export const RateLimitOutput = z.object({
  limit: orNull(Count, NOT_SEEN),
  remaining: orNull(Count, NOT_SEEN),
  used: orNull(Count, NOT_SEEN),
  reset_at: orNull(Count, NOT_SEEN),
  resource: orNull(z.string(), NOT_SEEN),
});

/** One CI signal ({@linkcode CheckEntry}). */
export const CheckEntryOutput = z.object({
  kind: z.enum(["check_run", "status"]),
  name: z.string(),
  status: z.string(),
  conclusion: orNull(z.string(), "still pending"),
  details_url: orNull(z.string(), "GitHub gave no link"),
});

/** Counts of a CI observation ({@linkcode ChecksSummary}). */
export const ChecksSummaryOutput = z.object({ total: Count, pending: Count, passed: Count, failed: Count });

const TransitionOutput = z.object({ at: z.string(), signature: z.string(), summary: ChecksSummaryOutput });

/** The result of `github.wait_pull_request_checks` ({@linkcode WatchResult}). */
export const WatchResultOutput = z.object({
  outcome: z.enum(["succeeded", "failed", "timed_out", "superseded", "no_checks", "changed", "incomplete"]),
  repository: z.string(),
  number: z.number().int().min(1),
  expected_head_sha: z.string(),
  observed_head_sha: z.string(),
  summary: ChecksSummaryOutput,
  signature: z.string(),
  checks: z.array(CheckEntryOutput).max(WATCH_CHECKS_MAX),
  checks_truncated: z.boolean(),
  transitions: z.array(TransitionOutput).max(WATCH_TRANSITIONS_MAX),
  transitions_truncated: z.boolean(),
  polls: Count,
  requests: Count,
  not_modified: Count,
  rate_limit: RateLimitOutput.optional(),
  authenticated: z.boolean(),
  started_at: z.string(),
  finished_at: z.string(),
});

const SyncItemOutput = z.object({
  key: z.string(),
  item_status: z.enum(["complete", "retryable", "unavailable", "failed"]),
  reason: z.string().optional(),
  message: z.string().optional(),
  retry_after_ms: Count.optional(),
  value: z.object({
    threads_seen: Count,
    inserted: Count,
    updated: Count,
    unchanged: Count,
    stale: Count,
    listing_complete: z.boolean(),
    synced_at: z.string(),
  }).optional(),
});

/** The result of `github.sync_threads` ({@linkcode SyncResult}). */
export const SyncResultOutput = z.object({
  batch_status: z.enum(["complete", "partial"]),
  items: z.array(SyncItemOutput).max(SYNC_REPOSITORIES_MAX),
  requests: Count,
  not_modified: Count,
  budget: z.object({ max: Count, used: Count }),
  rate_limit: RateLimitOutput,
  authenticated: z.boolean(),
});

// Compile-time checks: every field of a result type is declared by its schema (an undeclared field
// would be rejected at runtime: the objects are closed, `additionalProperties: false`), and every
// value of a result type is a value of its schema.
type Covers<Schema, T> = [Exclude<keyof T, keyof Schema>] extends [never] ? true : Exclude<keyof T, keyof Schema>;
const covered: [
  Covers<z.output<typeof WatchResultOutput>, WatchResult>,
  Covers<z.output<typeof TransitionOutput>, Transition>,
  Covers<z.output<typeof CheckEntryOutput>, CheckEntry>,
  Covers<z.output<typeof ChecksSummaryOutput>, ChecksSummary>,
  Covers<z.output<typeof RateLimitOutput>, RateLimitState>,
  Covers<z.output<typeof SyncResultOutput>, SyncResult>,
  Covers<z.output<typeof SyncItemOutput>, SyncItem>,
  Covers<NonNullable<z.output<typeof SyncItemOutput>["value"]>, NonNullable<SyncItem["value"]>>,
] = [true, true, true, true, true, true, true, true];
void covered;
const assignable: [
  (r: Omit<WatchResult, "rate_limit">) => Omit<z.input<typeof WatchResultOutput>, "rate_limit">,
  (r: SyncItem) => z.input<typeof SyncItemOutput>,
] = [(r) => r, (r) => r];
void assignable;
