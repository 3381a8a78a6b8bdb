/**
 * The job store on real SQLite files: every transition and refusal of JobRows, terminal
 * immutability and legal transitions enforced by the database itself (raw SQL through a
 * separate connection), schema identity, file modes and retention deletes.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/store_test.ts
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { AppError } from "../src/base/errors.ts";
import { newJobId, newOwnerId } from "../src/base/ids.ts";
import { JOB_EVENTS_MAX, JOB_RECENT_RUNS_SAMPLE } from "../src/base/limits.ts";
import type { JobRow, JobRows, TerminalWrite } from "../src/store/job_rows.ts";
import { APPLICATION_ID, MIGRATIONS } from "../src/store/migrations.ts";
import { openStore, storeConnection } from "../src/store/store.ts";
import { openTempStore, tempDir } from "../testing/temp.ts";

const T0 = Date.UTC(2026, 0, 1);
const LEASE = 10_000;

async function insert(rows: JobRows, now = T0, options: { retentionMs?: number; kind?: string } = {}): Promise<JobRow> {
  return await rows.jobInsertIfAdmitted({
    id: newJobId(),
    kind: options.kind ?? "echo",
    requestJson: JSON.stringify({ n: 1 }),
    retentionMs: options.retentionMs ?? 60_000,
    authority: null,
    now,
    admittedMax: 1_000,
  });
}

async function owner(rows: JobRows, now = T0): Promise<string> {
  const id = newOwnerId();
  await rows.ownerRegister({ ownerId: id, pid: 4242, leaseMs: LEASE }, now);
  return id;
}

/** Inserts one job and claims it for a fresh owner. */
let kinds = 0;
async function running(rows: JobRows, now = T0): Promise<{ row: JobRow; ownerId: string }> {
  const kind = `run${++kinds}`; // a kind of its own, so FIFO claiming picks exactly this job
  const queued = await insert(rows, now, { kind });
  const ownerId = await owner(rows, now);
  const claimed = await rows.jobClaimNextIfOwnerLive({ ownerId, kinds: [kind] }, now + 1);
  assert.ok(claimed !== undefined);
  assert.equal(claimed.id, queued.id);
  assert.equal(claimed.attempt, 1);
  assert.deepEqual(claimed.request, queued.request);
  const row = rows.jobGet(claimed.id);
  assert.ok(row !== undefined);
  return { row, ownerId };
}

const SUCCESS: TerminalWrite = { status: "succeeded", outcome: "succeeded", resultJson: '{"ok":true}', error: null };
const FAILURE: TerminalWrite = {
  status: "failed",
  outcome: "failed",
  resultJson: null,
  error: { code: "request_failed", message: "boom", retryable: false },
};
const CANCELLED: TerminalWrite = { status: "cancelled", outcome: "cancelled", resultJson: null, error: null };

function raw(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA busy_timeout = 2000");
  return db;
}

/** The database's refusal of `sql`, run with `options.params` bound (none by default); fails if it is not refused. */
function sqlRefused(db: DatabaseSync, sql: string, options: { params?: (string | number | null)[] } = {}): string {
  const { params = [] } = options;
  try {
    db.prepare(sql).run(...params);
  } catch (err) {
    return String((err as Error).message);
  }
  assert.fail(`expected the database to refuse: ${sql}`);
}

Deno.test("JobRows.jobInsertIfAdmitted: a new job is queued with its request, timestamps and no owner", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const row = await insert(store.rows);
  assert.equal(row.status, "queued");
  assert.deepEqual(row.request, { n: 1 });
  assert.equal(row.created_at, T0);
  assert.equal(row.updated_at, T0);
  assert.equal(row.owner_id, null);
  assert.equal(row.attempt, 0);
  assert.equal(row.expires_at, null);
  assert.deepEqual(store.rows.jobGet(row.id), row);
});

Deno.test("JobRows: queued -> running -> succeeded through claim and the fenced terminal write", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const { row, ownerId } = await running(store.rows);
  assert.equal(row.status, "running");
  assert.equal(row.owner_id, ownerId);
  assert.equal(row.attempt, 1);
  assert.equal(row.started_at, T0 + 1);
  const done = await store.rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, SUCCESS, { now: T0 + 5 });
  assert.ok(done !== undefined);
  assert.equal(done.status, "succeeded");
  assert.equal(done.outcome, "succeeded");
  assert.deepEqual(done.result, { ok: true });
  assert.equal(done.completed_at, T0 + 5);
  assert.equal(done.expires_at, T0 + 5 + 60_000);
});

Deno.test("JobRows: running -> failed stores the typed error", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const { row, ownerId } = await running(store.rows);
  const done = await store.rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, FAILURE, { now: T0 + 5 });
  assert.equal(done?.status, "failed");
  assert.deepEqual(done?.error, FAILURE.error);
  assert.equal(done?.result, null);
});

Deno.test("JobRows: running -> cancelled only after a persisted request, which then refuses success", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const { row, ownerId } = await running(store.rows);
  assert.equal(
    await store.rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, CANCELLED, { now: T0 + 2 }),
    undefined,
  );
  const effect = await store.rows.jobCancelRequest(row.id, T0 + 3);
  assert.equal(effect.effect, "requested");
  assert.deepEqual(store.rows.jobListCancelRequested(ownerId), [row.id]);
  assert.equal((await store.rows.jobCancelRequest(row.id, T0 + 4)).effect, "already_requested");
  assert.equal(store.rows.jobGet(row.id)?.cancel_requested_at, T0 + 3, "a repeated cancel changes nothing");
  assert.equal(
    await store.rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, SUCCESS, { now: T0 + 5 }),
    undefined,
  );
  assert.equal(
    await store.rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, FAILURE, { now: T0 + 5 }),
    undefined,
  );
  const done = await store.rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, CANCELLED, { now: T0 + 6 });
  assert.equal(done?.status, "cancelled");
  assert.equal((await store.rows.jobCancelRequest(row.id, T0 + 7)).effect, "already_cancelled");
});

