/**
 * Injected time. Production uses {@linkcode systemClock}; tests use {@linkcode ManualClock}
 * to simulate minutes without waiting for them.
 *
 * @module
 */

import { SIMULATE_TIME_RATE_MAX } from "./limits.ts";

/** Time source plus an abortable sleep. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Real time. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, Math.max(0, ms));
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

interface Sleeper {
  at: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told. `sleep` resolves once `advance` passes its deadline.
 * With `autoAdvance`, a sleep immediately jumps time forward, so a 30-minute simulated
 * watch runs in milliseconds while keeping the order of events.
 */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];
  readonly #autoAdvance: boolean;

  constructor(
    startMs = Date.UTC(2026, 0, 1),
    options: { autoAdvance?: boolean } = {},
  ) {
    this.#now = startMs;
    this.#autoAdvance = options.autoAdvance ?? false;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#autoAdvance) {
      this.#now += Math.max(0, ms);
      // Yield to the event loop so other work interleaves as it would in real time.
      return new Promise((resolve) => setTimeout(resolve, 0));
    }
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = { at: this.#now + Math.max(0, ms), resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener("abort", () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(signal.reason);
      }, { once: true });
    });
  }

  /** Moves time forward and wakes every sleeper whose deadline passed. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.at <= this.#now);
    this.#sleepers = this.#sleepers.filter((s) => s.at > this.#now);
    for (const s of due) s.resolve();
  }

  /** Number of pending sleeps (lets tests wait until a loop is parked). */
  get pendingSleeps(): number {
    return this.#sleepers.length;
  }
}

/**
 * Simulated time running `rate` times faster than real time, for demos and evaluations
 * against the fake GitHub only (a 90-second CI run plays in 9 s at rate 10). Job
 * handlers may run on it; the executor's leases and heartbeats never do.
 */
export class ScaledClock implements Clock {
  readonly rate: number;
  readonly #realStart: number;
  readonly #start: number;

  constructor(rate: number, startMs = Date.now()) {
    if (!(rate >= 1 && rate <= SIMULATE_TIME_RATE_MAX)) {
      throw new RangeError(
        `Cannot create a scaled clock: rate must be 1..${SIMULATE_TIME_RATE_MAX}, current value is ${rate}`,
      );
    }
    this.rate = rate;
    this.#realStart = Date.now();
    this.#start = startMs;
  }

  now(): number {
    return this.#start + (Date.now() - this.#realStart) * this.rate;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms / this.rate, signal);
  }
}

/** Real milliseconds per `clock` millisecond (1 unless the clock is scaled). */
export function realMsPer(clock: Clock): number {
  return clock instanceof ScaledClock ? 1 / clock.rate : 1;
}
