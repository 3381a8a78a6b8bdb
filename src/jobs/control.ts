/**
 * The control side of the job runtime: admission, reads and cancellation requests.
 * This is what the MCP server and the CLI use; it never runs a handler.
 *
 * @module
 */

import { type Clock, realMsPer } from "../base/clock.ts";
import { AppError } from "../base/errors.ts";
import { newJobId } from "../base/ids.ts";
import { utf8BytesIfOver } from "../base/json_bound.ts";
import {
  ENDED_ROW_CACHED_TEXT_CHARS_MAX,
  ENDED_ROWS_CACHED_MAX,
  IDS_PER_CALL_MAX,
  JOB_ADMITTED_MAX_DEFAULT,
  JOB_REQUEST_BYTES_MAX,
  JOB_RETENTION_MS_DEFAULT,
  JOB_RUNNING_MAX_DEFAULT,
} from "../base/limits.ts";
import type { CancelEffect, JobRow, JobRows, JobStatus } from "../store/job_rows.ts";
import { type JobGuidance, pollAfterMs, ttlMsOf } from "./guidance.ts";
import type { AnyJobPolicy, JobKindRegistry } from "./kinds.ts";
import { isSettled, JobWaits, materialKey, type WaitEnd } from "./wait.ts";

export interface JobControlOptions {
  clock: Clock;
  /** The clock job handlers run on (a scaled clock under `--simulate-time-rate`); default `clock`. */
  handlerClock?: Clock;
  admittedMax?: number;
  retentionMs?: number;
  runningMax?: number;
  /** Called after a job is admitted (wakes a local executor at once). */
  onSubmitted?: (row: JobRow) => void;
  /** Called after a cancellation was persisted for running jobs (aborts a local handler at once). */
  onCancelRequested?: (ids: string[]) => void;
  /** The waiters of bounded reads (default: one over this store's change stamp, deadlines on `clock`). */
  waits?: JobWaits;
}

/** How a bounded read ({@linkcode JobControl.wait}) ended, as `jobs.get` reports it. */
export interface WaitReport {
  /** `change`: the first material change of any job; `terminal`: only when all are terminal. */
  until: "change" | "terminal";
  ended: WaitEnd;
  waited_ms: number;
}

/**
 * A job just admitted and its guidance, computed once ({@linkcode JobControl.admitted}) by a tool that
 * answers with a JobReference or a task. `submit` itself returns the bare row: callers that only admit
 * (the CLI, benchmarks, tests) never pay for the queue-position read guidance needs, and the row keeps
 * the shape every stored row has (adding a property to it slowed admission measurably).
 */
export interface AdmittedJob {
  readonly row: JobRow;
  readonly guidance: JobGuidance;
}

/** Who may see a job: `null` is the local authority (stdio, CLI); a string scopes to one HTTP token. */
export type Authority = string | null;

/** Admission, reads and cancellation requests over the job store. */
export class JobControl {
  // Readers go through get / getMany / find, which apply visibility and expiry.
  readonly #rows: JobRows;
  /** The kinds this side admits: their policies only (it never runs a handler). */
  readonly registry: JobKindRegistry<AnyJobPolicy>;
  readonly clock: Clock;
  readonly admittedMax: number;
  readonly retentionMs: number;
  readonly runningMax: number;
  readonly #handlerClock: Clock;
  /** Bounded reads waiting for jobs to change (closed on shutdown). */
  readonly waits: JobWaits;
  readonly #onSubmitted: ((row: JobRow) => void) | undefined;
  readonly #onCancelRequested: ((ids: string[]) => void) | undefined;
  /**
   * The jobs this control admitted (id -> authority), for {@linkcode cancelAdmittedHere}. At most
   * `admittedMax` of them can be open at once (admission counts every process's open jobs), so
   * pruning the ended ones when the map grows past twice that bound keeps every open one, holds at
   * most 2 x `admittedMax` ids, and reads the store once per `admittedMax` submissions at most.
   */
  readonly #admittedHere = new Map<string, Authority>();
  /**
   * Ended rows as concise reads return them, by id, the most recently read last (at most
   * {@linkcode ENDED_ROWS_CACHED_MAX}, frozen; a row with long texts is never kept,
   * {@linkcode ENDED_ROW_CACHED_TEXT_CHARS_MAX}). An ended row never changes: the database refuses any
   * change to its status, outcome, result or error, every other write of the store names a queued or
   * running row, and only the retention sweep deletes it, once expired. Every read still applies
   * visibility and expiry, so a row read once answers from memory exactly as a read would, until then.
   */
  readonly #endedRows = new Map<string, JobRow>();

