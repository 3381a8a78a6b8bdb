/**
 * Reads through `jobs_ended (kind, expires_at)` (m007), the one index over ended jobs: the kinds that have one, and
 * recent run times, the input of run-time guidance (a task's poll interval, the overload retry hint). The retention
 * sweep (job_maintenance.ts) reads it too. "Newest" is by `expires_at`, the end plus the retention of the server that
 * ended the job: the order of ends whenever the servers sharing a database keep jobs equally long.
 *
 * @module
 */

import { JOB_RECENT_ENDED_SCAN_MAX, JOB_RECENT_RUNS_SAMPLE } from "../base/limits.ts";
import type { Connection } from "./tx.ts";

/** One succeeded run: when it ended and how long it ran (ms). */
export interface RecentRun {
  at: number;
  ms: number;
}

/**
 * The common table expression `k(kind)`: the kinds that have an ended job, in kind order, one seek of jobs_ended each
 * (SQLite has no skip scan of its own without ANALYZE statistics; this is the recursive form of it), then a NULL
 * past the last. A `limit` (SQL) stops the recursion after that many kinds.
 */
export function endedKindsCte(limit: string | null): string {
  return `k(kind) AS (
    SELECT (SELECT kind FROM jobs INDEXED BY jobs_ended WHERE expires_at IS NOT NULL ORDER BY kind LIMIT 1)
    UNION ALL
    SELECT (SELECT j.kind FROM jobs j INDEXED BY jobs_ended
            WHERE j.expires_at IS NOT NULL AND j.kind > k.kind ORDER BY j.kind LIMIT 1)
    FROM k WHERE k.kind IS NOT NULL${
    limit === null ? "" : `
    LIMIT ${limit} + 1`
  }
  )`;
}

/** The kinds that have an ended job, at most ?1 of them (the recursion stops at the bound too). */
export const ENDED_KINDS_SQL = `WITH RECURSIVE ${
  endedKindsCte("?1")
} SELECT kind FROM k WHERE kind IS NOT NULL LIMIT ?1`;

/** The newest ended jobs of kind ?1, newest first, at most `limit`. */
const recentEndedSql = (limit: number) =>
  `SELECT status = 'succeeded' AND started_at IS NOT NULL AS ok, completed_at AS at, completed_at - started_at AS ms
  FROM jobs INDEXED BY jobs_ended
  WHERE kind = ?1 AND expires_at IS NOT NULL
  ORDER BY expires_at DESC LIMIT ${limit}`;

/** The first read of {@linkcode recentRuns}: as many rows as the sample. */
export const RECENT_ENDED_SQL = recentEndedSql(JOB_RECENT_RUNS_SAMPLE);
/** Its second read, only when the first held a job that does not count: {@linkcode JOB_RECENT_ENDED_SCAN_MAX} rows. */
export const RECENT_ENDED_DEEP_SQL = recentEndedSql(JOB_RECENT_ENDED_SCAN_MAX);

type EndedRow = { ok: number; at: number; ms: number };

/**
 * The newest {@linkcode JOB_RECENT_RUNS_SAMPLE} succeeded runs of `kind` that ended after `options.endedAfter` (by
 * default any time), newest first, found among its newest {@linkcode JOB_RECENT_ENDED_SCAN_MAX} ended jobs. When a
 * kind's newest jobs all count, one read of the sample's size finds them; only when it holds a failed or cancelled
 * job, and its oldest row ended after `endedAfter`, is the kind read deeper. (Rows are read whole with
 * `all`: stepping through them with `iterate` took three times as long for a sample of 20.)
 */
export function recentRuns(conn: Connection, kind: string, options?: { endedAfter?: number }): RecentRun[] {
  const endedAfter = options?.endedAfter ?? -Infinity;
  const counted = (rows: EndedRow[]) =>
    rows.filter((r) => r.ok === 1 && r.at > endedAfter).slice(0, JOB_RECENT_RUNS_SAMPLE)
      .map((r) => ({ at: r.at, ms: r.ms }));
  const first = conn.stmt(RECENT_ENDED_SQL).all(kind) as EndedRow[];
  const runs = counted(first);
  const oldest = first.at(-1);
  // Done: the sample is full, or the kind has no more rows, or the first read already reached runs that ended
  // before `endedAfter` (the rows past it ended earlier still, in expiry order).
  if (runs.length === JOB_RECENT_RUNS_SAMPLE || first.length < JOB_RECENT_RUNS_SAMPLE || oldest!.at <= endedAfter) {
    return runs;
  }
  return counted(conn.stmt(RECENT_ENDED_DEEP_SQL).all(kind) as EndedRow[]);
}