Deno.test("JobRows.jobCancelRequest: queued -> cancelled at once; repeats, terminal and unknown ids change nothing", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const q = await insert(store.rows);
  const first = await store.rows.jobCancelRequest(q.id, T0 + 10);
  assert.equal(first.effect, "cancelled");
  const after = store.rows.jobGet(q.id);
  assert.equal(after?.status, "cancelled");
  assert.equal(after?.completed_at, T0 + 10);
  assert.equal(after?.expires_at, T0 + 10 + 60_000);
  const again = await store.rows.jobCancelRequest(q.id, T0 + 20);
  assert.equal(again.effect, "already_cancelled");
  assert.deepEqual(store.rows.jobGet(q.id), after);

  const { row, ownerId } = await running(store.rows);
  await store.rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, SUCCESS, { now: T0 + 5 });
  const before = store.rows.jobGet(row.id);
  const late = await store.rows.jobCancelRequest(row.id, T0 + 30);
  assert.equal(late.effect, "already_ended");
  assert.deepEqual(store.rows.jobGet(row.id), before);

  assert.equal((await store.rows.jobCancelRequest(newJobId(), T0)).effect, "not_found");
});

Deno.test("JobRows.jobSetTerminalIfOwned: refused for a queued job, another owner, another attempt, a stale owner and a terminal job", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const rows = store.rows;
  const q = await insert(rows);
  const stranger = await owner(rows);
  assert.equal(
    await rows.jobSetTerminalIfOwned({ id: q.id, ownerId: stranger, attempt: 0 }, SUCCESS, { now: T0 + 1 }),
    undefined,
  );
  assert.equal(rows.jobGet(q.id)?.status, "queued");

  const { row, ownerId } = await running(rows);
  assert.equal(
    await rows.jobSetTerminalIfOwned({ id: row.id, ownerId: stranger, attempt: 1 }, SUCCESS, { now: T0 + 2 }),
    undefined,
    "other owner",
  );
  assert.equal(
    await rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 2 }, SUCCESS, { now: T0 + 2 }),
    undefined,
    "other attempt",
  );
  assert.equal(
    await rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, SUCCESS, { now: T0 + LEASE + 1 }),
    undefined,
    "owner whose lease lapsed (heartbeat at T0, now past the lease)",
  );
  assert.equal(
    await rows.jobSetProgressIfOwned({ id: row.id, ownerId: stranger, attempt: 1 }, { phase: "x" }, { now: T0 + 2 }),
    false,
  );
  assert.equal(await rows.jobSetInterruptedIfOwned({ id: row.id, ownerId: stranger, attempt: 1 }, T0 + 2), undefined);
  assert.equal(rows.jobGet(row.id)?.status, "running");

  assert.ok(await rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, SUCCESS, { now: T0 + 3 }));
  const terminal = rows.jobGet(row.id);
  assert.equal(
    await rows.jobSetTerminalIfOwned({ id: row.id, ownerId, attempt: 1 }, FAILURE, { now: T0 + 4 }),
    undefined,
    "terminal",
  );
  assert.equal(await rows.jobSetInterruptedIfOwned({ id: row.id, ownerId, attempt: 1 }, T0 + 4), undefined, "terminal");
  assert.equal(
    await rows.jobSetProgressIfOwned({ id: row.id, ownerId, attempt: 1 }, { phase: "late" }, { now: T0 + 4 }),
    false,
  );
  assert.deepEqual(rows.jobGet(row.id), terminal);
});

Deno.test("JobRows.jobSetTerminalManyIfOwned: one transaction, each write fenced on its own, results in order", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const a = await running(store.rows);
  const b = await running(store.rows);
  const c = await running(store.rows);
  await store.rows.jobCancelRequest(c.row.id, T0 + 2);
  const out = await store.rows.jobSetTerminalManyIfOwned([
    { id: a.row.id, ownerId: a.ownerId, attempt: 1, terminal: SUCCESS },
    { id: b.row.id, ownerId: a.ownerId, attempt: 1, terminal: SUCCESS }, // not b's owner
    { id: c.row.id, ownerId: c.ownerId, attempt: 1, terminal: FAILURE }, // cancel persisted first
    { id: b.row.id, ownerId: b.ownerId, attempt: 1, terminal: FAILURE },
  ], T0 + 5);
  assert.deepEqual(out, [true, false, false, true]);
  assert.deepEqual([a, b].map((j) => store.rows.jobGet(j.row.id)?.status), ["succeeded", "failed"]);
  assert.equal(store.rows.jobGet(c.row.id)?.status, "running");
});

Deno.test("JobRows.jobClaimBatchIfOwnerLive: claims up to max in FIFO order, one attempt each", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await insert(store.rows, T0 + i, { kind: "batch" })).id);
  const o = await owner(store.rows);
  const first = await store.rows.jobClaimBatchIfOwnerLive({ ownerId: o, kinds: ["batch"], max: 3 }, T0 + 10);
  assert.deepEqual(first.map((r) => r.id), ids.slice(0, 3));
  const rest = await store.rows.jobClaimBatchIfOwnerLive({ ownerId: o, kinds: ["batch"], max: 3 }, T0 + 10);
  assert.deepEqual(rest.map((r) => r.id), ids.slice(3));
  assert.deepEqual(await store.rows.jobClaimBatchIfOwnerLive({ ownerId: o, kinds: ["batch"], max: 3 }, T0 + 10), []);
  for (const id of ids) assert.equal(store.rows.jobGet(id)?.attempt, 1);
  assert.deepEqual(
    await store.rows.jobClaimBatchIfOwnerLive({ ownerId: o, kinds: ["batch"], max: 3 }, T0 + LEASE),
    [],
    "stale owner",
  );
});

