/**
 * Job rows: every SQL statement about jobs, owners and events. Methods are named noun
 * first with their guard in the name (`jobSetTerminalIfOwned`). Each method is one
 * `BEGIN IMMEDIATE` transaction through {@linkcode Connection.write}, or a plain read.
 *
 * @module
 */

import { AppError, assert, type JobError } from "../base/errors.ts";
import {
  CLAIM_KINDS_INLINE_MAX,
  IDS_PER_CALL_MAX,
  JOB_EVENTS_MAX,
  JOB_INSERT_BATCH_MAX,
  JOB_RECENT_RUNS_SAMPLE,
  STORE_FAULT_RETRY_MS_EXECUTION,
} from "../base/limits.ts";
import { changeStamp } from "./change_stamp.ts";
import type { Connection } from "./tx.ts";

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

/** An owner's running jobs to release in a reconciliation: all but `keep` (those its handlers still run). */
export interface ReconcileRelease {
  ownerId: string;
  keep: readonly string[];
}

/** Which queued jobs an executor's owner may claim, and how many at most. */
export interface ClaimRequest {
  ownerId: string;
  kinds: readonly string[];
  max: number;
}

/**
 * What an executor needs of a job it just claimed (now `running` under its owner). Only these
 * columns are read back: the full row (22 columns, JSON re-parsed) cost a tenth of a claim.
 */
export type ClaimedJob = Pick<JobRow, "id" | "kind" | "request" | "attempt" | "phase">;

export interface JobEvent {
  seq: number;
  at: number;
  level: "debug" | "info" | "warn" | "error";
  message: string;
}

type Raw = Record<string, unknown>;

