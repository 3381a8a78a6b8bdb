/**
 * Schema upgrades of existing databases (src/store/migrations/): a database written by an older
 * longcall, with jobs in every state, opens under the current schema with its rows intact and
 * every database-enforced guard still refusing raw SQL.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/store_migrations_test.ts
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { newJobId, newOwnerId } from "../src/base/ids.ts";
import { APPLICATION_ID, MIGRATIONS } from "../src/store/migrations.ts";
import { openTempStore, tempDir } from "../testing/temp.ts";

const T0 = Date.UTC(2026, 0, 1);

/** The database's refusal of `sql`, run with `options.params` bound; fails if it is not refused. */
function refused(db: DatabaseSync, sql: string, options: { params?: string[] } = {}): string {
  const { params = [] } = options;
  try {
    db.prepare(sql).run(...params);
  } catch (err) {
    return String((err as Error).message);
  }
  assert.fail(`expected the database to refuse: ${sql}`);
}

/** A database exactly as longcall wrote it at schema `version`, with one job per state. */
function oldDatabase(path: string, version: number) {
  const db = new DatabaseSync(path);
  for (const m of MIGRATIONS.slice(0, version)) db.exec(m.sql);
  db.exec(`PRAGMA user_version = ${version}; PRAGMA application_id = ${APPLICATION_ID}`);
  const ownerId = newOwnerId();
  db.prepare("INSERT INTO job_owners (owner_id, pid, started_at, heartbeat_at, lease_ms) VALUES (?, 1, ?, ?, ?)")
    .run(ownerId, T0, T0, 3_600_000);
  const ids = {
    succeeded: newJobId(T0),
    failed: newJobId(T0 + 1),
    queued: newJobId(T0 + 2),
    running: newJobId(T0 + 3),
  };
  const insert = db.prepare(
    `INSERT INTO jobs (id, kind, status, outcome, request, result, error, created_at, updated_at, started_at,
       completed_at, owner_id, attempt, retention_ms, expires_at)
     VALUES (?, 'echo', ?, ?, '{"n":1}', ?, ?, ?, ?, ?, ?, ?, ?, 60000, ?)`,
  );
  insert.run(ids.succeeded, "succeeded", "succeeded", '{"ok":true}', null, T0, T0, T0, T0, null, 1, T0 + 60_000);
  insert.run(ids.failed, "failed", "failed", null, '{"code":"x"}', T0, T0, T0, T0, null, 1, T0 + 60_000);
  insert.run(ids.queued, "queued", null, null, null, T0, T0, null, null, null, 0, null);
  insert.run(ids.running, "running", null, null, null, T0, T0, T0, null, ownerId, 1, null);
  db.close();
  return { ids, ownerId };
}

