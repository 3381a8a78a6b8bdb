/**
 * Job maintenance, the two periodic sweeps over every owner's jobs: reconciliation (running jobs
 * whose owner is gone or stale end `process_lost`, never replayed; stale owner rows go) and
 * retention (terminal jobs past `expires_at` are deleted in bounded batches).
 *
 * @module
 */

import type { JobError } from "../base/errors.ts";
import { endedKindsCte } from "./job_ended.ts";
import { ACTIVE } from "./job_row.ts";
import type { Connection } from "./tx.ts";

/** An owner's running jobs to release in a reconciliation: all but `keep` (those its handlers still run). */
export interface ReconcileRelease {
  ownerId: string;
  keep: readonly string[];
}

/**
 * At most ?2 ended jobs whose retention ended by ?1, found through jobs_ended (kind, expires_at): the kinds that have
 * an ended job ({@linkcode endedKindsCte}, unbounded: their number is bounded by the kinds submission accepts, which
 * must be registered), then the expired range of each. SQLite would otherwise read the whole index, since
 * expires_at is not its first column.
 */
export const DELETE_EXPIRED_SQL = `WITH RECURSIVE ${endedKindsCte(null)}
  DELETE FROM jobs WHERE rowid IN (
    SELECT rowid FROM jobs INDEXED BY jobs_ended
    WHERE kind IN (SELECT kind FROM k WHERE kind IS NOT NULL) AND expires_at IS NOT NULL AND expires_at <= ?1
      AND status IN ('succeeded', 'failed', 'cancelled')
    LIMIT ?2)`;

/** Reconciliation and retention SQL over one connection. */
export class JobMaintenance {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /**
   * Reconciliation, one transaction: running jobs whose owner is missing or stale become
   * `failed` with `process_lost` (or `cancelled` if cancellation was requested); stale
   * owner rows are deleted. Never replays work. Returns the ids it finished.
   *
   * With `release`, running jobs of that (live) owner that are not in `keep` are released
   * first (their owner could not record their end, e.g. after a storage fault) and recorded
   * the same way, with a message saying so.
   */
  jobReconcileLost(
    now: number,
    release?: ReconcileRelease | (() => ReconcileRelease | undefined),
  ): Promise<string[]> {
    const lost: JobError = {
      code: "process_lost",
      message: "The process running this job stopped before it finished; the work was not replayed",
      retryable: true,
    };
    const released: JobError = {
      code: "process_lost",
      message: "longcall could not record this job's end (a storage fault outlasted its retries); " +
        "the job was released and the work was not replayed",
      retryable: true,
    };
    return this.#conn.write(() => {
      // A function is asked inside the transaction: what the caller runs may change while a busy store waits.
      const r = typeof release === "function" ? release() : release;
      if (r !== undefined) {
        this.#conn.stmt(
          `UPDATE jobs SET owner_id = NULL WHERE ${ACTIVE} AND status = 'running' AND owner_id = ?1
             AND id NOT IN (SELECT value FROM json_each(?2))`,
        ).run(r.ownerId, JSON.stringify(r.keep));
      }
      const rows = this.#conn.stmt(
        `UPDATE jobs SET
           status = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled' ELSE 'failed' END,
           outcome = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled' ELSE 'failed' END,
           error = CASE WHEN cancel_requested_at IS NOT NULL THEN NULL WHEN owner_id IS NULL THEN ?3 ELSE ?2 END,
           completed_at = ?1, updated_at = ?1, expires_at = ?1 + retention_ms, next_poll_at = NULL
         WHERE ${ACTIVE} AND status = 'running'
           AND NOT EXISTS (SELECT 1 FROM job_owners o WHERE o.owner_id = jobs.owner_id AND o.heartbeat_at + o.lease_ms > ?1)
         RETURNING id`,
      ).all(now, JSON.stringify(lost), JSON.stringify(released)) as { id: string }[];
      this.#conn.stmt(
        "DELETE FROM job_owners WHERE heartbeat_at + lease_ms <= ?",
      ).run(now);
      return rows.map((r) => r.id);
    });
  }

  /** Deletes at most `batch` terminal jobs whose retention ended. Returns the count. */
  jobDeleteExpired(now: number, batch: number): Promise<number> {
    return this.#conn.write(() => Number(this.#conn.stmt(DELETE_EXPIRED_SQL).run(now, batch).changes));
  }
}
