/**
 * The protocol-neutral projections of a stored job, in one place: pure functions from a row (plus
 * the guidance computed once for the answer, src/jobs/guidance.ts) to what every caller shows.
 *
 * - {@linkcode jobSummary} and {@linkcode boundedResult}: the one-line summary and the result within
 *   the detailed view's bound, shared by every projection below and by the task's.
 * - {@linkcode jobHandle}: what every follow-up handle of a job shares (id, status, poll guidance,
 *   ttl, ISO times): the MCP JobReference (src/mcp/job_reference.ts) and the task
 *   (src/tasks/task_projection.ts) are both built from it.
 * - {@linkcode jobItem}, {@linkcode jobGetItems}, {@linkcode jobCancelItems}: the job item and the
 *   `jobs.get` / `jobs.cancel` batches, shared by the MCP tools (src/mcp/tools.ts) and the CLI
 *   (src/cli/jobs_cmd.ts). The batch shape and ISO times are src/base/answers.ts (corpus/ uses them
 *   too and may not import jobs/).
 *
 * Vocabulary: a *projection* is a stored row shown in an answer's shape; a *view* is only the
 * level of detail a caller asks for (`response_format` concise | detailed here, `view` compact | full
 * in the corpus reads).
 *
 * @module
 */

import { type BatchItem, iso } from "../base/answers.ts";
import type { JobError } from "../base/errors.ts";
import { isJobId } from "../base/ids.ts";
import { shrinkJson } from "../base/json_bound.ts";
import { JOB_RESULT_VIEW_BYTES_MAX } from "../base/limits.ts";
import type { CancelEffect, JobRow, JobStatus } from "../store/job_rows.ts";
import type { Authority, JobControl } from "./control.ts";
import type { JobGuidance } from "./guidance.ts";

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
 * Result JSON bounded for embedding in an answer: a result over `bytesMax` is shortened into a
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

/** What every follow-up handle of one job shares: the JobReference and the task are built from it. */
export interface JobHandle {
  id: string;
  kind: string;
  status: JobStatus;
  summary: string;
  /** Poll guidance in milliseconds; undefined once the job is terminal. */
  pollMs: number | undefined;
  /** Milliseconds from creation until the job may be purged. */
  ttlMs: number;
  createdAt: string;
  updatedAt: string;
}