  constructor(rows: JobRows, registry: JobKindRegistry<AnyJobPolicy>, options: JobControlOptions) {
    this.#rows = rows;
    this.registry = registry;
    this.clock = options.clock;
    this.admittedMax = options.admittedMax ?? JOB_ADMITTED_MAX_DEFAULT;
    this.retentionMs = options.retentionMs ?? JOB_RETENTION_MS_DEFAULT;
    this.runningMax = options.runningMax ?? JOB_RUNNING_MAX_DEFAULT;
    this.#handlerClock = options.handlerClock ?? options.clock;
    this.#onSubmitted = options.onSubmitted;
    this.#onCancelRequested = options.onCancelRequested;
    this.waits = options.waits ?? new JobWaits({ probe: () => rows.changeStamp(), clock: options.clock });
  }

  /**
   * Admits a job in one transaction. `request` is already validated and normalized: the boundary
   * (the MCP tool, the CLI command) parsed it with the kind's spec. The job exists (and is readable
   * by id from any process) when this resolves.
   *
   * @throws {AppError} `invalid_argument` (unknown kind, request too large), `overloaded`
   *   (admission bound reached; nothing written), `store_busy`.
   */
  async submit(kind: string, request: unknown, options: { authority?: Authority } = {}): Promise<JobRow> {
    if (this.registry.get(kind) === undefined) {
      throw new AppError("invalid_argument", `Cannot submit job: unknown kind "${kind}"`, {
        data: { known_kinds: this.registry.names() },
      });
    }
    const requestJson = JSON.stringify(request ?? null);
    const bytes = utf8BytesIfOver(requestJson, JOB_REQUEST_BYTES_MAX);
    if (bytes !== undefined) {
      throw new AppError(
        "invalid_argument",
        `Cannot submit job: the request is ${bytes} bytes, over the ${JOB_REQUEST_BYTES_MAX}-byte limit`,
        { data: { bytes, bytes_max: JOB_REQUEST_BYTES_MAX } },
      );
    }
    const row = await this.#rows.jobInsertIfAdmitted({
      id: newJobId(),
      kind,
      requestJson,
      retentionMs: this.retentionMs,
      authority: options.authority ?? null,
      now: this.clock.now(),
      admittedMax: this.admittedMax,
    });
    this.#remember(row.id, options.authority ?? null);
    this.#onSubmitted?.(row);
    this.waits.notify();
    return row;
  }

  #remember(id: string, authority: Authority): void {
    this.#admittedHere.set(id, authority);
    if (this.#admittedHere.size <= 2 * this.admittedMax) return;
    const ids = [...this.#admittedHere.keys()];
    for (let at = 0; at < ids.length; at += IDS_PER_CALL_MAX) {
      const chunk = ids.slice(at, at + IDS_PER_CALL_MAX);
      const rows = this.#rows.jobGetMany(chunk, "concise");
      for (const key of chunk) {
        const row = rows.get(key);
        if (row === undefined || isSettled(row)) this.#admittedHere.delete(key);
      }
    }
  }

  /** How many admitted ids {@linkcode cancelAdmittedHere} would look at (at most 2 x `admittedMax`). */
  get admittedHereCount(): number {
    return this.#admittedHere.size;
  }

  /**
   * Requests cancellation of every job this control admitted that has not ended (a host's "stop
   * tasks": SIGINT to a server). Queued ones end `cancelled` at once; running ones once their
   * handler or the shutdown that follows records them. Returns how many were requested or ended.
   */
  async cancelAdmittedHere(): Promise<number> {
    let cancelled = 0;
    for (const [id, authority] of this.#admittedHere) {
      const { effect } = await this.cancel(id, authority);
      if (effect === "requested" || effect === "cancelled") cancelled++;
    }
    this.#admittedHere.clear();
    return cancelled;
  }

  /** A just-admitted row with its guidance, computed once here for the answer that reports it. */
  admitted(row: JobRow): AdmittedJob {
    return { row, guidance: this.guidance(row) };
  }

  /** A job visible to `authority`, or undefined (unknown, purged, or another authority's). */
  get(id: string, authority: Authority = null): JobRow | undefined {
    const found = this.find(id, authority);
    return "row" in found ? found.row : undefined;
  }

  /**
   * A job for a task lookup: the visible row, or why there is none. `expired` when the job's
   * retention ended but its row is not purged yet (and it is `authority`'s); `not_found` otherwise.
   */
  find(id: string, authority: Authority = null): { row: JobRow } | { missing: "expired" | "not_found" } {
    const row = this.#rows.jobGet(id);
    if (row === undefined || !visibleTo(row, authority)) return { missing: "not_found" };
    if (expired(row, this.clock.now())) return { missing: "expired" };
    return { row };
  }

  /**
   * Several jobs visible to `authority`, by id, in one read (at most IDS_PER_CALL_MAX);
   * an id that is unknown, purged or another authority's is absent. `options.columns`: `concise`
   * rows carry no request or result, `all` rows do.
   */
  getMany(ids: readonly string[], authority: Authority, options: { columns: "concise" | "all" }): Map<string, JobRow> {
    const { columns } = options;
    if (ids.length > IDS_PER_CALL_MAX) {
      throw new RangeError(`Cannot read jobs: at most ${IDS_PER_CALL_MAX} ids, current value is ${ids.length}`);
    }
    const now = this.clock.now();
    const rows = columns === "concise" ? this.#endedRowsOf(ids) : new Map<string, JobRow>();
    const unread = rows.size === 0 ? ids : ids.filter((id) => !rows.has(id));
    if (unread.length > 0) {
      for (const [id, row] of this.#rows.jobGetMany(unread, columns)) {
        rows.set(id, columns === "concise" && isSettled(row) && rememberable(row) ? this.#rememberEnded(row) : row);
      }
    }
    for (const [id, row] of rows) {
      const isExpired = expired(row, now);
      // Past its retention a row is never answered again (the sweep purges it): forget it now.
      if (isExpired && this.#endedRows.get(id) === row) this.#endedRows.delete(id);
      if (isExpired || !visibleTo(row, authority)) rows.delete(id);
    }
    return rows;
  }

  /** The remembered ended rows among `ids` (each moved to the most recently read end). */
  #endedRowsOf(ids: readonly string[]): Map<string, JobRow> {
    const found = new Map<string, JobRow>();
    for (const id of ids) {
      const row = this.#endedRows.get(id);
      if (row === undefined) continue;
      this.#endedRows.delete(id);
      this.#endedRows.set(id, row);
      found.set(id, row);
    }
    return found;
  }

  /** Remembers an ended concise row, frozen (it is shared from now on); the least recently read past the bound goes. */
  #rememberEnded(row: JobRow): JobRow {
    deepFreeze(row);
    this.#endedRows.set(row.id, row);
    if (this.#endedRows.size > ENDED_ROWS_CACHED_MAX) {
      const oldest = this.#endedRows.keys().next();
      if (oldest.done !== true) this.#endedRows.delete(oldest.value);
    }
    return row;
  }

  /**
   * Poll guidance for the rows of one answer (`batch`, read together): the queue positions of its
   * queued rows and each kind's recent run time are read once for the batch instead of once per row.
   * A queued row outside `batch` gets its own position query. Use it for one answer, then drop it.
   */
  guidanceFor(batch: Iterable<JobRow>): (row: JobRow) => number | undefined {
    const queuedIds = new Set<string>();
    for (const row of batch) if (row.status === "queued") queuedIds.add(row.id);
    let queue: { ahead: Map<string, number>; running: number } | undefined;
    const recent = new Map<string, number | undefined>();
    const recentRunMs = (kind: string) => {
      if (!recent.has(kind)) recent.set(kind, this.#rows.jobRecentRunMs(kind));
      return recent.get(kind);
    };
    let queuedSeen = 0;
    return (row) => {
      const now = this.clock.now();
      if (row.status === "queued") {
        // One queued row: its own position query; from the second on, the batch's positions in one read.
        if (++queuedSeen === 1 || !queuedIds.has(row.id)) return this.pollAfterMs(row);
        queue ??= this.#rows.jobQueuePositions([...queuedIds]);
        return pollAfterMs(row, {
          now,
          // Absent: no longer queued (claimed or cancelled since the batch was read); 0, as before.
          queue: { ahead: queue.ahead.get(row.id) ?? 0, running: queue.running },
          recentRunMs: recentRunMs(row.kind),
          runningMax: this.runningMax,
          firstPollMs: this.#firstPollMs(row),
        });
      }
      const recentMs = row.status === "running" && row.next_poll_at === null ? recentRunMs(row.kind) : undefined;
      return pollAfterMs(row, { now, recentRunMs: recentMs, runningMax: this.runningMax });
    };
  }

  list(filter: { status?: JobStatus; kind?: string; limit: number }): JobRow[] {
    return this.#rows.jobList(filter);
  }

  /**
   * Persists a cancellation request (queued -> cancelled at once; running -> requested).
   * Idempotent; a job that already ended reports `already_ended` (or `already_cancelled`) unchanged.
   */
  async cancel(id: string, authority: Authority = null): Promise<CancelEffect> {
    // Read first, outside any transaction: an id the caller cannot see (unknown, another token's, past
    // its retention) must not take the database's write lock (a token could name 100 such ids per call).
    if (this.get(id, authority) === undefined) return { effect: "not_found" };
    const effect = await this.#rows.jobCancelRequest(id, this.clock.now());
    if (effect.effect === "requested") this.#onCancelRequested?.([id]);
    this.waits.notify();
    return effect;
  }

  /**
   * A bounded read: resolves once any of the jobs `ids` visible to `authority` changes
   * materially (`until: "change"`) or all of them are terminal, else after `ms`; at once when
   * `signal` aborts, the waits close, or too many calls wait already. Never writes.
   */
  async wait(
    ids: readonly string[],
    authority: Authority,
    options: { ms: number; until: "change" | "terminal"; signal?: AbortSignal },
  ): Promise<WaitReport> {
    const start = this.clock.now();
    // One statement per re-read; concise rows carry every field materialKey reads.
    const read = () => {
      const rows = this.getMany(ids, authority, { columns: "concise" });
      return ids.map((id) => rows.get(id));
    };
    let before: string[] | undefined;
    const ended = await this.waits.wait(options.ms, () => {
      const rows = read();
      if (rows.every(isSettled)) return "terminal";
      const keys = rows.map((r) => materialKey(r, this.registry));
      if (before === undefined) before = keys;
      else if (options.until === "change" && keys.some((k, i) => k !== before?.[i])) return "changed";
      return undefined;
    }, { signal: options.signal });
    return { until: options.until, ended, waited_ms: Math.max(0, this.clock.now() - start) };
  }

  /**
   * Everything a job's follow-up handle (src/jobs/projection.ts `jobHandle`) derives beyond its row:
   * poll guidance and ttl, computed together once per answer.
   */
  guidance(row: JobRow): JobGuidance {
    return { pollMs: this.pollAfterMs(row), ttlMs: ttlMsOf(row, this.clock.now()) };
  }

  /** Poll guidance for a job in milliseconds; undefined when terminal. */
  pollAfterMs(row: JobRow): number | undefined {
    const now = this.clock.now();
    if (row.status === "queued") {
      return pollAfterMs(row, {
        now,
        queue: this.#rows.jobQueuePosition(row.id),
        recentRunMs: this.#rows.jobRecentRunMs(row.kind),
        runningMax: this.runningMax,
        firstPollMs: this.#firstPollMs(row),
      });
    }
    const recent = row.status === "running" && row.next_poll_at === null
      ? this.#rows.jobRecentRunMs(row.kind)
      : undefined;
    return pollAfterMs(row, { now, recentRunMs: recent, runningMax: this.runningMax });
  }

  /** A queued job's kind's own time to its first useful observation, in real milliseconds, if it says. */
  #firstPollMs(row: JobRow): number | undefined {
    const first = this.registry.get(row.kind)?.firstPollAfterMs?.(row.request);
    return first === undefined ? undefined : first * realMsPer(this.#handlerClock);
  }
}

/** Whether an ended row's own texts are short enough to remember ({@linkcode ENDED_ROW_CACHED_TEXT_CHARS_MAX}). */
function rememberable(row: JobRow): boolean {
  const chars = (row.error === null ? 0 : JSON.stringify(row.error).length) +
    (row.progress_message?.length ?? 0) + (row.phase?.length ?? 0);
  return chars <= ENDED_ROW_CACHED_TEXT_CHARS_MAX;
}

/** Freezes `value` and every object inside it (a JSON value: no cycles). */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}

/** Whether a job's retention has ended at `now` (its row may still await the purge). */
function expired(row: JobRow, now: number): boolean {
  return row.expires_at !== null && row.expires_at <= now;
}

/** The local authority (whoever can read the database anyway) sees every job; an HTTP
 * token sees only the jobs it created. */
function visibleTo(row: JobRow, authority: Authority): boolean {
  return authority === null || row.authority === authority;
}
