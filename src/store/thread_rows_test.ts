import assert from "node:assert/strict";
import {
  THREAD_BODY_CHARS_MAX,
  THREAD_LABELS_MAX,
  THREAD_OBSERVATIONS_PER_THREAD_MAX,
  THREAD_TITLE_CHARS_MAX,
} from "../base/limits.ts";
import type { ThreadObservation } from "./corpus_types.ts";
import { openDatabase } from "./db.ts";
import { ThreadRows } from "./thread_rows.ts";
import { Connection } from "./tx.ts";

const T0 = Date.UTC(2026, 0, 1);

function thread(number: number, over: Partial<ThreadObservation> = {}): ThreadObservation {
  return {
    number,
    kind: "issue",
    state: "open",
    title: `thread ${number}`,
    body: "body",
    labels: [],
    author: "octocat",
    comments: 0,
    created_at: T0,
    updated_at: T0,
    closed_at: null,
    merged: null,
    html_url: `https://github.com/o/r/issues/${number}`,
    ...over,
  };
}

/** Thread rows over a migrated in-memory database. */
async function withRows(fn: (rows: ThreadRows) => Promise<void>): Promise<void> {
  const conn = new Connection(openDatabase(":memory:"));
  try {
    await fn(new ThreadRows(conn));
  } finally {
    conn.close();
  }
}

Deno.test("ThreadRows.threadsUpsert: new, newer, same and older versions are counted and kept by updated_at", async () => {
  await withRows(async (rows) => {
    const key = { repository: "o/r", number: 1 };
    assert.deepEqual(await rows.threadsUpsert("o/r", [thread(1)], { observedAt: T0 }), {
      inserted: 1,
      updated: 0,
      unchanged: 0,
      stale: 0,
    });
    const newer = thread(1, { title: "newer", updated_at: T0 + 10 });
    assert.deepEqual(await rows.threadsUpsert("o/r", [newer], { observedAt: T0 + 20 }), {
      inserted: 0,
      updated: 1,
      unchanged: 0,
      stale: 0,
    });
    assert.deepEqual(await rows.threadsUpsert("o/r", [newer], { observedAt: T0 + 30 }), {
      inserted: 0,
      updated: 0,
      unchanged: 1,
      stale: 0,
    });
    assert.deepEqual(
      await rows.threadsUpsert("o/r", [thread(1, { title: "older", updated_at: T0 + 5 })], { observedAt: T0 + 40 }),
      { inserted: 0, updated: 0, unchanged: 0, stale: 1 },
    );
    const [row] = rows.threadsGet([key]);
    assert.equal(row?.title, "newer", "an older version never overwrites the row");
    assert.equal(row?.synced_at, T0 + 30, "a re-observation of the stored version advances synced_at; a stale one not");
    assert.deepEqual(rows.threadObservationsList(key).map((o) => o.updated_at), [T0, T0 + 10, T0 + 5]);
    assert.equal(rows.threadsSyncedAt("o/r"), T0 + 30);
    assert.equal(rows.threadsSyncedAt("o/none"), undefined);
  });
});

Deno.test("ThreadRows.threadsUpsert: observations keep the header and body length, not the body", async () => {
  await withRows(async (rows) => {
    await rows.threadsUpsert("o/r", [thread(1, { body: "secret-ish body text", labels: ["bug"] })], { observedAt: T0 });
    const [obs] = rows.threadObservationsList({ repository: "o/r", number: 1 });
    const data = obs?.data as Record<string, unknown>;
    assert.equal(data.body, undefined);
    assert.equal(data.body_chars, "secret-ish body text".length);
    assert.deepEqual(data.labels, ["bug"]);
  });
});

Deno.test("ThreadRows.threadsUpsert: at most THREAD_OBSERVATIONS_PER_THREAD_MAX observations per thread", async () => {
  await withRows(async (rows) => {
    for (let i = 0; i <= THREAD_OBSERVATIONS_PER_THREAD_MAX; i++) {
      await rows.threadsUpsert("o/r", [thread(1, { updated_at: T0 + i })], { observedAt: T0 + i });
      const kept = rows.threadObservationsList({ repository: "o/r", number: 1 });
      assert.equal(kept.length, Math.min(i + 1, THREAD_OBSERVATIONS_PER_THREAD_MAX), `after ${i + 1} versions`);
      assert.equal(kept.at(-1)?.updated_at, T0 + i, "the newest is kept");
    }
  });
});