Deno.test("JobRows.jobQueuePositions: the batch's queued jobs' FIFO positions, as jobQueuePosition gives each; others absent", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const ids: string[] = [];
  // Two jobs share a creation time: the insertion order breaks the tie, as in jobQueuePosition.
  for (const at of [T0, T0 + 1, T0 + 1, T0 + 2, T0 + 3]) ids.push((await insert(store.rows, at, { kind: "pos" })).id);
  const o = await owner(store.rows);
  await store.rows.jobClaimBatchIfOwnerLive({ ownerId: o, kinds: ["pos"], max: 1 }, T0 + 10); // ids[0] runs
  await store.rows.jobCancelRequest(ids[3]!, T0 + 10); // ids[3] ends
  const unknown = newJobId();
  const got = store.rows.jobQueuePositions([ids[4]!, ids[0]!, ids[2]!, ids[3]!, unknown, ids[1]!]);
  assert.deepEqual([...got.ahead].sort((a, b) => a[1] - b[1]), [[ids[1], 0], [ids[2], 1], [ids[4], 2]]);
  assert.equal(got.running, 1);
  for (const id of [ids[1]!, ids[2]!, ids[4]!]) {
    const one = store.rows.jobQueuePosition(id);
    assert.deepEqual([got.ahead.get(id), got.running], [one.ahead, one.running]);
  }
  assert.deepEqual(store.rows.jobQueuePositions([]), { ahead: new Map(), running: 1 });
});

Deno.test("JobRows.jobClaimBatchIfOwnerLive with ids: only those queued jobs of its kinds, FIFO among them; none for an empty list", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const rows = store.rows;
  const older = await insert(rows, T0 - 5, { kind: "batch" });
  const mine = [await insert(rows, T0 + 2, { kind: "batch" }), await insert(rows, T0 + 1, { kind: "batch" })];
  const otherKind = await insert(rows, T0, { kind: "other" });
  const o = await owner(rows);
  const claim = (ids: string[], max = 5) =>
    rows.jobClaimBatchIfOwnerLive({ ownerId: o, kinds: ["batch"], max, ids }, T0 + 10);
  assert.deepEqual(await claim([]), [], "an empty list claims nothing");
  assert.deepEqual(await claim([otherKind.id]), [], "a listed job of another kind is not claimed");
  assert.deepEqual((await claim([mine[0]!.id, mine[1]!.id], 1)).map((r) => r.id), [mine[1]!.id], "FIFO, up to max");
  assert.deepEqual((await claim([mine[0]!.id, mine[1]!.id])).map((r) => r.id), [mine[0]!.id]);
  assert.deepEqual(await claim([mine[0]!.id]), [], "a running job is not claimed again");
  assert.deepEqual(
    [older, otherKind].map((j) => rows.jobGet(j.id)?.status),
    ["queued", "queued"],
    "unlisted and other-kind jobs stay queued",
  );
});

Deno.test("JobRows.jobClaimNextIfOwnerLive: FIFO, only listed kinds, nothing for a stale or unknown owner", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const rows = store.rows;
  const a = await insert(rows, T0);
  const other = await insert(rows, T0, { kind: "other" });
  const b = await insert(rows, T0); // same created_at: insertion order decides
  const c = await insert(rows, T0 - 5); // older: first
  const o = await owner(rows);
  assert.equal(
    await rows.jobClaimNextIfOwnerLive({ ownerId: newOwnerId(), kinds: ["echo"] }, T0 + 1),
    undefined,
    "unknown owner",
  );
  assert.equal(
    await rows.jobClaimNextIfOwnerLive({ ownerId: o, kinds: ["echo"] }, T0 + LEASE),
    undefined,
    "stale owner",
  );
  assert.equal(rows.jobCountAdmitted(), 4);
  const order: string[] = [];
  for (;;) {
    const r = await rows.jobClaimNextIfOwnerLive({ ownerId: o, kinds: ["echo"] }, T0 + 1);
    if (r === undefined) break;
    order.push(r.id);
  }
  assert.deepEqual(order, [c.id, a.id, b.id]);
  assert.equal(rows.jobGet(other.id)?.status, "queued");
});

Deno.test("JobRows.jobSetProgressIfOwned: writes only the given fields", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const { row, ownerId } = await running(store.rows);
  assert.ok(
    await store.rows.jobSetProgressIfOwned({ id: row.id, ownerId, attempt: 1 }, { phase: "p", totalItems: 10 }, {
      now: T0 + 2,
    }),
  );
  assert.ok(
    await store.rows.jobSetProgressIfOwned({ id: row.id, ownerId, attempt: 1 }, { completedItems: 3, message: "m" }, {
      now: T0 + 3,
    }),
  );
  const r = store.rows.jobGet(row.id);
  assert.equal(r?.phase, "p");
  assert.equal(r?.total_items, 10);
  assert.equal(r?.completed_items, 3);
  assert.equal(r?.progress_message, "m");
  assert.equal(r?.updated_at, T0 + 3);
});

