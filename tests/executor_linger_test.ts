/**
 * Executor.linger (jobs outlive the session, issue 10) in process, on a real SQLite file:
 * a lingering executor claims nothing, keeps running and heartbeating the jobs it owns, still
 * honours a cancel persisted by another connection, reports idle when none is left, and
 * `stop()` ends a linger the way a shutdown always ends: interrupted.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/executor_linger_test.ts
 *
 * @module
 */

import assert from "node:assert/strict";
import { systemClock } from "../src/base/clock.ts";
import { LINGER_MS_MAX } from "../src/base/limits.ts";
import { runServer } from "../src/cli/serve.ts";
import * as mcp from "../src/mcp/serving.ts";
import { tasksAdapter } from "../testing/tasks_adapter.ts";
import { defineJobKind } from "../src/jobs/kinds.ts";
import { JobControl } from "../src/jobs/control.ts";
import { gate, heartbeatsPass, openHarness, openTempStore, tempDir, waitFor, waitForStatus } from "../testing/temp.ts";
import { testRegistry } from "../testing/test_kinds.ts";

/** A job that runs until its gate opens (or its signal aborts). */
function gatedKind() {
  const gates = new Map<string, ReturnType<typeof gate>>();
  const kind = defineJobKind<null, { released: true }>({
    kind: "gated",
    run: (ctx) =>
      new Promise((resolve, reject) => {
        const g = gate();
        gates.set(ctx.id, g);
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
        void g.promise.then(() => resolve({ released: true }));
      }),
  });
  return { kind, gates };
}

Deno.test("Executor.linger: no claim, owned jobs run to their end with heartbeats, idle once none is left", async () => {
  await using dir = await tempDir();
  const { kind, gates } = gatedKind();
  await using h = await openHarness(dir.file("jobs.db"), {
    extraKinds: [kind],
    executor: { runningMax: 1, heartbeatMs: 50, leaseMs: 150, reconcileMs: 50, claimPollMs: 10 },
  });
  const executor = h.executor!;
  const running = await h.control.submit("gated", null);
  await waitForStatus(h.store, running.id, { status: "running" });
  const queued = await h.control.submit("echo", { x: 1 });

  const { running: n, idle } = executor.linger();
  assert.equal(n, 1);
  let idleNow = false;
  void idle.then(() => idleNow = true);
  // Heartbeats go on: the owner stays live past several leases (heartbeats written more than
  // 3 leases after the linger began, observed in the store rather than slept for).
  const before = h.store.rows.ownerListLive(Date.now()).find((o) => o.owner_id === executor.ownerId);
  assert.ok(before !== undefined, "owner live at the start of the linger");
  await waitFor("heartbeats more than 3 leases into the linger", () => {
    const owner = h.store.rows.ownerListLive(0).find((o) => o.owner_id === executor.ownerId);
    return owner !== undefined && owner.heartbeat_at > before.heartbeat_at + 3 * 150;
  });
  assert.ok(
    h.store.rows.ownerListLive(Date.now()).some((o) => o.owner_id === executor.ownerId),
    "owner still live after more than 3 leases: heartbeats continue during the linger",
  );
  assert.equal(h.store.rows.jobGet(running.id)?.status, "running");
  assert.equal(idleNow, false, "not idle while a job runs");

  gates.get(running.id)?.open();
  const done = await waitForStatus(h.store, running.id, { status: "succeeded" });
  assert.equal(done.owner_id, executor.ownerId);
  await idle;
  // The slot it freed is not used: the queued job stays queued for another executor. Three
  // heartbeats (every 50 ms) after the slot was freed: a 10-ms claim poll would have run meanwhile.
  await heartbeatsPass(h.store, executor.ownerId, { count: 3 });
  assert.equal(h.store.rows.jobGet(queued.id)?.status, "queued", "a lingering executor claims nothing");
  assert.deepEqual(executor.runningIds(), []);
  // A second linger call reports the same, already idle.
  const again = executor.linger();
  assert.equal(again.running, 0);
  await again.idle;
});

Deno.test("Executor.linger: a cancel persisted by another connection still stops a lingering job", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const { kind } = gatedKind();
  await using h = await openHarness(db, { extraKinds: [kind], executor: { cancelPollMs: 20 }, wire: false });
  const job = await h.control.submit("gated", null);
  h.executor!.wake();
  await waitForStatus(h.store, job.id, { status: "running" });
  const { running, idle } = h.executor!.linger();
  assert.equal(running, 1);
  // Another process's control side: its cancel reaches this executor only through the cancel poll.
  using other = openTempStore(db);
  const control = new JobControl(other.rows, testRegistry([kind]), { clock: systemClock });
  assert.equal((await control.cancel(job.id)).effect, "requested");
  await idle;
  assert.equal(h.store.rows.jobGet(job.id)?.status, "cancelled");
});

Deno.test("Executor.linger: stop() ends a linger; what still runs is recorded interrupted; no linger before start or after stop", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("jobs.db"), { executor: { shutdownGraceMs: 50 } });
  const job = await h.control.submit("hang", null);
  await waitForStatus(h.store, job.id, { status: "running" });
  const { running, idle } = h.executor!.linger();
  assert.equal(running, 1);
  await h.executor!.stop();
  await idle;
  const row = h.store.rows.jobGet(job.id);
  assert.equal(row?.status, "failed");
  assert.equal(row?.error?.code, "interrupted");
  assert.throws(() => h.executor!.linger(), /Cannot linger: the executor is stopped/);

  await using fresh = await openHarness(dir.file("other.db"), { start: false });
  assert.throws(() => fresh.executor!.linger(), /Cannot linger: the executor is new/);
});

Deno.test("runServer: a lingerMs outside 0..LINGER_MS_MAX or not an integer is a RangeError before anything opens", async () => {
  await using dir = await tempDir();
  const parts = {
    kinds: { registry: () => testRegistry() },
    mcp,
    tasks: tasksAdapter,
    tools: () => [],
  };
  for (const lingerMs of [-1, LINGER_MS_MAX + 1, 1.5, Number.NaN]) {
    const db = dir.file(`never-${String(lingerMs)}.db`);
    await assert.rejects(
      runServer({ db, http: false, listen: "127.0.0.1:0", readOnly: false, lingerMs }, parts),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message ===
          `Cannot serve: lingerMs must be an integer from 0 to ${LINGER_MS_MAX}, current value is ${lingerMs}`,
    );
    await assert.rejects(Deno.stat(db), Deno.errors.NotFound, "no database was opened");
  }
});
