/**
 * The job store shared by real processes: `deno run` children (tests/helpers/executor_child.ts,
 * always with explicit permission flags) on one SQLite file.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/multiprocess_test.ts
 */
import assert from "node:assert/strict";
import { systemClock } from "../src/base/clock.ts";
import { JobControl } from "../src/jobs/control.ts";
import type { JobRow } from "../src/store/job_rows.ts";
import { walBytesOfPages, walSizeBytes } from "../src/store/db.ts";
import { STORE_JOURNAL_SIZE_LIMIT_BYTES, STORE_WAL_AUTOCHECKPOINT_PAGES } from "../src/base/limits.ts";
import { spawnExecutorChild } from "./helpers/executor_child.ts";
import { openTempStore, tempDir, type TempStore, waitFor, waitForStatus } from "../testing/temp.ts";
import { testRegistry } from "../testing/test_kinds.ts";

function controlOver(store: TempStore, admittedMax = 10_000): JobControl {
  return new JobControl(store.rows, testRegistry(), { clock: systemClock, admittedMax });
}

function allRows(store: TempStore): JobRow[] {
  return store.rows.jobList({ limit: 1_000_000 });
}

Deno.test("multi-process: a cancel persisted by one process stops the handler in the owning process", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  using store = openTempStore(db);
  await using child = spawnExecutorChild({ db, dir: dir.path, cancelPollMs: 50 });
  const { owner } = await child.ready;
  const control = controlOver(store);
  const job = await control.submit("sleep", { ms: 60_000, steps: 600 });
  const running = await waitForStatus(store, job.id, { status: "running" });
  assert.equal(running.owner_id, owner);
  assert.equal((await control.cancel(job.id)).effect, "requested");
  const row = await waitForStatus(store, job.id, { status: ["succeeded", "failed", "cancelled"], timeoutMs: 5_000 });
  assert.equal(row.status, "cancelled");
  assert.equal(row.owner_id, owner);
  const status = await child.stop();
  assert.equal(status.code, 0, child.stderr());
  assert.ok(child.lines.some((l) => "stopped" in l));
});

Deno.test("multi-process: kill -9 of an owner -> another live process records process_lost within lease + reconcile", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const timing = { heartbeatMs: 100, leaseMs: 400, reconcileMs: 100 };
  using store = openTempStore(db);
  await using victim = spawnExecutorChild({ db, dir: dir.path, ...timing });
  const { owner: victimOwner } = await victim.ready;
  const control = controlOver(store);
  const jobs = [await control.submit("sleep", { ms: 60_000 }), await control.submit("sleep", { ms: 60_000 })];
  for (const j of jobs) assert.equal((await waitForStatus(store, j.id, { status: "running" })).owner_id, victimOwner);
  await using survivor = spawnExecutorChild({ db, dir: dir.path, ...timing });
  await survivor.ready;

  victim.kill("SIGKILL");
  const killedAt = Date.now();
  const status = await victim.exited;
  assert.equal(status.signal, "SIGKILL");
  for (const j of jobs) {
    const row = await waitForStatus(store, j.id, { status: ["failed", "succeeded", "cancelled"], timeoutMs: 10_000 });
    assert.equal(row.status, "failed");
    assert.equal(row.error?.code, "process_lost");
    assert.equal(row.attempt, 1, "never replayed");
  }
  const elapsed = Date.now() - killedAt;
  // lease + one reconcile period, plus slack for a loaded machine
  assert.ok(elapsed <= timing.leaseMs + timing.reconcileMs + 1_500, `recorded after ${elapsed} ms`);
  assert.equal(store.rows.ownerListLive(Date.now()).some((o) => o.owner_id === victimOwner), false);
  assert.equal((await survivor.stop()).code, 0, survivor.stderr());
});

Deno.test("multi-process: a live owner is never reconciled while reconciliation races its heartbeats", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  // Reconcile far more often than heartbeats, from three processes at once.
  const timing = { heartbeatMs: 100, leaseMs: 600, reconcileMs: 10, runningMax: 4 };
  using store = openTempStore(db);
  await using a = spawnExecutorChild({ db, dir: dir.path, ...timing });
  await using b = spawnExecutorChild({ db, dir: dir.path, ...timing });
  await Promise.all([a.ready, b.ready]);
  const control = controlOver(store);
  const ids: string[] = [];
  for (let i = 0; i < 16; i++) ids.push((await control.submit("sleep", { ms: 700, steps: 7 })).id);
  let cycles = 0;
  let lostSeen: string[] = [];
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    lostSeen = lostSeen.concat(await store.rows.jobReconcileLost(Date.now()));
    cycles++;
    if (ids.every((id) => store.rows.jobGet(id)?.status === "succeeded")) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.deepEqual(lostSeen, [], "the parent's reconciliation never took a live job");
  for (const id of ids) {
    const row = store.rows.jobGet(id);
    assert.equal(row?.status, "succeeded", `${id}: ${JSON.stringify(row?.error)}`);
  }
  assert.ok(cycles > 50, `reconciled ${cycles} times`);
  const owners = new Set(ids.map((id) => store.rows.jobGet(id)?.owner_id));
  assert.equal(owners.size, 2, "both processes ran jobs");
  assert.equal((await a.stop()).code, 0, a.stderr());
  assert.equal((await b.stop()).code, 0, b.stderr());
});

