/**
 * What a running job's owner writes: progress, events, its end (the fenced terminal write, one or
 * several per transaction, optionally followed by the claims for the slots they free) and, at
 * shutdown, `interrupted`. Every write is fenced by owner and attempt; terminal writes also by a live
 * lease and the cancellation rule (a cancellation persisted first wins).
 *
 * @module
 */

import type { JobError } from "../base/errors.ts";
import { JOB_EVENTS_MAX, STORE_FAULT_RETRY_MS_EXECUTION } from "../base/limits.ts";
import type { ClaimedJob, ClaimRequest, JobClaims } from "./job_claims.ts";
import { COLUMNS, type JobEvent, type JobRow, parseRow, type Raw } from "./job_row.ts";
import type { Connection } from "./tx.ts";

/**
 * The fence of every write an owner makes to a running job: the job, the owner it was claimed under and
 * the attempt of that claim. A write lands only while the job is still `running` under that owner and attempt.
 */
export interface JobFence {
  id: string;
  ownerId: string;
  attempt: number;
}

export interface ProgressWrite {
  phase?: string | null;
  message?: string | null;
  completedItems?: number;
  totalItems?: number | null;
  nextPollAt?: number | null;
}

export interface TerminalWrite {
  status: "succeeded" | "failed" | "cancelled";
  outcome: string;
  resultJson: string | null;
  error: JobError | null;
  /** Progress the job reported that no progress write could store (a storage fault): written with the end. */
  progress?: ProgressWrite;
}

/** One terminal write of several in a transaction (see {@linkcode JobRunWrites.jobSetTerminalManyIfOwned}). */
export interface FencedTerminalWrite extends JobFence {
  terminal: TerminalWrite;
}

/** The fenced terminal write (see {@linkcode JobRunWrites.jobSetTerminalIfOwned}); parameters from `#terminalParams`. */
const TERMINAL_SQL =
  `UPDATE jobs SET status = ?1, outcome = ?2, result = ?3, error = ?4, completed_at = ?5, updated_at = ?5,
     expires_at = ?5 + retention_ms, next_poll_at = NULL,
     phase = CASE WHEN ?9 THEN ?10 ELSE phase END,
     progress_message = CASE WHEN ?11 THEN ?12 ELSE progress_message END,
     completed_items = coalesce(?13, completed_items),
     total_items = CASE WHEN ?14 THEN ?15 ELSE total_items END
   WHERE id = ?6 AND status = 'running' AND owner_id = ?7 AND attempt = ?8
     AND (CASE WHEN ?1 = 'cancelled' THEN cancel_requested_at IS NOT NULL ELSE cancel_requested_at IS NULL END)
     AND EXISTS (SELECT 1 FROM job_owners WHERE owner_id = ?7 AND heartbeat_at + lease_ms > ?5)`;
const TERMINAL_RETURNING = ` RETURNING ${COLUMNS}`;
const TERMINAL_SQL_RETURNING = TERMINAL_SQL + TERMINAL_RETURNING;

/** The owner's job writes over one connection (claims for freed slots through `claims`, in the same transaction). */
export class JobRunWrites {
  readonly #conn: Connection;
  readonly #claims: JobClaims;

  constructor(conn: Connection, claims: JobClaims) {
    this.#conn = conn;
    this.#claims = claims;
  }

  /** Writes progress `p` of the running job `fence` names, at `options.now`; false if no longer owned. */
  jobSetProgressIfOwned(fence: JobFence, p: ProgressWrite, options: { now: number }): Promise<boolean> {
    const { now } = options;
    return this.#conn.write(() => {
      const r = this.#conn.stmt(
        `UPDATE jobs SET
           phase = CASE WHEN ?1 THEN ?2 ELSE phase END,
           progress_message = CASE WHEN ?3 THEN ?4 ELSE progress_message END,
           completed_items = coalesce(?5, completed_items),
           total_items = CASE WHEN ?6 THEN ?7 ELSE total_items END,
           next_poll_at = CASE WHEN ?8 THEN ?9 ELSE next_poll_at END,
           updated_at = ?10
         WHERE id = ?11 AND status = 'running' AND owner_id = ?12 AND attempt = ?13`,
      ).run(
        p.phase !== undefined ? 1 : 0,
        p.phase ?? null,
        p.message !== undefined ? 1 : 0,
        p.message ?? null,
        p.completedItems ?? null,
        p.totalItems !== undefined ? 1 : 0,
        p.totalItems ?? null,
        p.nextPollAt !== undefined ? 1 : 0,
        p.nextPollAt ?? null,
        now,
        fence.id,
        fence.ownerId,
        fence.attempt,
      );
      return Number(r.changes) === 1;
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /** Appends `event` to job `id` (as its next `seq`), keeping at most {@linkcode JOB_EVENTS_MAX} per job. */
  jobEventAppend(id: string, event: Omit<JobEvent, "seq">): Promise<void> {
    const { at, level, message } = event;
    return this.#conn.write(() => {
      const r = this.#conn.stmt(
        `INSERT INTO job_events (job_id, seq, at, level, message)
         SELECT ?1, coalesce(max(seq), 0) + 1, ?2, ?3, ?4 FROM job_events WHERE job_id = ?1 RETURNING seq`,
      ).get(id, at, level, message) as { seq: number };
      if (r.seq > JOB_EVENTS_MAX) {
        this.#conn.stmt("DELETE FROM job_events WHERE job_id = ? AND seq <= ?")
          .run(id, r.seq - JOB_EVENTS_MAX);
      }
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /**
   * The fenced terminal write. Succeeds only for the current owner and attempt of a
   * running job whose owner lease is live. `succeeded`/`failed` also require that no
   * cancellation was persisted (a cancellation persisted first wins); `cancelled`
   * requires one. Result and error are written in the same statement as the status.
   *
   * @param fence the job, its owner and attempt.
   * @param t the end written.
   * @param options.now the time of the write (`completed_at`; the lease must be live at it).
   */
  jobSetTerminalIfOwned(fence: JobFence, t: TerminalWrite, options: { now: number }): Promise<JobRow | undefined> {
    const end: FencedTerminalWrite = { id: fence.id, ownerId: fence.ownerId, attempt: fence.attempt, terminal: t };
    return this.#conn.write(() => this.#setTerminalIfOwned(end, options.now));
  }

