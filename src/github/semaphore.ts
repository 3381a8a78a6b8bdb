/**
 * A small counting semaphore with abortable acquisition, bounding requests in flight.
 *
 * @module
 */

/** At most `permits` holders at once; waiters are served first come, first served. */
export class Semaphore {
  readonly permits: number;
  #held = 0;
  #waiters: Array<{ grant: () => void }> = [];

  constructor(permits: number) {
    if (!Number.isInteger(permits) || permits < 1) {
      throw new RangeError(`Cannot create a semaphore: current value of permits is ${permits}`);
    }
    this.permits = permits;
  }

  /** Permits currently held. */
  get held(): number {
    return this.#held;
  }

  /** Waits for a permit; rejects with the signal's reason when aborted first. Returns the release function. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#held < this.permits) {
      this.#held++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#releaser());
        },
      };
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      // Hand the permit over directly so a newcomer cannot overtake a waiter.
      if (next !== undefined) next.grant();
      else this.#held--;
    };
  }
}