Deno.test("JobRows.jobEventAppend: keeps at most JOB_EVENTS_MAX events, newest", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const q = await insert(store.rows);
  for (let i = 0; i < JOB_EVENTS_MAX + 7; i++) {
    await store.rows.jobEventAppend(q.id, { at: T0 + i, level: "info", message: `e${i}` });
  }
  const events = store.rows.jobEvents(q.id);
  assert.equal(events.length, JOB_EVENTS_MAX);
  assert.equal(events.at(-1)?.message, `e${JOB_EVENTS_MAX + 6}`);
  assert.equal(events[0]?.message, "e7");
});

Deno.test("JobRows.jobSetInterruptedIfOwned: failed/interrupted (retryable), or cancelled when a cancel was persisted", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const one = await running(store.rows);
  const r1 = await store.rows.jobSetInterruptedIfOwned({ id: one.row.id, ownerId: one.ownerId, attempt: 1 }, T0 + 5);
  assert.equal(r1?.status, "failed");
  assert.equal(r1?.error?.code, "interrupted");
  assert.equal(r1?.error?.retryable, true);
  const two = await running(store.rows);
  await store.rows.jobCancelRequest(two.row.id, T0 + 2);
  const r2 = await store.rows.jobSetInterruptedIfOwned({ id: two.row.id, ownerId: two.ownerId, attempt: 1 }, T0 + 5);
  assert.equal(r2?.status, "cancelled");
  assert.equal(r2?.error, null);
});

Deno.test("JobRows.jobReconcileLost: stale owners' running jobs end process_lost (or cancelled); live owners untouched", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const rows = store.rows;
  const dead = await running(rows, T0);
  const deadCancelled = await running(rows, T0);
  await rows.jobCancelRequest(deadCancelled.row.id, T0 + 2);
  const queued = await insert(rows, T0);
  const liveOwner = await owner(rows, T0 + LEASE);
  const live = await rows.jobClaimNextIfOwnerLive({ ownerId: liveOwner, kinds: ["echo"] }, T0 + LEASE);
  assert.equal(live?.id, queued.id);
  const stillQueued = await insert(rows, T0);

  const now = T0 + LEASE + 1; // the first two owners' leases lapsed; the third heartbeat at T0 + LEASE
  const lost = await rows.jobReconcileLost(now);
  assert.deepEqual(new Set(lost), new Set([dead.row.id, deadCancelled.row.id]));
  const a = rows.jobGet(dead.row.id);
  assert.equal(a?.status, "failed");
  assert.equal(a?.error?.code, "process_lost");
  assert.equal(a?.error?.retryable, true);
  assert.equal(a?.completed_at, now);
  assert.equal(rows.jobGet(deadCancelled.row.id)?.status, "cancelled");
  assert.equal(rows.jobGet(live.id)?.status, "running");
  assert.equal(rows.jobGet(stillQueued.id)?.status, "queued", "queued work is never reconciled");
  assert.deepEqual(rows.ownerListLive(now).map((o) => o.owner_id), [liveOwner]);
  const ownerRows = store.conn.db.prepare("SELECT owner_id FROM job_owners").all() as { owner_id: string }[];
  assert.deepEqual(ownerRows.map((o) => o.owner_id), [liveOwner], "stale owner rows deleted");
  assert.deepEqual(await rows.jobReconcileLost(now), [], "reconciling again changes nothing");
});

Deno.test("JobRows.ownerHeartbeatIfLive: refreshes a live owner, refuses a stale or deleted one", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const o = await owner(store.rows, T0);
  assert.equal(await store.rows.ownerHeartbeatIfLive(o, T0 + LEASE - 1), true);
  assert.equal(await store.rows.ownerHeartbeatIfLive(o, T0 + 2 * LEASE - 2), true);
  assert.equal(await store.rows.ownerHeartbeatIfLive(o, T0 + 3 * LEASE), false, "lapsed");
  await store.rows.ownerDelete(o);
  assert.equal(await store.rows.ownerHeartbeatIfLive(o, T0 + 3 * LEASE), false, "deleted");
});

Deno.test("jobs triggers: raw UPDATE of a terminal row's status, result, error or outcome is refused", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  using store = openTempStore(path);
  const ok = await running(store.rows);
  await store.rows.jobSetTerminalIfOwned({ id: ok.row.id, ownerId: ok.ownerId, attempt: 1 }, SUCCESS, { now: T0 + 3 });
  const failed = await running(store.rows);
  await store.rows.jobSetTerminalIfOwned({ id: failed.row.id, ownerId: failed.ownerId, attempt: 1 }, FAILURE, {
    now: T0 + 3,
  });
  const cancelled = await insert(store.rows);
  await store.rows.jobCancelRequest(cancelled.id, T0 + 3);

  const db = raw(path);
  try {
    for (const id of [ok.row.id, failed.row.id, cancelled.id]) {
      const before = db.prepare("SELECT * FROM jobs WHERE id = ?").get(id);
      for (
        const sql of [
          "UPDATE jobs SET status = 'running' WHERE id = ?",
          "UPDATE jobs SET status = 'queued' WHERE id = ?",
          "UPDATE jobs SET status = CASE status WHEN 'failed' THEN 'succeeded' ELSE 'failed' END WHERE id = ?",
          "UPDATE jobs SET result = '{\"forged\":true}' WHERE id = ?",
          'UPDATE jobs SET result = NULL, error = \'{"code":"x"}\' WHERE id = ?',
          "UPDATE jobs SET error = NULL WHERE id = ? AND error IS NOT NULL",
          "UPDATE jobs SET outcome = 'partial' WHERE id = ?",
        ]
      ) {
        const changes = (() => {
          try {
            return Number(db.prepare(sql).run(id).changes);
          } catch (err) {
            assert.match(String((err as Error).message), /terminal|illegal/);
            return -1;
          }
        })();
        assert.ok(changes <= 0, `refused or matched nothing: ${sql}`);
      }
      assert.deepEqual(db.prepare("SELECT * FROM jobs WHERE id = ?").get(id), before);
    }
    // The refusal is real: this one matches the row and must raise.
    assert.match(
      sqlRefused(db, "UPDATE jobs SET result = 'null' WHERE id = ?", { params: [ok.row.id] }),
      /it is terminal/,
    );
    // A raw DELETE of a terminal row is what retention does: allowed.
    assert.equal(Number(db.prepare("DELETE FROM jobs WHERE id = ?").run(ok.row.id).changes), 1);
  } finally {
    db.close();
  }
});

