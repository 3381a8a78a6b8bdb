/**
 * Bounded waits for readers of jobs (`jobs.get` with `wait_ms`): a call parks until one of
 * its jobs changes materially, all of them are terminal, its time is up, its caller goes
 * away or the server shuts down. A wait is a read: it never creates or changes a job.
 *
 * Every waiter of a process shares ONE change signal: while anyone waits, a single loop
 * probes the database's change stamp (src/store/change_stamp.ts: one O(1) read) every
 * {@linkcode JOB_WAIT_PROBE_MS}, and in-process events ({@linkcode JobWaits.notify}: an
 * admission, a cancellation, a job's progress or end reported by the executor) wake the
 * waiters at once. Only when the stamp moved (or an event came) does each waiter re-read
 * its own rows, so N idle waiters cost one probe per period, not N.
 *
 * @module
 */

import { type Clock, systemClock } from "../base/clock.ts";
import { JOB_WAIT_PROBE_MS, JOB_WAITERS_MAX } from "../base/limits.ts";
import type { JobRow } from "../store/job_rows.ts";
import type { AnyJobPolicy, JobKindRegistry } from "./kinds.ts";

/** Why a wait ended. `cancelled` is never shown to a client (its request is gone). */
export type WaitEnd = "changed" | "terminal" | "deadline" | "cancelled" | "shutdown" | "waiters_full";

/** What a waiter's check says: keep waiting (undefined), or end with this reason. */
export type WaitCheck = () => "changed" | "terminal" | undefined;

export interface JobWaitsOptions {
  /** The change stamp: differs whenever the database may have changed. */
  probe: () => string;
  /** Clock of the deadlines (`wait_ms`). */
  clock: Clock;
  /** Clock of the shared probe loop (default: real time). */
  probeClock?: Clock;
  probeMs?: number;
  waitersMax?: number;
}

interface Waiter {
  check(): void;
  end(reason: WaitEnd): void;
}

/** The waiters of one process and their shared change signal. */
export class JobWaits {
  readonly waitersMax: number;
  readonly #probe: () => string;
  readonly #clock: Clock;
  readonly #probeClock: Clock;
  readonly #probeMs: number;
  readonly #waiters = new Set<Waiter>();
  #stamp = "";
  #loop: AbortController | undefined;
  #closed = false;
  #probes = 0;

  constructor(options: JobWaitsOptions) {
    this.#probe = options.probe;
    this.#clock = options.clock;
    this.#probeClock = options.probeClock ?? systemClock;
    this.#probeMs = options.probeMs ?? JOB_WAIT_PROBE_MS;
    this.waitersMax = options.waitersMax ?? JOB_WAITERS_MAX;
    if (!Number.isInteger(this.waitersMax) || this.waitersMax < 0) {
      throw new RangeError(
        `Cannot create job waits: waitersMax must be an integer >= 0, current value is ${this.waitersMax}`,
      );
    }
  }

  /** Calls parked now. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** Change probes made by the shared loop since creation (one per period while anyone waits). */
  get probes(): number {
    return this.#probes;
  }

  /** Whether {@linkcode close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** An in-process event that may have changed a job: every waiter re-checks now. */
  notify(): void {
    // Called on every admission, progress write and job end: nothing to do (and nothing to copy) with no waiter.
    if (this.#waiters.size === 0) return;
    for (const w of [...this.#waiters]) w.check();
  }

  /** Shutdown: every waiter ends at once with `shutdown`; later waits answer at once. */
  close(): void {
    this.#closed = true;
    for (const w of [...this.#waiters]) w.end("shutdown");
    this.#stopLoop();
  }

  /**
   * Waits up to `ms` until `check` reports a change or the end, `options.signal` aborts, or the
   * waits close. The change stamp is taken here before `check` first runs, so a commit between the
   * caller's reads and the wait is never missed.
   */
  async wait(ms: number, check: WaitCheck, options: { signal?: AbortSignal | undefined } = {}): Promise<WaitEnd> {
    const { signal } = options;
    if (!Number.isInteger(ms) || ms < 0) {
      throw new RangeError(`Cannot wait: ms must be an integer >= 0, current value is ${ms}`);
    }
    if (this.#closed) return "shutdown";
    if (signal?.aborted) return "cancelled";
    // The stamp is taken before the first check reads anything: a commit landing between the two is
    // either seen by that read or moves the stamp, so it is never missed.
    const stamp = this.#probe();
    const first = check();
    if (first !== undefined) return first;
    if (ms === 0) return "deadline";
    if (this.#waiters.size >= this.waitersMax) return "waiters_full";
    const { promise, resolve } = Promise.withResolvers<WaitEnd>();
    const timer = new AbortController();
    let settled = false;
    const end = (reason: WaitEnd) => {
      if (settled) return;
      settled = true;
      this.#waiters.delete(waiter);
      timer.abort();
      signal?.removeEventListener("abort", onAbort);
      if (this.#waiters.size === 0) this.#stopLoop();
      resolve(reason);
    };
    const onAbort = () => end("cancelled");
    const waiter: Waiter = {
      check: () => {
        let r: ReturnType<WaitCheck>;
        try {
          r = check();
        } catch {
          r = "changed"; // the caller's next read reports whatever went wrong
        }
        if (r !== undefined) end(r);
      },
      end,
    };
    this.#waiters.add(waiter);
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#clock.sleep(ms, timer.signal).then(() => end("deadline"), () => {});
    if (this.#loop === undefined) this.#startLoop(stamp);
    return await promise;
  }

  #startLoop(stamp: string): void {
    const loop = new AbortController();
    this.#loop = loop;
    this.#stamp = stamp;
    void (async () => {
      while (!loop.signal.aborted) {
        try {
          await this.#probeClock.sleep(this.#probeMs, loop.signal);
        } catch {
          return; // stopped
        }
        let now: string;
        try {
          now = this.#probe();
        } catch {
          continue; // a closed or busy connection: the deadline still ends every wait
        }
        this.#probes++;
        if (now !== this.#stamp) {
          this.#stamp = now;
          this.notify();
        }
      }
    })();
  }

  #stopLoop(): void {
    this.#loop?.abort();
    this.#loop = undefined;
  }
}

/**
 * What a reader of a job should hear about: execution state, outcome, phase, cancellation,
 * progress counts, the error code, and the kind's own material progress (a watch: its CI
 * signature). Poll counters and timestamps are left out, so they never end a wait.
 */
export function materialKey(row: JobRow | undefined, registry: JobKindRegistry<AnyJobPolicy>): string {
  if (row === undefined) return "absent";
  const own = registry.get(row.kind)?.materialProgress?.(row.progress_message);
  return JSON.stringify([
    row.status,
    row.outcome,
    row.phase,
    row.cancel_requested_at !== null,
    row.completed_items,
    row.total_items,
    row.error?.code ?? null,
    own ?? null,
  ]);
}

/** Whether a row is past running (an absent row will not run again either). */
export function isSettled(row: JobRow | undefined): boolean {
  return row === undefined || (row.status !== "queued" && row.status !== "running");
}
