/**
 * The execution side of the job runtime: FIFO claiming with bounded concurrency and the
 * executor's lifecycle (start, linger, stop with its grace). Its parts, one concern each:
 *
 * - src/jobs/executor_options.ts: {@linkcode ExecutorOptions}, defaults and their validation;
 * - src/jobs/owner_heartbeat.ts: the owner row, its heartbeat and the lease fencing every write;
 * - src/jobs/job_run.ts: one job's run (context, abort signal, how it ends, the terminal write and
 *   its retry while the lease holds), with src/jobs/progress_throttle.ts for its progress;
 * - src/jobs/reconciler.ts: jobs of lost owners recorded `process_lost`;
 * - src/jobs/retention_sweep.ts: expired jobs deleted in bounded batches;
 * - src/jobs/periodic_loops.ts: the background loops (heartbeat, reconcile, cancel poll, sweep); the cancel
 *   poll is armed only while a job runs here;
 * - src/jobs/event_loop_slice.ts: when a backlog of quick jobs must yield to the event loop;
 * - src/jobs/job_abort.ts: {@linkcode JobAbort}, the reason a handler's signal carries.
 *
 * A job:
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
 * The executor:
 *
 * ```
 *        start()              linger()                 stop()
 *  new ─────────▶ started ───────────▶ lingering ─────────────▶ stopping ──▶ stopped
 *   │               │  claims, loops      no claims; loops and      aborts handlers, waits the
 *   │               │                     running handlers go on    grace, records the rest
 *   │               └─────────────── stop() ──────────────────────▶ `interrupted`, deletes owner
 *   └─ stop() ──▶ stopped
 * ```
 *
 * `linger()` (the host went away) stops claiming but keeps every loop and every running handler
 * going: the jobs end as above while queued jobs wait for another executor; `stop()` ends a linger.
 *
 * @module
 */

import { setImmediate } from "node:timers";
import type { Clock } from "../base/clock.ts";
import { AssertionError } from "../base/errors.ts";
import { CLAIM_POLL_IDLE_BACKOFF_MAX, OWNER_HEARTBEAT_RETRY_MS } from "../base/limits.ts";
import type { Logger } from "../base/log.ts";
import type { ClaimedJob, ClaimRequest, JobRows, TerminalWrite } from "../store/job_rows.ts";
import { EventLoopSlice } from "./event_loop_slice.ts";
import { type ExecutorConfig, executorConfig, type ExecutorOptions } from "./executor_options.ts";
import { JobAbort } from "./job_abort.ts";
import { type JobRunHost, runJob, type RunningJob } from "./job_run.ts";
import type { AnyJobKind, JobKindRegistry } from "./kinds.ts";
import { OwnerHeartbeat } from "./owner_heartbeat.ts";
import { PeriodicLoops } from "./periodic_loops.ts";
import { Reconciler } from "./reconciler.ts";
import { retentionSweep } from "./retention_sweep.ts";

export type { ExecutorOptions } from "./executor_options.ts";
export { type AbortCause, JobAbort } from "./job_abort.ts";

