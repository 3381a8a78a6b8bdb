/**
 * The store's lifecycle hot path (issue 14) on real SQLite files: claims naming their kinds inline
 * or through json_each, at and past CLAIM_KINDS_INLINE_MAX, keep FIFO order and never take a
 * kind the executor did not name.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/store_lifecycle_test.ts
 */
import assert from "node:assert/strict";
import { newJobId, newOwnerId } from "../src/base/ids.ts";
import { CLAIM_KINDS_INLINE_MAX } from "../src/base/limits.ts";
import type { JobRows } from "../src/store/job_rows.ts";
import { openTempStore, tempDir } from "../testing/temp.ts";

const T0 = Date.UTC(2026, 0, 1);

/** Inserts one queued job of `job.kind`, created at `job.now`, and returns its id. */
async function insert(rows: JobRows, job: { kind: string; now: number }): Promise<string> {
  const { kind, now } = job;
  const row = await rows.jobInsertIfAdmitted({
    id: newJobId(now),
    kind,
    requestJson: JSON.stringify({ kind }),
    retentionMs: 60_000,
    authority: null,
    now,
    admittedMax: 1_000,
  });
  return row.id;
}

for (const count of [1, CLAIM_KINDS_INLINE_MAX, CLAIM_KINDS_INLINE_MAX + 1]) {
  Deno.test(`JobRows.jobClaimBatchIfOwnerLive: ${count} kinds named, FIFO, other kinds left queued`, async () => {
    await using dir = await tempDir();
    using store = openTempStore(dir.file("a.db"));
    const rows = store.rows;
    const ownerId = newOwnerId();
    await rows.ownerRegister({ ownerId, pid: 1, leaseMs: 60_000 }, T0);
    // Kind names SQL would misread if they were spliced into the statement instead of bound.
    const kinds = Array.from({ length: count }, (_, i) => `k${i}') OR ('1'='1`);
    const other = await insert(rows, { kind: "not-named", now: T0 });
    const named: string[] = [];
    // Newest kind first, so FIFO order differs from the order of the kinds list.
    for (let i = 0; i < count; i++) {
      named.push(await insert(rows, { kind: kinds[count - 1 - i] as string, now: T0 + 1 + i }));
    }
    const first = await rows.jobClaimBatchIfOwnerLive({ ownerId, kinds, max: 1 }, T0 + 100);
    assert.deepEqual(first.map((c) => c.id), named.slice(0, 1));
    assert.deepEqual(first[0]?.request, { kind: kinds[count - 1] });
    const rest = await rows.jobClaimBatchIfOwnerLive({ ownerId, kinds, max: count + 5 }, T0 + 100);
    assert.deepEqual(rest.map((c) => c.id), named.slice(1), "FIFO, every named kind, nothing else");
    assert.equal(rows.jobGet(other)?.status, "queued");
    assert.deepEqual(
      await rows.jobClaimBatchIfOwnerLive({ ownerId, kinds: [], max: 5 }, T0 + 100),
      [],
      "no kinds: no claim",
    );
    assert.equal(rows.jobGet(other)?.status, "queued");
  });
}

Deno.test("JobRows.jobClaimBatchIfOwnerLive: the claim follows the kinds of each call on one connection", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const rows = store.rows;
  const ownerId = newOwnerId();
  await rows.ownerRegister({ ownerId, pid: 1, leaseMs: 60_000 }, T0);
  const many = Array.from({ length: CLAIM_KINDS_INLINE_MAX + 1 }, (_, i) => `m${i}`);
  const a = await insert(rows, { kind: "a", now: T0 });
  const b = await insert(rows, { kind: "b", now: T0 + 1 });
  const c = await insert(rows, { kind: "c", now: T0 + 2 });
  const m = await insert(rows, { kind: many.at(-1) as string, now: T0 + 3 });
  const d = await insert(rows, { kind: "d", now: T0 + 4 });
  const claim = async (kinds: string[]) =>
    (await rows.jobClaimBatchIfOwnerLive({ ownerId, kinds, max: 5 }, T0 + 100)).map((j) => j.id);
  // The same kinds list again, a list of other kinds, a longer one, the json_each form, and back
  // to the inline form: each call claims only what it names.
  assert.deepEqual(await claim(["b"]), [b]);
  assert.deepEqual(await claim(["b"]), []);
  assert.deepEqual(await claim(["c", "a"]), [a, c]);
  assert.deepEqual(await claim(many), [m]);
  const kinds = ["d"];
  assert.deepEqual(await claim(kinds), [d]);
  // The same array changed in place names other kinds: they are claimed, not the ones it named before.
  const e = await insert(rows, { kind: "e", now: T0 + 5 });
  const d2 = await insert(rows, { kind: "d", now: T0 + 6 });
  kinds[0] = "e";
  assert.deepEqual(await claim(kinds), [e]);
  assert.equal(rows.jobGet(d2)?.status, "queued");
});