Deno.test("ThreadRows.threadsUpsert: title and body are cut at their bounds; at the bound nothing is cut", async () => {
  await withRows(async (rows) => {
    await rows.threadsUpsert("o/r", [
      thread(1, { title: "t".repeat(THREAD_TITLE_CHARS_MAX), body: "b".repeat(THREAD_BODY_CHARS_MAX) }),
      thread(2, { title: "t".repeat(THREAD_TITLE_CHARS_MAX + 1), body: "b".repeat(THREAD_BODY_CHARS_MAX + 1) }),
      thread(3, { body: null }),
    ], { observedAt: T0 });
    const [at, past, none] = rows.threadsGet([1, 2, 3].map((number) => ({ repository: "o/r", number })));
    assert.equal(at?.title.length, THREAD_TITLE_CHARS_MAX);
    assert.equal(at?.body.length, THREAD_BODY_CHARS_MAX);
    assert.equal(at?.body_truncated, false);
    assert.equal(past?.title.length, THREAD_TITLE_CHARS_MAX);
    assert.equal(past?.body.length, THREAD_BODY_CHARS_MAX);
    assert.equal(past?.body_truncated, true);
    assert.equal(none?.body, "", "a missing body is stored empty");
    assert.equal(none?.body_truncated, false);
  });
});

Deno.test("ThreadRows.threadsUpsert: THREAD_LABELS_MAX labels are stored; one more refuses the batch", async () => {
  await withRows(async (rows) => {
    const labels = Array.from({ length: THREAD_LABELS_MAX + 1 }, (_, i) => `l${i}`);
    await rows.threadsUpsert("o/r", [thread(1, { labels: labels.slice(0, THREAD_LABELS_MAX) })], { observedAt: T0 });
    assert.equal(rows.threadsGet([{ repository: "o/r", number: 1 }])[0]?.labels.length, THREAD_LABELS_MAX);
    await assert.rejects(
      () => rows.threadsUpsert("o/r", [thread(2), thread(3, { labels })], { observedAt: T0 }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message ===
          `Cannot store threads: at most ${THREAD_LABELS_MAX} labels per thread; current value is ${labels.length}`,
    );
    assert.deepEqual(rows.threadsGet([{ repository: "o/r", number: 2 }]), [undefined], "nothing of the batch stored");
  });
});

Deno.test("ThreadRows.threadsUpsert: a bad kind, state, count or time is refused before anything is written", async () => {
  await withRows(async (rows) => {
    const bad: [Partial<ThreadObservation>, ErrorConstructor | RangeErrorConstructor, RegExp][] = [
      [{ kind: "discussion" as ThreadObservation["kind"] }, TypeError, /kind must be issue or pull_request/],
      [{ state: "merged" as ThreadObservation["state"] }, TypeError, /state must be open or closed/],
      [{ comments: -1 }, RangeError, /comments must be an integer >= 0/],
      [{ created_at: -1 }, RangeError, /created_at must be epoch milliseconds/],
      [{ updated_at: 1.5 }, RangeError, /updated_at must be epoch milliseconds/],
      [{ closed_at: Number.NaN }, RangeError, /closed_at must be epoch milliseconds/],
    ];
    for (const [over, type, message] of bad) {
      await assert.rejects(
        () => rows.threadsUpsert("o/r", [thread(1, over)], { observedAt: T0 }),
        (err: unknown) => err instanceof type && message.test((err as Error).message),
        JSON.stringify(over),
      );
    }
    await assert.rejects(
      () => rows.threadsUpsert("o/r", [thread(1)], { observedAt: -1 }),
      /observedAt must be epoch milliseconds/,
    );
    await assert.rejects(() => rows.threadsUpsert("o/r/x", [thread(1)], { observedAt: T0 }), TypeError);
    assert.equal(rows.threadsSyncedAt("o/r"), undefined, "nothing stored");
  });
});
