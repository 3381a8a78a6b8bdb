/**
 * The job runtime the store benchmark drives, built directly (not through openRuntime: the
 * benchmark measures the store under the control and execution sides alone): two kinds (`noop`
 * ends at once; `wait` runs until aborted and records when it saw the abort) and a JobControl
 * wired to an Executor in one process, with the executor's fast paths.
 *
 * @module
 */

import { systemClock } from "../../../src/base/clock.ts";
import { silentLogger } from "../../../src/base/log.ts";
import { JobControl } from "../../../src/jobs/control.ts";
import { Executor } from "../../../src/jobs/executor.ts";
import { type AnyJobKind, defineJobKind, JobKindRegistry } from "../../../src/jobs/kinds.ts";
import type { Store } from "../../../src/store/store.ts";

const noopKind: AnyJobKind = defineJobKind<null, null>({
  kind: "noop",
  run: () => Promise.resolve(null),
});

/** Observed cancellations: job id -> performance.now() when the handler saw its abort. */
export const aborted = new Map<string, number>();

const waitKind: AnyJobKind = defineJobKind<null, null>({
  kind: "wait",
  run: (ctx) =>
    new Promise((_resolve, reject) => {
      const onAbort = () => {
        aborted.set(ctx.id, performance.now());
        reject(ctx.signal.reason);
      };
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener("abort", onAbort, { once: true });
    }),
});

export function registry(): JobKindRegistry {
  return new JobKindRegistry([noopKind, waitKind]);
}

/** A control side and an executor over one store, with a count of terminal writes. */
export type JobHarness = ReturnType<typeof jobHarness>;

/** Builds the harness; `cancelPollMs` and `runningMax` override the executor's defaults. */
export function jobHarness(store: Store, options: { runningMax?: number; cancelPollMs?: number } = {}) {
  let terminal = 0;
  const executor = new Executor(store.rows, registry(), {
    clock: systemClock,
    log: silentLogger,
    ...(options.runningMax === undefined ? {} : { runningMax: options.runningMax }),
    ...(options.cancelPollMs === undefined ? {} : { cancelPollMs: options.cancelPollMs }),
    onTerminal: () => terminal++,
  });
  const control = new JobControl(store.rows, registry(), {
    clock: systemClock,
    onSubmitted: () => executor.wake(),
    onCancelRequested: (ids) => executor.abortLocal(ids),
  });
  return { executor, control, terminal: () => terminal };
}
