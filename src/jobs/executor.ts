/**
 * The execution side of the job runtime: an owner row with heartbeats, FIFO claiming
 * with bounded concurrency, handler runs with abort signals, cross-process cancellation
 * polling, periodic reconciliation and the retention sweep.
 *
 * ```
 *            claim              handler returns           (fenced write)
 *  queued ─────────▶ running ─────────────────────▶ succeeded
 *    │                 │ handler throws ────────────▶ failed
 *    │ cancel          │ cancel persisted, observed ─▶ cancelled
 *    ▼                 │ owner lost (reconcile) ─────▶ failed: process_lost | cancelled
 *  cancelled           └ shutdown ───────────────────▶ failed: interrupted | cancelled
 * ```
 *
 * `linger()` (the host went away) stops claiming but keeps every loop and every running handler
 * going: the jobs end as above while queued jobs wait for another executor; `stop()` ends a linger.
 *
 * Every periodic loop is a timer re-armed after its attempt finishes, so a slow
 * attempt never causes a burst of catch-up attempts.
 *
 * @module
 */

import { setImmediate } from "node:timers";
import { type Clock, realMsPer } from "../base/clock.ts";
import { AppError, toJobError } from "../base/errors.ts";
import { newOwnerId } from "../base/ids.ts";
import {
  CANCEL_POLL_MS_DEFAULT,
  CLAIM_POLL_MS_DEFAULT,
  EVENT_LOOP_SLICE_MS,
  JOB_EVENT_MESSAGE_CHARS_MAX,
  JOB_PROGRESS_MESSAGE_CHARS_MAX,
  JOB_PROGRESS_WRITE_MS_MIN,
  JOB_RESULT_BYTES_MAX,
  JOB_RUNNING_MAX_DEFAULT,
  OWNER_HEARTBEAT_MS_DEFAULT,
  OWNER_LEASE_HEARTBEATS_MIN,
  OWNER_LEASE_MS_DEFAULT,
  RECONCILE_INTERVAL_MS_DEFAULT,
  RETENTION_SWEEP_BATCH_MAX,
  RETENTION_SWEEP_MS_DEFAULT,
  SHUTDOWN_GRACE_MS_DEFAULT,
  TERMINAL_WRITE_RETRY_MS,
} from "../base/limits.ts";
import type { Logger } from "../base/log.ts";
import type { ClaimedJob, JobRows, ProgressWrite, TerminalWrite } from "../store/job_rows.ts";
import type { AnyJobKind, JobContext, JobKindRegistry, Progress } from "./kinds.ts";

export interface ExecutorOptions {
  /** Real time: timestamps, leases, heartbeats. */
  clock: Clock;
  /** Time given to job handlers (default `clock`); a ScaledClock only in simulations. */
  handlerClock?: Clock;
  log: Logger;
  runningMax?: number;
  heartbeatMs?: number;
  leaseMs?: number;
  reconcileMs?: number;
  cancelPollMs?: number;
  claimPollMs?: number;
  retentionSweepMs?: number;
  shutdownGraceMs?: number;
  pid?: number;
  /** Called after every terminal write this executor makes or observes through reconcile. */
  onTerminal?: (id: string) => void;
  /** Called after a progress write (wakes waiting `jobs.get` calls at once). */
  onProgress?: (id: string) => void;
}

/** Why a handler's signal was aborted. */
export type AbortCause = "cancel" | "shutdown" | "lease_lost";

/** The abort reason given to handlers. */
export class JobAbort extends Error {
  /** (`Error.cause` is the standard chained error, so not that name.) */
  readonly abortCause: AbortCause;
  constructor(abortCause: AbortCause) {
    super(`job aborted: ${abortCause}`);
    this.name = "JobAbort";
    this.abortCause = abortCause;
  }
}

interface PendingTerminal {
  entry: Running;
  terminal: TerminalWrite;
  resolve: (landed: boolean) => void;
  reject: (err: unknown) => void;
}

interface Running {
  row: ClaimedJob;
  ownerId: string;
  controller: AbortController;
  done: Promise<void>;
}