/** Opens a database written at schema `version` and checks that every guard of the current schema holds. */
async function upgradeKeepsEveryGuard(version: number): Promise<void> {
  await using dir = await tempDir();
  const path = dir.file(`v${version}.db`);
  const { ids, ownerId } = oldDatabase(path, version);

  using store = openTempStore(path);
  const v = store.conn.db.prepare("PRAGMA user_version").get() as { user_version: number };
  assert.equal(v.user_version, MIGRATIONS.length);
  const triggers = store.conn.db.prepare(
    "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'jobs' ORDER BY name",
  )
    .all() as { name: string; sql: string }[];
  assert.deepEqual(triggers.map((t) => t.name), ["jobs_delete_terminal_only", "jobs_guard", "jobs_insert_new_only"]);
  for (const t of triggers) {
    // The point of m005: no IN list in a trigger (rebuilt as a temporary b-tree on every row it fires for).
    assert.doesNotMatch(t.sql, /\bIN\s*\(/i, t.name);
  }
  const indexes = store.conn.db.prepare(
    "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'jobs' AND sql IS NOT NULL ORDER BY name",
  ).all() as { name: string }[];
  // m007: one index over ended jobs (the sweep and the run-time guidance), none left of the two it replaced.
  assert.deepEqual(indexes.map((i) => i.name), ["jobs_active", "jobs_ended"]);
  assert.equal(store.rows.jobRecentRunMs("echo"), 0, "the old succeeded row is a recent run (it ran 0 ms)");
  assert.deepEqual(store.rows.jobGet(ids.succeeded)?.result, { ok: true }, "an old row reads as before");
  assert.equal(store.rows.jobGet(ids.failed)?.error?.code, "x");
  assert.equal(store.rows.jobGet(ids.running)?.owner_id, ownerId);

  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA busy_timeout = 2000");
    for (const id of [ids.succeeded, ids.failed]) {
      assert.match(refused(db, "UPDATE jobs SET result = 'null' WHERE id = ?", { params: [id] }), /it is terminal/);
      assert.match(
        refused(db, "UPDATE jobs SET error = NULL, result = NULL WHERE id = ?", { params: [id] }),
        /it is terminal/,
      );
      assert.match(refused(db, "UPDATE jobs SET outcome = 'partial' WHERE id = ?", { params: [id] }), /it is terminal/);
      assert.match(refused(db, "UPDATE jobs SET status = 'running' WHERE id = ?", { params: [id] }), /it is terminal/);
      assert.match(
        refused(db, "UPDATE jobs SET status = 'cancelled' WHERE id = ?", { params: [id] }),
        /it is terminal/,
      );
    }
    assert.match(refused(db, "UPDATE jobs SET status = 'succeeded' WHERE id = ?", { params: [ids.queued] }), /illegal/);
    assert.match(refused(db, "UPDATE jobs SET status = 'queued' WHERE id = ?", { params: [ids.running] }), /illegal/);
    assert.match(refused(db, "DELETE FROM jobs WHERE id = ?", { params: [ids.queued] }), /not terminal/);
    assert.match(refused(db, "DELETE FROM jobs WHERE id = ?", { params: [ids.running] }), /not terminal/);
    // m006: REPLACE's implicit delete fires no DELETE trigger; an insert of an existing id is refused.
    for (const id of Object.values(ids)) {
      for (const verb of ["INSERT OR REPLACE", "REPLACE"]) {
        assert.match(
          refused(
            db,
            `${verb} INTO jobs (id, kind, status, outcome, request, result, created_at, updated_at, retention_ms)
             VALUES (?, 'echo', 'succeeded', 'succeeded', '{}', '"forged"', 1, 1, 1)`,
            { params: [id] },
          ),
          /already exists/,
        );
      }
    }
    // A terminal row's other columns and a live row's progress stay writable; retention may delete terminal rows.
    assert.equal(Number(db.prepare("UPDATE jobs SET updated_at = 1 WHERE id = ?").run(ids.succeeded).changes), 1);
    assert.equal(Number(db.prepare("UPDATE jobs SET phase = 'p' WHERE id = ?").run(ids.running).changes), 1);
    assert.equal(Number(db.prepare("DELETE FROM jobs WHERE id = ?").run(ids.failed).changes), 1);
  } finally {
    db.close();
  }

  // The fenced hot path works on the upgraded rows: the running job ends, the queued one is claimed.
  const landed = await store.rows.jobSetTerminalManyAndClaimIfOwned(
    [{
      id: ids.running,
      ownerId,
      attempt: 1,
      terminal: { status: "succeeded", outcome: "succeeded", resultJson: "1", error: null },
    }],
    { ownerId, kinds: ["echo"], max: 1 },
    { now: T0 + 10 },
  );
  assert.deepEqual(landed.landed, [true]);
  assert.deepEqual(landed.claimed.map((c) => c.id), [ids.queued]);
  assert.equal(store.rows.jobGet(ids.running)?.status, "succeeded");
  assert.equal(store.rows.jobGet(ids.queued)?.status, "running");
}

Deno.test("openStore: a version-4 database with jobs in every state upgrades and keeps every guard", async () => {
  await upgradeKeepsEveryGuard(4);
});

Deno.test("openStore: a version-5 database with jobs in every state upgrades and keeps every guard", async () => {
  await upgradeKeepsEveryGuard(5);
});

Deno.test("openStore: a version-6 database with jobs in every state upgrades and keeps every guard", async () => {
  await upgradeKeepsEveryGuard(6);
});

Deno.test("openStore: a version-7 database with jobs in every state opens and keeps every guard", async () => {
  // The current schema: nothing to migrate, and the claim (read, then take by rowid) works on its rows.
  await upgradeKeepsEveryGuard(7);
});
