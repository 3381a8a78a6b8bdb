/**
 * Protocol-neutral views of a job shared by every projection (CLI, jobs.get, tasks):
 * a one-line summary and a bounded result.
 *
 * @module
 */

import { shrinkJson } from "../base/json_bound.ts";
import { JOB_RESULT_VIEW_BYTES_MAX } from "../base/limits.ts";
import type { JobRow } from "../store/job_rows.ts";

/** Human summary of where a job stands. */
export function jobSummary(row: JobRow): string {
  const counts = row.total_items !== null
    ? ` (${row.completed_items}/${row.total_items})`
    : row.completed_items > 0
    ? ` (${row.completed_items} done)`
    : "";
  switch (row.status) {
    case "queued":
      return `${row.kind} is queued`;
    case "running": {
      const phase = row.phase === null ? "running" : row.phase.replaceAll("_", " ");
      const message = row.progress_message === null ? "" : `: ${row.progress_message}`;
      const cancel = row.cancel_requested_at === null ? "" : " (cancellation requested)";
      return `${row.kind} ${phase}${counts}${message}${cancel}`;
    }
    case "succeeded":
      // Progress counts are the last report before the end; the result is authoritative now.
      return row.outcome === null || row.outcome === "succeeded"
        ? `${row.kind} succeeded`
        : `${row.kind} finished with outcome ${row.outcome}`;
    case "failed":
      return `${row.kind} failed: ${row.error?.message ?? "unknown error"}`;
    case "cancelled":
      return `${row.kind} was cancelled`;
  }
}

/**
 * Result JSON bounded for embedding in a view: a result over `bytesMax` is shortened into a
 * valid value of the same shape (strings keep a prefix, lists their first entries; see
 * src/base/json_bound.ts), with `omittedBytes` saying how much was left out.
 */
export function boundedResult(result: unknown, bytesMax = JOB_RESULT_VIEW_BYTES_MAX): {
  result: unknown;
  truncated: boolean;
  omittedBytes: number;
} {
  const { value, omittedBytes } = shrinkJson(result ?? null, bytesMax);
  return { result: omittedBytes === 0 ? result : value, truncated: omittedBytes > 0, omittedBytes };
}
