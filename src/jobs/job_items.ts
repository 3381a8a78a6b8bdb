/**
 * Protocol-neutral projections of stored jobs: the job item and the `jobs.get` / `jobs.cancel`
 * batches, shared by the MCP tools (src/mcp/tools.ts) and the CLI (src/cli/jobs_cmd.ts). Pure
 * functions over rows plus guidance. The MCP-only JobReference is in src/mcp/job_reference.ts.
 *
 * @module
 */

import { type BatchItem, iso } from "../base/answers.ts";
import type { JobError } from "../base/errors.ts";
import { isJobId } from "../base/ids.ts";
import type { CancelEffect, JobRow } from "../store/job_rows.ts";
import type { Authority, JobControl } from "./control.ts";
import { boundedResult, jobSummary } from "./views.ts";

/** One job as `jobs.get` shows it. */
export interface JobItem {
  id: string;
  kind: string;
  execution_state: "queued" | "running" | "terminal";
  outcome?: string;
  summary: string;
  phase?: string;
  completed_items: number;
  total_items?: number;
  progress_percent?: number;
  retry_after_ms?: number;
  created_at: string;
  started_at?: string;
  completed_at?: string;
  expires_at?: string;
  cancellation_requested: boolean;
  error?: JobError;
  /** Detailed view only. */
  request?: unknown;
  result?: unknown;
  result_truncated?: boolean;
  /** JSON bytes of the stored result left out of `result` (only when `result_truncated`). */
  result_omitted_bytes?: number;
}

/** Why a job read or cancel has no job to show for a key. */
export type JobUnavailableReason = "not_found" | "terminal" | "invalid_id";

/** One entry of a `jobs.get` / `jobs.cancel` answer. */
export interface JobBatchItem extends BatchItem<JobItem, JobUnavailableReason> {
  /** The job's poll guidance, while it can still change. */
  retry_after_ms?: number;
}

/** The `jobs.get` item for a row. */
export function jobItem(
  row: JobRow,
  control: JobControl,
  format: "concise" | "detailed",
  guidance: (row: JobRow) => number | undefined = (r) => control.pollAfterMs(r),
): JobItem {
  const terminal = row.status !== "queued" && row.status !== "running";
  const item: JobItem = {
    id: row.id,
    kind: row.kind,
    execution_state: terminal ? "terminal" : row.status as "queued" | "running",
    summary: jobSummary(row),
    completed_items: row.completed_items,
    created_at: iso(row.created_at),
    cancellation_requested: row.cancel_requested_at !== null,
  };
  if (terminal && row.outcome !== null) item.outcome = row.outcome;
  if (row.phase !== null) item.phase = row.phase;
  // A total of zero (nothing registered yet) says nothing about progress.
  if (row.total_items !== null) {
    item.total_items = row.total_items;
    if (row.total_items > 0) {
      item.progress_percent = Math.min(100, Math.round(row.completed_items / row.total_items * 100));
    }
  }
  const pollMs = guidance(row);
  if (pollMs !== undefined) item.retry_after_ms = pollMs;
  if (row.started_at !== null) item.started_at = iso(row.started_at);
  if (row.completed_at !== null) item.completed_at = iso(row.completed_at);
  if (row.expires_at !== null) item.expires_at = iso(row.expires_at);
  if (row.error !== null) item.error = row.error;
  if (format === "detailed") {
    item.request = row.request;
    if (row.status === "succeeded") {
      const { result, truncated, omittedBytes } = boundedResult(row.result);
      item.result = result;
      item.result_truncated = truncated;
      if (truncated) item.result_omitted_bytes = omittedBytes;
    }
  }
  return item;
}

/** The `jobs.cancel` item for a cancellation effect. */
export function cancelItem(key: string, effect: CancelEffect, control: JobControl): JobBatchItem {
  switch (effect.kind) {
    case "not_found":
      return { key, item_status: "unavailable", reason: "not_found", message: `No job ${key} is visible here` };
    case "terminal":
      return {
        key,
        item_status: "unavailable",
        reason: "terminal",
        message: `Job ${key} already ${effect.row.status}; nothing to cancel`,
        value: jobItem(effect.row, control, "concise"),
      };
    default:
      return { key, item_status: "complete", value: jobItem(effect.row, control, "concise") };
  }
}

/** The id inside a key: `job:<id>` references are accepted as well as bare ids. */
function idOf(key: string): string {
  return key.startsWith("job:") ? key.slice(4) : key;
}

/** The distinct valid job ids among `keys` (invalid keys are answered as items, never waited on). */
export function jobIdsOf(keys: readonly string[]): string[] {
  return [...new Set(keys.map(idOf).filter(isJobId))];
}

const INVALID = (key: string): JobBatchItem => ({
  key,
  item_status: "unavailable",
  reason: "invalid_id",
  message: "Not a job id",
});

/** `jobs.get` for many keys: one isolated item per key, in input order (the CLI and MCP share it). */
export function jobGetItems(
  control: JobControl,
  keys: readonly string[],
  authority: Authority,
  format: "concise" | "detailed",
): JobBatchItem[] {
  // One read for the whole batch, and guidance inputs (queue, recent run times) read once.
  const ids = keys.map(idOf);
  const rows = control.getMany([...new Set(ids.filter(isJobId))], authority, format === "detailed" ? "all" : "concise");
  const guidance = control.guidanceFor();
  return keys.map((key, i) => {
    const id = ids[i] as string;
    if (!isJobId(id)) return INVALID(key);
    const row = rows.get(id);
    if (row === undefined) {
      return { key, item_status: "unavailable", reason: "not_found", message: `No job ${id} is visible here` };
    }
    const value = jobItem(row, control, format, guidance);
    return {
      key,
      item_status: "complete",
      value,
      ...(value.retry_after_ms === undefined ? {} : { retry_after_ms: value.retry_after_ms }),
    };
  });
}

/** `jobs.cancel` for many keys, in input order, each persisted on its own. */
export async function jobCancelItems(
  control: JobControl,
  keys: readonly string[],
  authority: Authority,
): Promise<JobBatchItem[]> {
  const items: JobBatchItem[] = [];
  for (const key of keys) {
    const id = idOf(key);
    items.push(isJobId(id) ? { ...cancelItem(id, await control.cancel(id, authority), control), key } : INVALID(key));
  }
  return items;
}
