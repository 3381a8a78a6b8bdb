/**
 * Reconciliation: running jobs whose owner is missing or whose lease lapsed are recorded
 * (`failed: process_lost`, or `cancelled` when a cancellation was persisted) in one write
 * transaction, so a crashed process never leaves a job running forever and a job is never
 * replayed. The executor runs it at start, periodically, after a lost lease and after a job whose
 * end could not be written (src/jobs/executor.ts).
 *
 * @module
 */

import type { Clock } from "../base/clock.ts";
import type { Logger } from "../base/log.ts";
import type { JobRows, ReconcileRelease } from "../store/job_rows.ts";

/** What a {@linkcode Reconciler} reads the time from, logs to, releases, and tells about each job it records. */
export interface ReconcilerOptions {
  clock: Clock;
  log: Logger;
  /**
   * Names this executor's own jobs stored as running that no local handler runs any more (their end
   * could not be written), or undefined to release none; it is called inside the write transaction,
   * so it decides on the executor's state when the write runs (a busy store may run it later, after
   * a claim started jobs).
   */
  release: () => ReconcileRelease | undefined;
  /** Called with the id of each job recorded. */
  onTerminal?: ((id: string) => void) | undefined;
}

/** Records the jobs of lost owners and tells the executor's listener about each. */
export class Reconciler {
  readonly #rows: JobRows;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #release: () => ReconcileRelease | undefined;
  readonly #onTerminal: ((id: string) => void) | undefined;

  /** Reconciles through `rows`; `options.release` says which of this executor's own jobs to release. */
  constructor(rows: JobRows, options: ReconcilerOptions) {
    this.#rows = rows;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#release = options.release;
    this.#onTerminal = options.onTerminal;
  }

  /** One reconciliation; resolves with the ids it recorded. */
  async run(): Promise<string[]> {
    const ids = await this.#rows.jobReconcileLost(this.#clock.now(), this.#release);
    if (ids.length > 0) this.#log.warn("recorded jobs of lost processes", { ids });
    for (const id of ids) this.#onTerminal?.(id);
    return ids;
  }
}
