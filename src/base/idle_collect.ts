/**
 * Gives memory back when an isolate goes quiet (issue 14). V8 keeps the heap a burst of work has
 * grown until it next needs a full collection, and its memory reducer, which would shrink it, never
 * starts in Deno (the embedder reports no idleness). So each of a server's isolates (the serving
 * thread, the network worker) runs one memory-reducing full collection once it has been quiet for
 * {@linkcode IDLE_COLLECT_AFTER_MS}, if its committed heap grew by at least
 * {@linkcode IDLE_COLLECT_HEAP_GROWTH_BYTES_MIN} since its last one; the collection returns the
 * freed pages to the system. It needs V8's `gc` function (`--expose-gc`, in the launch line's
 * V8 flags); without it nothing is collected.
 *
 * @module
 */

import { IDLE_COLLECT_AFTER_MS, IDLE_COLLECT_HEAP_GROWTH_BYTES_MIN } from "./limits.ts";
import type { Logger } from "./log.ts";

/** One collection of the calling isolate's heap. */
export type Collect = () => void;

/**
 * V8's memory-reducing full collection (the `last-resort` flavour: full collections until nothing
 * more is freed, then free pages released), or `null` when V8 exposes no `gc` function.
 */
function fullCollection(): Collect | null {
  const gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== "function") return null;
  return () => gc({ type: "major", execution: "sync", flavor: "last-resort" });
}

/** What a collection did, for the log. */
export interface Collected {
  heapBefore: number;
  heapAfter: number;
  ms: number;
}

export interface IdleCollectorOptions {
  collect: Collect;
  /** The isolate's committed heap in bytes (`Deno.memoryUsage().heapTotal` in production). */
  heapBytes: () => number;
  /** Milliseconds, monotonic enough for the quiet time (`performance.now` in production). */
  now: () => number;
  afterMs?: number;
  growthBytesMin?: number;
  onCollected?: (collected: Collected) => void;
}

/** The outcome of one look: still active, not worth a collection, or collected. */
export type IdleLook = "active" | "grew_little" | "collected";

/**
 * Decides when to collect. `touch()` marks activity; `look()` collects if the isolate has been quiet
 * long enough and its heap grew enough, and says when to look again (`null`: not before the next
 * activity). {@linkcode scheduleIdleCollection} drives it with a timer.
 */
export class IdleCollector {
  readonly afterMs: number;
  readonly #o: IdleCollectorOptions;
  readonly #growthBytesMin: number;
  #lastActive: number;
  /** Committed heap after the last collection; 0 before the first, so a fresh isolate's start-up garbage goes too. */
  #heapAfterLast = 0;

  constructor(options: IdleCollectorOptions) {
    const afterMs = options.afterMs ?? IDLE_COLLECT_AFTER_MS;
    const growthBytesMin = options.growthBytesMin ?? IDLE_COLLECT_HEAP_GROWTH_BYTES_MIN;
    if (!Number.isSafeInteger(afterMs) || afterMs < 1) {
      throw new RangeError(`Cannot collect when idle: afterMs must be an integer >= 1, current value is ${afterMs}`);
    }
    if (!Number.isSafeInteger(growthBytesMin) || growthBytesMin < 0) {
      throw new RangeError(
        `Cannot collect when idle: growthBytesMin must be an integer >= 0, current value is ${growthBytesMin}`,
      );
    }
    this.#o = options;
    this.afterMs = afterMs;
    this.#growthBytesMin = growthBytesMin;
    this.#lastActive = options.now();
  }

  /** Something happened: the quiet time starts again. */
  touch(): void {
    this.#lastActive = this.#o.now();
  }

  /** Collects if quiet and grown; returns the outcome and the delay until the next look (`null`: none due). */
  look(): { outcome: IdleLook; nextInMs: number | null } {
    const now = this.#o.now();
    const quiet = now - this.#lastActive;
    if (quiet < this.afterMs) return { outcome: "active", nextInMs: Math.ceil(this.afterMs - quiet) };
    const heapBefore = this.#o.heapBytes();
    if (heapBefore - this.#heapAfterLast < this.#growthBytesMin) return { outcome: "grew_little", nextInMs: null };
    this.#o.collect();
    const heapAfter = this.#o.heapBytes();
    this.#heapAfterLast = heapAfter;
    this.#o.onCollected?.({ heapBefore, heapAfter, ms: this.#o.now() - now });
    return { outcome: "collected", nextInMs: null };
  }
}

/** A running schedule: `touch()` on activity; `stop()` cancels the pending look. */
export interface IdleCollection {
  touch(): void;
  stop(): void;
}

/** One-shot timers (tests pass their own to fire them by hand). */
export interface IdleTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** Real timers, unreferenced: a pending look never keeps a process alive. */
const unrefTimers: IdleTimers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    Deno.unrefTimer(t);
    return t;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Drives `collector` with one timer: armed at the start and by activity, it looks when the quiet
 * time could have passed, and stays unarmed after a look that collected or found nothing to
 * collect, until the next activity.
 */
export function scheduleIdleCollection(collector: IdleCollector, timers: IdleTimers = unrefTimers): IdleCollection {
  let timer: unknown;
  let armed = false;
  let stopped = false;
  const arm = (ms: number) => {
    armed = true;
    timer = timers.set(run, ms);
  };
  const run = () => {
    armed = false;
    if (stopped) return;
    const { nextInMs } = collector.look();
    if (nextInMs !== null) arm(nextInMs);
  };
  arm(collector.afterMs);
  return {
    touch: () => {
      collector.touch();
      if (!armed && !stopped) arm(collector.afterMs);
    },
    stop: () => {
      stopped = true;
      if (armed) timers.clear(timer);
      armed = false;
    },
  };
}

/**
 * The production schedule for the calling isolate: V8's collection, its committed heap, real time,
 * each collection logged at debug level; `null` (logged once) without `--expose-gc`.
 */
export function idleCollection(log: Logger): IdleCollection | null {
  const collect = fullCollection();
  if (collect === null) {
    log.debug("V8 exposes no gc function (--expose-gc): memory is not collected when idle");
    return null;
  }
  return scheduleIdleCollection(
    new IdleCollector({
      collect,
      heapBytes: () => Deno.memoryUsage().heapTotal,
      now: () => performance.now(),
      onCollected: ({ heapBefore, heapAfter, ms }) =>
        log.debug("collected garbage after idling", {
          heap_before: heapBefore,
          heap_after: heapAfter,
          ms: Math.round(ms),
        }),
    }),
  );
}