/** The handle of a job, from its row and the guidance computed once for this answer. */
export function jobHandle(row: JobRow, guidance: JobGuidance): JobHandle {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    summary: jobSummary(row),
    pollMs: guidance.pollMs,
    ttlMs: guidance.ttlMs,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/**
 * One job as `jobs.get` and `jobs.cancel` show it. Both views leave out what says nothing: `completed_items`
 * before anything was counted (and no total is known), `cancellation_requested` until it was. The concise view
 * (the default, what a polling model reads) also leaves out the job's `id` (the batch item's `key` names it),
 * `started_at` and `expires_at`; the detailed view shows them, with the request and the bounded result.
 */
export interface JobItem {
  /** Detailed view only (a concise item's batch key names the job). */
  id?: string;
  kind: string;
  execution_state: "queued" | "running" | "terminal";
  outcome?: string;
  summary: string;
  phase?: string;
  /** Shown once anything was counted or a total is known. */
  completed_items?: number;
  total_items?: number;
  progress_percent?: number;
  retry_after_ms?: number;
  created_at: string;
  /** Detailed view only. */
  started_at?: string;
  completed_at?: string;
  /** Detailed view only. */
  expires_at?: string;
  /** Shown only once cancellation was requested. */
  cancellation_requested?: true;
  error?: JobError;
  /** Detailed view only. */
  request?: unknown;
  result?: unknown;
  result_truncated?: boolean;
  /** JSON bytes of the stored result left out of `result` (only when `result_truncated`). */
  result_omitted_bytes?: number;
}

/** Why a job read or cancel has no job to show for a key (`terminal`: the job already ended; on the wire). */
export type JobUnavailableReason = "not_found" | "terminal" | "invalid_id";

/** One entry of a `jobs.get` / `jobs.cancel` answer. */
export interface JobBatchItem extends BatchItem<JobItem, JobUnavailableReason> {
  /** The job's poll guidance, while it can still change. */
  retry_after_ms?: number;
}

/** How a `jobs.get` item is shown: its view, and its poll guidance computed once for this answer. */
export interface JobItemOptions {
  /** `detailed` adds the request and (for a success) the bounded result. */
  format: "concise" | "detailed";
  /** The job's poll guidance in milliseconds; undefined once it cannot change any more. */
  pollMs: number | undefined;
}

/** The `jobs.get` item for a row, in `options.format`, with its poll guidance (`options.pollMs`). */
export function jobItem(row: JobRow, options: JobItemOptions): JobItem {
  const { format, pollMs } = options;
  const ended = row.status !== "queued" && row.status !== "running";
  const detailed = format === "detailed";
  const shown: JobItem = {
    kind: row.kind,
    execution_state: ended ? "terminal" : row.status as "queued" | "running",
    summary: jobSummary(row),
    created_at: iso(row.created_at),
  };
  const item: JobItem = detailed ? { id: row.id, ...shown } : shown;
  if (ended && row.outcome !== null) item.outcome = row.outcome;
  if (row.phase !== null) item.phase = row.phase;
  // A total of zero (nothing registered yet) says nothing about progress; neither does a count of zero without one.
  if (row.total_items !== null || row.completed_items > 0) item.completed_items = row.completed_items;
  if (row.total_items !== null) {
    item.total_items = row.total_items;
    if (row.total_items > 0) {
      item.progress_percent = Math.min(100, Math.round(row.completed_items / row.total_items * 100));
    }
  }
  if (pollMs !== undefined) item.retry_after_ms = pollMs;
  if (detailed && row.started_at !== null) item.started_at = iso(row.started_at);
  if (row.completed_at !== null) item.completed_at = iso(row.completed_at);
  if (detailed && row.expires_at !== null) item.expires_at = iso(row.expires_at);
  if (row.cancel_requested_at !== null) item.cancellation_requested = true;
  if (row.error !== null) item.error = row.error;
  if (detailed) {
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

/**
 * The concise item of each ended row {@linkcode JobControl.getMany} answers from memory: the same row
 * object, read again, projects to the same item (an ended row has no poll guidance), so it is projected
 * once. Weak, so an item goes with its row.
 */
const endedConciseItems = new WeakMap<JobRow, JobItem>();

/** The concise item of an ended row that is frozen (shared, see {@linkcode endedConciseItems}), projected once. */
function endedConciseItem(row: JobRow): JobItem {
  let item = endedConciseItems.get(row);
  if (item === undefined) {
    item = Object.freeze(jobItem(row, { format: "concise", pollMs: undefined }));
    endedConciseItems.set(row, item);
  }
  return item;
}

/** A complete batch entry for a job item (its guidance repeated beside it while the job can change). */
function completeItem(key: string, value: JobItem): JobBatchItem {
  return value.retry_after_ms === undefined
    ? { key, item_status: "complete", value }
    : { key, item_status: "complete", value, retry_after_ms: value.retry_after_ms };
}

/** The `jobs.cancel` item for a cancellation effect; `options.pollMs` is the job's guidance after the effect. */
export function cancelItem(
  key: string,
  effect: CancelEffect,
  options: { pollMs: (row: JobRow) => number | undefined },
): JobBatchItem {
  const { pollMs } = options;
  switch (effect.effect) {
    case "not_found":
      return { key, item_status: "unavailable", reason: "not_found", message: `No job ${key} is visible here` };
    case "already_ended":
      return {
        key,
        item_status: "unavailable",
        reason: "terminal",
        message: `Job ${key} already ${effect.row.status}; nothing to cancel`,
        value: jobItem(effect.row, { format: "concise", pollMs: pollMs(effect.row) }),
      };
    default:
      return {
        key,
        item_status: "complete",
        value: jobItem(effect.row, { format: "concise", pollMs: pollMs(effect.row) }),
      };
  }
}

/** The id inside a key: `job:<id>` references are accepted as well as bare ids. */
export function idOf(key: string): string {
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

/**
 * `jobs.get` for many keys: one isolated item per key, in input order (the CLI and MCP share it), each
 * the job visible to `options.authority` in `options.format`.
 */
export function jobGetItems(
  control: JobControl,
  keys: readonly string[],
  options: { authority: Authority; format: "concise" | "detailed" },
): JobBatchItem[] {
  const { authority, format } = options;
  // One read for the whole batch, and guidance inputs (queue, recent run times) read once; then
  // guidance once per item. Each key's id is matched against the id pattern once (null: invalid).
  const ids = keys.map((key) => {
    const id = idOf(key);
    return isJobId(id) ? id : null;
  });
  const valid = new Set<string>();
  for (const id of ids) if (id !== null) valid.add(id);
  const rows = control.getMany([...valid], authority, { columns: format === "detailed" ? "all" : "concise" });
  const guidance = control.guidanceFor(rows.values());
  return keys.map((key, i) => {
    const id = ids[i] as string | null; // one per key
    if (id === null) return INVALID(key);
    const row = rows.get(id);
    if (row === undefined) {
      return { key, item_status: "unavailable", reason: "not_found", message: `No job ${id} is visible here` };
    }
    const pollMs = guidance(row);
    const shared = format === "concise" && pollMs === undefined && Object.isFrozen(row);
    return completeItem(key, shared ? endedConciseItem(row) : jobItem(row, { format, pollMs }));
  });
}

/** `jobs.cancel` for many keys, in input order, each persisted on its own, as `options.authority`. */
export async function jobCancelItems(
  control: JobControl,
  keys: readonly string[],
  options: { authority: Authority },
): Promise<JobBatchItem[]> {
  const { authority } = options;
  const items: JobBatchItem[] = [];
  // After its effect no row is queued (a queued job is cancelled at once), so the batch has no queued
  // rows to read positions for; each kind's recent run time is read once for the batch.
  const pollMs = control.guidanceFor([]);
  for (const key of keys) {
    const id = idOf(key);
    items.push(
      isJobId(id) ? { ...cancelItem(id, await control.cancel(id, authority), { pollMs }), key } : INVALID(key),
    );
  }
  return items;
}
