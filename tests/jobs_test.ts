/**
 * The job runtime in one process on real SQLite files: admission and request bounds
 * (JobControl), and the Executor's claiming, concurrency, progress throttling,
 * cancellation paths, outcomes, retention, graceful stop and lease loss.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/jobs_test.ts
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ManualClock, systemClock } from "../src/base/clock.ts";
import { AppError } from "../src/base/errors.ts";
import { newJobId, newOwnerId } from "../src/base/ids.ts";
import { JOB_PROGRESS_WRITE_MS_MIN, JOB_REQUEST_BYTES_MAX } from "../src/base/limits.ts";
import { silentLogger } from "../src/base/log.ts";
import { JobControl } from "../src/jobs/control.ts";
import { Executor, JobAbort } from "../src/jobs/executor.ts";
import { type AnyJobKind, defineJobKind } from "../src/jobs/kinds.ts";
import { testJobTools } from "../testing/test_server.ts";
import { gate, heartbeatsPass, openHarness, openTempStore, tempDir, waitFor, waitForStatus } from "../testing/temp.ts";
import { testRegistry } from "../testing/test_kinds.ts";

function countRows(path: string): { total: number; dataVersion: number } {
  const db = new DatabaseSync(path);
  try {
    const total = (db.prepare("SELECT count(*) AS n FROM jobs").get() as { n: number }).n;
    const dataVersion = (db.prepare("PRAGMA data_version").get() as { data_version: number }).data_version;
    return { total, dataVersion };
  } finally {
    db.close();
  }
}

async function rejects(p: Promise<unknown>, code: string): Promise<AppError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof AppError, `expected AppError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code);
  return caught;
}

// ---------------------------------------------------------------- admission

Deno.test("JobControl.submit: admits below and at the bound, refuses past it with overloaded and writes nothing", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  await using h = await openHarness(path, { executor: false, control: { admittedMax: 3 } });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await h.control.submit("echo", { i })).id);
  assert.equal(h.store.rows.jobCountAdmitted(), 3);

  // A second connection watches: data_version changes when another connection commits.
  const watcher = new DatabaseSync(path);
  const version = () => (watcher.prepare("PRAGMA data_version").get() as { data_version: number }).data_version;
  try {
    const before = version();
    const err = await rejects(h.control.submit("echo", { i: 3 }), "overloaded");
    assert.equal(err.retryable, true);
    assert.ok(typeof err.retryAfterMs === "number" && err.retryAfterMs >= 1_000 && err.retryAfterMs <= 60_000);
    assert.deepEqual(err.toJobError().retry_after_ms, err.retryAfterMs);
    assert.equal(err.data?.admitted, 3);
    assert.equal(err.data?.admitted_max, 3);
    assert.equal(version(), before, "nothing was committed");
    assert.equal(countRows(path).total, 3);
  } finally {
    watcher.close();
  }
  // A terminal job no longer counts: admission reopens.
  await h.control.cancel(ids[0]!);
  assert.equal((await h.control.submit("echo", { i: 4 })).status, "queued");
  await rejects(h.control.submit("echo", { i: 5 }), "overloaded");
  assert.equal(countRows(path).total, 4);
});

Deno.test("JobControl.submit: a request of exactly JOB_REQUEST_BYTES_MAX is admitted, one byte more is refused", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  await using h = await openHarness(path, { executor: false });
  const atLimit = "x".repeat(JOB_REQUEST_BYTES_MAX - 2); // JSON adds two quotes
  const row = await h.control.submit("echo", atLimit);
  assert.equal(row.request, atLimit);
  const err = await rejects(h.control.submit("echo", atLimit + "x"), "invalid_argument");
  assert.equal(err.data?.bytes, JOB_REQUEST_BYTES_MAX + 1);
  // Multi-byte characters count as bytes, not characters.
  await rejects(h.control.submit("echo", "é".repeat(JOB_REQUEST_BYTES_MAX / 2)), "invalid_argument");
  await rejects(h.control.submit("nope", {}), "invalid_argument");
  // Arguments are validated once, at the boundary (the tool, with its spec's schema), not by submit.
  const sleepTool = testJobTools(h.control).find((t) => t.name === "test.sleep");
  const refused = await sleepTool?.call({ ms: -1 }, { authority: null, tasksDeclared: false }) as {
    isError?: boolean;
    structuredContent?: { error?: { code?: string } };
  };
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent?.error?.code, "invalid_argument");
  assert.equal(countRows(path).total, 1);
});

// ---------------------------------------------------------------- claiming

for (const runningMax of [1, 3]) {
  Deno.test(`Executor: claims queued jobs in FIFO order (runningMax ${runningMax})`, async () => {
    await fifo(runningMax);
  });
}

async function fifo(runningMax: number): Promise<void> {
  await using dir = await tempDir();
  const order: number[] = [];
  const record: AnyJobKind = defineJobKind<number, null>({
    kind: "record",
    run: (ctx) => {
      order.push(ctx.request);
      return Promise.resolve(null);
    },
  });
  await using h = await openHarness(dir.file("a.db"), {
    extraKinds: [record],
    executor: { runningMax },
    start: false,
  });
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push((await h.control.submit("record", i)).id);
  await h.executor!.start();
  await waitFor("all done", () => ids.every((id) => h.store.rows.jobGet(id)?.status === "succeeded"));
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7]);
  const started = ids.map((id) => h.store.rows.jobGet(id)!.started_at!);
  assert.deepEqual(started, [...started].sort((a, b) => a - b));
}

Deno.test("Executor: a backlog of quick jobs does not starve timers and I/O", async () => {
  await using dir = await tempDir();
  const jobs = 3_000;
  await using h = await openHarness(dir.file("a.db"), { control: { admittedMax: jobs }, start: false });
  for (let i = 0; i < jobs; i++) await h.control.submit("echo", i);
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 5);
  const t0 = Date.now();
  try {
    await h.executor!.start();
    await waitFor("backlog drained", () => h.terminal.length === jobs, { timeoutMs: 60_000, everyMs: 0 });
  } finally {
    clearInterval(ticker);
  }
  const elapsed = Date.now() - t0;
  // The store's writes are synchronous: without yielding, the whole drain would run on
  // microtasks and the interval would not tick once.
  assert.ok(ticks >= Math.floor(elapsed / 100), `${ticks} ticks in ${elapsed} ms`);
  assert.equal(h.store.rows.jobList({ status: "succeeded", limit: jobs }).length, jobs);
});

Deno.test("Executor: never runs more than runningMax jobs at once", async () => {
  await using dir = await tempDir();
  const g = gate();
  let active = 0;
  let peak = 0;
  const gated: AnyJobKind = defineJobKind<null, null>({
    kind: "gated",
    run: async () => {
      peak = Math.max(peak, ++active);
      await g.promise;
      active--;
      return null;
    },
  });
  await using h = await openHarness(dir.file("a.db"), {
    extraKinds: [gated],
    executor: { runningMax: 2, claimPollMs: 10, heartbeatMs: 50, leaseMs: 60_000 },
  });
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push((await h.control.submit("gated", null)).id);
  await waitFor("two running", () => active === 2);
  // Three heartbeats (every 50 ms): the 10-ms claim poll has certainly run several times meanwhile.
  await heartbeatsPass(h.store, h.executor!.ownerId, { count: 3 });
  const running = h.store.rows.jobList({ status: "running", limit: 100 });
  assert.equal(running.length, 2);
  assert.equal(h.store.rows.jobList({ status: "queued", limit: 100 }).length, 4);
  assert.deepEqual(new Set(h.executor!.runningIds()), new Set(running.map((r) => r.id)));
  g.open();
  await waitFor("all done", () => ids.every((id) => h.store.rows.jobGet(id)?.status === "succeeded"));
  assert.equal(peak, 2);
});

Deno.test("Executor: a local submission wakes it at once; another connection's job is found by the claim poll", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  await using h = await openHarness(path, { executor: { claimPollMs: 60_000 } });
  const local = await h.control.submit("echo", { a: 1 });
  const row = await waitForStatus(h.store, local.id, { status: "succeeded", timeoutMs: 3_000 });
  assert.deepEqual(row.result, { a: 1 });

  await using h2 = await openHarness(path, { executor: { claimPollMs: 30 } });
  using other = openTempStore(path);
  const control = new JobControl(other.rows, testRegistry(), { clock: systemClock });
  const remote = await control.submit("echo", { b: 2 });
  const done = await waitForStatus(h2.store, remote.id, { status: "succeeded", timeoutMs: 3_000 });
  assert.ok(done.owner_id === h2.executor!.ownerId || done.owner_id === h.executor!.ownerId);
});

// ---------------------------------------------------------------- outcomes and progress

Deno.test("Executor: outcomes of failing, partial, throwing and oversized handlers", async () => {
  await using dir = await tempDir();
  const kinds: AnyJobKind[] = [
    defineJobKind<null, null>({
      kind: "throws",
      run: () => Promise.reject(new TypeError("bad thing")),
    }),
    defineJobKind<null, string>({
      kind: "huge",
      run: () => Promise.resolve("y".repeat(1024 * 1024 + 1)),
    }),
  ];
  await using h = await openHarness(dir.file("a.db"), { extraKinds: kinds });
  const fail = await h.control.submit("fail", { code: "rate_limited", message: "slow down", retryable: true });
  const partial = await h.control.submit("partial", null);
  const throws = await h.control.submit("throws", null);
  const huge = await h.control.submit("huge", null);

  const f = await waitForStatus(h.store, fail.id, { status: "failed" });
  assert.deepEqual(f.error, { code: "rate_limited", message: "slow down", retryable: true });
  assert.equal(f.outcome, "failed");
  assert.equal(f.result, null);
  const p = await waitForStatus(h.store, partial.id, { status: "succeeded" });
  assert.equal(p.outcome, "partial");
  assert.deepEqual(p.result, { items: [1, 2], complete: false });
  const t = await waitForStatus(h.store, throws.id, { status: "failed" });
  assert.equal(t.error?.code, "internal");
  assert.match(t.error?.message ?? "", /TypeError: bad thing/);
  const g = await waitForStatus(h.store, huge.id, { status: "failed" });
  assert.equal(g.error?.code, "internal");
  assert.equal(g.result, null);
});

Deno.test("Executor: progress writes are throttled; a phase change is written at once", async () => {
  await using dir = await tempDir();
  const clock = new ManualClock(); // frozen: every non-phase report falls inside the throttle window
  const release = gate();
  const reporter: AnyJobKind = defineJobKind<null, null>({
    kind: "reporter",
    run: async (ctx) => {
      ctx.report({ phase: "one", totalItems: 100 });
      for (let i = 1; i <= 50; i++) ctx.report({ completedItems: i });
      ctx.report({ phase: "two" });
      await release.promise;
      ctx.report({ completedItems: 51, message: "last" });
      return null;
    },
  });
  await using h = await openHarness(dir.file("a.db"), { clock, extraKinds: [reporter] });
  const job = await h.control.submit("reporter", null);
  await waitFor("two progress writes", () => h.progress.length >= 2);
  const mid = h.store.rows.jobGet(job.id);
  assert.equal(mid?.phase, "two");
  assert.equal(mid?.completed_items, 50, "the phase write carried the pending items");
  assert.equal(mid?.total_items, 100);
  // The throttle timer armed by the item reports is a sleep on the executor's (frozen) clock: let it
  // fire with nothing left pending. Any write it made would be chained before the final one below.
  assert.equal(clock.pendingSleeps, 1, "one throttled write is armed");
  clock.advance(JOB_PROGRESS_WRITE_MS_MIN);
  assert.equal(clock.pendingSleeps, 0, "the throttle timer fired");
  await new Promise((resolve) => setTimeout(resolve, 0)); // its callback runs (a microtask), no time passes
  assert.equal(h.progress.length, 2, "51 reports in one window made exactly two writes (both phase changes)");
  release.open();
  const done = await waitForStatus(h.store, job.id, { status: "succeeded" });
  assert.equal(done.completed_items, 51, "the final pending report is flushed before the terminal write");
  assert.equal(done.progress_message, "last");
  assert.equal(h.progress.length, 3, "the timer with nothing pending wrote nothing");
});

// ---------------------------------------------------------------- cancellation

Deno.test("JobControl.cancel: a queued job is cancelled at once; repeats are idempotent", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("a.db"), { start: false });
  const job = await h.control.submit("echo", 1);
  const effect = await h.control.cancel(job.id);
  assert.equal(effect.effect, "cancelled");
  const row = h.store.rows.jobGet(job.id);
  assert.equal(row?.status, "cancelled");
  assert.notEqual(row?.cancel_requested_at, null);
  assert.equal((await h.control.cancel(job.id)).effect, "already_cancelled");
  assert.deepEqual(h.store.rows.jobGet(job.id), row);
  await h.executor!.start();
  // Claims are FIFO: a job submitted after it that runs to its end proves the cancelled one was passed over.
  const later = await h.control.submit("echo", { after: true });
  await waitForStatus(h.store, later.id, { status: "succeeded" });
  assert.deepEqual(h.store.rows.jobGet(job.id), row, "never claimed");
  assert.equal((await h.control.cancel("00000000-0000-4000-8000-000000000000")).effect, "not_found");
});

Deno.test("JobControl.cancel: another authority's job (also once ended) and an expired one are not_found and unchanged", async () => {
  await using dir = await tempDir();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  await using h = await openHarness(dir.file("a.db"), { executor: false, clock, control: { retentionMs: 60_000 } });
  const theirs = await h.control.submit("echo", 1, { authority: "token-a" });
  assert.equal((await h.control.cancel(theirs.id, "token-b")).effect, "not_found");
  assert.deepEqual(h.store.rows.jobGet(theirs.id), theirs, "another token's cancel wrote nothing");
  assert.equal((await h.control.cancel(theirs.id, "token-a")).effect, "cancelled");
  assert.equal((await h.control.cancel(theirs.id, "token-b")).effect, "not_found", "an ended job stays hidden too");
  const local = await h.control.submit("echo", 2, { authority: "token-a" });
  assert.equal((await h.control.cancel(local.id)).effect, "cancelled", "the local authority sees every job");
  clock.advance(59_999);
  assert.equal((await h.control.cancel(theirs.id, "token-a")).effect, "already_cancelled", "within its retention");
  clock.advance(1);
  const ended = h.store.rows.jobGet(theirs.id);
  assert.equal((await h.control.cancel(theirs.id, "token-a")).effect, "not_found", "past its retention");
  assert.deepEqual(h.store.rows.jobGet(theirs.id), ended);
});

Deno.test("JobControl.cancel: an id the caller cannot see answers not_found while another process holds the write lock", async () => {
  await using dir = await tempDir();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  await using h = await openHarness(dir.file("a.db"), { executor: false, clock, control: { retentionMs: 60_000 } });
  const theirs = await h.control.submit("echo", 1, { authority: "token-a" });
  const ended = await h.control.submit("echo", 2, { authority: "token-a" });
  await h.control.cancel(ended.id, "token-a");
  clock.advance(60_000);
  // Another connection holds the write lock: a cancel that took it would wait, then answer store_busy.
  const other = new DatabaseSync(dir.file("a.db"));
  other.exec("BEGIN IMMEDIATE");
  try {
    for (const [id, authority] of [[theirs.id, "token-b"], [newJobId(), "token-a"], [ended.id, "token-a"]] as const) {
      assert.equal((await h.control.cancel(id, authority)).effect, "not_found", `${id} for ${authority}`);
    }
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
});

Deno.test("Executor.abortLocal: an in-process cancel of a running job is observed without waiting for the poll", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("a.db"), { executor: { cancelPollMs: 60_000 } });
  const job = await h.control.submit("sleep", { ms: 60_000 });
  await waitForStatus(h.store, job.id, { status: "running" });
  const first = await h.control.cancel(job.id);
  assert.equal(first.effect, "requested");
  const second = await h.control.cancel(job.id);
  assert.equal(second.effect, "already_requested");
  const row = await waitForStatus(h.store, job.id, { status: "cancelled", timeoutMs: 2_000 });
  assert.equal(row.outcome, "cancelled");
  assert.equal(row.error, null);
  assert.equal((await h.control.cancel(job.id)).effect, "already_cancelled");
});

Deno.test("Executor: a cancel persisted by another connection is observed by the cancel poll", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  await using h = await openHarness(path, { executor: { cancelPollMs: 30 } });
  const job = await h.control.submit("sleep", { ms: 60_000, steps: 60 });
  await waitForStatus(h.store, job.id, { status: "running" });
  using other = openTempStore(path);
  const control = new JobControl(other.rows, testRegistry(), { clock: systemClock }); // no abortLocal hook
  assert.equal((await control.cancel(job.id)).effect, "requested");
  const row = await waitForStatus(h.store, job.id, { status: "cancelled", timeoutMs: 3_000 });
  assert.equal(row.status, "cancelled");
});

Deno.test("Executor: a cancel persisted before the terminal write wins over a handler that ignores it and succeeds", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("a.db"), { executor: { cancelPollMs: 20 } });
  const job = await h.control.submit("stubborn", { ms: 300 });
  await waitForStatus(h.store, job.id, { status: "running" });
  assert.equal((await h.control.cancel(job.id)).effect, "requested");
  const row = await waitForStatus(h.store, job.id, { status: ["succeeded", "failed", "cancelled"] });
  assert.equal(row.status, "cancelled");
  assert.equal(row.result, null);
});

Deno.test("JobControl.cancel: after the terminal write it reports terminal and changes nothing", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("a.db"));
  const job = await h.control.submit("echo", { x: 1 });
  const done = await waitForStatus(h.store, job.id, { status: "succeeded" });
  const effect = await h.control.cancel(job.id);
  assert.equal(effect.effect, "already_ended");
  assert.equal((await h.control.cancel(job.id)).effect, "already_ended");
  assert.deepEqual(h.store.rows.jobGet(job.id), done);
  const failed = await h.control.submit("fail", { code: "transient", message: "m" });
  const f = await waitForStatus(h.store, failed.id, { status: "failed" });
  assert.equal((await h.control.cancel(failed.id)).effect, "already_ended");
  assert.deepEqual(h.store.rows.jobGet(failed.id), f);
});

// ---------------------------------------------------------------- retention

Deno.test("Executor: the retention sweep deletes expired terminal jobs only; JobControl.get hides them first", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("a.db"), {
    control: { retentionMs: 300 },
    executor: { retentionSweepMs: 25, shutdownGraceMs: 10 },
  });
  const hang = await h.control.submit("hang", null);
  const done = await h.control.submit("echo", 1);
  const queuedLater = await h.control.submit("sleep", { ms: 60_000 });
  const row = await waitForStatus(h.store, done.id, { status: "succeeded" });
  assert.equal(row.expires_at, row.completed_at! + 300);
  assert.ok(h.control.get(done.id) !== undefined);
  await waitFor("expired job hidden", () => h.control.get(done.id) === undefined, { timeoutMs: 3_000 });
  await waitFor("expired job deleted", () => h.store.rows.jobGet(done.id) === undefined, { timeoutMs: 3_000 });
  assert.equal(h.store.rows.jobGet(hang.id)?.status, "running");
  assert.ok(["queued", "running"].includes(h.store.rows.jobGet(queuedLater.id)!.status));
});

Deno.test("JobControl.ttlMs: grows while a job runs and is fixed once it is terminal", async () => {
  await using dir = await tempDir();
  const clock = new ManualClock();
  await using h = await openHarness(dir.file("a.db"), { clock, control: { retentionMs: 60_000 } });
  const job = await h.control.submit("sleep", { ms: 5_000 });
  const running = await waitForStatus(h.store, job.id, { status: "running" });
  const t1 = h.control.guidance(running).ttlMs;
  assert.equal(t1, 60_000);
  clock.advance(1_000);
  const t2 = h.control.guidance(h.store.rows.jobGet(job.id)!).ttlMs;
  assert.equal(t2, 61_000);
  clock.advance(4_000);
  const done = await waitForStatus(h.store, job.id, { status: "succeeded" });
  const t3 = h.control.guidance(done).ttlMs;
  assert.equal(t3, done.completed_at! + 60_000 - done.created_at);
  clock.advance(3_000);
  assert.equal(h.control.guidance(h.store.rows.jobGet(job.id)!).ttlMs, t3);
});

// ---------------------------------------------------------------- shutdown, reconcile, lease loss

Deno.test("Executor.stop: records running jobs interrupted (hang after the grace), leaves queued jobs queued", async () => {
  await using dir = await tempDir();
  const clock = new ManualClock(); // the grace (and the sleep job's sleep) run on it: time moves when told
  await using h = await openHarness(dir.file("a.db"), { clock, executor: { runningMax: 2, shutdownGraceMs: 200 } });
  const hang = await h.control.submit("hang", null);
  const sleep = await h.control.submit("sleep", { ms: 60_000 });
  const q1 = await h.control.submit("echo", 1);
  const q2 = await h.control.submit("echo", 2);
  await waitForStatus(h.store, hang.id, { status: "running" });
  await waitForStatus(h.store, sleep.id, { status: "running" });
  const ownerId = h.executor!.ownerId;
  let stopped = false;
  const stopping = h.executor!.stop().then(() => stopped = true);
  // The sleep job honours its abort at once; the hang job never does, so stop() waits out the grace.
  await waitForStatus(h.store, sleep.id, { status: "failed" });
  await waitFor("the grace wait", () => clock.pendingSleeps === 1);
  clock.advance(200 - 1);
  await new Promise((resolve) => setTimeout(resolve, 0)); // no time passes: lets anything due run
  assert.equal(stopped, false, "1 ms before the grace ends, stop() still waits for the hang job");
  assert.equal(h.store.rows.jobGet(hang.id)?.status, "running");
  clock.advance(1);
  await stopping;
  for (const id of [hang.id, sleep.id]) {
    const row = h.store.rows.jobGet(id);
    assert.equal(row?.status, "failed");
    assert.equal(row?.error?.code, "interrupted");
    assert.equal(row?.error?.retryable, true);
  }
  assert.equal(h.store.rows.jobGet(q1.id)?.status, "queued");
  assert.equal(h.store.rows.jobGet(q2.id)?.status, "queued");
  assert.equal(h.store.rows.ownerListLive(Date.now()).some((o) => o.owner_id === ownerId), false);
  assert.deepEqual(h.executor!.runningIds(), []);
});

Deno.test("Executor.start: reconciles jobs of a dead owner before claiming anything", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  using seed = openTempStore(path);
  const control = new JobControl(seed.rows, testRegistry(), { clock: systemClock });
  const orphan = await control.submit("echo", 1);
  const dead = newOwnerId();
  const past = Date.now() - 60_000;
  await seed.rows.ownerRegister({ ownerId: dead, pid: 1, leaseMs: 10_000 }, past);
  assert.equal((await seed.rows.jobClaimNextIfOwnerLive({ ownerId: dead, kinds: ["echo"] }, past + 1))?.id, orphan.id);
  await using h = await openHarness(path, { executor: { reconcileMs: 60_000 } });
  const row = h.store.rows.jobGet(orphan.id);
  assert.equal(row?.status, "failed");
  assert.equal(row?.error?.code, "process_lost");
  assert.equal(row?.attempt, 1, "never replayed");
  assert.ok(h.terminal.includes(orphan.id));
});

Deno.test("Executor: after losing its lease it aborts its jobs and its terminal write is refused (fencing)", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  const release = gate();
  let abortReason: unknown;
  const probe: AnyJobKind = defineJobKind<null, { late: true }>({
    kind: "probe",
    run: async (ctx) => {
      ctx.signal.addEventListener("abort", () => abortReason = ctx.signal.reason);
      await release.promise; // ignores the abort, then claims success
      return { late: true };
    },
  });
  await using h = await openHarness(path, {
    extraKinds: [probe],
    executor: { heartbeatMs: 30, leaseMs: 90, reconcileMs: 60_000 },
  });
  const job = await h.control.submit("probe", null);
  const running = await waitForStatus(h.store, job.id, { status: "running" });
  const oldOwner = h.executor!.ownerId;
  assert.equal(running.owner_id, oldOwner);

  // The owner's heartbeat "lapsed": as if the process had been paused past its lease.
  const db = new DatabaseSync(path);
  db.prepare("UPDATE job_owners SET heartbeat_at = heartbeat_at - 3600000 WHERE owner_id = ?").run(oldOwner);
  db.close();

  await waitFor("the handler to be aborted", () => abortReason !== undefined, { timeoutMs: 3_000 });
  assert.ok(abortReason instanceof JobAbort);
  assert.equal(abortReason.abortCause, "lease_lost");
  const lost = await waitForStatus(h.store, job.id, { status: "failed", timeoutMs: 3_000 });
  assert.equal(lost.error?.code, "process_lost");
  assert.notEqual(h.executor!.ownerId, oldOwner, "re-registered under a new owner id");

  release.open(); // the stale handler now returns success: its write must be refused
  // A run leaves runningIds() only after its terminal write was attempted (and here refused).
  await waitFor("the stale run to end", () => !h.executor!.runningIds().includes(job.id), { timeoutMs: 3_000 });
  assert.deepEqual(h.store.rows.jobGet(job.id), lost);
  assert.equal(h.terminal.filter((id) => id === job.id).length, 1, "only the reconciliation ended it");

  // The executor keeps working under its new owner.
  const next = await h.control.submit("echo", 7);
  const done = await waitForStatus(h.store, next.id, { status: "succeeded" });
  assert.equal(done.owner_id, h.executor!.ownerId);
});

Deno.test("Executor: a blocked event loop past the lease loses the job; the late success is refused", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  await using h = await openHarness(path, {
    executor: { heartbeatMs: 20, leaseMs: 60, reconcileMs: 20, cancelPollMs: 20 },
  });
  const job = await h.control.submit("stubborn", { ms: 150 });
  await waitForStatus(h.store, job.id, { status: "running" });
  const until = Date.now() + 250; // no heartbeat can run while the loop is blocked
  while (Date.now() < until) { /* block */ }
  const row = await waitForStatus(h.store, job.id, { status: ["succeeded", "failed", "cancelled"], timeoutMs: 3_000 });
  assert.equal(row.status, "failed");
  assert.equal(row.error?.code, "process_lost");
  // The stubborn handler then returns success; its run ends only after its (fenced) write was tried.
  await waitFor("the stubborn run to end", () => !h.executor!.runningIds().includes(job.id), { timeoutMs: 3_000 });
  assert.deepEqual(h.store.rows.jobGet(job.id), row);
});