Deno.test("multi-process: 4 processes x 2,000 jobs -> every job run exactly once, none lost", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const effects = dir.file("effects.txt");
  using store = openTempStore(db);
  const go = dir.file("go"); // every child ready before any submits (see the admission-bound test)
  const children = Array.from({ length: 4 }, () =>
    spawnExecutorChild({
      db,
      dir: dir.path,
      // The default admission bound (256) keeps the queue short; submitters retry when refused.
      retryOverloadedMs: 5,
      claimPollMs: 20,
      submit: 2_000,
      kind: "side_effect",
      input: { path: effects, token: "{{nonce}}-{{i}}", ms: 0 },
      startFile: go,
    }));
  try {
    await Promise.all(children.map((c) => c.ready));
    await Deno.writeTextFile(go, "");
    const submitted = await Promise.all(children.map((c) => c.submitted));
    for (const s of submitted) assert.deepEqual(s, { submitted: 2_000, refused: 0 });
    // The WAL stays bounded while four processes write: checkpoints keep up (a WAL that no checkpoint could
    // reset would hold every job's frames, about 45 MB here). Its file is truncated back to the journal size
    // limit after a checkpoint, and grows by about one automatic checkpoint's pages before the next.
    let walMax = 0;
    await waitFor(
      "every job terminal",
      () => {
        walMax = Math.max(walMax, walSizeBytes(db));
        return store.rows.jobCountAdmitted() === 0;
      },
      { timeoutMs: 60_000, everyMs: 50 },
    );
    const walBound = STORE_JOURNAL_SIZE_LIMIT_BYTES + walBytesOfPages(STORE_WAL_AUTOCHECKPOINT_PAGES);
    assert.ok(walMax <= walBound, `the WAL reached ${walMax} bytes (bound ${walBound})`);
    const printed = children.flatMap((c) => c.ids);
    assert.equal(printed.length, 8_000);
    assert.equal(new Set(printed).size, 8_000);
    const rows = new Map(allRows(store).map((r) => [r.id, r]));
    assert.equal(rows.size, 8_000);
    const owners = new Set<string>();
    const tokens = new Set<string>();
    for (const id of printed) {
      const row = rows.get(id);
      assert.ok(row !== undefined, `job ${id} was lost`);
      assert.equal(row.status, "succeeded", `${id}: ${JSON.stringify(row.error)}`);
      assert.equal(row.attempt, 1, `${id} was claimed ${row.attempt} times`);
      owners.add(row.owner_id!);
      tokens.add((row.request as { token: string }).token);
    }
    assert.equal(tokens.size, 8_000);
    const lines = (await Deno.readTextFile(effects)).split("\n").filter((l) => l !== "");
    assert.equal(lines.length, 8_000, "each handler's side effect ran exactly once");
    assert.deepEqual(new Set(lines), tokens);
    assert.ok(owners.size >= 2, `work was shared (${owners.size} owners)`);
    for (const c of children) assert.equal((await c.stop()).code, 0, c.stderr());
  } finally {
    for (const c of children) await c[Symbol.asyncDispose]();
  }
});

Deno.test("multi-process: the global admission bound holds under 4 concurrent submitters", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  using store = openTempStore(db);
  // A barrier, not a wall-clock start: every child is ready (its store open) before any submits, however
  // long a loaded machine takes to start them. Each then paces its submissions (1 ms apart, so about 60 ms
  // for its 60): one child alone could fill the bound in one or two milliseconds, before a child the machine
  // woke a little later had submitted anything (seen once in CI: only one submitter admitted).
  const go = dir.file("go");
  const children = Array.from({ length: 4 }, () =>
    spawnExecutorChild({
      db,
      dir: dir.path,
      execute: false,
      admittedMax: 50,
      submit: 60,
      kind: "echo",
      input: { i: "{{i}}" },
      startFile: go,
      submitEveryMs: 1,
    }));
  try {
    await Promise.all(children.map((c) => c.ready));
    await Deno.writeTextFile(go, "");
    const results = await Promise.all(children.map((c) => c.submitted));
    const admitted = results.reduce((n, r) => n + r.submitted, 0);
    const refused = results.reduce((n, r) => n + r.refused, 0);
    assert.equal(admitted, 50, `admitted ${JSON.stringify(results)}`);
    assert.equal(refused, 4 * 60 - 50);
    assert.ok(results.filter((r) => r.submitted > 0).length >= 2, "submitters really ran concurrently");
    for (const c of children) {
      for (const l of c.lines) if ("refused" in l && "i" in l) assert.equal(l.refused, "overloaded");
    }
    assert.equal(allRows(store).length, 50);
    assert.equal(store.rows.jobCountAdmitted(), 50);
    assert.deepEqual(new Set(children.flatMap((c) => c.ids)), new Set(allRows(store).map((r) => r.id)));
    for (const c of children) assert.equal((await c.exited).code, 0, c.stderr());
  } finally {
    for (const c of children) await c[Symbol.asyncDispose]();
  }
});
