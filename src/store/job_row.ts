/**
 * A job as stored and its decoders: the row type, the job states, and the two ways a `jobs` row
 * is read back (an object row from node:sqlite, or an array row of a batch read). Shared by every
 * job SQL module (see job_rows.ts for the list), with the column and WHERE terms their statements
 * are built from.
 *
 * @module
 */

import type { JobError } from "../base/errors.ts";

export type JobStatus =
  | "queued"
  | "running"
  | "succeeded"
  | "failed"
  | "cancelled";
export const TERMINAL_STATUSES: readonly JobStatus[] = [
  "succeeded",
  "failed",
  "cancelled",
];

/** A job as stored. JSON columns are parsed. */
export interface JobRow {
  id: string;
  kind: string;
  status: JobStatus;
  outcome: string | null;
  request: unknown;
  result: unknown;
  error: JobError | null;
  phase: string | null;
  progress_message: string | null;
  completed_items: number;
  total_items: number | null;
  next_poll_at: number | null;
  created_at: number;
  started_at: number | null;
  updated_at: number;
  completed_at: number | null;
  cancel_requested_at: number | null;
  owner_id: string | null;
  attempt: number;
  retention_ms: number;
  expires_at: number | null;
  authority: string | null;
}

export interface JobEvent {
  seq: number;
  at: number;
  level: "debug" | "info" | "warn" | "error";
  message: string;
}

/** A row as node:sqlite returns it, before {@linkcode parseRow}. */
export type Raw = Record<string, unknown>;

// node:sqlite returns rows with a null prototype; giving them Object's prototype in place (instead of
// spreading 22 columns into a new object) keeps rows plain objects for callers at a fraction of the cost.
export function parseRow(raw: Raw): JobRow {
  const row = Object.setPrototypeOf(raw, Object.prototype) as JobRow & {
    request: string;
    result: string | null;
    error: string | null;
  };
  const parsed = row as unknown as JobRow;
  parsed.request = JSON.parse(row.request);
  parsed.result = row.result === null ? null : JSON.parse(row.result);
  parsed.error = row.error === null ? null : JSON.parse(row.error) as JobError;
  return parsed;
}

/**
 * A batch-read row (an array in {@linkcode BATCH_COLUMNS} order, see `JobReads.jobGetMany` in job_reads.ts) as a
 * JobRow: one object literal, so every row of a batch has the same shape and the projections read
 * its fields at full speed. (Rows node:sqlite builds as objects, given Object's prototype, cost about
 * three times as much to read for the 100 of a `jobs.get` batch.)
 */
export function rowOfArray(a: unknown[]): JobRow {
  return {
    id: a[0] as string,
    kind: a[1] as string,
    status: a[2] as JobStatus,
    outcome: a[3] as string | null,
    request: a[4] === null ? null : JSON.parse(a[4] as string),
    result: a[5] === null ? null : JSON.parse(a[5] as string),
    error: a[6] === null ? null : JSON.parse(a[6] as string) as JobError,
    phase: a[7] as string | null,
    progress_message: a[8] as string | null,
    completed_items: a[9] as number,
    total_items: a[10] as number | null,
    next_poll_at: a[11] as number | null,
    created_at: a[12] as number,
    started_at: a[13] as number | null,
    updated_at: a[14] as number,
    completed_at: a[15] as number | null,
    cancel_requested_at: a[16] as number | null,
    owner_id: a[17] as string | null,
    attempt: a[18] as number,
    retention_ms: a[19] as number,
    expires_at: a[20] as number | null,
    authority: a[21] as string | null,
  };
}

/** Every column of a `jobs` row, as {@linkcode parseRow} reads them. */
export const COLUMNS = "*";
/** The columns of a batch read, in the order {@linkcode rowOfArray} reads them; `concise` reads the request only
 * of queued jobs (their poll guidance reads it) and no result, both as SQL NULL otherwise. */
export const BATCH_COLUMNS = (columns: "concise" | "all") =>
  `id, kind, status, outcome, ${
    columns === "all" ? "request, result" : "CASE WHEN status = 'queued' THEN request END AS request, NULL AS result"
  }, error, phase, progress_message, completed_items, total_items, next_poll_at, created_at, started_at, updated_at, ` +
  "completed_at, cancel_requested_at, owner_id, attempt, retention_ms, expires_at, authority";

/** The `jobs_active` partial index's own WHERE term. SQLite uses a partial index only when
 * the query repeats that term literally (`status = 'queued'` alone does not imply it), so
 * queries over live jobs prefix it; without it they scan every retained terminal row. */
export const ACTIVE = "status IN ('queued', 'running')";
