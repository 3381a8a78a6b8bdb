/**
 * The blocking run behind `checks watch` and `sync`: opens the runtime (src/cli/runtime.ts) with
 * an Executor in this process, submits one already-normalized request and follows the job row
 * until it ends (a `longcall serve` on the same database may claim the job instead; following
 * reads the row, so either works). The executor runs only that job: work other processes queued
 * in the same store stays queued for them (it would otherwise run with this command's credentials
 * and end `interrupted` when the command exits). Owns the commands' SIGINT/SIGTERM handler: Ctrl-C cancels the
 * followed job cooperatively, a second one exits at once.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { createLogger, type Logger } from "../base/log.ts";
import type { JobRow } from "../store/job_rows.ts";
import { envGet, logLevel } from "./config.ts";
import { EXIT_CANCELLED, EXIT_ERROR, EXIT_NOT_FOUND, EXIT_USAGE, type ExitCode } from "./exit.ts";
import { githubConfigFromEnv } from "./product_kinds.ts";
import { productRegistry } from "./product_runners.ts";
import { openRuntime } from "./runtime.ts";
import { TERMINAL_STATUSES } from "../store/job_rows.ts";

/** Job states that end a job. */
export const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);
const WAIT_TICK_MS = 100;

/** The CLI's own log level: quiet (warn) unless LONGCALL_LOG says otherwise. */
function cliLogger(): Logger {
  return createLogger(envGet("LONGCALL_LOG") === undefined ? "warn" : logLevel(), { scope: "longcall" });
}

/** A job run to its end in this process (or by another process on the same store). */
export interface BlockingRun {
  row: JobRow;
  /** The user interrupted (SIGINT/SIGTERM); the job was asked to cancel. */
  interrupted: boolean;
}

/**
 * Submits a job through a JobControl, runs an Executor in this process, and waits until
 * the job is terminal. SIGINT/SIGTERM request a cooperative cancel (a second one exits at
 * once with 130).
 */
export async function runBlocking(options: {
  db: string;
  kind: string;
  /** Already validated and normalized with the kind's spec. */
  request: unknown;
  timeRate: number | undefined;
  onUpdate: (row: JobRow, tick: number) => void;
}): Promise<BlockingRun> {
  const log = cliLogger();
  /** The job this command submits: the only one its executor may claim. */
  const own = new Set<string>();
  const runtime = openRuntime({
    db: options.db,
    kinds: { product: { github: githubConfigFromEnv(), runners: productRegistry } },
    log,
    ...(options.timeRate === undefined ? {} : { timeRate: options.timeRate }),
    execution: "in_process",
    executor: { onlyJobs: own },
  });
  const { control } = runtime;
  try {
    await runtime.execution.start();
    const job = await control.submit(options.kind, options.request);
    own.add(job.id);
    // The submission's own wake may have looked before the id was added.
    runtime.execution.wake();
    let interrupted = false;
    let wake = Promise.withResolvers<void>();
    const onSignal = () => {
      if (interrupted) Deno.exit(EXIT_CANCELLED);
      interrupted = true;
      control.cancel(job.id).catch((err) => log.warn("could not cancel", { error: String(err) })).finally(() =>
        wake.resolve()
      );
    };
    const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
    for (const s of signals) Deno.addSignalListener(s, onSignal);
    try {
      for (let tick = 0;; tick++) {
        const row = runtime.store.rows.jobGet(job.id);
        if (row === undefined) {
          throw new AppError("not_found", `Cannot follow job ${job.id}: it disappeared from the store`);
        }
        options.onUpdate(row, tick);
        if (TERMINAL.has(row.status)) return { row, interrupted };
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => timer = setTimeout(resolve, WAIT_TICK_MS)),
          wake.promise,
        ]);
        clearTimeout(timer);
        wake = Promise.withResolvers<void>();
      }
    } finally {
      for (const s of signals) Deno.removeSignalListener(s, onSignal);
    }
  } finally {
    await runtime.close();
  }
}

/** Exit code and message for a job that ended without a result. */
export function jobErrorExit(row: JobRow): ExitCode {
  if (row.status === "cancelled") return EXIT_CANCELLED;
  const code = row.error?.code;
  return code === "not_found" ? EXIT_NOT_FOUND : code === "invalid_argument" ? EXIT_USAGE : EXIT_ERROR;
}