Deno.test("jobs triggers: raw DELETE of a queued or running row is refused", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  using store = openTempStore(path);
  const q = await insert(store.rows);
  const r = await running(store.rows);
  const db = raw(path);
  try {
    assert.match(sqlRefused(db, "DELETE FROM jobs WHERE id = ?", { params: [q.id] }), /not terminal/);
    assert.match(sqlRefused(db, "DELETE FROM jobs WHERE id = ?", { params: [r.row.id] }), /not terminal/);
    assert.match(sqlRefused(db, "DELETE FROM jobs"), /not terminal/);
    assert.equal((db.prepare("SELECT count(*) AS n FROM jobs").get() as { n: number }).n, 2);
  } finally {
    db.close();
  }
});

Deno.test("jobs triggers: raw INSERT OR REPLACE, REPLACE INTO and UPSERT of an existing id are refused", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  using store = openTempStore(path);
  const ok = await running(store.rows);
  await store.rows.jobSetTerminalIfOwned({ id: ok.row.id, ownerId: ok.ownerId, attempt: 1 }, SUCCESS, { now: T0 + 3 });
  const failed = await running(store.rows);
  await store.rows.jobSetTerminalIfOwned({ id: failed.row.id, ownerId: failed.ownerId, attempt: 1 }, FAILURE, {
    now: T0 + 3,
  });
  const cancelled = await insert(store.rows);
  await store.rows.jobCancelRequest(cancelled.id, T0 + 3);
  const q = await insert(store.rows);
  const r = await running(store.rows);

  const cols = "id, kind, status, outcome, request, result, error, created_at, updated_at, retention_ms";
  const forged = "?, 'echo', 'succeeded', 'succeeded', '{}', '{\"forged\":true}', NULL, 1, 1, 60000";
  const attacks = [
    `INSERT OR REPLACE INTO jobs (${cols}) VALUES (${forged})`,
    `REPLACE INTO jobs (${cols}) VALUES (${forged})`,
    `INSERT INTO jobs (${cols}) VALUES (${forged}) ON CONFLICT (id) DO UPDATE SET result = excluded.result`,
    `INSERT INTO jobs (${cols}) VALUES (${forged}) ON CONFLICT DO UPDATE SET status = 'succeeded', result = 'null'`,
    `INSERT OR REPLACE INTO jobs (${cols}) SELECT ${forged}`,
  ];
  // The guard must hold whatever the attacking connection's pragmas are: REPLACE's implicit
  // delete fires no DELETE trigger with recursive_triggers OFF (the default), and with it ON the
  // DELETE trigger still lets a terminal row go (retention deletes terminal rows).
  for (const recursive of ["OFF", "ON"]) {
    const db = raw(path);
    try {
      db.exec(`PRAGMA recursive_triggers = ${recursive}`);
      const count = () => (db.prepare("SELECT count(*) AS n FROM jobs").get() as { n: number }).n;
      const rows = count();
      for (const id of [ok.row.id, failed.row.id, cancelled.id, q.id, r.row.id]) {
        const before = db.prepare("SELECT * FROM jobs WHERE id = ?").get(id);
        for (const sql of attacks) {
          assert.match(
            sqlRefused(db, sql, { params: [id] }),
            /terminal|illegal|already exists/,
            `${recursive}: ${sql}`,
          );
          assert.deepEqual(db.prepare("SELECT * FROM jobs WHERE id = ?").get(id), before, `${recursive}: ${sql}`);
        }
      }
      assert.equal(count(), rows, "no row was added or removed");
      // A new id still inserts, even through INSERT OR REPLACE (nothing is replaced).
      const fresh = newJobId();
      assert.equal(
        Number(
          db.prepare(
            `INSERT OR REPLACE INTO jobs (${cols}) VALUES (?, 'echo', 'queued', NULL, '{}', NULL, NULL, 1, 1, 1)`,
          )
            .run(fresh).changes,
        ),
        1,
      );
    } finally {
      db.close();
    }
  }
  // Through the store, a colliding id is refused too and leaves the row as it was.
  await assert.rejects(
    () =>
      store.rows.jobInsertIfAdmitted({
        id: ok.row.id,
        kind: "echo",
        requestJson: "{}",
        retentionMs: 1,
        authority: null,
        now: T0 + 5,
        admittedMax: 1_000,
      }),
  );
  assert.deepEqual(store.rows.jobGet(ok.row.id)?.result, { ok: true });
});