// node:sqlite returns rows with a null prototype; giving them Object's prototype in place (instead of
// spreading 22 columns into a new object) keeps rows plain objects for callers at a fraction of the cost.
function parseRow(raw: Raw): JobRow {
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
 * A batch-read row (an array in {@linkcode BATCH_COLUMNS} order, see {@linkcode JobRows.jobGetMany}) as a
 * JobRow: one object literal, so every row of a batch has the same shape and the projections read
 * its fields at full speed. (Rows node:sqlite builds as objects, given Object's prototype, cost about
 * three times as much to read for the 100 of a `jobs.get` batch.)
 */
function rowOfArray(a: unknown[]): JobRow {
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

export interface JobInsert {
  id: string;
  kind: string;
  requestJson: string;
  retentionMs: number;
  authority: string | null;
  now: number;
  admittedMax: number;
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

/** What a cancellation request did to one job. */
export type CancelEffect =
  | { effect: "cancelled"; row: JobRow }
  | { effect: "requested"; row: JobRow }
  | { effect: "already_requested"; row: JobRow }
  | { effect: "already_cancelled"; row: JobRow }
  | { effect: "already_ended"; row: JobRow }
  | { effect: "not_found" };

const COLUMNS = "*";
/** The columns of a batch read, in the order {@linkcode rowOfArray} reads them; `concise` reads the request only
 * of queued jobs (their poll guidance reads it) and no result, both as SQL NULL otherwise. */
const BATCH_COLUMNS = (columns: "concise" | "all") =>
  `id, kind, status, outcome, ${
    columns === "all" ? "request, result" : "CASE WHEN status = 'queued' THEN request END AS request, NULL AS result"
  }, error, phase, progress_message, completed_items, total_items, next_poll_at, created_at, started_at, updated_at, ` +
  "completed_at, cancel_requested_at, owner_id, attempt, retention_ms, expires_at, authority";
/** The batch reads' own statements (their text is theirs alone: the cached statements return arrays). */
const BATCH_SQL = {
  concise: `SELECT ${BATCH_COLUMNS("concise")} FROM jobs WHERE id IN (SELECT value FROM json_each(?))`,
  all: `SELECT ${BATCH_COLUMNS("all")} FROM jobs WHERE id IN (SELECT value FROM json_each(?))`,
};

/** The `jobs_active` partial index's own WHERE term. SQLite uses a partial index only when
 * the query repeats that term literally (`status = 'queued'` alone does not imply it), so
 * queries over live jobs prefix it; without it they scan every retained terminal row. */
const ACTIVE = "status IN ('queued', 'running')";

/** The fenced terminal write (see {@linkcode JobRows.jobSetTerminalIfOwned}); parameters from `#terminalParams`. */
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

/** SQL access to jobs, events and owners over one connection. */
export class JobRows {
  // Private: only store/ touches the connection (callers use the methods, or changeStamp()).
  private readonly conn: Connection;

  constructor(conn: Connection) {
    this.conn = conn;
  }

  /** This connection's change stamp (src/store/change_stamp.ts): moves when any connection commits. */
  changeStamp(): string {
    return changeStamp(this.conn);
  }

  // ------------------------------------------------------------ control side

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
        const outcomes = await this.conn.write(() => {
          // One count per transaction: inside BEGIN IMMEDIATE nobody else can admit, so the
          // batch's own inserts are the only change to it.
          let admitted = this.#countAdmitted();
          return batch.map(({ input }): JobRow | AppError => {
            try {
              const row = this.#insertOne(input, admitted);
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

  #insertOne(input: JobInsert, admitted: number): JobRow {
    if (admitted >= input.admittedMax) {
      throw new AppError(
        "overloaded",
        `Cannot admit job: ${admitted} jobs are already queued or running (limit ${input.admittedMax})`,
        {
          retryable: true,
          retryAfterMs: this.#overloadRetryMs(input.now),
          data: { admitted, admitted_max: input.admittedMax },
        },
      );
    }
    this.conn.stmt(
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
    const r = this.conn.stmt(
      "SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')",
    ).get() as {
      n: number;
    };
    return r.n;
  }

  /** Retry guidance under overload: the mean run time of the last {@linkcode JOB_RECENT_RUNS_SAMPLE} jobs
   * finished in the last 10 minutes, bounded to [1 s, 60 s]. */
  #overloadRetryMs(now: number): number {
    const r = this.conn.stmt(
      `SELECT avg(completed_at - started_at) AS d FROM (SELECT completed_at, started_at FROM jobs
       WHERE completed_at IS NOT NULL AND started_at IS NOT NULL AND completed_at > ? ORDER BY completed_at DESC LIMIT ${JOB_RECENT_RUNS_SAMPLE})`,
    ).get(now - 10 * 60_000) as { d: number | null };
    return Math.min(60_000, Math.max(1_000, Math.round(r.d ?? 1_000)));
  }

  /** Number of admitted (queued + running) jobs across every process. */
  jobCountAdmitted(): number {
    return this.#countAdmitted();
  }

  /** One job, or undefined. */
  jobGet(id: string): JobRow | undefined {
    const raw = this.conn.stmt(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`).get(
      id,
    ) as Raw | undefined;
    return raw === undefined ? undefined : parseRow(raw);
  }

  /**
   * Several jobs by id in one statement (at most {@linkcode IDS_PER_CALL_MAX}); unknown ids are
   * absent from the map. `concise` leaves the request and result unread and unparsed (as
   * `null`): the concise `jobs.get` view shows neither.
   */
  jobGetMany(ids: readonly string[], columns: "concise" | "all"): Map<string, JobRow> {
    if (ids.length > IDS_PER_CALL_MAX) {
      throw new RangeError(`Cannot read jobs: at most ${IDS_PER_CALL_MAX} ids, current value is ${ids.length}`);
    }
    const stmt = this.conn.stmt(BATCH_SQL[columns]);
    // Arrays, not objects: rowOfArray builds each row as one literal (see there). node:sqlite's
    // `StatementSync.setReturnArrays` (Node 24; Deno implements it, its bundled types lag behind).
    (stmt as unknown as { setReturnArrays(enabled: boolean): void }).setReturnArrays(true);
    const out = new Map<string, JobRow>();
    for (const a of stmt.all(JSON.stringify(ids)) as unknown as unknown[][]) {
      const row = rowOfArray(a);
      out.set(row.id, row);
    }
    return out;
  }

  /**
   * The FIFO queue (ids of every queued job, oldest first; at most the admission bound) and how
   * many jobs run now: what queue guidance needs for a whole batch of reads, in two statements.
   */
  jobQueueSnapshot(): { queued: string[]; running: number } {
    const queued = (this.conn.stmt(
      `SELECT id FROM jobs WHERE ${ACTIVE} AND status = 'queued' ORDER BY created_at, rowid`,
    ).all() as { id: string }[]).map((r) => r.id);
    const r = this.conn.stmt(`SELECT count(*) AS n FROM jobs WHERE ${ACTIVE} AND status = 'running'`).get() as {
      n: number;
    };
    return { queued, running: r.n };
  }

  /** Jobs newest first, filtered. */
  jobList(
    filter: { status?: JobStatus; kind?: string; limit: number },
  ): JobRow[] {
    const rows = this.conn.stmt(
      `SELECT ${COLUMNS} FROM jobs WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR kind = ?2)
       ORDER BY rowid DESC LIMIT ?3`,
    ).all(filter.status ?? null, filter.kind ?? null, filter.limit) as Raw[];
    return rows.map(parseRow);
  }

  /** Position of a queued job in the FIFO queue (0 = next), and how many run now. */
  jobQueuePosition(id: string): { ahead: number; running: number } {
    const r = this.conn.stmt(
      `SELECT
         (SELECT count(*) FROM jobs q WHERE ${ACTIVE} AND q.status = 'queued'
           AND (q.created_at < j.created_at OR (q.created_at = j.created_at AND q.rowid < j.rowid))) AS ahead,
         (SELECT count(*) FROM jobs WHERE ${ACTIVE} AND status = 'running') AS running
       FROM jobs j WHERE j.id = ?`,
    ).get(id) as { ahead: number; running: number } | undefined;
    return r ?? { ahead: 0, running: 0 };
  }

  /** Mean run time of the last {@linkcode JOB_RECENT_RUNS_SAMPLE} succeeded jobs of a kind, if any. */
  jobRecentRunMs(kind: string): number | undefined {
    const r = this.conn.stmt(
      `SELECT avg(d) AS d FROM (SELECT completed_at - started_at AS d FROM jobs INDEXED BY jobs_recent_succeeded
       WHERE status = 'succeeded' AND kind = ? AND started_at IS NOT NULL ORDER BY completed_at DESC LIMIT ${JOB_RECENT_RUNS_SAMPLE})`,
    ).get(kind) as { d: number | null };
    return r.d ?? undefined;
  }

  /**
   * Persists a cancellation request. A queued job becomes `cancelled` in the same
   * transaction; a running job gets `cancel_requested_at` for its owner to observe.
   */
  jobCancelRequest(id: string, now: number): Promise<CancelEffect> {
    return this.conn.write((): CancelEffect => {
      const row = this.jobGet(id);
      if (row === undefined) return { effect: "not_found" };
      if (row.status === "cancelled") return { effect: "already_cancelled", row };
      if (row.status === "succeeded" || row.status === "failed") {
        return { effect: "already_ended", row };
      }
      if (row.status === "queued") {
        const raw = this.conn.stmt(
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
      const raw = this.conn.stmt(
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

  /** A job's events, oldest first. */
  jobEvents(id: string): JobEvent[] {
    return this.conn.stmt(
      "SELECT seq, at, level, message FROM job_events WHERE job_id = ? ORDER BY seq",
    ).all(
      id,
    ) as unknown as JobEvent[];
  }

  // ------------------------------------------------------------ execution side

  /** Registers an executor owner. */
  ownerRegister(
    ownerId: string,
    pid: number,
    now: number,
    leaseMs: number,
  ): Promise<void> {
    return this.conn.write(() => {
      this.conn.stmt(
        "INSERT INTO job_owners (owner_id, pid, started_at, heartbeat_at, lease_ms) VALUES (?, ?, ?, ?, ?)",
      ).run(ownerId, pid, now, now, leaseMs);
    });
  }

  /**
   * Refreshes an owner's heartbeat if its lease has not lapsed. Returns false when the
   * owner is gone or stale: it lost its jobs and must abort them.
   */
  ownerHeartbeatIfLive(ownerId: string, now: number): Promise<boolean> {
    return this.conn.write(() => {
      const r = this.conn.stmt(
        "UPDATE job_owners SET heartbeat_at = ?1 WHERE owner_id = ?2 AND heartbeat_at + lease_ms > ?1",
      ).run(now, ownerId);
      return Number(r.changes) === 1;
    });
  }

  /** Deletes an owner row (clean shutdown). */
  ownerDelete(ownerId: string): Promise<void> {
    return this.conn.write(() => {
      this.conn.stmt("DELETE FROM job_owners WHERE owner_id = ?").run(ownerId);
    });
  }

  /** Live owners (heartbeat within lease). */
  ownerListLive(
    now: number,
  ): { owner_id: string; pid: number; heartbeat_at: number }[] {
    return this.conn.stmt(
      "SELECT owner_id, pid, heartbeat_at FROM job_owners WHERE heartbeat_at + lease_ms > ? ORDER BY started_at",
    ).all(now) as unknown as {
      owner_id: string;
      pid: number;
      heartbeat_at: number;
    }[];
  }

  /**
   * Claims the oldest queued job of the given kinds for a live owner (FIFO), or returns
   * undefined. The claim fails if the owner's own lease lapsed.
   */
  async jobClaimNextIfOwnerLive(
    ownerId: string,
    kinds: readonly string[],
    now: number,
  ): Promise<ClaimedJob | undefined> {
    return (await this.jobClaimBatchIfOwnerLive(ownerId, kinds, now, 1))[0];
  }

  /**
   * Claims up to `max` of the oldest queued jobs (FIFO order) in one transaction: one commit
   * for the batch instead of one per job. Empty if the owner's lease lapsed.
   */
  jobClaimBatchIfOwnerLive(
    ownerId: string,
    kinds: readonly string[],
    now: number,
    max: number,
  ): Promise<ClaimedJob[]> {
    return this.conn.write(() => this.#claimBatch({ ownerId, kinds, max }, now));
  }

  #claimBatch(c: ClaimRequest, now: number): ClaimedJob[] {
    if (c.kinds.length === 0 || c.max <= 0) return [];
    // Up to CLAIM_KINDS_INLINE_MAX kinds are compared inline (`kind = ?3 OR kind = ?4 ...`): the
    // json_each form builds a temporary table of the kinds on every execution, once per claimed job.
    const inline = c.kinds.length <= CLAIM_KINDS_INLINE_MAX;
    const kindTerm = inline
      ? `(${c.kinds.map((_, i) => `kind = ?${i + 3}`).join(" OR ")})`
      : "kind IN (SELECT value FROM json_each(?3))";
    const args = inline ? c.kinds : [JSON.stringify(c.kinds)];
    const claim = this.conn.stmt(
      `UPDATE jobs SET status = 'running', owner_id = ?1, started_at = ?2, updated_at = ?2, attempt = attempt + 1
       WHERE id = (SELECT id FROM jobs WHERE ${ACTIVE} AND status = 'queued' AND ${kindTerm}
                   ORDER BY created_at, rowid LIMIT 1)
         AND EXISTS (SELECT 1 FROM job_owners WHERE owner_id = ?1 AND heartbeat_at + lease_ms > ?2)
       RETURNING id, kind, request, attempt, phase`,
    );
    const out: ClaimedJob[] = [];
    while (out.length < c.max) {
      const raw = claim.get(c.ownerId, now, ...args) as (ClaimedJob & { request: string }) | undefined;
      if (raw === undefined) break;
      out.push({ ...raw, request: JSON.parse(raw.request) });
    }
    return out;
  }

  /** Writes progress of a running job owned by `ownerId`; false if no longer owned. */
  jobSetProgressIfOwned(
    id: string,
    ownerId: string,
    attempt: number,
    p: ProgressWrite,
    now: number,
  ): Promise<boolean> {
    return this.conn.write(() => {
      const r = this.conn.stmt(
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
        id,
        ownerId,
        attempt,
      );
      return Number(r.changes) === 1;
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /** Appends an event, keeping at most {@linkcode JOB_EVENTS_MAX} per job. */
  jobEventAppend(
    id: string,
    level: JobEvent["level"],
    message: string,
    now: number,
  ): Promise<void> {
    return this.conn.write(() => {
      const r = this.conn.stmt(
        `INSERT INTO job_events (job_id, seq, at, level, message)
         SELECT ?1, coalesce(max(seq), 0) + 1, ?2, ?3, ?4 FROM job_events WHERE job_id = ?1 RETURNING seq`,
      ).get(id, now, level, message) as { seq: number };
      if (r.seq > JOB_EVENTS_MAX) {
        this.conn.stmt("DELETE FROM job_events WHERE job_id = ? AND seq <= ?")
          .run(id, r.seq - JOB_EVENTS_MAX);
      }
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /**
   * The fenced terminal write. Succeeds only for the current owner and attempt of a
   * running job whose owner lease is live. `succeeded`/`failed` also require that no
   * cancellation was persisted (a cancellation persisted first wins); `cancelled`
   * requires one. Result and error are written in the same statement as the status.
   */
  jobSetTerminalIfOwned(
    id: string,
    ownerId: string,
    attempt: number,
    t: TerminalWrite,
    now: number,
  ): Promise<JobRow | undefined> {
    return this.conn.write(() => this.#setTerminalIfOwned(id, ownerId, attempt, t, now));
  }

  /**
   * Several fenced terminal writes in one transaction (one commit); each is decided on its
   * own exactly as by {@linkcode jobSetTerminalIfOwned}. Results are in input order.
   */
  async jobSetTerminalManyIfOwned(
    items: readonly { id: string; ownerId: string; attempt: number; terminal: TerminalWrite }[],
    now: number,
  ): Promise<boolean[]> {
    // The executor's hot path: it needs only whether each write landed, so nothing is read back.
    return (await this.jobSetTerminalManyAndClaimIfOwned(items, { ownerId: "", kinds: [], max: 0 }, now)).landed;
  }

  /**
   * The executor's steady state in one transaction: the fenced terminal writes of jobs that
   * finished together (decided each on its own, as by {@linkcode jobSetTerminalIfOwned}), then
   * claims for the slots they free (as by {@linkcode jobClaimBatchIfOwnerLive}). One commit
   * instead of two, so a backlog of short jobs costs half the commits and WAL bytes.
   */
  jobSetTerminalManyAndClaimIfOwned(
    items: readonly { id: string; ownerId: string; attempt: number; terminal: TerminalWrite }[],
    claim: ClaimRequest,
    now: number,
  ): Promise<{ landed: boolean[]; claimed: ClaimedJob[] }> {
    return this.conn.write(() => {
      const landed = items.map((item) => {
        const r = this.#terminalStmt("").run(
          ...this.#terminalParams(item.id, item.ownerId, item.attempt, item.terminal, now),
        );
        return Number(r.changes) === 1;
      });
      return { landed, claimed: claim.max > 0 ? this.#claimBatch(claim, now) : [] };
    });
  }

  #terminalStmt(returning: "" | typeof TERMINAL_RETURNING) {
    // The SQL is a constant per variant: conn.stmt looks statements up by their text, and a string
    // built on every call is hashed again on every call (it is long).
    return this.conn.stmt(returning === "" ? TERMINAL_SQL : TERMINAL_SQL_RETURNING);
  }

  #terminalParams(id: string, ownerId: string, attempt: number, t: TerminalWrite, now: number) {
    const p = t.progress;
    return [
      t.status,
      t.outcome,
      t.resultJson,
      t.error === null ? null : JSON.stringify(t.error),
      now,
      id,
      ownerId,
      attempt,
      p?.phase !== undefined ? 1 : 0,
      p?.phase ?? null,
      p?.message !== undefined ? 1 : 0,
      p?.message ?? null,
      p?.completedItems ?? null,
      p?.totalItems !== undefined ? 1 : 0,
      p?.totalItems ?? null,
    ] as const;
  }

  #setTerminalIfOwned(
    id: string,
    ownerId: string,
    attempt: number,
    t: TerminalWrite,
    now: number,
  ): JobRow | undefined {
    const raw = this.#terminalStmt(TERMINAL_RETURNING).get(
      ...this.#terminalParams(id, ownerId, attempt, t, now),
    ) as
      | Raw
      | undefined;
    return raw === undefined ? undefined : parseRow(raw);
  }

  /**
   * Shutdown: records an owned running job as `failed` with `interrupted` (retryable),
   * or `cancelled` if a cancellation had been persisted. Fenced like every terminal write.
   */
  jobSetInterruptedIfOwned(id: string, ownerId: string, attempt: number, now: number): Promise<JobRow | undefined> {
    const interrupted: JobError = {
      code: "interrupted",
      message: "longcall shut down while this job was running; submit it again to rerun it",
      retryable: true,
    };
    return this.conn.write(() => {
      const raw = this.conn.stmt(
        `UPDATE jobs SET
           status = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled' ELSE 'failed' END,
           outcome = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled' ELSE 'failed' END,
           error = CASE WHEN cancel_requested_at IS NOT NULL THEN NULL ELSE ?1 END,
           completed_at = ?2, updated_at = ?2, expires_at = ?2 + retention_ms, next_poll_at = NULL
         WHERE id = ?3 AND status = 'running' AND owner_id = ?4 AND attempt = ?5
         RETURNING ${COLUMNS}`,
      ).get(JSON.stringify(interrupted), now, id, ownerId, attempt) as Raw | undefined;
      return raw === undefined ? undefined : parseRow(raw);
    });
  }

  /** Ids among an owner's running jobs that have a persisted cancellation request. */
  jobListCancelRequested(ownerId: string): string[] {
    const rows = this.conn.stmt(
      `SELECT id FROM jobs WHERE ${ACTIVE} AND status = 'running' AND owner_id = ? AND cancel_requested_at IS NOT NULL`,
    ).all(ownerId) as { id: string }[];
    return rows.map((r) => r.id);
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
    return this.conn.write(() => {
      // A function is asked inside the transaction: what the caller runs may change while a busy store waits.
      const r = typeof release === "function" ? release() : release;
      if (r !== undefined) {
        this.conn.stmt(
          `UPDATE jobs SET owner_id = NULL WHERE ${ACTIVE} AND status = 'running' AND owner_id = ?1
             AND id NOT IN (SELECT value FROM json_each(?2))`,
        ).run(r.ownerId, JSON.stringify(r.keep));
      }
      const rows = this.conn.stmt(
        `UPDATE jobs SET
           status = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled' ELSE 'failed' END,
           outcome = CASE WHEN cancel_requested_at IS NOT NULL THEN 'cancelled' ELSE 'failed' END,
           error = CASE WHEN cancel_requested_at IS NOT NULL THEN NULL WHEN owner_id IS NULL THEN ?3 ELSE ?2 END,
           completed_at = ?1, updated_at = ?1, expires_at = ?1 + retention_ms, next_poll_at = NULL
         WHERE ${ACTIVE} AND status = 'running'
           AND NOT EXISTS (SELECT 1 FROM job_owners o WHERE o.owner_id = jobs.owner_id AND o.heartbeat_at + o.lease_ms > ?1)
         RETURNING id`,
      ).all(now, JSON.stringify(lost), JSON.stringify(released)) as { id: string }[];
      this.conn.stmt(
        "DELETE FROM job_owners WHERE heartbeat_at + lease_ms <= ?",
      ).run(now);
      return rows.map((r) => r.id);
    });
  }

  /** Deletes at most `batch` terminal jobs whose retention ended. Returns the count. */
  jobDeleteExpired(now: number, batch: number): Promise<number> {
    return this.conn.write(() => {
      const r = this.conn.stmt(
        `DELETE FROM jobs WHERE rowid IN (SELECT rowid FROM jobs WHERE expires_at IS NOT NULL AND expires_at <= ?
           AND status IN ('succeeded', 'failed', 'cancelled') LIMIT ?)`,
      ).run(now, batch);
      return Number(r.changes);
    });
  }
}
