/**
 * The run of one claimed job: the handler's context (abort signal, throttled progress, bounded
 * events), how its return or throw becomes the job's end, and the fenced terminal write, retried
 * while the owner's lease holds.
 *
 * ```
 *   handler returns (result within JOB_RESULT_BYTES_MAX) ──▶ succeeded (outcome from the kind)
 *   handler throws, signal not aborted by JobAbort ────────▶ failed (toJobError)
 *   aborted: cancel ───────────────────────────────────────▶ cancelled
 *   aborted: shutdown ─────────────────────────────────────▶ interrupted (written here, at once)
 *   aborted: lease_lost ───────────────────────────────────▶ released (reconciliation records it)
 * ```
 *
 * @module
 */

import type { Clock } from "../base/clock.ts";
import { AppError, toJobError } from "../base/errors.ts";
import { utf8BytesIfOver } from "../base/json_bound.ts";
import { JOB_EVENT_MESSAGE_CHARS_MAX, JOB_RESULT_BYTES_MAX, TERMINAL_WRITE_RETRY_MS } from "../base/limits.ts";
import type { Logger } from "../base/log.ts";
import type { ClaimedJob, JobFence, JobRows, TerminalWrite } from "../store/job_rows.ts";
import { JobAbort } from "./job_abort.ts";
import type { AnyJobKind, JobContext } from "./kinds.ts";
import { ProgressThrottle } from "./progress_throttle.ts";

/** A job running in this executor. */
export interface RunningJob {
  row: ClaimedJob;
  /** The owner id it was claimed under (the executor's id changes after a lost lease). */
  ownerId: string;
  controller: AbortController;
  done: Promise<void>;
}

/** How a handler's run ends before anything is written. */
export type HandlerEnd =
  | { type: "terminal"; terminal: TerminalWrite }
  /** Shutdown aborted it: recorded `interrupted` at once. */
  | { type: "interrupted" }
  /** The lease was lost: not ours any more; reconciliation records it. */
  | { type: "released" };

/** The end of a handler that returned `result` (throws an AppError `internal` for an oversized result). */
export function succeededTerminal(kind: Pick<AnyJobKind, "outcome">, result: unknown): TerminalWrite {
  const resultJson = JSON.stringify(result ?? null);
  const bytes = utf8BytesIfOver(resultJson, JOB_RESULT_BYTES_MAX);
  if (bytes !== undefined) {
    throw new AppError(
      "internal",
      `Cannot store job result: ${bytes} bytes is over the ${JOB_RESULT_BYTES_MAX}-byte limit`,
    );
  }
  return { status: "succeeded", outcome: kind.outcome?.(result) ?? "succeeded", resultJson, error: null };
}

/** The end of a handler that threw `err` while its signal was `signal`. */
export function thrownEnd(err: unknown, signal: AbortSignal): HandlerEnd {
  const reason = signal.reason;
  if (signal.aborted && reason instanceof JobAbort) {
    if (reason.abortCause === "lease_lost") return { type: "released" };
    if (reason.abortCause === "shutdown") return { type: "interrupted" };
    return { type: "terminal", terminal: { status: "cancelled", outcome: "cancelled", resultJson: null, error: null } };
  }
  return {
    type: "terminal",
    terminal: { status: "failed", outcome: "failed", resultJson: null, error: toJobError(err) },
  };
}

/** Store faults a terminal write retries while the lease holds (anything else is not retried). */
export function isTransientStoreFault(err: unknown): boolean {
  return err instanceof AppError && (err.code === "store_busy" || err.code === "storage_unavailable");
}

/** What one run needs from its executor. */
export interface JobRunHost {
  readonly rows: JobRows;
  /** Real time: timestamps, the progress throttle. */
  readonly clock: Clock;
  /** The time handlers speak. */
  readonly handlerClock: Clock;
  readonly log: Logger;
  readonly onTerminal: ((id: string) => void) | undefined;
  readonly onProgress: ((id: string) => void) | undefined;
  /** Queues the fenced terminal write (batched with others ending in the same turn); true when it landed. */
  writeTerminal(job: RunningJob, terminal: TerminalWrite): Promise<boolean>;
  /** Whether `job` still runs under the executor's live lease (so its terminal write may land). */
  ownsLease(job: RunningJob): boolean;
  /** `job` was recorded interrupted: it no longer runs here (shutdown must not record it again). */
  interrupted(job: RunningJob): void;
}