/** Runs jobs of the registered kinds from the shared store. */
export class Executor {
  readonly #rows: JobRows;
  readonly #registry: JobKindRegistry;
  readonly #clock: Clock;
  readonly #handlerClock: Clock;
  readonly #log: Logger;
  readonly #runningMax: number;
  readonly #heartbeatMs: number;
  readonly #leaseMs: number;
  readonly #reconcileMs: number;
  readonly #cancelPollMs: number;
  readonly #claimPollMs: number;
  readonly #sweepMs: number;
  readonly #graceMs: number;
  readonly #pid: number;
  readonly #onTerminal: ((id: string) => void) | undefined;
  readonly #onProgress: ((id: string) => void) | undefined;

  #ownerId = newOwnerId();
  /** Until when this executor's lease certainly holds: the last heartbeat written plus the lease
   * (never later than the stored lease, whose heartbeat_at is at most the local time of the write). */
  #leaseUntil = -Infinity;
  #running = new Map<string, Running>();
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #state: "new" | "started" | "lingering" | "stopping" | "stopped" = "new";
  /** Resolved once a lingering executor runs no job. */
  #idle: PromiseWithResolvers<void> | undefined;
  #claiming = false;
  #claimAgain = false;
  #claimTimer: ReturnType<typeof setTimeout> | undefined;
  #sliceOpen = false;
  #sliceStartedAt = 0;
  /** Terminal writes waiting for the next batch transaction. */
  #terminalQueue: PendingTerminal[] = [];

  constructor(rows: JobRows, registry: JobKindRegistry, options: ExecutorOptions) {
    this.#rows = rows;
    this.#registry = registry;
    this.#clock = options.clock;
    this.#handlerClock = options.handlerClock ?? options.clock;
    this.#log = options.log;
    this.#runningMax = options.runningMax ?? JOB_RUNNING_MAX_DEFAULT;
    this.#heartbeatMs = options.heartbeatMs ?? OWNER_HEARTBEAT_MS_DEFAULT;
    this.#leaseMs = options.leaseMs ?? OWNER_LEASE_MS_DEFAULT;
    this.#reconcileMs = options.reconcileMs ?? RECONCILE_INTERVAL_MS_DEFAULT;
    this.#cancelPollMs = options.cancelPollMs ?? CANCEL_POLL_MS_DEFAULT;
    this.#claimPollMs = options.claimPollMs ?? CLAIM_POLL_MS_DEFAULT;
    this.#sweepMs = options.retentionSweepMs ?? RETENTION_SWEEP_MS_DEFAULT;
    this.#graceMs = options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS_DEFAULT;
    this.#pid = options.pid ?? Deno.pid;
    this.#onTerminal = options.onTerminal;
    this.#onProgress = options.onProgress;
    if (this.#runningMax < 1) {
      throw new RangeError(`Cannot create executor: runningMax must be >= 1, current value is ${this.#runningMax}`);
    }
    if (this.#leaseMs < OWNER_LEASE_HEARTBEATS_MIN * this.#heartbeatMs) {
      throw new RangeError(
        `Cannot create executor: lease must be >= ${OWNER_LEASE_HEARTBEATS_MIN} x heartbeat (${
          OWNER_LEASE_HEARTBEATS_MIN * this.#heartbeatMs
        } ms), current value is ${this.#leaseMs} ms`,
      );
    }
  }

  /** This executor's current owner id. */
  get ownerId(): string {
    return this.#ownerId;
  }

