/**
 * Job admission: the insert queue. Submissions made in the same turn of the event loop are admitted
 * and inserted in one `BEGIN IMMEDIATE` transaction (group commit), each on its own against the
 * admission bound; a refusal is an `overloaded` AppError with retry guidance from recent run times.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import {
  JOB_INSERT_BATCH_MAX,
  JOB_RECENT_RUNS_SAMPLE,
  OVERLOAD_GUIDANCE_KINDS_MAX,
  OVERLOAD_RECENT_RUNS_WINDOW_MS,
  OVERLOAD_RETRY_MS_MAX,
  OVERLOAD_RETRY_MS_MIN,
} from "../base/limits.ts";
import { ENDED_KINDS_SQL, type RecentRun, recentRuns } from "./job_ended.ts";
import { ACTIVE, type JobRow } from "./job_row.ts";
import type { Connection } from "./tx.ts";

export interface JobInsert {
  id: string;
  kind: string;
  requestJson: string;
  retentionMs: number;
  authority: string | null;
  now: number;
  admittedMax: number;
}

/** Admission of new jobs over one connection (one queue of pending inserts per connection). */
export class JobAdmission {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /**
   * Admits and inserts a job, or refuses with `overloaded` writing nothing. Submissions
   * made in the same turn of the event loop share one transaction (group commit, at most
   * {@linkcode JOB_INSERT_BATCH_MAX}); each is admitted on its own, in order, and each
   * promise resolves only after the transaction holding its row committed.
   */
  jobInsertIfAdmitted(input: JobInsert): Promise<JobRow> {
    return new Promise((resolve, reject) => {
      this.#insertQueue.push({ input, resolve, reject });
      if (this.#insertQueue.length === 1) queueMicrotask(() => void this.#flushInserts());
    });
  }

  #insertQueue: { input: JobInsert; resolve: (row: JobRow) => void; reject: (err: unknown) => void }[] = [];

  async #flushInserts(): Promise<void> {
    while (this.#insertQueue.length > 0) {
      const batch = this.#insertQueue.splice(0, JOB_INSERT_BATCH_MAX);
      try {
        const outcomes = await this.#conn.write(() => {
          // One count per transaction: inside BEGIN IMMEDIATE nobody else can admit, so the
          // batch's own inserts are the only change to it.
          let admitted = this.#countAdmitted();
          // Read at most once per batch, and only when one is refused: a full batch must not scan the recent runs
          // once per refused submission while it holds the write lock.
          let retryMs: number | undefined;
          const overloadRetryMs = (now: number) => retryMs ??= this.#overloadRetryMs(now);
          return batch.map(({ input }): JobRow | AppError => {
            try {
              const row = this.#insertOne(input, { admitted, overloadRetryMs });
              admitted++;
              return row;
            } catch (err) {
              if (err instanceof AppError) return err;
              throw err;
            }
          });
        });
        outcomes.forEach((o, i) => o instanceof AppError ? batch[i]?.reject(o) : batch[i]?.resolve(o));
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
  }

  /**
   * Inserts `input`, or throws the `overloaded` refusal when `admission.admitted` jobs (the transaction's own
   * included) already fill its bound; the refusal's retry hint is `admission.overloadRetryMs(input.now)`.
   */
  #insertOne(input: JobInsert, admission: { admitted: number; overloadRetryMs: (now: number) => number }): JobRow {
    const { admitted, overloadRetryMs } = admission;
    if (admitted >= input.admittedMax) {
      throw new AppError(
        "overloaded",
        `Cannot admit job: ${admitted} jobs are already queued or running (limit ${input.admittedMax})`,
        {
          retryable: true,
          retryAfterMs: overloadRetryMs(input.now),
          data: { admitted, admitted_max: input.admittedMax },
        },
      );
    }
    this.#conn.stmt(
      `INSERT INTO jobs (id, kind, status, request, created_at, updated_at, retention_ms, authority)
       VALUES (?, ?, 'queued', ?, ?, ?, ?, ?)`,
    ).run(
      input.id,
      input.kind,
      input.requestJson,
      input.now,
      input.now,
      input.retentionMs,
      input.authority,
    );
    // Every column of a new row is known here; reading it back (RETURNING *) and re-parsing the
    // request JSON just written cost a third of an admission. The defaults are the schema's.
    return {
      id: input.id,
      kind: input.kind,
      status: "queued",
      outcome: null,
      request: JSON.parse(input.requestJson),
      result: null,
      error: null,
      phase: null,
      progress_message: null,
      completed_items: 0,
      total_items: null,
      next_poll_at: null,
      created_at: input.now,
      started_at: null,
      updated_at: input.now,
      completed_at: null,
      cancel_requested_at: null,
      owner_id: null,
      attempt: 0,
      retention_ms: input.retentionMs,
      expires_at: null,
      authority: input.authority,
    };
  }

  #countAdmitted(): number {
    const r = this.#conn.stmt(
      `SELECT count(*) AS n FROM jobs WHERE ${ACTIVE}`,
    ).get() as {
      n: number;
    };
    return r.n;
  }

  /**
   * Retry guidance under overload: the mean run time of the newest {@linkcode JOB_RECENT_RUNS_SAMPLE} jobs of any
   * kind that succeeded in the last {@linkcode OVERLOAD_RECENT_RUNS_WINDOW_MS}, bounded to
   * [{@linkcode OVERLOAD_RETRY_MS_MIN}, {@linkcode OVERLOAD_RETRY_MS_MAX}]. It runs inside the admission transaction
   * on the serving thread, so it reads only jobs_ended: the kinds by a skip scan of it, then the newest runs of each
   * ({@linkcode recentRuns}; a scan of every retained job took 14 ms at 50,000 of them and 46 ms at 200,000: commit
   * 765f4a2).
   */
  #overloadRetryMs(now: number): number {
    const kinds = this.#conn.stmt(ENDED_KINDS_SQL).all(OVERLOAD_GUIDANCE_KINDS_MAX) as { kind: string }[];
    const runs: RecentRun[] = [];
    const inWindow = { endedAfter: now - OVERLOAD_RECENT_RUNS_WINDOW_MS };
    for (const { kind } of kinds) runs.push(...recentRuns(this.#conn, kind, inWindow));
    const sample = runs.sort((x, y) => y.at - x.at).slice(0, JOB_RECENT_RUNS_SAMPLE);
    const mean = sample.length === 0 ? OVERLOAD_RETRY_MS_MIN : sample.reduce((sum, r) => sum + r.ms, 0) / sample.length;
    return Math.min(OVERLOAD_RETRY_MS_MAX, Math.max(OVERLOAD_RETRY_MS_MIN, Math.round(mean)));
  }

  /** Number of admitted (queued + running) jobs across every process. */
  jobCountAdmitted(): number {
    return this.#countAdmitted();
  }
}
