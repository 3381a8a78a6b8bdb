/**
 * The executor's background loops (heartbeat, reconciliation, cancel polls, retention sweep), each every period,
 * or on demand (the cancel poll runs only while a job runs, src/jobs/executor.ts).
 * Each loop is a timer re-armed after its attempt finishes, so a slow attempt never causes a
 * burst of catch-up attempts; a failed attempt is logged and retried the next period (or sooner, where a
 * loop asks: the heartbeat), except a broken invariant (`AssertionError`), which stops the process (house style: errors, rule 1).
 *
 * @module
 */

import { AssertionError } from "../base/errors.ts";
import type { Logger } from "../base/log.ts";

/** Where the loops' timers come from: the global timers, or a test's, which sees each delay asked for. */
export interface LoopTimers {
  /** Calls `fn` once after `ms`, unless the timer is cancelled first. */
  set(fn: () => void, ms: number): LoopTimer;
}

/** One armed timer of {@linkcode LoopTimers}. */
export interface LoopTimer {
  cancel(): void;
}

const GLOBAL_TIMERS: LoopTimers = {
  set: (fn, ms) => {
    const id = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(id) };
  },
};

/** A set of periodic loops that run while `live()` holds and stop together. */
export class PeriodicLoops {
  readonly #log: Logger;
  readonly #live: () => boolean;
  readonly #timerSource: LoopTimers;
  readonly #timers = new Set<LoopTimer>();
  /** Bumped by {@linkcode clear}: an attempt in flight then does not re-arm a loop of an earlier generation. */
  #generation = 0;

  /**
   * `live` is read before each re-arm: a loop whose owner stopped is not armed again. `options.timers` are the
   * global ones unless a test gives its own.
   */
  constructor(log: Logger, live: () => boolean, options: { timers?: LoopTimers } = {}) {
    this.#log = log;
    this.#live = live;
    this.#timerSource = options.timers ?? GLOBAL_TIMERS;
  }

  /**
   * Runs `attempt` every `periodMs`, the first time one period from now; after an attempt that threw, the next
   * one comes `options.retryMs` later (default a whole period).
   */
  every(periodMs: number, attempt: () => Promise<void>, options: { retryMs?: number } = {}): void {
    this.#loop(periodMs, attempt, options).arm();
  }

  /**
   * A loop armed on demand: `arm()` starts it (its attempt one period from now) unless it is armed already or
   * `options.active()` is false, and after each attempt it is armed again only while `options.active()` holds. Like
   * every loop it stops when not live and at {@linkcode clear}.
   */
  onDemand(
    periodMs: number,
    attempt: () => Promise<void>,
    options: { active: () => boolean },
  ): { arm(): void; readonly armed: boolean } {
    return this.#loop(periodMs, attempt, options);
  }

  /**
   * A loop of `attempt` every `periodMs` (`options.retryMs` after one that threw), armed again after each attempt
   * while `options.active()` (default: always).
   */
  #loop(
    periodMs: number,
    attempt: () => Promise<void>,
    options: { active?: () => boolean; retryMs?: number } = {},
  ) {
    const { active = () => true, retryMs = periodMs } = options;
    const generation = this.#generation;
    let timer: LoopTimer | undefined;
    const timers = this.#timers;
    const armed = () => timer !== undefined && timers.has(timer);
    const arm = (delayMs = periodMs) => {
      if (armed() || !this.#live() || generation !== this.#generation || !active()) return;
      const t = this.#timerSource.set(async () => {
        timers.delete(t);
        try {
          await attempt();
        } catch (err) {
          // A broken invariant is not retried: thrown from this timer it stops the process (in the network
          // worker, the server then stops), rather than writing again from a state the code did not expect.
          if (err instanceof AssertionError) throw err;
          this.#log.warn("background attempt failed; retrying", { error: String(err), retry_ms: retryMs });
          arm(retryMs);
          return;
        }
        arm();
      }, delayMs);
      timer = t;
      timers.add(t);
    };
    return {
      arm: () => arm(),
      get armed() {
        return armed();
      },
    };
  }

  /** Number of loops waiting for their next period (an attempt in flight is not counted). */
  get armed(): number {
    return this.#timers.size;
  }

  /** Cancels every armed timer; an attempt in flight finishes but its loop is not armed again. */
  clear(): void {
    this.#generation++;
    for (const t of this.#timers) t.cancel();
    this.#timers.clear();
  }
}