interface PendingTerminal {
  job: RunningJob;
  terminal: TerminalWrite;
  resolve: (landed: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * The wait before an executor's next look for queued work: `claimPollMs` while it finds work, doubling with each
 * of `emptyPolls` looks in a row that found nothing, up to {@linkcode CLAIM_POLL_IDLE_BACKOFF_MAX} x `claimPollMs`.
 */
export function claimPollDelayMs(claimPollMs: number, emptyPolls: number): number {
  if (!Number.isInteger(emptyPolls) || emptyPolls < 0) {
    throw new RangeError(
      `Cannot pace the claim poll: emptyPolls must be an integer >= 0, current value is ${emptyPolls}`,
    );
  }
  // The exponent is bounded, so a day of empty polls cannot overflow it (2 ** 4 already passes the cap).
  return Math.min(claimPollMs * 2 ** Math.min(emptyPolls, 16), claimPollMs * CLAIM_POLL_IDLE_BACKOFF_MAX);
}

/** Runs jobs of the registered kinds from the shared store. */
export class Executor {
  readonly #rows: JobRows;
  readonly #registry: JobKindRegistry;
  readonly #config: ExecutorConfig;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #owner: OwnerHeartbeat;
  readonly #loops: PeriodicLoops;
  readonly #reconciler: Reconciler;
  readonly #slice = new EventLoopSlice();
  readonly #runHost: JobRunHost;

  #running = new Map<string, RunningJob>();
  #state: "new" | "started" | "lingering" | "stopping" | "stopped" = "new";
  /** Resolved once a lingering executor runs no job. */
  #idle: PromiseWithResolvers<void> | undefined;
  #claiming = false;
  #claimAgain = false;
  #claimTimer: ReturnType<typeof setTimeout> | undefined;
  /** The cancel poll, armed only while a job runs here (set at start). */
  #cancelPoll: { arm(): void; readonly armed: boolean } | undefined;
  /** Polls in a row that found nothing, since work was last found or submitted here: the idle poll slows with them. */
  #emptyPolls = 0;
  /** Terminal writes waiting for the next batch transaction. */
  #terminalQueue: PendingTerminal[] = [];

  constructor(rows: JobRows, registry: JobKindRegistry, options: ExecutorOptions) {
    const config = executorConfig(options);
    this.#rows = rows;
    this.#registry = registry;
    this.#config = config;
    this.#clock = config.clock;
    this.#log = config.log;
    this.#owner = new OwnerHeartbeat(rows, { clock: config.clock, pid: config.pid, leaseMs: config.leaseMs });
    this.#loops = new PeriodicLoops(config.log, () => this.#live());
    // Jobs stored as running under this owner that no local handler runs any more (their end
    // could not be written) are released in the same transaction, so they are recorded now
    // rather than left running under a live owner. Not while a claim is in flight: its rows
    // are about to start.
    this.#reconciler = new Reconciler(rows, {
      clock: config.clock,
      log: config.log,
      release: () =>
        this.#live() && !this.#claiming ? { ownerId: this.#owner.ownerId, keep: [...this.#running.keys()] } : undefined,
      onTerminal: config.onTerminal,
    });
    this.#runHost = {
      rows,
      clock: config.clock,
      handlerClock: config.handlerClock,
      log: config.log,
      onTerminal: config.onTerminal,
      onProgress: config.onProgress,
      writeTerminal: (job, terminal) => this.#writeTerminal(job, terminal),
      ownsLease: (job) => this.#live() && job.ownerId === this.#owner.ownerId && this.#owner.holds(),
      interrupted: (job) => this.#running.delete(job.row.id),
    };
  }

  /** This executor's current owner id. */
  get ownerId(): string {
    return this.#owner.ownerId;
  }

  /** Ids of jobs running in this executor now. */
  runningIds(): string[] {
    return [...this.#running.keys()];
  }

  /** Whether the cancel poll's timer is armed: only while a job runs here (and for one period after the last ends). */
  get cancelPollArmed(): boolean {
    return this.#cancelPoll?.armed ?? false;
  }

  /** Registers the owner, reconciles once, then starts every loop. */
  async start(): Promise<void> {
    if (this.#state !== "new") throw new TypeError(`Cannot start executor: it is ${this.#state}`);
    this.#state = "started";
    await this.#owner.register();
    await this.#reconciler.run();
    const config = this.#config;
    // A heartbeat that could not be written is tried again soon, not a period later: the lease then survives a
    // storage fault that ends up to OWNER_HEARTBEAT_RETRY_MS before it lapses.
    this.#loops.every(config.heartbeatMs, () => this.#heartbeat(), {
      retryMs: Math.min(OWNER_HEARTBEAT_RETRY_MS, config.heartbeatMs),
    });
    this.#loops.every(config.reconcileMs, () => this.#reconcile());
    this.#loops.every(config.retentionSweepMs, () => this.#sweep());
    // Only while a job runs here (started or lingering): an idle executor does not wake five times a second to
    // learn that it runs nothing. Armed by each job's start.
    this.#cancelPoll = this.#loops.onDemand(config.cancelPollMs, () => this.#pollCancels(), {
      active: () => this.#running.size > 0,
    });
    this.wake();
  }

  /** Looks for queued work now (called after a local submission, and when a job ends): the poll is brisk again. */
  wake(): void {
    this.#emptyPolls = 0;
    this.#claimSoon();
  }

  /** Looks for queued work after the current microtasks, unless a look is under way or every slot is taken. */
  #claimSoon(): void {
    if (this.#state !== "started") return;
    if (this.#claiming) {
      this.#claimAgain = true;
      return;
    }
    // Every slot taken: nothing to claim, and the next job to end wakes us again. (Under a backlog of
    // quick jobs most ends find their slot refilled by their own terminal batch; scheduling a claim
    // loop and re-arming the poll timer for each of them cost more than the claim itself.)
    if (this.#running.size >= this.#config.runningMax) return;
    // Claim after the current microtasks: jobs that end together free their slots first,
    // so one transaction claims for all of them.
    this.#claiming = true;
    if (this.#slice.starving()) setImmediate(() => void this.#claimLoop()); // ~0.5 ms; setTimeout(0) takes 2+ ms
    else queueMicrotask(() => void this.#claimLoop());
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
    const wasStarted = this.#live();
    this.#state = "stopping";
    this.#loops.clear();
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
      this.#clock.sleep(this.#config.shutdownGraceMs, grace.signal).catch(() => {}),
    ]);
    grace.abort();
    for (const r of this.#running.values()) {
      try {
        await this.#rows.jobSetInterruptedIfOwned(
          { id: r.row.id, ownerId: r.ownerId, attempt: r.row.attempt },
          this.#clock.now(),
        );
        this.#config.onTerminal?.(r.row.id);
      } catch (err) {
        this.#log.error("could not record an interrupted job", { id: r.row.id, error: String(err) });
      }
    }
    this.#running.clear();
    this.#idle?.resolve();
    try {
      await this.#owner.delete();
    } catch (err) {
      this.#log.warn("could not delete owner row; it will expire with its lease", { error: String(err) });
    }
    this.#state = "stopped";
  }

  /** Started or lingering: the loops run and running jobs may still end under the lease. */
  #live(): boolean {
    return this.#state === "started" || this.#state === "lingering";
  }

  // ------------------------------------------------------------------ claiming

  /** What this executor may claim: its kinds, up to `max` jobs, only {@linkcode ExecutorOptions.onlyJobs} if set. */
  #claimRequest(ownerId: string, max: number): ClaimRequest {
    const only = this.#config.onlyJobs;
    return { ownerId, kinds: this.#registry.names(), max, ...(only === undefined ? {} : { ids: [...only] }) };
  }

  async #claimLoop(): Promise<void> {
    this.#claiming = true;
    let found = false;
    try {
      do {
        this.#claimAgain = false;
        while (this.#state === "started" && this.#running.size < this.#config.runningMax) {
          // Every free slot in one transaction: one commit per batch, not per job.
          const ownerId = this.#owner.ownerId;
          const rows = await this.#rows.jobClaimBatchIfOwnerLive(
            this.#claimRequest(ownerId, this.#config.runningMax - this.#running.size),
            this.#clock.now(),
          );
          if (rows.length === 0) break;
          found = true;
          if (!(await this.#startClaimed(rows, ownerId))) break;
        }
      } while (this.#claimAgain && this.#state === "started");
    } catch (err) {
      // A broken invariant stops the process (thrown out of this un-awaited loop), never a retried claim.
      if (err instanceof AssertionError) throw err;
      this.#log.warn("claim failed; retrying", { error: String(err) });
    } finally {
      this.#claiming = false;
      this.#resolveIdleIfDone();
    }
    this.#emptyPolls = found ? 0 : this.#emptyPolls + 1;
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
        await this.#rows.jobSetInterruptedIfOwned({ id: row.id, ownerId, attempt: row.attempt }, this.#clock.now());
        this.#config.onTerminal?.(row.id);
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

  /** Idle poll for work queued by other processes, slower after each poll that found nothing ({@linkcode claimPollDelayMs}). */
  #armClaimPoll(): void {
    if (this.#state !== "started") return;
    if (this.#claimTimer !== undefined) clearTimeout(this.#claimTimer);
    this.#claimTimer = setTimeout(() => {
      this.#claimTimer = undefined;
      this.#claimSoon();
    }, claimPollDelayMs(this.#config.claimPollMs, this.#emptyPolls));
  }

  // ------------------------------------------------------------------ loops

  async #heartbeat(): Promise<void> {
    // A storage fault here throws: the loop retries after OWNER_HEARTBEAT_RETRY_MS, and a lease that lapses meanwhile
    // fences every terminal write of this owner (another process may reconcile its jobs).
    if (await this.#owner.beat()) return;
    // Our lease lapsed: another process may already have recorded our jobs as lost. Abort
    // them (their terminal writes are fenced and will be refused) and start afresh.
    this.#log.warn("owner lease lost; aborting local jobs and re-registering", { jobs: this.#running.size });
    for (const r of this.#running.values()) r.controller.abort(new JobAbort("lease_lost"));
    await this.#owner.renew();
    await this.#reconcile();
  }

  async #reconcile(): Promise<void> {
    await this.#reconciler.run();
  }

  /** Cross-process cancellation: a cancel persisted by another process aborts the local handler. */
  /** Aborts the local handlers of jobs whose cancellation another process persisted (one query). */
  #pollCancels(): Promise<void> {
    if (this.#running.size > 0) this.abortLocal(this.#rows.jobListCancelRequested(this.#owner.ownerId));
    return Promise.resolve();
  }

  async #sweep(): Promise<void> {
    await retentionSweep(this.#rows, { clock: this.#clock, keepGoing: () => this.#state === "started" });
  }

  // ------------------------------------------------------------------ runs and their ends

  #startRun(row: ClaimedJob): void {
    const controller = new AbortController();
    const job: RunningJob = { row, ownerId: this.#owner.ownerId, controller, done: Promise.resolve() };
    this.#running.set(row.id, job);
    this.#cancelPoll?.arm();
    let lost = false;
    // An async arrow: the handler starts now, and a failed kind lookup becomes this run's rejection.
    job.done = (async () => await runJob(this.#runHost, { kind: this.#registry.get(row.kind) as AnyJobKind, job }))()
      .catch(
        (err) => {
          // Only the database can fail here (handler errors are results). The job is released:
          // reconciliation records it (never replayed, never left running under a live owner).
          lost = true;
          this.#log.error("could not record a job's end; releasing it", { id: row.id, error: String(err) });
        },
      ).finally(() => {
        if (this.#running.get(row.id) === job) this.#running.delete(row.id);
        if (lost && this.#live()) {
          void this.#reconcile().catch((err) =>
            this.#log.warn("could not release a job yet; the next reconciliation retries", { error: String(err) })
          );
        }
        this.#resolveIdleIfDone();
        this.wake();
      });
  }

  /**
   * Queues a fenced terminal write. Writes queued in the same turn (jobs finishing together)
   * share one transaction; each is still decided on its own.
   */
  #writeTerminal(job: RunningJob, terminal: TerminalWrite): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#terminalQueue.push({ job, terminal, resolve, reject });
      if (this.#terminalQueue.length === 1) queueMicrotask(() => void this.#flushTerminals());
    });
  }

  async #flushTerminals(): Promise<void> {
    const batch = this.#terminalQueue;
    this.#terminalQueue = [];
    // The slots these jobs free are refilled in the same transaction (unless a claim is already
    // under way, we are stopping, or the event loop has not turned for a slice: then the jobs' ends
    // wake a claim that yields first, see wake()): one commit per finished batch instead of two.
    const refill = this.#state === "started" && !this.#claiming && !this.#slice.starving()
      ? Math.max(0, this.#config.runningMax - (this.#running.size - batch.length))
      : 0;
    const ownerId = this.#owner.ownerId;
    if (refill > 0) this.#claiming = true;
    try {
      const { landed, claimed } = await this.#rows.jobSetTerminalManyAndClaimIfOwned(
        batch.map((p) => ({
          id: p.job.row.id,
          ownerId: p.job.ownerId,
          attempt: p.job.row.attempt,
          terminal: p.terminal,
        })),
        this.#claimRequest(ownerId, refill),
        { now: this.#clock.now() },
      );
      batch.forEach((p, i) => {
        // A landed job is terminal: its slot is free now, not when its run's promise chain settles
        // (several turns later). Otherwise the next batch ending meanwhile would count the finished
        // jobs as running and refill no slot, leaving the claims to a transaction of their own. Only
        // while claiming: a lingering or stopping executor keeps counting a job until its run ends
        // (its idle promise and shutdown wait for the run, onTerminal included, as before).
        if (landed[i] === true && this.#state === "started" && this.#running.get(p.job.row.id) === p.job) {
          this.#running.delete(p.job.row.id);
        }
        p.resolve(landed[i] === true);
      });
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