Deno.test("Executor: refuses a lease shorter than 3 heartbeats and a running bound below 1", () => {
  const store = { rows: undefined } as unknown as { rows: never };
  assert.throws(
    () =>
      new Executor(store.rows, testRegistry(), {
        clock: systemClock,
        log: silentLogger,
        heartbeatMs: 100,
        leaseMs: 299,
      }),
    RangeError,
  );
  assert.throws(
    () => new Executor(store.rows, testRegistry(), { clock: systemClock, log: silentLogger, runningMax: 0 }),
    RangeError,
  );
});

Deno.test("JobControl.getMany: one read for many ids; hides other authorities' and unknown ids; concise skips payloads", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("a.db"), { executor: false });
  const mine = await h.control.submit("echo", { i: 1 }, { authority: "token-a" });
  const local = await h.control.submit("echo", { i: 2 });
  const all = h.control.getMany([mine.id, local.id, newJobId()], "token-a", { columns: "all" });
  assert.deepEqual([...all.keys()], [mine.id], "another authority's and unknown ids are absent");
  assert.deepEqual(all.get(mine.id), h.control.get(mine.id, "token-a"), "the same row as a single read");
  const concise = h.control.getMany([mine.id, local.id], null, { columns: "concise" });
  assert.equal(concise.size, 2, "the local authority sees every job");
  const row = concise.get(local.id);
  assert.deepEqual(row?.request, { i: 2 }, "a queued concise row keeps its request (its poll guidance reads it)");
  assert.equal(row?.result, null, "concise rows carry no result");
  assert.equal(row?.status, "queued");
  await h.control.cancel(local.id);
  assert.equal(
    h.control.getMany([local.id], null, { columns: "concise" }).get(local.id)?.request,
    null,
    "nor, once past queued, a request",
  );
  assert.deepEqual(h.control.getMany([], null, { columns: "all" }), new Map());
  assert.throws(
    () => h.control.getMany(Array.from({ length: 101 }, () => newJobId()), null, { columns: "all" }),
    RangeError,
  );
  assert.equal(
    h.control.getMany(Array.from({ length: 100 }, () => newJobId()), null, { columns: "all" }).size,
    0,
    "100 ids at the bound",
  );
});