Deno.test("jobs triggers: illegal status transitions are refused; legal ones pass", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  using store = openTempStore(path);
  const q = await insert(store.rows);
  const r = await running(store.rows);
  const db = raw(path);
  try {
    assert.match(sqlRefused(db, "UPDATE jobs SET status = 'succeeded' WHERE id = ?", { params: [q.id] }), /illegal/);
    assert.match(sqlRefused(db, "UPDATE jobs SET status = 'queued' WHERE id = ?", { params: [r.row.id] }), /illegal/);
    assert.match(sqlRefused(db, "UPDATE jobs SET status = 'bogus' WHERE id = ?", { params: [q.id] }), /illegal|CHECK/);
    // Every legal transition, applied by raw SQL, passes the triggers.
    const legal: [string, string][] = [
      ["queued", "running"],
      ["queued", "cancelled"],
      ["queued", "failed"],
      [
        "running",
        "succeeded",
      ],
      ["running", "failed"],
      ["running", "cancelled"],
    ];
    for (const [from, to] of legal) {
      const j = from === "queued" ? (await insert(store.rows)).id : (await running(store.rows)).row.id;
      assert.equal(
        Number(db.prepare("UPDATE jobs SET status = ? WHERE id = ?").run(to, j).changes),
        1,
        `${from}->${to}`,
      );
    }
    // Non-status columns of a live row stay writable (progress, heartbeat-like updates).
    assert.equal(Number(db.prepare("UPDATE jobs SET phase = 'x' WHERE id = ?").run(r.row.id).changes), 1);
  } finally {
    db.close();
  }
});

Deno.test("JobRows.jobDeleteExpired: deletes only expired terminal jobs, in bounded batches", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  using store = openTempStore(path);
  const rows = store.rows;
  const expired: string[] = [];
  for (let i = 0; i < 7; i++) {
    const q = await insert(rows, T0, { retentionMs: 1_000 });
    await rows.jobCancelRequest(q.id, T0);
    expired.push(q.id);
  }
  const fresh = await insert(rows, T0, { retentionMs: 1_000_000 });
  await rows.jobCancelRequest(fresh.id, T0);
  const queued = await insert(rows, T0);
  const run = await running(rows, T0);
  // Even with an expiry forced onto live rows, they are never deleted.
  const db = raw(path);
  db.prepare("UPDATE jobs SET expires_at = 0 WHERE id IN (?, ?)").run(queued.id, run.row.id);
  db.close();

  const now = T0 + 1_000;
  assert.equal(await rows.jobDeleteExpired(now - 1, 100), 0, "not expired yet");
  assert.equal(await rows.jobDeleteExpired(now, 3), 3);
  assert.equal(await rows.jobDeleteExpired(now, 3), 3);
  assert.equal(await rows.jobDeleteExpired(now, 3), 1);
  assert.equal(await rows.jobDeleteExpired(now, 3), 0);
  for (const id of expired) assert.equal(rows.jobGet(id), undefined);
  assert.equal(rows.jobGet(fresh.id)?.status, "cancelled");
  assert.equal(rows.jobGet(queued.id)?.status, "queued");
  assert.equal(rows.jobGet(run.row.id)?.status, "running");
});

// ---------------------------------------------------------------- identity, files

/** File name -> SHA-256 of its bytes, for every file in a directory. */
async function snapshotDir(path: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of Deno.readDirSync(path)) {
    const digest = await crypto.subtle.digest("SHA-256", Deno.readFileSync(`${path}/${e.name}`));
    out.set(e.name, Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join(""));
  }
  return out;
}

function expectIncompatible(path: string, pattern: RegExp): void {
  assert.throws(() => openStore(path), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, "store_incompatible");
    assert.match(err.message, pattern);
    return true;
  });
}

Deno.test("openStore: a foreign SQLite database (tables, no application_id) is refused and left byte-identical", async () => {
  await using dir = await tempDir();
  const path = dir.file("foreign.db");
  const db = new DatabaseSync(path);
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')");
  db.close();
  const before = await snapshotDir(dir.path);
  expectIncompatible(path, /not a longcall database/);
  assert.deepEqual(await snapshotDir(dir.path), before);
});

Deno.test("openStore: a database another process keeps write-locked past the start-up wait is store_busy, not internal", async () => {
  await using dir = await tempDir();
  const path = dir.file("locked.db");
  // A fresh longcall database half-way: another process started migrating it and holds the write lock.
  const other = new DatabaseSync(path);
  other.exec("PRAGMA journal_mode = WAL");
  other.exec("BEGIN IMMEDIATE");
  other.exec("CREATE TABLE being_migrated (x)");
  try {
    assert.throws(
      () => openStore(path, { migrationBusyTimeoutMs: 50 }),
      (err: unknown) =>
        err instanceof AppError && err.code === "store_busy" && err.retryable &&
        /Cannot open database .*locked\.db: another process held its write lock/.test(err.message),
    );
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  // Once the lock is released the same path opens and migrates.
  const store = openStore(path);
  try {
    assert.equal(store.rows.jobCountAdmitted(), 0);
  } finally {
    store.close();
  }
});

Deno.test("openStore: a new file another process holds a lock on is switched to WAL once the lock clears (SQLite does not wait for it)", async () => {
  await using dir = await tempDir();
  const path = dir.file("fresh.db");
  // Another process opened the same new file a moment earlier and holds its reserved lock (still in rollback
  // mode): reading is allowed, but the switch to WAL is refused at once, without SQLite's busy handler.
  const holder = dir.file("hold.ts");
  await Deno.writeTextFile(
    holder,
    `import { DatabaseSync } from "node:sqlite";
const db = new DatabaseSync(Deno.args[0]);
db.exec("BEGIN IMMEDIATE");
console.log("locked");
// Held until told, then for 300 ms more: the parent is by then blocked in its open, retrying the switch.
for await (const _ of Deno.stdin.readable) break;
await new Promise((resolve) => setTimeout(resolve, 300));
db.exec("COMMIT");
db.close();
`,
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", `--allow-read=${dir.path}`, `--allow-write=${dir.path}`, holder, path],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("locked")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the lock holder ended before locking: ${seen}`);
    seen += value;
  }
  try {
    // Retried for its open's busy wait only: 50 ms is not enough, and the open says why.
    assert.throws(
      () => openStore(path, { migrationBusyTimeoutMs: 50 }),
      (err: unknown) => err instanceof AppError && err.code === "store_busy" && err.retryable,
    );
    // The default wait outlasts the lock: the open retries the switch and succeeds once it is released.
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("release\n"));
    await writer.close();
    const store = openStore(path);
    try {
      const mode = storeConnection(store).stmt("PRAGMA journal_mode").get() as { journal_mode: string };
      assert.equal(mode.journal_mode, "wal");
      assert.equal(store.rows.jobCountAdmitted(), 0, "migrated");
    } finally {
      store.close();
    }
  } finally {
    await reader.cancel().catch(() => {});
    await child.status;
  }
});

