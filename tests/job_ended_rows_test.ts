/**
 * Ended rows answered from memory (src/jobs/control.ts `getMany`, issue 14): a concise read of an ended
 * job is served without the store once it has been read, with visibility and expiry applied as a read
 * applies them, within ENDED_ROWS_CACHED_MAX rows whose texts stay within ENDED_ROW_CACHED_TEXT_CHARS_MAX.
 * "Served without the store" is observed by deleting the row behind the control's back (only the retention
 * sweep deletes rows in longcall, and only expired ones): a row still answered after that came from memory.
 * Time is a ManualClock.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import { ENDED_ROW_CACHED_TEXT_CHARS_MAX, ENDED_ROWS_CACHED_MAX, IDS_PER_CALL_MAX } from "../src/base/limits.ts";
import { jobGetItems } from "../src/jobs/projection.ts";
import { openHarness, tempDir } from "../testing/temp.ts";

type Harness = Awaited<ReturnType<typeof openHarness>>;

/** A harness without an executor: jobs stay queued until cancelled, which ends them at once. */
async function harness(dir: { file(name: string): string }) {
  const clock = new ManualClock(Date.UTC(2026, 11, 1));
  const h = await openHarness(dir.file("jobs.db"), { executor: false, clock, control: { retentionMs: 60_000 } });
  return { h, clock };
}

/** `n` ended (cancelled) jobs of `options.authority` (default the local one), in order. */
async function endedJobs(h: Harness, n: number, options: { authority?: string } = {}): Promise<string[]> {
  const authority = options.authority ?? null;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const row = await h.control.submit("echo", { n: i }, { authority });
    await h.control.cancel(row.id, authority);
    ids.push(row.id);
  }
  return ids;
}

/** Deletes rows behind the control's back. */
function deleteRows(h: Harness, ids: readonly string[]): void {
  h.store.conn.db.prepare("DELETE FROM jobs WHERE id IN (SELECT value FROM json_each(?))").run(JSON.stringify(ids));
}

const concise = { columns: "concise" } as const;

Deno.test("getMany: an ended row read once is answered from memory until its expiry, concise reads only", async () => {
  await using dir = await tempDir();
  const { h, clock } = await harness(dir);
  await using _ = h;
  const [id = ""] = await endedJobs(h, 1);
  assert.equal(h.control.getMany([id], null, concise).get(id)?.status, "cancelled");
  deleteRows(h, [id]);
  assert.equal(h.control.getMany([id], null, concise).get(id)?.status, "cancelled", "from memory");
  assert.equal(h.control.getMany([id], null, { columns: "all" }).has(id), false, "a detailed read reads the store");
  const row = h.control.getMany([id], null, concise).get(id);
  clock.advance((row?.expires_at ?? 0) - clock.now() - 1);
  assert.equal(h.control.getMany([id], null, concise).has(id), true, "1 ms before its expiry");
  clock.advance(1);
  assert.equal(h.control.getMany([id], null, concise).has(id), false, "expired: absent, as a read would say");
  // Forgotten at that read, not when it is next dropped as the least recently read: back before the expiry
  // (as no real clock goes), the row is gone from memory as it is from the store.
  clock.advance(-1);
  assert.equal(h.control.getMany([id], null, concise).has(id), false, "forgotten once read expired");
});

Deno.test("getMany: a queued or running row is never remembered; once it ends, the next read shows it ended", async () => {
  await using dir = await tempDir();
  const { h } = await harness(dir);
  await using _ = h;
  const queued = await h.control.submit("echo", { n: 1 });
  assert.equal(h.control.getMany([queued.id], null, concise).get(queued.id)?.status, "queued");
  await h.control.cancel(queued.id);
  assert.equal(h.control.getMany([queued.id], null, concise).get(queued.id)?.status, "cancelled");
});

Deno.test("getMany: a remembered row keeps its visibility (another token's ended job stays not found)", async () => {
  await using dir = await tempDir();
  const { h } = await harness(dir);
  await using _ = h;
  const [id = ""] = await endedJobs(h, 1, { authority: "token-a" });
  assert.equal(h.control.getMany([id], "token-a", concise).has(id), true);
  deleteRows(h, [id]);
  assert.equal(h.control.getMany([id], "token-b", concise).has(id), false, "another token");
  assert.equal(h.control.getMany([id], null, concise).has(id), true, "the local authority sees every job");
  assert.equal(h.control.getMany([id], "token-a", concise).has(id), true, "its own token, from memory");
});

