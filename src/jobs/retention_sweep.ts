/**
 * The retention sweep: deletes ended jobs past their `expires_at` in bounded batches
 * ({@linkcode RETENTION_SWEEP_BATCH_MAX} per transaction), yielding to the event loop between
 * batches so a large backlog never holds the store or starves other work.
 *
 * @module
 */

import type { Clock } from "../base/clock.ts";
import { RETENTION_SWEEP_BATCH_MAX } from "../base/limits.ts";
import type { JobRows } from "../store/job_rows.ts";

/** How a {@linkcode retentionSweep} reads the time, when it stops, and how large its batches are. */
export interface RetentionSweepOptions {
  /** Expiry is judged against its now. */
  clock: Clock;
  /** Read before each batch: false stops the sweep (the executor stopped claiming). */
  keepGoing: () => boolean;
  /** Jobs deleted per transaction (default {@linkcode RETENTION_SWEEP_BATCH_MAX}). */
  batchMax?: number;
}

/**
 * Deletes expired jobs batch after batch until a batch comes back short or `options.keepGoing()`
 * turns false (the executor stopped claiming). Resolves with the number deleted.
 */
export async function retentionSweep(
  rows: Pick<JobRows, "jobDeleteExpired">,
  options: RetentionSweepOptions,
): Promise<number> {
  const { clock, keepGoing, batchMax = RETENTION_SWEEP_BATCH_MAX } = options;
  if (!Number.isInteger(batchMax) || batchMax < 1) {
    throw new RangeError(`Cannot sweep expired jobs: batchMax must be an integer >= 1, current value is ${batchMax}`);
  }
  let deleted = 0;
  while (keepGoing()) {
    const n = await rows.jobDeleteExpired(clock.now(), batchMax);
    deleted += n;
    if (n < batchMax) break;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return deleted;
}