Deno.test("openStore: the header and the schema are read in one snapshot, so a migration committed in between is not 'foreign'", async () => {
  await using dir = await tempDir();
  // Another process migrates and commits while this one checks the identity: the check must see either the
  // empty file or the whole migrated schema with its application_id, never tables without the id. Three
  // processes open a fresh file at once, 20 times (a stress check: before the fix about one round in 30 failed).
  const opener = `import { openStore } from ${JSON.stringify(new URL("../src/store/store.ts", import.meta.url).href)};
openStore(Deno.args[0]).close();`;
  const script = dir.file("open.ts");
  await Deno.writeTextFile(script, opener);
  for (let round = 0; round < 20; round++) {
    const db = dir.file(`raced-${round}.db`);
    const runs = await Promise.all([0, 1, 2].map(() =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          `--allow-read=${dir.path},${new URL("..", import.meta.url).pathname}`,
          `--allow-write=${dir.path}`,
          script,
          db,
        ],
        stdout: "null",
        stderr: "piped",
      }).output()
    ));
    for (const r of runs) assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  }
});

Deno.test("openStore: a newer schema version or another application_id is refused and left byte-identical", async () => {
  await using dir = await tempDir();
  const newer = dir.file("newer.db");
  const db = new DatabaseSync(newer);
  db.exec(
    `CREATE TABLE jobs (id TEXT); PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = ${
      MIGRATIONS.length + 1
    }`,
  );
  db.close();
  const other = dir.file("other.db");
  const db2 = new DatabaseSync(other);
  db2.exec("PRAGMA application_id = 1234; CREATE TABLE t (x)");
  db2.close();
  const before = await snapshotDir(dir.path);
  expectIncompatible(newer, /newer than this longcall/);
  expectIncompatible(other, /application_id is 1234/);
  assert.deepEqual(await snapshotDir(dir.path), before);
});

