/**
 * Detects a starving event loop. The store's writes are synchronous, so a backlog of quick jobs
 * runs claim -> run -> terminal write entirely on microtasks and would starve timers and I/O
 * (heartbeats, cancel polls, stdio). The executor's claim then yields with `setImmediate` instead
 * of a microtask.
 *
 * @module
 */

import { setImmediate } from "node:timers";
import { EVENT_LOOP_SLICE_MS } from "../base/limits.ts";

/** Tracks how long the event loop has gone without turning. */
export class EventLoopSlice {
  readonly #now: () => number;
  #open = false;
  #startedAt = 0;

  /** `now` is a monotonic time in ms (default `performance.now`). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** True when the event loop has not turned for {@linkcode EVENT_LOOP_SLICE_MS} since the first call of this turn. */
  starving(): boolean {
    const now = this.#now();
    if (!this.#open) {
      this.#open = true;
      this.#startedAt = now;
      setImmediate(() => this.#open = false); // runs once the event loop turns
      return false;
    }
    return now - this.#startedAt >= EVENT_LOOP_SLICE_MS;
  }
}