Deno.test("getMany: ENDED_ROWS_CACHED_MAX rows are remembered; one more drops the least recently read", async () => {
  await using dir = await tempDir();
  const { h } = await harness(dir);
  await using _ = h;
  const ids = await endedJobs(h, ENDED_ROWS_CACHED_MAX + 1);
  const read = (batch: readonly string[]) => {
    const found = new Set<string>();
    for (let at = 0; at < batch.length; at += IDS_PER_CALL_MAX) {
      for (const id of h.control.getMany(batch.slice(at, at + IDS_PER_CALL_MAX), null, concise).keys()) found.add(id);
    }
    return found;
  };
  const first = ids.slice(0, ENDED_ROWS_CACHED_MAX);
  assert.equal(read(first).size, ENDED_ROWS_CACHED_MAX);
  // At the bound: all of them from memory.
  const last = ids[ENDED_ROWS_CACHED_MAX] ?? "";
  deleteRows(h, first);
  assert.equal(read(first).size, ENDED_ROWS_CACHED_MAX, "every one of the bound's rows answered from memory");
  // Past it: the read of one more row drops the least recently read (the first, read again first above).
  assert.equal(read([last]).size, 1);
  deleteRows(h, [last]);
  const now = read(ids);
  assert.equal(now.has(ids[0] ?? ""), false, "the least recently read was dropped, and its row is gone");
  assert.equal(now.size, ENDED_ROWS_CACHED_MAX);
  assert.equal(now.has(last), true);
});

Deno.test("getMany: an ended row whose texts reach ENDED_ROW_CACHED_TEXT_CHARS_MAX is remembered; one character more is read each time", async () => {
  await using dir = await tempDir();
  const { h, clock } = await harness(dir);
  await using _ = h;
  /** A queued job ended as failed by SQL, with an error whose JSON is `chars` characters. */
  const failedWith = async (chars: number) => {
    const { id } = await h.control.submit("echo", { n: chars });
    const empty = JSON.stringify({ code: "internal", message: "", retryable: false }).length;
    const error = JSON.stringify({ code: "internal", message: "x".repeat(chars - empty), retryable: false });
    assert.equal(error.length, chars);
    h.store.conn.db.prepare(
      `UPDATE jobs SET status = 'failed', outcome = 'failed', error = ?1, completed_at = ?2, updated_at = ?2,
         expires_at = ?2 + retention_ms WHERE id = ?3`,
    ).run(error, clock.now(), id);
    return id;
  };
  const at = await failedWith(ENDED_ROW_CACHED_TEXT_CHARS_MAX);
  const over = await failedWith(ENDED_ROW_CACHED_TEXT_CHARS_MAX + 1);
  const read = () => h.control.getMany([at, over], null, concise);
  assert.equal(read().size, 2);
  deleteRows(h, [at, over]);
  const after = read();
  assert.equal(after.get(at)?.status, "failed", "at the bound: from memory");
  assert.equal(after.has(over), false, "past it: read from the store, where it is gone");
});

Deno.test("getMany: more than IDS_PER_CALL_MAX ids is refused even when every one is remembered", async () => {
  await using dir = await tempDir();
  const { h } = await harness(dir);
  await using _ = h;
  const [id = ""] = await endedJobs(h, 1);
  h.control.getMany([id], null, concise);
  const many = Array.from({ length: IDS_PER_CALL_MAX + 1 }, () => id);
  assert.throws(() => h.control.getMany(many, null, concise), {
    name: "RangeError",
    message: `Cannot read jobs: at most ${IDS_PER_CALL_MAX} ids, current value is ${IDS_PER_CALL_MAX + 1}`,
  });
  assert.equal(h.control.getMany(many.slice(1), null, concise).size, 1, "at the bound: read");
});

Deno.test("jobGetItems: a remembered row is frozen and its concise item projected once; a queued job's is not", async () => {
  await using dir = await tempDir();
  const { h } = await harness(dir);
  await using _ = h;
  const [ended = ""] = await endedJobs(h, 1);
  const queued = (await h.control.submit("echo", { n: 2 })).id;
  const view = () => jobGetItems(h.control, [ended, queued], { authority: null, format: "concise" });
  const [a, b] = [view(), view()];
  assert.equal(a[0]?.value, b[0]?.value, "the same item object for the ended job");
  assert.notEqual(a[1]?.value, b[1]?.value, "a fresh item for the queued job (its guidance can change)");
  assert.deepEqual(a[1]?.value, b[1]?.value);
  const row = h.control.getMany([ended], null, concise).get(ended);
  assert.ok(row !== undefined && Object.isFrozen(row));
  assert.throws(() => {
    (row as { phase: string | null }).phase = "changed";
  }, TypeError);
  assert.ok(Object.isFrozen(a[0]?.value));
  // The detailed view never shares: it carries the request.
  const detailed = jobGetItems(h.control, [ended], { authority: null, format: "detailed" });
  assert.notEqual(detailed[0]?.value, a[0]?.value);
  assert.deepEqual((detailed[0]?.value as { request?: unknown }).request, { n: 0 });
});
