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

/**
 * Deletes expired jobs batch after batch until a batch comes back short or `keepGoing()` turns
 * false (the executor stopped claiming). Resolves with the number deleted.
 */
export async function retentionSweep(
  rows: Pick<JobRows, "jobDeleteExpired">,
  clock: Clock,
  keepGoing: () => boolean,
  batchMax: number = RETENTION_SWEEP_BATCH_MAX,
): Promise<number> {
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