Deno.test("JobControl.guidanceFor: the batch guidance equals each row's own pollAfterMs", async () => {
  await using dir = await tempDir();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  // A kind that, like the watcher, derives its first poll from its request.
  const firstPoll = defineJobKind<{ first_ms: number }, null>({
    kind: "first_poll",
    run: () => Promise.resolve(null),
    firstPollAfterMs: (req) => req.first_ms,
  });
  await using h = await openHarness(dir.file("a.db"), { executor: false, clock, extraKinds: [firstPoll] });
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push((await h.control.submit("echo", { i })).id);
  for (let i = 0; i < 3; i++) ids.push((await h.control.submit("first_poll", { first_ms: 7_000 + i })).id);
  const owner = newOwnerId();
  await h.store.rows.ownerRegister({ ownerId: owner, pid: 1, leaseMs: 10_000 }, clock.now());
  await h.store.rows.jobClaimBatchIfOwnerLive({ ownerId: owner, kinds: ["echo"], max: 3 }, clock.now());
  clock.advance(1_500);
  const rows = [...h.control.getMany(ids, null, { columns: "concise" }).values()];
  assert.equal(rows.filter((r) => r.status === "running").length, 3);
  const guidance = h.control.guidanceFor(rows);
  // Newest first, so the first queued row asked for is not the oldest.
  const newestFirst = rows.toReversed();
  for (const row of newestFirst) assert.equal(guidance(row), h.control.pollAfterMs(row), row.id);
  // Queued rows outside the batch (after two queued ones inside it) get their own position query.
  const partial = h.control.guidanceFor(newestFirst.slice(0, 4));
  for (const row of newestFirst) assert.equal(partial(row), h.control.pollAfterMs(row), `outside the batch: ${row.id}`);
});