  /**
   * Several fenced terminal writes in one transaction (one commit); each is decided on its
   * own exactly as by {@linkcode jobSetTerminalIfOwned}. Results are in input order.
   */
  async jobSetTerminalManyIfOwned(items: readonly FencedTerminalWrite[], now: number): Promise<boolean[]> {
    // The executor's hot path: it needs only whether each write landed, so nothing is read back.
    return (await this.jobSetTerminalManyAndClaimIfOwned(items, { ownerId: "", kinds: [], max: 0 }, { now })).landed;
  }

  /**
   * The executor's steady state in one transaction: the fenced terminal writes of jobs that
   * finished together (decided each on its own, as by {@linkcode jobSetTerminalIfOwned}), then
   * claims for the slots they free (as by {@linkcode JobClaims.jobClaimBatchIfOwnerLive}). One commit
   * instead of two, so a backlog of short jobs costs half the commits and WAL bytes.
   *
   * @param items the fenced terminal writes, each with its job, owner and attempt.
   * @param claim the claims to make after them (none when `claim.max` is 0).
   * @param options.now the time of the writes and the claims.
   */
  jobSetTerminalManyAndClaimIfOwned(
    items: readonly FencedTerminalWrite[],
    claim: ClaimRequest,
    options: { now: number },
  ): Promise<{ landed: boolean[]; claimed: ClaimedJob[] }> {
    const { now } = options;
    return this.#conn.write(() => {
      const landed = items.map((item) => {
        const r = this.#terminalStmt("").run(...this.#terminalParams(item, now));
        return Number(r.changes) === 1;
      });
      return { landed, claimed: claim.max > 0 ? this.#claims.jobClaimBatchInWrite(claim, now) : [] };
    });
  }

  #terminalStmt(returning: "" | typeof TERMINAL_RETURNING) {
    // The SQL is a constant per variant: conn.stmt looks statements up by their text, and a string
    // built on every call is hashed again on every call (it is long).
    return this.#conn.stmt(returning === "" ? TERMINAL_SQL : TERMINAL_SQL_RETURNING);
  }

  #terminalParams(end: FencedTerminalWrite, now: number) {
    const t = end.terminal;
    const p = t.progress;
    return [
      t.status,
      t.outcome,
      t.resultJson,
      t.error === null ? null : JSON.stringify(t.error),
      now,
      end.id,
      end.ownerId,
      end.attempt,
      p?.phase !== undefined ? 1 : 0,
      p?.phase ?? null,
      p?.message !== undefined ? 1 : 0,
      p?.message ?? null,
      p?.completedItems ?? null,
      p?.totalItems !== undefined ? 1 : 0,
      p?.totalItems ?? null,
    ] as const;
  }

  #setTerminalIfOwned(end: FencedTerminalWrite, now: number): JobRow | undefined {
    const raw = this.#terminalStmt(TERMINAL_RETURNING).get(...this.#terminalParams(end, now)) as Raw | undefined;
    return raw === undefined ? undefined : parseRow(raw);
  }

  /**
   * Shutdown: records an owned running job as `failed` with `interrupted` (retryable),
   * or `cancelled` if a cancellation had been persisted, at `now`. Fenced like every terminal write.
   */
  jobSetInterruptedIfOwned(fence: JobFence, now: number): Promise<JobRow | undefined> {
    const interrupted: JobError = {
      code: "interrupted",
      message: "longcall shut down while this job was running; submit it again to rerun it",
      retryable: true,
    };
    return this.#conn.write(() => {
      const raw = this.#conn.stmt(
        `UPDATE jobs SET
           status = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled' ELSE 'failed' END,
           outcome = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled' ELSE 'failed' END,
           error = CASE WHEN cancel_requested_at IS NOT NULL THEN NULL ELSE ?1 END,
           completed_at = ?2, updated_at = ?2, expires_at = ?2 + retention_ms, next_poll_at = NULL
         WHERE id = ?3 AND status = 'running' AND owner_id = ?4 AND attempt = ?5
         RETURNING ${COLUMNS}`,
      ).get(JSON.stringify(interrupted), now, fence.id, fence.ownerId, fence.attempt) as Raw | undefined;
      return raw === undefined ? undefined : parseRow(raw);
    });
  }
}
