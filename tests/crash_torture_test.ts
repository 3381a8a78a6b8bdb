/**
 * Crash torture: executor processes sharing one SQLite file are killed with SIGKILL at
 * random points, again and again. Afterwards every job whose id was ever returned exists,
 * no terminal row ever changed, no handler side effect ran twice, and after a
 * reconciliation no job is left running. The random choices (which processes, when to kill) come
 * from a seeded generator whose seed is printed; kill timing relative to the children still varies.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/crash_torture_test.ts
 */
import assert from "node:assert/strict";
import type { JobRow } from "../src/store/job_rows.ts";
import { type ExecutorChild, spawnExecutorChild } from "./helpers/executor_child.ts";
import { openTempStore, tempDir } from "../testing/temp.ts";

const ITERATIONS = 50;
const TIMING = { heartbeatMs: 50, leaseMs: 150, reconcileMs: 50, claimPollMs: 10, cancelPollMs: 50 };

function terminalSnapshot(row: JobRow): string {
  return JSON.stringify([
    row.status,
    row.outcome,
    row.result,
    row.error,
    row.completed_at,
    row.owner_id,
    row.attempt,
    row.expires_at,
  ]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** mulberry32: a small seeded generator, so a failing run can be repeated with its seed. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `CRASH_TORTURE_SEED=<n>` (an integer 0..2^32-1) repeats a run; otherwise a fresh seed, printed
 * before the run. Anything else is refused rather than read as 0 (`Number("x") >>> 0` would be).
 */
function seedFrom(text: string | undefined): number {
  if (text === undefined || text === "") return Math.floor(Math.random() * 2 ** 32);
  const n = Number(text);
  if (!/^[0-9]{1,10}$/.test(text) || n >= 2 ** 32) {
    throw new RangeError(
      `Cannot repeat a crash torture run: CRASH_TORTURE_SEED must be an integer 0..4294967295, current value is ${
        JSON.stringify(text)
      }`,
    );
  }
  return n;
}

const SEED = seedFrom(Deno.env.get("CRASH_TORTURE_SEED"));

Deno.test("crash torture: 50 random SIGKILLs never lose a job, change a terminal row or repeat a side effect", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const effects = dir.file("effects.txt");
  await Deno.writeTextFile(effects, "");
  using store = openTempStore(db);
  const printed = new Set<string>();
  const terminal = new Map<string, string>();
  const stats = { killedBeforeReady: 0, killedRunning: 0, second: 0 };
  console.log(`crash torture seed: ${SEED} (repeat with CRASH_TORTURE_SEED=${SEED})`);
  const random = seededRandom(SEED);

  const spawn = (submit: number): ExecutorChild =>
    spawnExecutorChild({
      db,
      dir: dir.path,
      ...TIMING,
      submit,
      kind: "side_effect",
      input: { path: effects, token: "{{nonce}}-{{i}}", ms: 30 },
      retryOverloadedMs: 5,
    });

  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const children: ExecutorChild[] = [spawn(6)];
    if (random() < 0.4) {
      children.push(spawn(3));
      stats.second++;
    }
    try {
      await sleep(random() * 450);
      const [victim, other] = children;
      if (victim!.lines.length === 0) stats.killedBeforeReady++;
      if (store.rows.jobList({ status: "running", limit: 100 }).length > 0) stats.killedRunning++;
      victim!.kill("SIGKILL");
      if (other !== undefined) {
        // The second process outlives the first for a while (it may reconcile the orphans),
        // then it too is killed or stopped.
        await sleep(random() * 300);
        if (random() < 0.5) other.kill("SIGKILL");
        else await other.stop();
      }
    } finally {
      for (const c of children) await c[Symbol.asyncDispose]();
    }
    for (const c of children) for (const id of c.ids) printed.add(id);

    const rows = store.rows.jobList({ limit: 1_000_000 });
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of printed) {
      assert.ok(byId.has(id), `seed ${SEED}, iteration ${iteration}: returned job ${id} is missing`);
    }
    for (const [id, snap] of terminal) {
      const row = byId.get(id);
      assert.ok(row !== undefined, `seed ${SEED}, iteration ${iteration}: terminal job ${id} vanished`);
      assert.equal(terminalSnapshot(row), snap, `seed ${SEED}, iteration ${iteration}: terminal job ${id} changed`);
    }
    for (const row of rows) {
      assert.ok(
        row.attempt <= 1,
        `seed ${SEED}, iteration ${iteration}: job ${row.id} was claimed ${row.attempt} times`,
      );
      if (row.status !== "queued" && row.status !== "running" && !terminal.has(row.id)) {
        terminal.set(row.id, terminalSnapshot(row));
      }
    }
    const lines = (await Deno.readTextFile(effects)).split("\n").filter((l) => l !== "");
    assert.equal(new Set(lines).size, lines.length, `seed ${SEED}, iteration ${iteration}: a side effect ran twice`);
  }

  // Every owner is dead now: once their leases lapse, one reconciliation ends every orphan.
  await sleep(TIMING.leaseMs + 50);
  await store.rows.jobReconcileLost(Date.now());
  const rows = store.rows.jobList({ limit: 1_000_000 });
  assert.deepEqual(rows.filter((r) => r.status === "running").map((r) => r.id), [], "orphans left running");
  for (const [id, snap] of terminal) assert.equal(terminalSnapshot(store.rows.jobGet(id)!), snap);
  for (const id of printed) assert.ok(store.rows.jobGet(id) !== undefined);

  // Side effects happened only for jobs that were claimed, each exactly once.
  const lines = (await Deno.readTextFile(effects)).split("\n").filter((l) => l !== "");
  const tokens = new Map(rows.map((r) => [(r.request as { token: string }).token, r]));
  for (const line of lines) {
    const row = tokens.get(line);
    assert.ok(row !== undefined, `side effect ${line} belongs to no job`);
    assert.equal(row.attempt, 1);
    assert.notEqual(row.status, "queued");
  }
  const count = (s: string) => rows.filter((r) => r.status === s).length;
  const lost = rows.filter((r) => r.error?.code === "process_lost").length;
  // The torture must really have tortured: crashes mid-run and completed work both happened.
  assert.ok(lost > 0, "no job was ever lost to a crash");
  assert.ok(count("succeeded") > 0, "no job ever completed");
  assert.ok(printed.size > ITERATIONS, `only ${printed.size} jobs were submitted`);
  console.log(
    `torture: ${printed.size} jobs, ${count("succeeded")} succeeded, ${lost} process_lost, ${
      count("queued")
    } still queued, ${lines.length} side effects; ${stats.killedBeforeReady} kills before ready, ${stats.killedRunning} with jobs running, ${stats.second} second processes`,
  );
});
