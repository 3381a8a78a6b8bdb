/**
 * Throttled progress writes for one running job: at most one write per
 * {@linkcode JOB_PROGRESS_WRITE_MS_MIN} (phase changes are written at once), fields bounded and
 * normalized, poll guidance converted from the handler's clock to real time, and progress a failed
 * write kept for the next write or the job's end. The write itself is the caller's (`runJob` in
 * job_run.ts binds it to the job's fenced progress write), so this module holds no store.
 *
 * @module
 */

import { type Clock, realMsPer } from "../base/clock.ts";
import { JOB_PROGRESS_MESSAGE_CHARS_MAX, JOB_PROGRESS_WRITE_MS_MIN } from "../base/limits.ts";
import type { ProgressWrite } from "../store/job_rows.ts";
import type { Progress } from "./kinds.ts";

/** Writes one batch of progress fields; a rejection means nothing of it was stored. */
export type ProgressWriteFn = (progress: ProgressWrite) => Promise<unknown>;

/** What a {@linkcode ProgressThrottle} writes through, its clocks, and the phase it starts from. */
export interface ProgressThrottleOptions {
  /** The job's progress write (its fenced store write). */
  write: ProgressWriteFn;
  /** Real time: the throttle and stored poll guidance. */
  clock: Clock;
  /** The time handlers speak (`nextPollAt`). */
  handlerClock: Clock;
  /** The phase stored when the job was claimed. */
  phase: string | null;
}

/** Throttled progress writes for one running job; phase changes are written at once. */
export class ProgressThrottle {
  readonly #write: ProgressWriteFn;
  readonly #clock: Clock;
  readonly #handlerClock: Clock;
  #pending: ProgressWrite = {};
  /** The newest value reported for each field, so a failed older write never restores a stale one. */
  #latest: ProgressWrite = {};
  #hasPending = false;
  #lastWriteAt = -Infinity;
  #lastPhase: string | null;
  /** The pending throttled write, a sleep on the executor's clock (a ManualClock in tests). */
  #timer: AbortController | undefined;
  #chain: Promise<void> = Promise.resolve();

  /**
   * `options.clock` is real time (throttle, stored poll guidance); `options.handlerClock` the time
   * handlers speak (`nextPollAt`); `options.phase` the phase stored when the job was claimed.
   */
  constructor(options: ProgressThrottleOptions) {
    this.#write = options.write;
    this.#clock = options.clock;
    this.#handlerClock = options.handlerClock;
    this.#lastPhase = options.phase;
  }

  report(p: Progress): void {
    if (p.phase !== undefined) this.#pending.phase = p.phase;
    if (p.message !== undefined) this.#pending.message = p.message.slice(0, JOB_PROGRESS_MESSAGE_CHARS_MAX);
    if (p.completedItems !== undefined) this.#pending.completedItems = Math.max(0, Math.floor(p.completedItems));
    if (p.totalItems !== undefined) this.#pending.totalItems = Math.max(0, Math.floor(p.totalItems));
    if (p.nextPollAt !== undefined) {
      // Handlers speak their own clock; poll guidance is stored in real time.
      const delay = (p.nextPollAt - this.#handlerClock.now()) * realMsPer(this.#handlerClock);
      this.#pending.nextPollAt = Math.round(this.#clock.now() + delay);
    }
    this.#latest = { ...this.#latest, ...this.#pending };
    this.#hasPending = true;
    const phaseChanged = p.phase !== undefined && p.phase !== this.#lastPhase;
    const since = this.#clock.now() - this.#lastWriteAt;
    if (phaseChanged || since >= JOB_PROGRESS_WRITE_MS_MIN) {
      void this.#writePending();
    } else if (this.#timer === undefined) {
      const timer = new AbortController();
      this.#timer = timer;
      this.#clock.sleep(JOB_PROGRESS_WRITE_MS_MIN - since, timer.signal).then(() => {
        this.#timer = undefined;
        void this.#writePending();
      }, () => {}); // aborted by flush()
    }
  }

  #writePending(): Promise<void> {
    if (!this.#hasPending) return this.#chain;
    const p = this.#pending;
    this.#pending = {};
    this.#hasPending = false;
    this.#lastWriteAt = this.#clock.now();
    if (p.phase !== undefined) this.#lastPhase = p.phase;
    this.#chain = this.#chain.then(async () => {
      try {
        await this.#write(p);
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
    return this.#writePending();
  }
}
