/**
 * Output schemas of the GitHub job results ({@linkcode WatchResult}, {@linkcode SyncResult}), as
 * clients see them inside a completed task or a `jobs.get` detailed item. Advertised in each tool's
 * `outputSchema` (see src/mcp/tools.ts `jobTool`), so they follow the result types field by field:
 * the compile-time checks at the end fail when a result type gains a field the schema lacks.
 *
 * @module
 */

import { z } from "zod";
import { once } from "../base/once.ts";
import type { Covers } from "../base/validation.ts";
import {
  SYNC_REPOSITORIES_MAX,
  WATCH_CHECKS_MAX,
  WATCH_FAILURE_ANNOTATIONS_MAX,
  WATCH_FAILURE_DETAILS_MAX,
  WATCH_REQUIRED_CHECKS_MAX,
  WATCH_TRANSITIONS_MAX,
} from "../base/limits.ts";
import type { SyncItem, SyncResult } from "./sync_kind.ts";
import {
  type AnonymousCost,
  type FailureAnnotation,
  type FailureDetail,
  type Transition,
  WATCH_OUTCOMES,
  type WatchOutcome,
  type WatchResult,
} from "./watch_kind.ts";
import type { CheckEntry, ChecksSummary, SuitesSummary } from "./checks_state.ts";
import type { RateLimitState } from "./rate_limit.ts";

/**
 * Builds every result schema at once, on first use (see {@linkcode watchResultOutput}): nothing
 * before the first request reads them (tools/list answers from precomputed JSON Schemas,
 * src/mcp/tool_schemas.json), and
 * building them took about 8 ms of start-up at module load.
 */