  /** Ids of jobs running in this executor now. */
  runningIds(): string[] {
    return [...this.#running.keys()];
  }

  /** Registers the owner, reconciles once, then starts every loop. */
  async start(): Promise<void> {
    if (this.#state !== "new") throw new TypeError(`Cannot start executor: it is ${this.#state}`);
    this.#state = "started";
    const registeredAt = this.#clock.now();
    await this.#rows.ownerRegister(this.#ownerId, this.#pid, registeredAt, this.#leaseMs);
    this.#leaseUntil = registeredAt + this.#leaseMs;
    await this.#reconcile();
    this.#loop(this.#heartbeatMs, () => this.#heartbeat());
    this.#loop(this.#reconcileMs, () => this.#reconcile());
    this.#loop(this.#cancelPollMs, () => this.#pollCancels());
    this.#loop(this.#sweepMs, () => this.#sweep());
    this.wake();
  }

  /** Looks for queued work now (called after a local submission). */
  wake(): void {
    if (this.#state !== "started") return;
    if (this.#claiming) {
      this.#claimAgain = true;
      return;
    }
    // Claim after the current microtasks: jobs that end together free their slots first,
    // so one transaction claims for all of them.
    this.#claiming = true;
    if (this.#starvingEventLoop()) setImmediate(() => void this.#claimLoop()); // ~0.5 ms; setTimeout(0) takes 2+ ms
    else queueMicrotask(() => void this.#claimLoop());
  }

  /**
   * The store's writes are synchronous, so a backlog of quick jobs runs claim -> run ->
   * terminal write entirely on microtasks and would starve timers and I/O (heartbeats, cancel
   * polls, stdio). True when the event loop has not turned for {@linkcode EVENT_LOOP_SLICE_MS}.
   */
  #starvingEventLoop(): boolean {
    const now = performance.now();
    if (!this.#sliceOpen) {
      this.#sliceOpen = true;
      this.#sliceStartedAt = now;
      setImmediate(() => this.#sliceOpen = false); // runs once the event loop turns
      return false;
    }
    return now - this.#sliceStartedAt >= EVENT_LOOP_SLICE_MS;
  }

  /** Aborts local handlers of jobs whose cancellation was just persisted (in-process fast path). */
  abortLocal(ids: readonly string[]): void {
    for (const id of ids) this.#running.get(id)?.controller.abort(new JobAbort("cancel"));
  }

  /**
   * Stops claiming and keeps running the jobs this executor owns, with heartbeats, cancel polls
   * and reconciliation, so they end as if nothing happened (a cancel persisted by another process
   * still stops them). Queued jobs stay queued for another executor. `running` is the number of
   * jobs running now; `idle` resolves once none is left. `stop()` ends the linger.
   */
  linger(): { running: number; idle: Promise<void> } {
    if (this.#state !== "started" && this.#state !== "lingering") {
      throw new TypeError(`Cannot linger: the executor is ${this.#state}`);
    }
    this.#state = "lingering";
    if (this.#claimTimer !== undefined) clearTimeout(this.#claimTimer);
    this.#claimTimer = undefined;
    this.#idle ??= Promise.withResolvers<void>();
    this.#resolveIdleIfDone();
    return { running: this.#running.size, idle: this.#idle.promise };
  }

  /**
   * Stops claiming, aborts running handlers, waits up to the grace period, records what
   * is still running as `interrupted`, and deletes the owner row. Queued jobs stay queued.
   */
  async stop(): Promise<void> {
    if (this.#state === "stopped" || this.#state === "stopping") return;
    const wasStarted = this.#state === "started" || this.#state === "lingering";
    this.#state = "stopping";
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    if (this.#claimTimer !== undefined) clearTimeout(this.#claimTimer);
    if (!wasStarted) {
      this.#state = "stopped";
      return;
    }
    const running = [...this.#running.values()];
    for (const r of running) r.controller.abort(new JobAbort("shutdown"));
    // The grace is a sleep on the executor's clock (real time in production; a ManualClock in tests).
    const grace = new AbortController();
    await Promise.race([
      Promise.all(running.map((r) => r.done)),
      this.#clock.sleep(this.#graceMs, grace.signal).catch(() => {}),
    ]);
    grace.abort();
    for (const r of this.#running.values()) {
      try {
        await this.#rows.jobSetInterruptedIfOwned(r.row.id, r.ownerId, r.row.attempt, this.#clock.now());
        this.#onTerminal?.(r.row.id);
      } catch (err) {
        this.#log.error("could not record an interrupted job", { id: r.row.id, error: String(err) });
      }
    }
    this.#running.clear();
    this.#idle?.resolve();
    try {
      await this.#rows.ownerDelete(this.#ownerId);
    } catch (err) {
      this.#log.warn("could not delete owner row; it will expire with its lease", { error: String(err) });
    }
    this.#state = "stopped";
  }

  // ------------------------------------------------------------------ loops

  #loop(periodMs: number, attempt: () => Promise<void>): void {
    const arm = () => {
      if (this.#state !== "started" && this.#state !== "lingering") return;
      const t = setTimeout(async () => {
        this.#timers.delete(t);
        try {
          await attempt();
        } catch (err) {
          this.#log.warn("background attempt failed; retrying next period", { error: String(err) });
        }
        arm();
      }, periodMs);
      this.#timers.add(t);
    };
    arm();
  }

  async #claimLoop(): Promise<void> {
    this.#claiming = true;
    try {
      do {
        this.#claimAgain = false;
        while (this.#state === "started" && this.#running.size < this.#runningMax) {
          // Every free slot in one transaction: one commit per batch, not per job.
          const ownerId = this.#ownerId;
          const rows = await this.#rows.jobClaimBatchIfOwnerLive(
            ownerId,
            this.#registry.names(),
            this.#clock.now(),
            this.#runningMax - this.#running.size,
          );
          if (rows.length === 0) break;
          if (!(await this.#startClaimed(rows, ownerId))) break;
        }
      } while (this.#claimAgain && this.#state === "started");
    } catch (err) {
      this.#log.warn("claim failed; retrying", { error: String(err) });
    } finally {
      this.#claiming = false;
      this.#resolveIdleIfDone();
    }
    this.#armClaimPoll();
  }

  /** Lingering with nothing running and no claim in flight (whose rows would start): idle. */
  #resolveIdleIfDone(): void {
    if (this.#state === "lingering" && this.#running.size === 0 && !this.#claiming) this.#idle?.resolve();
  }

  /**
   * Starts claimed jobs. False when no more should be claimed: linger() began while the claim was in
   * flight (the rows are ours now, so they run), or stop() began (they never ran: recorded interrupted).
   */
  async #startClaimed(rows: readonly ClaimedJob[], ownerId: string): Promise<boolean> {
    if (this.#lingering()) {
      for (const row of rows) this.#startRun(row);
      return false;
    }
    if (this.#state !== "started") {
      // stop() began while a busy store delayed the claim: these never ran.
      for (const row of rows) {
        await this.#rows.jobSetInterruptedIfOwned(row.id, ownerId, row.attempt, this.#clock.now());
        this.#onTerminal?.(row.id);
      }
      return false;
    }
    for (const row of rows) this.#startRun(row);
    return true;
  }

  /** Read through a method: the state changes across awaits, which narrowing does not see. */
  #lingering(): boolean {
    return this.#state === "lingering";
  }

  /** Idle poll for work queued by other processes. */
  #armClaimPoll(): void {
    if (this.#state !== "started") return;
    if (this.#claimTimer !== undefined) clearTimeout(this.#claimTimer);
    this.#claimTimer = setTimeout(() => {
      this.#claimTimer = undefined;
      this.wake();
    }, this.#claimPollMs);
  }

  async #heartbeat(): Promise<void> {
    // A storage fault here throws: the loop retries next period, and a lease that lapses meanwhile
    // fences every terminal write of this owner (another process may reconcile its jobs).
    const at = this.#clock.now();
    const live = await this.#rows.ownerHeartbeatIfLive(this.#ownerId, at);
    if (live) {
      this.#leaseUntil = at + this.#leaseMs;
      return;
    }
    // Our lease lapsed: another process may already have recorded our jobs as lost. Abort
    // them (their terminal writes are fenced and will be refused) and start afresh.
    this.#log.warn("owner lease lost; aborting local jobs and re-registering", { jobs: this.#running.size });
    for (const r of this.#running.values()) r.controller.abort(new JobAbort("lease_lost"));
    this.#ownerId = newOwnerId();
    const registeredAt = this.#clock.now();
    await this.#rows.ownerRegister(this.#ownerId, this.#pid, registeredAt, this.#leaseMs);
    this.#leaseUntil = registeredAt + this.#leaseMs;
    await this.#reconcile();
  }

  async #reconcile(): Promise<void> {
    // Jobs stored as running under this owner that no local handler runs any more (their end
    // could not be written) are released in the same transaction, so they are recorded now
    // rather than left running under a live owner. Not while a claim is in flight: its rows
    // are about to start.
    // Decided inside the write transaction (a busy store may run it later, after a claim started jobs).
    const release = () =>
      (this.#state === "started" || this.#state === "lingering") && !this.#claiming
        ? { ownerId: this.#ownerId, keep: [...this.#running.keys()] }
        : undefined;
    const ids = await this.#rows.jobReconcileLost(this.#clock.now(), release);
    if (ids.length > 0) this.#log.warn("recorded jobs of lost processes", { ids });
    for (const id of ids) this.#onTerminal?.(id);
  }

  #pollCancels(): Promise<void> {
    if (this.#running.size > 0) this.abortLocal(this.#rows.jobListCancelRequested(this.#ownerId));
    return Promise.resolve();
  }

  async #sweep(): Promise<void> {
    while (this.#state === "started") {
      const n = await this.#rows.jobDeleteExpired(this.#clock.now(), RETENTION_SWEEP_BATCH_MAX);
      if (n < RETENTION_SWEEP_BATCH_MAX) return;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  // ------------------------------------------------------------------ one run

  #startRun(row: ClaimedJob): void {
    const controller = new AbortController();
    const entry: Running = { row, ownerId: this.#ownerId, controller, done: Promise.resolve() };
    this.#running.set(row.id, entry);
    let lost = false;
    entry.done = this.#run(entry).catch((err) => {
      // Only the database can fail here (handler errors are results). The job is released:
      // reconciliation records it (never replayed, never left running under a live owner).
      lost = true;
      this.#log.error("could not record a job's end; releasing it", { id: row.id, error: String(err) });
    }).finally(() => {
      if (this.#running.get(row.id) === entry) this.#running.delete(row.id);
      if (lost && (this.#state === "started" || this.#state === "lingering")) {
        void this.#reconcile().catch((err) =>
          this.#log.warn("could not release a job yet; the next reconciliation retries", { error: String(err) })
        );
      }
      this.#resolveIdleIfDone();
      this.wake();
    });
  }

  async #run(entry: Running): Promise<void> {
    const { row, ownerId, controller } = entry;
    const kind = this.#registry.get(row.kind) as AnyJobKind;
    const progress = new ProgressWriter(this.#rows, row, ownerId, this.#clock, this.#handlerClock, this.#onProgress);
    const log = this.#log.child(`job:${row.id.slice(0, 8)}`);
    const ctx: JobContext<unknown> = {
      id: row.id,
      kind: row.kind,
      request: row.request,
      signal: controller.signal,
      clock: this.#handlerClock,
      log,
      report: (p) => progress.report(p),
      event: (level, message) => {
        void this.#rows.jobEventAppend(row.id, level, message.slice(0, JOB_EVENT_MESSAGE_CHARS_MAX), this.#clock.now())
          .catch((err) => log.warn("could not append job event", { error: String(err) }));
      },
    };
    let terminal: TerminalWrite;
    try {
      const result = await kind.run(ctx);
      const resultJson = JSON.stringify(result ?? null);
      const bytes = new TextEncoder().encode(resultJson).length;
      if (bytes > JOB_RESULT_BYTES_MAX) {
        throw new AppError(
          "internal",
          `Cannot store job result: ${bytes} bytes is over the ${JOB_RESULT_BYTES_MAX}-byte limit`,
        );
      }
      terminal = { status: "succeeded", outcome: kind.outcome?.(result) ?? "succeeded", resultJson, error: null };
    } catch (err) {
      const reason = controller.signal.reason;
      if (controller.signal.aborted && reason instanceof JobAbort) {
        if (reason.abortCause === "lease_lost") return; // not ours any more; reconciliation records it
        if (reason.abortCause === "shutdown") {
          await progress.flush();
          await this.#rows.jobSetInterruptedIfOwned(row.id, ownerId, row.attempt, this.#clock.now());
          this.#running.delete(row.id);
          this.#onTerminal?.(row.id);
          return;
        }
        terminal = { status: "cancelled", outcome: "cancelled", resultJson: null, error: null };
      } else {
        terminal = { status: "failed", outcome: "failed", resultJson: null, error: toJobError(err) };
      }
    }
    await progress.flush();
    // Progress a storage fault kept from its own write goes out with the end, in the same statement.
    const unwritten = progress.unwritten();
    await this.#finish(entry, unwritten === undefined ? terminal : { ...terminal, progress: unwritten });
  }

  async #finish(entry: Running, terminal: TerminalWrite): Promise<void> {
    const { row, ownerId } = entry;
    let written: boolean;
    for (;;) {
      try {
        written = await this.#writeTerminal(entry, terminal);
        break;
      } catch (err) {
        // A database locked past the store's own retries, a full disk or an I/O error must not
        // lose a finished result: it is kept in memory and written while this owner's lease holds.
        // Past the lease the write would be fenced anyway; the job is then another reconciliation's.
        const transient = err instanceof AppError && (err.code === "store_busy" || err.code === "storage_unavailable");
        if (!transient || !this.#ownsLease(entry)) throw err;
        this.#log.warn("database unavailable; retrying a job's terminal write", { id: row.id, error: String(err) });
        const pause = TERMINAL_WRITE_RETRY_MS / 2 + Math.random() * TERMINAL_WRITE_RETRY_MS / 2;
        await new Promise((resolve) => setTimeout(resolve, pause));
        if (!this.#ownsLease(entry)) throw err;
      }
    }
    if (!written && terminal.status !== "cancelled") {
      // A cancellation persisted before our write wins over a late success or failure.
      const current = this.#rows.jobGet(row.id);
      if (current?.status === "running" && current.owner_id === ownerId && current.cancel_requested_at !== null) {
        written = await this.#rows.jobSetTerminalIfOwned(row.id, ownerId, row.attempt, {
          status: "cancelled",
          outcome: "cancelled",
          resultJson: null,
          error: null,
        }, this.#clock.now()) !== undefined;
      }
    }
    if (!written) {
      this.#log.warn("terminal write refused: the job is no longer ours", { id: row.id });
      return;
    }
    this.#onTerminal?.(row.id);
  }

  /** Whether `entry` still runs under this executor's live lease (so its terminal write may land). */
  #ownsLease(entry: Running): boolean {
    const live = this.#state === "started" || this.#state === "lingering";
    return live && entry.ownerId === this.#ownerId && this.#clock.now() < this.#leaseUntil;
  }

  /**
   * Queues a fenced terminal write. Writes queued in the same turn (jobs finishing together)
   * share one transaction; each is still decided on its own.
   */
  #writeTerminal(entry: Running, terminal: TerminalWrite): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#terminalQueue.push({ entry, terminal, resolve, reject });
      if (this.#terminalQueue.length === 1) queueMicrotask(() => void this.#flushTerminals());
    });
  }

  async #flushTerminals(): Promise<void> {
    const batch = this.#terminalQueue;
    this.#terminalQueue = [];
    // The slots these jobs free are refilled in the same transaction (unless a claim is already
    // under way or we are stopping): one commit per finished batch instead of two.
    const refill = this.#state === "started" && !this.#claiming
      ? Math.max(0, this.#runningMax - (this.#running.size - batch.length))
      : 0;
    const ownerId = this.#ownerId;
    if (refill > 0) this.#claiming = true;
    try {
      const { landed, claimed } = await this.#rows.jobSetTerminalManyAndClaimIfOwned(
        batch.map((p) => ({
          id: p.entry.row.id,
          ownerId: p.entry.ownerId,
          attempt: p.entry.row.attempt,
          terminal: p.terminal,
        })),
        { ownerId, kinds: this.#registry.names(), max: refill },
        this.#clock.now(),
      );
      batch.forEach((p, i) => p.resolve(landed[i] === true));
      if (claimed.length > 0) await this.#startClaimed(claimed, ownerId);
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      if (refill > 0) {
        this.#claiming = false;
        if (this.#claimAgain) this.wake();
        this.#resolveIdleIfDone();
      }
    }
  }
}

/** Throttled progress writes for one running job; phase changes are written at once. */
class ProgressWriter {
  #pending: ProgressWrite = {};
  /** The newest value reported for each field, so a failed older write never restores a stale one. */
  #latest: ProgressWrite = {};
  #hasPending = false;
  #lastWriteAt = -Infinity;
  #lastPhase: string | null;
  /** The pending throttled write, a sleep on the executor's clock (a ManualClock in tests). */
  #timer: AbortController | undefined;
  #chain: Promise<void> = Promise.resolve();

  constructor(
    readonly rows: JobRows,
    readonly row: ClaimedJob,
    readonly ownerId: string,
    readonly clock: Clock,
    readonly handlerClock: Clock,
    readonly onProgress: ((id: string) => void) | undefined,
  ) {
    this.#lastPhase = row.phase;
  }

  report(p: Progress): void {
    if (p.phase !== undefined) this.#pending.phase = p.phase;
    if (p.message !== undefined) this.#pending.message = p.message.slice(0, JOB_PROGRESS_MESSAGE_CHARS_MAX);
    if (p.completedItems !== undefined) this.#pending.completedItems = Math.max(0, Math.floor(p.completedItems));
    if (p.totalItems !== undefined) this.#pending.totalItems = Math.max(0, Math.floor(p.totalItems));
    if (p.nextPollAt !== undefined) {
      // Handlers speak their own clock; poll guidance is stored in real time.
      const delay = (p.nextPollAt - this.handlerClock.now()) * realMsPer(this.handlerClock);
      this.#pending.nextPollAt = Math.round(this.clock.now() + delay);
    }
    this.#latest = { ...this.#latest, ...this.#pending };
    this.#hasPending = true;
    const phaseChanged = p.phase !== undefined && p.phase !== this.#lastPhase;
    const since = this.clock.now() - this.#lastWriteAt;
    if (phaseChanged || since >= JOB_PROGRESS_WRITE_MS_MIN) {
      void this.#write();
    } else if (this.#timer === undefined) {
      const timer = new AbortController();
      this.#timer = timer;
      this.clock.sleep(JOB_PROGRESS_WRITE_MS_MIN - since, timer.signal).then(() => {
        this.#timer = undefined;
        void this.#write();
      }, () => {}); // aborted by flush()
    }
  }

  #write(): Promise<void> {
    if (!this.#hasPending) return this.#chain;
    const p = this.#pending;
    this.#pending = {};
    this.#hasPending = false;
    this.#lastWriteAt = this.clock.now();
    if (p.phase !== undefined) this.#lastPhase = p.phase;
    this.#chain = this.#chain.then(async () => {
      try {
        const ok = await this.rows.jobSetProgressIfOwned(
          this.row.id,
          this.ownerId,
          this.row.attempt,
          p,
          this.clock.now(),
        );
        if (ok) this.onProgress?.(this.row.id);
      } catch {
        // The store already retried (busy lock, storage fault) for a bounded time. Keep what was
        // not written and is still the newest value: the next write (or the end) carries it. A field
        // a newer write already took is not put back with this older value.
        const kept: Record<string, unknown> = {};
        const latest = this.#latest as Record<string, unknown>;
        for (const [key, value] of Object.entries(p)) {
          if (latest[key] === value && !(key in this.#pending)) kept[key] = value;
        }
        if (Object.keys(kept).length > 0) {
          this.#pending = { ...kept, ...this.#pending };
          this.#hasPending = true;
        }
      }
    });
    return this.#chain;
  }

  /** Progress reported but not stored (its writes failed), or undefined. Read after {@linkcode flush}. */
  unwritten(): ProgressWrite | undefined {
    if (!this.#hasPending) return undefined;
    const { nextPollAt: _ignored, ...rest } = this.#pending;
    return rest;
  }

  /** Writes anything pending and waits for earlier writes. */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      this.#timer.abort();
      this.#timer = undefined;
    }
    return this.#write();
  }
}
