/**
 * The abort reason the executor gives a handler's signal: why the run must stop. The executor
 * re-exports it (src/jobs/executor.ts), and the run of one job (src/jobs/job_run.ts) reads it to
 * decide how the job ends.
 *
 * @module
 */

/** Why a handler's signal was aborted. */
export type AbortCause = "cancel" | "shutdown" | "lease_lost";

/** The abort reason given to handlers. */
export class JobAbort extends Error {
  /** (`Error.cause` is the standard chained error, so not that name.) */
  readonly abortCause: AbortCause;
  constructor(abortCause: AbortCause) {
    super(`job aborted: ${abortCause}`);
    this.name = "JobAbort";
    this.abortCause = abortCause;
  }
}
