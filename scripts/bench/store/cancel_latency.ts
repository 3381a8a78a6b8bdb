/**
 * Cancel observation latency: in-process (JobControl.cancel() to the handler's abort listener, the
 * abortLocal fast path alone) and cross-process (another process's executor, through its cancel
 * poll, until the job reads `cancelled` here).
 *
 * @module
 */

import { systemClock } from "../../../src/base/clock.ts";
import { CANCEL_POLL_MS_DEFAULT } from "../../../src/base/limits.ts";
import { JobControl } from "../../../src/jobs/control.ts";
import type { Store } from "../../../src/store/store.ts";
import { spawnChild } from "./children.ts";
import { sleep, waitUntil } from "./harness.ts";
import { aborted, jobHarness, registry } from "./job_harness.ts";

export const CANCEL_SAMPLES_LOCAL = 200;
export const CANCEL_SAMPLES_REMOTE = 40;

/** In-process samples (ms, ascending). */
export async function cancelLatencyLocal(store: Store): Promise<number[]> {
  const h = jobHarness(store, { cancelPollMs: 60_000 }); // only the in-process fast path can be fast
  await h.executor.start();
  const samples: number[] = [];
  try {
    for (let i = 0; i < CANCEL_SAMPLES_LOCAL; i++) {
      const row = await h.control.submit("wait", null);
      await waitUntil("running", () => h.executor.runningIds().includes(row.id), { timeoutMs: 5_000, everyMs: 0 });
      const t0 = performance.now();
      await h.control.cancel(row.id);
      await waitUntil("abort", () => aborted.has(row.id), { timeoutMs: 5_000, everyMs: 0 });
      samples.push(aborted.get(row.id)! - t0);
    }
  } finally {
    await h.executor.stop();
  }
  return samples.sort((a, b) => a - b);
}

/** Cross-process samples (ms, ascending), at random phases of the child's cancel poll. */
export async function cancelLatencyRemote(store: Store, dir: string): Promise<number[]> {
  const child = spawnChild("executor", { dir, db: store.path });
  const control = new JobControl(store.rows, registry(), { clock: systemClock });
  const samples: number[] = [];
  try {
    await waitUntil("child ready", () => child.lines.some((l) => l.ready === true), { timeoutMs: 30_000, everyMs: 5 });
    for (let i = 0; i < CANCEL_SAMPLES_REMOTE; i++) {
      const row = await control.submit("wait", null);
      await waitUntil("running", () => store.rows.jobGet(row.id)?.status === "running", { timeoutMs: 10_000 });
      await sleep(Math.random() * CANCEL_POLL_MS_DEFAULT); // cancels land at every phase of the poll
      const t0 = performance.now();
      await control.cancel(row.id);
      await waitUntil("cancelled", () => store.rows.jobGet(row.id)?.status === "cancelled", { timeoutMs: 10_000 });
      samples.push(performance.now() - t0);
    }
  } finally {
    await child.stop();
  }
  return samples.sort((a, b) => a - b);
}
