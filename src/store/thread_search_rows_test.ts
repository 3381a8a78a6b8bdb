import assert from "node:assert/strict";
import { SEARCH_RANKED_MATCHES_MAX } from "../base/limits.ts";
import type { ThreadObservation } from "./corpus_types.ts";
import { openDatabase } from "./db.ts";
import { ThreadRows } from "./thread_rows.ts";
import { searchRanking, ThreadSearchRows, type ThreadsSearchParams } from "./thread_search_rows.ts";
import { Connection } from "./tx.ts";

const T0 = Date.UTC(2026, 0, 1);

function thread(number: number, over: Partial<ThreadObservation> = {}): ThreadObservation {
  return {
    number,
    kind: "issue",
    state: "open",
    title: `flaky thread ${number}`,
    body: null,
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

/** A migrated in-memory database (the real schema, triggers and FTS5 index). */
async function withSearch(fn: (search: ThreadSearchRows, threads: ThreadRows) => Promise<void> | void) {
  const conn = new Connection(openDatabase(":memory:"));
  try {
    await fn(new ThreadSearchRows(conn), new ThreadRows(conn));
  } finally {
    conn.close();
  }
}

Deno.test("searchRanking: all_matches up to SEARCH_RANKED_MATCHES_MAX, newest_matches past it", () => {
  assert.equal(searchRanking(0), "all_matches");
  assert.equal(searchRanking(SEARCH_RANKED_MATCHES_MAX), "all_matches");
  assert.equal(searchRanking(SEARCH_RANKED_MATCHES_MAX + 1), "newest_matches");
});

Deno.test("ThreadSearchRows.threadsSearch: each filter selects through the facets the schema generates", async () => {
  await withSearch(async (search, threads) => {
    await threads.threadsUpsert("Deno/Std", [thread(1, { labels: ["bug"] })], { observedAt: T0 });
    await threads.threadsUpsert("a/b", [thread(2, { kind: "pull_request", state: "closed", labels: ["ci"] })], {
      observedAt: T0,
    });
    const hits = (filters: Partial<ThreadsSearchParams>) =>
      search.threadsSearch({ query: "flaky", limit: 10, ...filters }).rows.map((r) => r.number).sort();
    assert.deepEqual(hits({}), [1, 2]);
    assert.deepEqual(hits({ repositories: ["deno/std"] }), [1], "repositories compare case-insensitively");
    assert.deepEqual(hits({ repositories: ["deno/std", "A/B"] }), [1, 2]);
    assert.deepEqual(hits({ kind: "pull_request" }), [2]);
    assert.deepEqual(hits({ state: "open" }), [1]);
    assert.deepEqual(hits({ kind: "issue", state: "closed" }), []);
    assert.deepEqual(hits({ kind: "pull_request", state: "closed" }), [2]);
    assert.deepEqual(hits({ label: "BUG" }), [1], "labels compare case-insensitively");
    assert.deepEqual(hits({ label: "bu" }), [], "a label filter is the exact name, not a prefix or a word");
  });
});

Deno.test("ThreadSearchRows.threadsSearch: text without searchable words runs nothing and returns match null", async () => {
  await withSearch(async (search, threads) => {
    await threads.threadsUpsert("o/r", [thread(1)], { observedAt: T0 });
    assert.deepEqual(search.threadsSearch({ query: "!!! ***", limit: 5 }), {
      rows: [],
      next: null,
      match: null,
      ranking: "all_matches",
    });
  });
});

Deno.test("ThreadSearchRows.threadsSearch: pages follow the keyset position to the end", async () => {
  await withSearch(async (search, threads) => {
    await threads.threadsUpsert("o/r", [1, 2, 3].map((n) => thread(n)), { observedAt: T0 });
    const first = search.threadsSearch({ query: "flaky", limit: 2 });
    assert.equal(first.rows.length, 2);
    assert.ok(first.next !== null);
    const second = search.threadsSearch({ query: "flaky", limit: 2, after: first.next });
    assert.equal(second.rows.length, 1);
    assert.equal(second.next, null, "the last page has no next position");
    const seen = [...first.rows, ...second.rows].map((r) => r.number).sort();
    assert.deepEqual(seen, [1, 2, 3], "every match exactly once");
  });
});

Deno.test("ThreadSearchRows.threadsSearch: a limit below 1 or not an integer is a RangeError", async () => {
  await withSearch((search) => {
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => search.threadsSearch({ query: "flaky", limit }),
        (err: unknown) =>
          err instanceof RangeError && /^Cannot search threads: limit must be an integer >= 1/.test(err.message),
      );
    }
  });
});

Deno.test("ThreadSearchRows.threadsSearch: SEARCH_RANKED_MATCHES_MAX matches are all ranked; one more ranks only the newest", async () => {
  for (const stored of [SEARCH_RANKED_MATCHES_MAX, SEARCH_RANKED_MATCHES_MAX + 1]) {
    await withSearch(async (search, threads) => {
      for (let from = 1; from <= stored; from += 100) {
        const batch = Array.from({ length: Math.min(100, stored - from + 1) }, (_, i) => thread(from + i));
        await threads.threadsUpsert("o/r", batch, { observedAt: T0 });
      }
      const seen: number[] = [];
      let after: ThreadsSearchParams["after"];
      let ranking: string | undefined;
      for (;;) {
        const page = search.threadsSearch({ query: "flaky", limit: 100, ...(after === undefined ? {} : { after }) });
        ranking = page.ranking;
        seen.push(...page.rows.map((r) => r.number));
        if (page.next === null) break;
        after = page.next;
      }
      if (stored === SEARCH_RANKED_MATCHES_MAX) {
        assert.equal(ranking, "all_matches");
        assert.equal(new Set(seen).size, stored, "every match is ranked and paged");
      } else {
        assert.equal(ranking, "newest_matches");
        assert.equal(new Set(seen).size, SEARCH_RANKED_MATCHES_MAX, "only the newest matches are ranked");
        assert.ok(!seen.includes(1), "the oldest stored match is the one left out");
      }
    });
  }
});
