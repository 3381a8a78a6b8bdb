/**
 * Reconciler (src/jobs/reconciler.ts) over a real in-memory store and a ManualClock: a job of a
 * lapsed owner is recorded and reported once; a live owner's own jobs are released only as its
 * `release` says, asked inside the write. tests/jobs_test.ts and tests/crash_torture_test.ts cover
 * reconciliation across processes.
 */

import assert from "node:assert/strict";
import { ManualClock } from "../base/clock.ts";
import { createLogger } from "../base/log.ts";
import type { ReconcileRelease } from "../store/job_rows.ts";
import { openStore } from "../store/store.ts";
import { Reconciler } from "./reconciler.ts";

const LEASE_MS = 3_000;

/** A store with owner `owner` (pid 1) running `n` claimed jobs. */
async function running(n: number) {
  const store = openStore(":memory:");
  const clock = new ManualClock();
  await store.rows.ownerRegister({ ownerId: "owner", pid: 1, leaseMs: LEASE_MS }, clock.now());
  for (let i = 0; i < n; i++) {
    await store.rows.jobInsertIfAdmitted({
      id: crypto.randomUUID(),
      kind: "test",
      requestJson: "{}",
      retentionMs: 60_000,
      authority: null,
      now: clock.now(),
      admittedMax: 100,
    });
  }
  const claimed = await store.rows.jobClaimBatchIfOwnerLive({ ownerId: "owner", kinds: ["test"], max: n }, clock.now());
  assert.equal(claimed.length, n);
  return { store, clock, ids: claimed.map((c) => c.id) };
}

Deno.test("Reconciler.run: records the jobs of a lapsed owner as process_lost, reports each id once and logs them", async () => {
  const { store, clock, ids } = await running(2);
  try {
    const lines: string[] = [];
    const ended: string[] = [];
    const reconciler = new Reconciler(store.rows, {
      clock,
      log: createLogger("warn", { scope: "test", write: (l) => lines.push(l) }),
      release: () => undefined,
      onTerminal: (id) => ended.push(id),
    });
    assert.deepEqual(await reconciler.run(), [], "within the lease nothing is lost");
    assert.deepEqual(lines, [], "nothing recorded: nothing logged");
    clock.advance(LEASE_MS);
    assert.deepEqual((await reconciler.run()).sort(), [...ids].sort());
    assert.deepEqual(ended.sort(), [...ids].sort());
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? "", /recorded jobs of lost processes/);
    for (const id of ids) assert.equal(store.rows.jobGet(id)?.error?.code, "process_lost");
    assert.deepEqual(await reconciler.run(), [], "a recorded job is not recorded again");
  } finally {
    store.close();
  }
});

Deno.test("Reconciler.run: a live owner's job outside `keep` is released and recorded; a kept one runs on", async () => {
  const { store, clock, ids } = await running(2);
  try {
    const [kept, lostEnd] = ids as [string, string];
    let asked = 0;
    const release = (): ReconcileRelease => {
      asked++;
      return { ownerId: "owner", keep: [kept] };
    };
    const reconciler = new Reconciler(store.rows, { clock, log: createLogger("silent"), release });
    assert.deepEqual(await reconciler.run(), [lostEnd]);
    assert.equal(asked, 1, "release is asked once per run");
    assert.equal(store.rows.jobGet(kept)?.status, "running");
    assert.equal(store.rows.jobGet(lostEnd)?.status, "failed");
  } finally {
    store.close();
  }
});