Deno.test("JobControl.cancelAdmittedHere: cancels the open jobs this control admitted, not another's; ended ones are pruned past 2 x admittedMax", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  using store = openTempStore(path);
  const here = new JobControl(store.rows, testRegistry(), { clock: systemClock, admittedMax: 2 });
  const other = new JobControl(store.rows, testRegistry(), { clock: systemClock, admittedMax: 10 });
  const a = await here.submit("echo", 1);
  const b = await here.submit("echo", 2);
  await here.cancel(a.id);
  await here.cancel(b.id);
  const c = await here.submit("echo", 3);
  const d = await here.submit("echo", 4);
  await here.cancel(c.id);
  assert.equal(here.admittedHereCount, 4, "at 2 x admittedMax nothing is pruned yet");
  const e = await here.submit("echo", 5); // the fifth remembered id: the prune runs, a, b and c go
  assert.equal(here.admittedHereCount, 2, "the prune kept the open ones only");
  const theirs = await other.submit("echo", 6);
  assert.equal(await here.cancelAdmittedHere(), 2, "d and e");
  for (const id of [a.id, b.id, c.id, d.id, e.id]) assert.equal(store.rows.jobGet(id)?.status, "cancelled", id);
  assert.equal(store.rows.jobGet(theirs.id)?.status, "queued", "another control's job is left alone");
  assert.equal(await here.cancelAdmittedHere(), 0, "a second call has nothing left");
});