Deno.test("openStore: creates the directory 0700 and the file 0600, migrates once, reopens unchanged", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/nested/deeper/longcall.db`;
  const s = openStore(path);
  const id = (await insert(s.rows)).id;
  s.close();
  assert.equal(Deno.statSync(`${dir.path}/nested/deeper`).mode! & 0o777, 0o700);
  assert.equal(Deno.statSync(`${dir.path}/nested`).mode! & 0o777, 0o700);
  assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
  const again = openStore(path);
  try {
    assert.equal(again.rows.jobGet(id)?.status, "queued");
    const v = storeConnection(again).db.prepare("PRAGMA user_version").get() as { user_version: number };
    assert.equal(v.user_version, MIGRATIONS.length);
    const a = storeConnection(again).db.prepare("PRAGMA application_id").get() as { application_id: number };
    assert.equal(a.application_id, APPLICATION_ID);
    const j = storeConnection(again).db.prepare("PRAGMA journal_mode").get() as { journal_mode: string };
    assert.equal(j.journal_mode, "wal");
  } finally {
    again.close();
  }
});

Deno.test("Connection.write: waits asynchronously for another connection's write lock, then commits", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  using store = openTempStore(path);
  const db = raw(path);
  db.exec("BEGIN IMMEDIATE");
  let settled = false;
  const pending = insert(store.rows).finally(() => settled = true);
  try {
    // A timer callback runs while the write is still pending: the wait for the lock does not block the
    // event loop (a synchronous busy wait would hold this thread until SQLite gave up). The lock is held
    // by this test, so the write cannot have committed yet, however long the timer took.
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(settled, false, "the write waits for the other connection's lock");
    db.exec("COMMIT");
    const row = await pending;
    assert.equal(store.rows.jobGet(row.id)?.status, "queued");
  } finally {
    if (db.isTransaction) db.exec("ROLLBACK");
    db.close();
  }
});

Deno.test("openStore: a version-3 database with jobs migrates to the lean schema and keeps every guard", async () => {
  await using dir = await tempDir();
  const path = dir.file("v3.db");
  const old = new DatabaseSync(path);
  for (const m of MIGRATIONS.slice(0, 3)) old.exec(m.sql);
  old.exec(`PRAGMA user_version = 3; PRAGMA application_id = ${APPLICATION_ID}`);
  const legacyId = crypto.randomUUID(); // ids before the time-ordered format
  old.prepare(
    `INSERT INTO jobs (id, kind, status, outcome, request, result, created_at, updated_at, completed_at, retention_ms)
     VALUES (?, 'echo', 'succeeded', 'succeeded', '{}', '{"ok":true}', ?, ?, ?, 60000)`,
  ).run(legacyId, T0, T0, T0);
  old.close();

  using store = openTempStore(path);
  const v = store.conn.db.prepare("PRAGMA user_version").get() as { user_version: number };
  assert.equal(v.user_version, MIGRATIONS.length);
  const names = (store.conn.db.prepare("SELECT name FROM sqlite_schema WHERE type IN ('trigger', 'index')").all() as {
    name: string;
  }[]).map((r) => r.name);
  assert.ok(names.includes("jobs_guard"));
  for (const gone of ["jobs_terminal_immutable", "jobs_legal_transition", "jobs_created"]) {
    assert.ok(!names.includes(gone), `${gone} should be dropped`);
  }
  assert.deepEqual(store.rows.jobGet(legacyId)?.result, { ok: true }, "an old row reads as before");
  const newer = await insert(store.rows, T0 + 1);
  assert.deepEqual(store.rows.jobList({ limit: 10 }).map((r) => r.id), [newer.id, legacyId], "newest first");
  const db = raw(path);
  try {
    assert.match(
      sqlRefused(db, "UPDATE jobs SET result = 'null' WHERE id = ?", { params: [legacyId] }),
      /it is terminal/,
    );
    assert.match(
      sqlRefused(db, "UPDATE jobs SET status = 'succeeded' WHERE id = ?", { params: [newer.id] }),
      /illegal/,
    );
  } finally {
    db.close();
  }
});

Deno.test("JobRows.jobSetTerminalManyAndClaimIfOwned: fenced terminal writes and FIFO refill claims in one transaction", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const a = await running(store.rows);
  const b = await running(store.rows);
  const queued: string[] = [];
  for (let i = 0; i < 3; i++) queued.push((await insert(store.rows, T0 + 10 + i, { kind: "refill" })).id);
  const out = await store.rows.jobSetTerminalManyAndClaimIfOwned(
    [
      { id: a.row.id, ownerId: a.ownerId, attempt: 1, terminal: SUCCESS },
      { id: b.row.id, ownerId: a.ownerId, attempt: 1, terminal: SUCCESS }, // not b's owner: refused
    ],
    { ownerId: a.ownerId, kinds: ["refill"], max: 2 },
    { now: T0 + 20 },
  );
  assert.deepEqual(out.landed, [true, false]);
  assert.deepEqual(out.claimed.map((j) => j.id), queued.slice(0, 2), "the oldest queued jobs, in order");
  assert.deepEqual(out.claimed.map((j) => [j.attempt, j.kind, j.request]), [[1, "refill", { n: 1 }], [
    1,
    "refill",
    { n: 1 },
  ]]);
  for (const id of queued.slice(0, 2)) assert.equal(store.rows.jobGet(id)?.owner_id, a.ownerId);
  assert.equal(store.rows.jobGet(queued[2] as string)?.status, "queued");
  assert.equal(store.rows.jobGet(a.row.id)?.status, "succeeded");
  assert.equal(store.rows.jobGet(b.row.id)?.status, "running");

  const none = await store.rows.jobSetTerminalManyAndClaimIfOwned(
    [],
    { ownerId: a.ownerId, kinds: ["refill"], max: 0 },
    { now: T0 + 21 },
  );
  assert.deepEqual(none, { landed: [], claimed: [] }, "max 0 claims nothing");
  const stale = await store.rows.jobSetTerminalManyAndClaimIfOwned(
    [{ id: b.row.id, ownerId: b.ownerId, attempt: 1, terminal: SUCCESS }],
    { ownerId: a.ownerId, kinds: ["refill"], max: 5 },
    { now: T0 + LEASE + 1 },
  );
  assert.deepEqual(stale, { landed: [false], claimed: [] }, "past the lease neither the write nor the claim lands");
  assert.equal(store.rows.jobGet(queued[2] as string)?.status, "queued");
});

Deno.test("JobRows: run-time guidance averages the newest JOB_RECENT_RUNS_SAMPLE finished jobs, at and past the bound", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const rows = store.rows;
  // One job of its own kind that ran `run.ms` milliseconds, finishing at `run.end`.
  const ran = async (kind: string, run: { ms: number; end: number }) => {
    const { ms, end } = run;
    const queued = await insert(rows, end - ms - 1, { kind });
    const ownerId = await owner(rows, end - ms - 1);
    const claimed = await rows.jobClaimNextIfOwnerLive({ ownerId, kinds: [kind] }, end - ms);
    assert.equal(claimed?.id, queued.id);
    assert.ok(await rows.jobSetTerminalIfOwned({ id: queued.id, ownerId, attempt: 1 }, SUCCESS, { now: end }));
  };
  // At the bound: every one of the sample counts (the oldest, 5_000 ms, moves the mean).
  for (let i = 0; i < JOB_RECENT_RUNS_SAMPLE; i++) {
    await ran("at", { ms: i === 0 ? 5_000 : 1_000, end: T0 + 100_000 + i });
  }
  const atMean = (5_000 + (JOB_RECENT_RUNS_SAMPLE - 1) * 1_000) / JOB_RECENT_RUNS_SAMPLE;
  assert.equal(rows.jobRecentRunMs("at"), atMean);
  // Past the bound: the oldest finished job (5_000 ms) no longer counts; the newest ones do.
  for (let i = 0; i <= JOB_RECENT_RUNS_SAMPLE; i++) {
    await ran("past", { ms: i === 0 ? 5_000 : 2_000, end: T0 + 200_000 + i });
  }
  assert.equal(rows.jobRecentRunMs("past"), 2_000);
  assert.equal(rows.jobRecentRunMs("never"), undefined);

  // The overload retry guidance reads the same sample across kinds (bounded to [1 s, 60 s]).
  const now = T0 + 200_000 + JOB_RECENT_RUNS_SAMPLE + 1;
  const err = await rows.jobInsertIfAdmitted({
    id: newJobId(),
    kind: "echo",
    requestJson: "{}",
    retentionMs: 60_000,
    authority: null,
    now,
    admittedMax: 0,
  }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof AppError && err.code === "overloaded");
  assert.equal(err.retryAfterMs, 2_000, "the newest sample are all 2_000 ms runs; the 5_000 ms ones are older");
});