/**
 * Runs `run.job`'s handler (from `run.kind`) and records its end. Rejects only when the store failed
 * to record it (the executor then releases the job to reconciliation); handler errors are results.
 */
export async function runJob(host: JobRunHost, run: { kind: AnyJobKind; job: RunningJob }): Promise<void> {
  const { kind, job } = run;
  const { row, ownerId, controller } = job;
  const { rows, clock } = host;
  // Every write of this run is fenced by the claim it runs under.
  const fence: JobFence = { id: row.id, ownerId, attempt: row.attempt };
  const progress = new ProgressThrottle({
    write: async (p) => {
      const ok = await rows.jobSetProgressIfOwned(fence, p, { now: clock.now() });
      if (ok) host.onProgress?.(row.id);
    },
    clock,
    handlerClock: host.handlerClock,
    phase: row.phase,
  });
  const log = host.log.child(`job:${row.id.slice(0, 8)}`);
  const ctx: JobContext<unknown> = {
    id: row.id,
    kind: row.kind,
    request: row.request,
    signal: controller.signal,
    clock: host.handlerClock,
    log,
    report: (p) => progress.report(p),
    event: (level, message) => {
      const event = { level, message: message.slice(0, JOB_EVENT_MESSAGE_CHARS_MAX), at: clock.now() };
      void rows.jobEventAppend(row.id, event)
        .catch((err) => log.warn("could not append job event", { error: String(err) }));
    },
  };
  let terminal: TerminalWrite;
  try {
    terminal = succeededTerminal(kind, await kind.run(ctx));
  } catch (err) {
    const end = thrownEnd(err, controller.signal);
    if (end.type === "released") return;
    if (end.type === "interrupted") {
      await progress.flush();
      await rows.jobSetInterruptedIfOwned(fence, clock.now());
      host.interrupted(job);
      host.onTerminal?.(row.id);
      return;
    }
    terminal = end.terminal;
  }
  await progress.flush();
  // Progress a storage fault kept from its own write goes out with the end, in the same statement.
  const unwritten = progress.unwritten();
  await finishRun(host, { job, terminal: unwritten === undefined ? terminal : { ...terminal, progress: unwritten } });
}

/**
 * `end.job`'s fenced terminal write of `end.terminal`, retried on the host's clock while the lease holds; a persisted
 * cancellation wins over a late end.
 */
export async function finishRun(host: JobRunHost, end: { job: RunningJob; terminal: TerminalWrite }): Promise<void> {
  const { job, terminal } = end;
  const { row, ownerId } = job;
  let written: boolean;
  for (;;) {
    try {
      written = await host.writeTerminal(job, terminal);
      break;
    } catch (err) {
      // A database locked past the store's own retries, a full disk or an I/O error must not
      // lose a finished result: it is kept in memory and written while this owner's lease holds.
      // Past the lease the write would be fenced anyway; the job is then another reconciliation's.
      if (!isTransientStoreFault(err) || !host.ownsLease(job)) throw err;
      host.log.warn("database unavailable; retrying a job's terminal write", { id: row.id, error: String(err) });
      const pause = TERMINAL_WRITE_RETRY_MS / 2 + Math.random() * TERMINAL_WRITE_RETRY_MS / 2;
      await host.clock.sleep(pause);
      if (!host.ownsLease(job)) throw err;
    }
  }
  if (!written && terminal.status !== "cancelled") {
    // A cancellation persisted before our write wins over a late success or failure.
    const current = host.rows.jobGet(row.id);
    if (current?.status === "running" && current.owner_id === ownerId && current.cancel_requested_at !== null) {
      const fence: JobFence = { id: row.id, ownerId, attempt: row.attempt };
      written = await host.rows.jobSetTerminalIfOwned(fence, {
        status: "cancelled",
        outcome: "cancelled",
        resultJson: null,
        error: null,
      }, { now: host.clock.now() }) !== undefined;
    }
  }
  if (!written) {
    host.log.warn("terminal write refused: the job is no longer ours", { id: row.id });
    return;
  }
  host.onTerminal?.(row.id);
}
