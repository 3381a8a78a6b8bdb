/**
 * Reconciliation after kill -9: two executor processes with the default heartbeat, lease and
 * reconcile period; the one running a job is killed and the survivor records it `process_lost`.
 *
 * @module
 */

import { systemClock } from "../../../src/base/clock.ts";
import { JobControl } from "../../../src/jobs/control.ts";
import type { Store } from "../../../src/store/store.ts";
import { spawnChild } from "./children.ts";
import { waitUntil } from "./harness.ts";
import { registry } from "./job_harness.ts";

/** Milliseconds from SIGKILL until the victim's job reads `failed` (one sample). */
export async function reconcileAfterKill(store: Store, dir: string): Promise<number> {
  const victim = spawnChild("executor", { dir, db: store.path });
  const survivor = spawnChild("executor", { dir, db: store.path });
  const control = new JobControl(store.rows, registry(), { clock: systemClock });
  try {
    await waitUntil("children ready", () => [victim, survivor].every((c) => c.lines.some((l) => l.ready)), {
      timeoutMs: 30_000,
      everyMs: 5,
    });
    const victimOwner = victim.lines.find((l) => l.ready)?.owner;
    // Submit until the victim runs one (the survivor may claim some first).
    let job: string | undefined;
    for (let i = 0; i < 20 && job === undefined; i++) {
      const row = await control.submit("wait", null);
      await waitUntil("running", () => store.rows.jobGet(row.id)?.status === "running", { timeoutMs: 10_000 });
      if (store.rows.jobGet(row.id)?.owner_id === victimOwner) job = row.id;
    }
    if (job === undefined) throw new Error("bench: the victim never claimed a job");
    const id = job;
    victim.process.kill("SIGKILL");
    const t0 = performance.now();
    await waitUntil("process_lost", () => store.rows.jobGet(id)?.status === "failed", {
      timeoutMs: 60_000,
      everyMs: 5,
    });
    return performance.now() - t0;
  } finally {
    await victim.stop();
    await survivor.stop();
  }
}
