/**
 * Cancellation: persisting a cancellation request (a queued job ends `cancelled` at once, a running
 * one is marked for its owner), and the owner's read of which of its running jobs were marked.
 *
 * @module
 */

import { assert } from "../base/errors.ts";
import { ACTIVE, COLUMNS, type JobRow, parseRow, type Raw } from "./job_row.ts";
import type { JobReads } from "./job_reads.ts";
import type { Connection } from "./tx.ts";

/** What a cancellation request did to one job. */
export type CancelEffect =
  | { effect: "cancelled"; row: JobRow }
  | { effect: "requested"; row: JobRow }
  | { effect: "already_requested"; row: JobRow }
  | { effect: "already_cancelled"; row: JobRow }
  | { effect: "already_ended"; row: JobRow }
  | { effect: "not_found" };

/** Cancellation SQL over one connection (reads the job first through `reads`, in the same transaction). */
export class JobCancellation {
  readonly #conn: Connection;
  readonly #reads: JobReads;

  constructor(conn: Connection, reads: JobReads) {
    this.#conn = conn;
    this.#reads = reads;
  }

  /**
   * Persists a cancellation request. A queued job becomes `cancelled` in the same
   * transaction; a running job gets `cancel_requested_at` for its owner to observe.
   */
  jobCancelRequest(id: string, now: number): Promise<CancelEffect> {
    return this.#conn.write((): CancelEffect => {
      const row = this.#reads.jobGet(id);
      if (row === undefined) return { effect: "not_found" };
      if (row.status === "cancelled") return { effect: "already_cancelled", row };
      if (row.status === "succeeded" || row.status === "failed") {
        return { effect: "already_ended", row };
      }
      if (row.status === "queued") {
        const raw = this.#conn.stmt(
          `UPDATE jobs SET status = 'cancelled', outcome = 'cancelled', cancel_requested_at = ?1, completed_at = ?1,
             updated_at = ?1, expires_at = ?1 + retention_ms
           WHERE id = ?2 AND status = 'queued' RETURNING ${COLUMNS}`,
        ).get(now, id) as Raw | undefined;
        assert(
          raw !== undefined,
          "queued job vanished inside a write transaction",
        );
        return { effect: "cancelled", row: parseRow(raw) };
      }
      if (row.cancel_requested_at !== null) {
        return { effect: "already_requested", row };
      }
      const raw = this.#conn.stmt(
        `UPDATE jobs SET cancel_requested_at = ?1, updated_at = ?1 WHERE id = ?2 AND status = 'running'
         RETURNING ${COLUMNS}`,
      ).get(now, id) as Raw | undefined;
      assert(
        raw !== undefined,
        "running job vanished inside a write transaction",
      );
      return { effect: "requested", row: parseRow(raw) };
    });
  }

  /** Ids among an owner's running jobs that have a persisted cancellation request. */
  jobListCancelRequested(ownerId: string): string[] {
    const rows = this.#conn.stmt(
      `SELECT id FROM jobs WHERE ${ACTIVE} AND status = 'running' AND owner_id = ? AND cancel_requested_at IS NOT NULL`,
    ).all(ownerId) as { id: string }[];
    return rows.map((r) => r.id);
  }
}