const schemas = once(() => {
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
  const RateLimitOutput = z.object({
    limit: orNull(Count, NOT_SEEN),
    remaining: orNull(Count, NOT_SEEN),
    used: orNull(Count, NOT_SEEN),
    reset_at: orNull(Count, NOT_SEEN),
    resource: orNull(z.string(), NOT_SEEN),
  });

  /** One CI signal ({@linkcode CheckEntry}). */
  const CheckEntryOutput = z.object({
    kind: z.enum(["check_run", "status", "expected"]),
    name: z.string(),
    status: z.string(),
    conclusion: orNull(z.string(), "still pending"),
    details_url: orNull(z.string(), "GitHub gave no link"),
    app: orNull(z.string(), "not a check run").optional(),
    id: z.number().int().optional(),
  });

  /** A commit's check suites ({@linkcode SuitesSummary}). */
  const SuitesSummaryOutput = z.object({ total: Count, pending: Count, action_required: Count, idle: Count });

  /** One annotation of a failing check run ({@linkcode FailureAnnotation}). */
  const FailureAnnotationOutput = z.object({
    path: z.string(),
    start_line: z.number().int(),
    end_line: z.number().int(),
    annotation_level: orNull(z.string(), "GitHub gave no level"),
    title: orNull(z.string(), "no title"),
    message: z.string(),
  });

  /** Why one check failed ({@linkcode FailureDetail}). */
  const FailureDetailOutput = z.object({
    kind: z.enum(["check_run", "status"]),
    name: z.string(),
    app: orNull(z.string(), "a commit status"),
    conclusion: z.string(),
    html_url: orNull(z.string(), "a commit status"),
    details_url: orNull(z.string(), "GitHub gave no link"),
    title: orNull(z.string(), "no title"),
    summary: orNull(z.string(), "no summary"),
    summary_truncated: z.boolean(),
    annotations_count: Count,
    annotations: z.array(FailureAnnotationOutput).max(WATCH_FAILURE_ANNOTATIONS_MAX),
    annotations_error: z.string().optional(),
  });

  /** What an anonymous watch cost ({@linkcode AnonymousCost}). */
  const AnonymousCostOutput = z.object({
    counted_not_modified: Count,
    counted_per_poll: z.number().min(0),
    counted_per_hour_at_interval: z.number().min(0),
    hourly_limit: Count,
    paced_polls: Count,
    note: z.string(),
  });

  /** Counts of a CI observation ({@linkcode ChecksSummary}). */
  const ChecksSummaryOutput = z.object({ total: Count, pending: Count, passed: Count, failed: Count });

  const TransitionOutput = z.object({ at: z.string(), signature: z.string(), summary: ChecksSummaryOutput });

  /** The result of `github.wait_pull_request_checks` ({@linkcode WatchResult}). */
  const WatchResultOutput = z.object({
    outcome: z.enum(WATCH_OUTCOMES as [WatchOutcome, ...WatchOutcome[]]),
    reason: z.string(),
    repository: z.string(),
    number: z.number().int().min(1),
    expected_head_sha: z.string(),
    observed_head_sha: z.string(),
    pull_state: z.string(),
    merged: z.boolean(),
    required_only: z.boolean(),
    required_checks: z.array(z.string()).max(WATCH_REQUIRED_CHECKS_MAX).optional(),
    summary: ChecksSummaryOutput,
    suites: SuitesSummaryOutput,
    duplicates_dropped: Count,
    coverage_gaps: z.array(z.string()),
    failures: z.array(FailureDetailOutput).max(WATCH_FAILURE_DETAILS_MAX),
    failures_truncated: z.boolean(),
    signature: z.string(),
    checks: z.array(CheckEntryOutput).max(WATCH_CHECKS_MAX),
    checks_truncated: z.boolean(),
    transitions: z.array(TransitionOutput).max(WATCH_TRANSITIONS_MAX),
    transitions_truncated: z.boolean(),
    polls: Count,
    requests: Count,
    not_modified: Count,
    not_modified_counted: Count,
    rate_limit: RateLimitOutput.optional(),
    authenticated: z.boolean(),
    anonymous_cost: AnonymousCostOutput.optional(),
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
      listing_stable: z.boolean(),
      synced_at: z.string(),
    }).optional(),
  });

  /** The result of `github.sync_threads` ({@linkcode SyncResult}). */
  const SyncResultOutput = z.object({
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
  const covered: [
    Covers<z.output<typeof WatchResultOutput>, WatchResult>,
    Covers<z.output<typeof TransitionOutput>, Transition>,
    Covers<z.output<typeof CheckEntryOutput>, CheckEntry>,
    Covers<z.output<typeof ChecksSummaryOutput>, ChecksSummary>,
    Covers<z.output<typeof RateLimitOutput>, RateLimitState>,
    Covers<z.output<typeof SyncResultOutput>, SyncResult>,
    Covers<z.output<typeof SyncItemOutput>, SyncItem>,
    Covers<z.output<typeof SuitesSummaryOutput>, SuitesSummary>,
    Covers<z.output<typeof FailureDetailOutput>, FailureDetail>,
    Covers<z.output<typeof FailureAnnotationOutput>, FailureAnnotation>,
    Covers<z.output<typeof AnonymousCostOutput>, AnonymousCost>,
    Covers<NonNullable<z.output<typeof SyncItemOutput>["value"]>, NonNullable<SyncItem["value"]>>,
  ] = [true, true, true, true, true, true, true, true, true, true, true, true];
  void covered;
  const assignable: [
    (r: Omit<WatchResult, "rate_limit">) => Omit<z.input<typeof WatchResultOutput>, "rate_limit">,
    (r: SyncItem) => z.input<typeof SyncItemOutput>,
  ] = [(r) => r, (r) => r];
  void assignable;
  return { CheckEntryOutput, WatchResultOutput, SyncResultOutput };
});

/** The result of `github.wait_pull_request_checks` ({@linkcode WatchResult}), built on first use. */
export const watchResultOutput = (): z.ZodType => schemas().WatchResultOutput;
/** The result of `github.sync_threads` ({@linkcode SyncResult}), built on first use. */
export const syncResultOutput = (): z.ZodType => schemas().SyncResultOutput;
/** One CI signal ({@linkcode CheckEntry}), built on first use. */
export const checkEntryOutput = (): z.ZodType => schemas().CheckEntryOutput;
