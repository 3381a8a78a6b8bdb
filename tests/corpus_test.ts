/**
 * The offline corpus: writes (newer wins, FTS in step, bounded observations), search (ranking,
 * filters, cursor paging, hostile input), vectorized gets (unknown vs present, references), and
 * reads in a child process with the network denied. The functions take input their schemas
 * parsed (src/corpus/inputs.ts); what those refuse is tested at the tools: tests/corpus_tools_test.ts.
 *
 * When run with `deno run` (not `deno test`), this file is the child of the `--deny-net` test.
 */

import assert from "node:assert/strict";
import { dirname } from "node:path";
import { AppError } from "../src/base/errors.ts";
import {
  CORPUS_ITEMS_PER_CALL_MAX,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_CHARS_MAX,
  THREAD_OBSERVATIONS_PER_THREAD_MAX,
} from "../src/base/limits.ts";
import { getPullRequestChecks, getRepositories, getThreads } from "../src/corpus/get.ts";
import { searchThreads } from "../src/corpus/search.ts";
import { CorpusRows } from "../src/store/corpus_rows.ts";
import type { ThreadObservation } from "../src/store/corpus_types.ts";
import { openStore, type Store } from "../src/store/store.ts";

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const SHA = "a".repeat(40);

function thread(number: number, fields: Partial<ThreadObservation> = {}): ThreadObservation {
  return {
    number,
    kind: "issue",
    state: "open",
    title: `Thread ${number}`,
    body: "",
    labels: [],
    author: "octocat",
    comments: 0,
    created_at: T0,
    updated_at: T0,
    closed_at: null,
    merged: null,
    html_url: `https://github.com/o/r/issues/${number}`,
    ...fields,
  };
}

/** Runs `fn` on a fresh store (its corpus rows beside it), alone in a temporary directory removed afterwards. */
async function withStore(fn: (store: Store, rows: CorpusRows) => Promise<void> | void): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "longcall-corpus-test-" });
  const store = openStore(`${dir}/corpus.db`);
  try {
    await fn(store, store.corpus);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function assertInvalid(fn: () => unknown, path: string): AppError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof AppError, `expected AppError, got ${String(caught)}`);
  assert.equal(caught.code, "invalid_argument");
  assert.equal(caught.data?.["path"], path);
  assert.ok("example" in (caught.data ?? {}));
  return caught;
}

const refsOf = (answer: { items: { ref: string }[] }) => answer.items.map((i) => i.ref);

Deno.test("CorpusRows.threadsUpsert inserts, lets a newer updated_at win and never lets an older one overwrite", async () => {
  await withStore(async (_store, rows) => {
    const first = await rows.threadsUpsert("o/r", [thread(1, { title: "original title" }), thread(2)], {
      observedAt: T0,
    });
    assert.deepEqual(first, { inserted: 2, updated: 0, unchanged: 0, stale: 0 });

    const newer = await rows.threadsUpsert(
      "o/r",
      [thread(1, { title: "edited title", state: "closed", updated_at: T0 + 2 * HOUR, closed_at: T0 + 2 * HOUR })],
      { observedAt: T0 + 3 * HOUR },
    );
    assert.deepEqual(newer, { inserted: 0, updated: 1, unchanged: 0, stale: 0 });

    // An out-of-order older read arrives later: recorded as an observation, row untouched.
    const older = await rows.threadsUpsert(
      "o/r",
      [thread(1, { title: "stale title", updated_at: T0 + HOUR })],
      { observedAt: T0 + 4 * HOUR },
    );
    assert.deepEqual(older, { inserted: 0, updated: 0, unchanged: 0, stale: 1 });

    // A re-read of the stored version only moves synced_at.
    const same = await rows.threadsUpsert(
      "O/R",
      [thread(1, { title: "edited title", state: "closed", updated_at: T0 + 2 * HOUR, closed_at: T0 + 2 * HOUR })],
      { observedAt: T0 + 5 * HOUR },
    );
    assert.deepEqual(same, { inserted: 0, updated: 0, unchanged: 1, stale: 0 });

    const [row, missing] = rows.threadsGet([{ repository: "o/r", number: 1 }, { repository: "o/r", number: 3 }]);
    assert.equal(missing, undefined);
    assert.ok(row !== undefined);
    assert.equal(row.title, "edited title");
    assert.equal(row.state, "closed");
    assert.equal(row.updated_at, T0 + 2 * HOUR);
    assert.equal(row.closed_at, T0 + 2 * HOUR);
    assert.equal(row.synced_at, T0 + 5 * HOUR);

    const observations = rows.threadObservationsList({ repository: "o/r", number: 1 });
    assert.deepEqual(observations.map((o) => o.updated_at), [T0, T0 + 2 * HOUR, T0 + HOUR]);

    // The full-text index follows the row: the old title no longer matches, the new one does.
    assert.deepEqual(rows.threadsSearch({ query: "original", limit: 10 }).rows, []);
    assert.deepEqual(rows.threadsSearch({ query: "edited", limit: 10 }).rows.map((r) => r.number), [1]);
    assert.deepEqual(rows.threadsSearch({ query: "stale", limit: 10 }).rows, []);
  });
});

Deno.test("CorpusRows.threadsUpsert keeps only the newest observations per thread and truncates bodies", async () => {
  await withStore(async (_store, rows) => {
    for (let i = 0; i < THREAD_OBSERVATIONS_PER_THREAD_MAX + 3; i++) {
      await rows.threadsUpsert("o/r", [thread(7, { updated_at: T0 + i })], { observedAt: T0 + i });
    }
    const kept = rows.threadObservationsList({ repository: "o/r", number: 7 });
    assert.equal(kept.length, THREAD_OBSERVATIONS_PER_THREAD_MAX);
    assert.equal(kept.at(-1)?.updated_at, T0 + THREAD_OBSERVATIONS_PER_THREAD_MAX + 2);
    assert.equal(kept[0]?.updated_at, T0 + 3);

    await rows.threadsUpsert("o/r", [thread(8, { body: "x".repeat(70_000) })], { observedAt: T0 });
    const [big] = rows.threadsGet([{ repository: "o/r", number: 8 }]);
    assert.equal(big?.body.length, 64 * 1024);
    assert.equal(big?.body_truncated, true);
  });
});

Deno.test("CorpusRows.threadsUpsert writes a batch atomically: a bad entry stores nothing", async () => {
  await withStore(async (_store, rows) => {
    await assert.rejects(
      () => rows.threadsUpsert("o/r", [thread(1), thread(0)], { observedAt: T0 }),
      (err: unknown) => err instanceof RangeError && /number must be an integer >= 1/.test(err.message),
    );
    await assert.rejects(() => rows.threadsUpsert("not a repo", [thread(1)], { observedAt: T0 }), TypeError);
    assert.deepEqual(rows.threadsGet([{ repository: "o/r", number: 1 }]), [undefined]);
  });
});

Deno.test("searchThreads ranks a title match above a body match and a label match above a body match", async () => {
  await withStore(async (_store, rows) => {
    await rows.threadsUpsert("o/r", [
      thread(1, { title: "Unrelated thing", body: "the runner shows a segfault while linking the binary" }),
      thread(2, { title: "Segfault when linking", body: "steps to reproduce follow" }),
      thread(3, { title: "Another thing", body: "nothing to see", labels: ["segfault"] }),
      thread(4, { title: "Nothing here", body: "no match at all" }),
    ], { observedAt: T0 });
    const answer = searchThreads(rows, { query: "segfault" });
    assert.deepEqual(refsOf(answer), ["o/r#2", "o/r#3", "o/r#1"]);
    assert.ok(answer.items[0]!.score > answer.items[2]!.score);
    assert.equal(answer.ranking, "all_matches");
    assert.equal(answer.next_cursor, null);
    assert.equal(answer.items[0]?.synced_at, new Date(T0).toISOString());
    assert.ok(!("body" in answer.items[0]!), "search hits are compact");

    // Stemming and diacritics: "linked" finds "linking"; "cafe" finds "café".
    assert.deepEqual(refsOf(searchThreads(rows, { query: "linked" })), ["o/r#2", "o/r#1"]);
    await rows.threadsUpsert("o/r", [thread(5, { title: "Café crashes" })], { observedAt: T0 });
    assert.deepEqual(refsOf(searchThreads(rows, { query: "cafe" })), ["o/r#5"]);
    // Words are ANDed; a prefix needs three characters.
    assert.deepEqual(refsOf(searchThreads(rows, { query: "segfault reproduce" })), ["o/r#2"]);
    assert.deepEqual(refsOf(searchThreads(rows, { query: "segf*" })), ["o/r#2", "o/r#3", "o/r#1"]);
  });
});

Deno.test("searchThreads filters by repository, kind, state and label", async () => {
  await withStore(async (_store, rows) => {
    await rows.threadsUpsert("acme/widgets", [
      thread(1, { title: "flaky timeout", labels: ["bug", "CI"] }),
      thread(2, { title: "flaky timeout again", kind: "pull_request", state: "closed", merged: true }),
      thread(3, { title: "flaky timeout in docs", labels: ["documentation"], state: "closed" }),
      thread(4, { title: "flaky", labels: ["bug-report"] }),
    ], { observedAt: T0 });
    await rows.threadsUpsert("acme/gadgets", [thread(1, { title: "flaky timeout", labels: ["bug"] })], {
      observedAt: T0 + HOUR,
    });

    const all = searchThreads(rows, { query: "flaky timeout", limit: 50 });
    assert.equal(all.items.length, 4);
    assert.deepEqual(all.coverage.map((c) => c.repository).sort(), ["acme/gadgets", "acme/widgets"]);

    const byRepo = searchThreads(rows, { query: "flaky", repositories: ["ACME/Gadgets"] });
    assert.deepEqual(refsOf(byRepo), ["acme/gadgets#1"]);
    assert.deepEqual(byRepo.coverage, [{
      repository: "ACME/Gadgets",
      status: "synced",
      threads_synced_at: new Date(T0 + HOUR).toISOString(),
    }]);

    assert.deepEqual(refsOf(searchThreads(rows, { query: "flaky", kind: "pull_request" })), ["acme/widgets#2"]);
    assert.deepEqual(
      refsOf(searchThreads(rows, { query: "flaky", state: "closed" })).sort(),
      ["acme/widgets#2", "acme/widgets#3"],
    );
    assert.deepEqual(
      refsOf(searchThreads(rows, { query: "flaky", kind: "issue", state: "open", repositories: ["acme/widgets"] }))
        .sort(),
      ["acme/widgets#1", "acme/widgets#4"],
    );
    // The label filter is an exact (case-insensitive) label name: "bug" does not match "bug-report".
    assert.deepEqual(
      refsOf(searchThreads(rows, { query: "flaky", label: "BUG" })).sort(),
      ["acme/gadgets#1", "acme/widgets#1"],
    );
    assert.deepEqual(refsOf(searchThreads(rows, { query: "flaky", label: "ci" })), ["acme/widgets#1"]);
    assert.deepEqual(refsOf(searchThreads(rows, { query: "flaky", label: "wontfix" })), []);
  });
});

Deno.test("searchThreads reports an unsynced repository as not_synced rather than as having no matches", async () => {
  await withStore(async (_store, rows) => {
    await rows.threadsUpsert("o/r", [thread(1, { title: "crash" })], { observedAt: T0 });
    const answer = searchThreads(rows, { query: "crash", repositories: ["o/r", "never/synced"] });
    assert.deepEqual(refsOf(answer), ["o/r#1"]);
    assert.deepEqual(answer.coverage, [
      { repository: "o/r", status: "synced", threads_synced_at: new Date(T0).toISOString() },
      { repository: "never/synced", status: "not_synced", threads_synced_at: null },
    ]);
  });
});

Deno.test("searchThreads pages with its cursor across pages without duplicates or gaps", async () => {
  await withStore(async (_store, rows) => {
    // 38 matches (37 bodies, one more title) with varied relevance and many identical scores
    // (ties broken by id).
    const threads = Array.from({ length: 40 }, (_, i) =>
      thread(i + 1, {
        title: i % 3 === 0 ? "widget crash" : `other ${i}`,
        body: i < 37 ? "widget ".repeat(1 + (i % 5)) : "unrelated",
      }));
    await rows.threadsUpsert("o/r", threads, { observedAt: T0 });
    const whole = refsOf(searchThreads(rows, { query: "widget", limit: SEARCH_LIMIT_MAX }));
    assert.equal(whole.length, 38);

    const paged: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = searchThreads(rows, { query: "widget", limit: 8, ...(cursor === undefined ? {} : { cursor }) });
      paged.push(...refsOf(page));
      cursor = page.next_cursor ?? undefined;
      pages++;
      assert.ok(pages <= 5, "paging terminates");
    } while (cursor !== undefined);
    assert.equal(pages, 5);
    assert.deepEqual(paged, whole);
    assert.equal(new Set(paged).size, 38);
  });
});

Deno.test("searchThreads rejects a tampered, foreign or garbage cursor with invalid_argument", async () => {
  await withStore(async (_store, rows) => {
    await rows.threadsUpsert("o/r", Array.from({ length: 5 }, (_, i) => thread(i + 1, { title: "widget" })), {
      observedAt: T0,
    });
    const first = searchThreads(rows, { query: "widget", limit: 2 });
    const cursor = first.next_cursor;
    assert.ok(cursor !== null);
    // Valid with a different limit, same query.
    assert.equal(searchThreads(rows, { query: "widget", limit: 3, cursor }).items.length, 3);

    const json = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/"))) as Record<string, unknown>;
    const reencode = (value: unknown) =>
      btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    const tampered = reencode({ ...json, i: Number(json["i"]) + 1 });
    for (const bad of [tampered, "garbage!", "", "e30", reencode([1, 2]), cursor.slice(0, -2)]) {
      assertInvalid(() => searchThreads(rows, { query: "widget", limit: 2, cursor: bad }), "$.cursor");
    }
    // A cursor of one query is refused by another (or by the same query with other filters).
    assertInvalid(() => searchThreads(rows, { query: "gadget", cursor }), "$.cursor");
    assertInvalid(() => searchThreads(rows, { query: "widget", state: "open", cursor }), "$.cursor");
  });
});

Deno.test("searchThreads never lets query text reach FTS5 as syntax", async () => {
  await withStore(async (_store, rows) => {
    await rows.threadsUpsert("o/r", [
      thread(1, { title: "AND OR NOT near", body: 'quote " inside and title:colon' }),
      thread(2, { title: "日本語のテスト", body: "emoji 🐛 bug" }),
    ], { observedAt: T0 });
    const hostile = [
      "AND",
      "OR",
      "NOT",
      "a AND",
      "NEAR(",
      "NEAR(a b, 2)",
      "a*b",
      '"unbalanced',
      'a"b',
      '"AND"',
      "title:colon",
      "{title}: x",
      "^start",
      "-minus +plus",
      "(paren",
      "paren)",
      "a OR",
      "x:y:z",
      "col : (a OR b)",
      "\u0000nul",
      "日本語",
      "🐛 bug",
      "e\u0301",
      "ß",
      "a".repeat(SEARCH_QUERY_CHARS_MAX),
      Array.from({ length: 100 }, (_, i) => `w${i}`).join(" "),
    ];
    for (const query of hostile) {
      const answer = searchThreads(rows, { query });
      assert.ok(Array.isArray(answer.items), query);
    }
    assert.deepEqual(refsOf(searchThreads(rows, { query: "AND" })), ["o/r#1"]);
    assert.deepEqual(refsOf(searchThreads(rows, { query: "NEAR(" })), ["o/r#1"]);
    assert.deepEqual(refsOf(searchThreads(rows, { query: "title:colon" })), ["o/r#1"]);
    assert.deepEqual(refsOf(searchThreads(rows, { query: "日本語のテスト" })), ["o/r#2"]);
    // Text without a single letter or digit is an invalid query, reported as such.
    for (const query of ['"', "*", "()", "  ", "-", "🐛", '"" ** ::']) {
      assertInvalid(() => searchThreads(rows, { query }), "$.query");
    }
  });
});

// The bounds and shapes the schema enforces (limit, query length, label, kind, list lengths,
// view) are refused at the boundary, before these functions run: tests/corpus_tools_test.ts.
Deno.test("searchThreads answers SEARCH_LIMIT_MAX hits, SEARCH_LIMIT_DEFAULT by default, and refuses a repository that is not owner/repo", async () => {
  await withStore(async (_store, rows) => {
    await rows.threadsUpsert("o/r", Array.from({ length: 60 }, (_, i) => thread(i + 1, { title: "bound" })), {
      observedAt: T0,
    });
    assert.equal(searchThreads(rows, { query: "bound", limit: SEARCH_LIMIT_MAX }).items.length, SEARCH_LIMIT_MAX);
    assert.equal(searchThreads(rows, { query: "bound" }).items.length, SEARCH_LIMIT_DEFAULT);
    assertInvalid(() => searchThreads(rows, { query: "bound", repositories: ["bad name"] }), "$.repositories.0");
    assertInvalid(() => searchThreads(rows, { query: "bound", repositories: ["o/r", "o/r/x"] }), "$.repositories.1");
  });
});

Deno.test("getThreads answers one item per input in order, unknown as not_synced, compact or full", async () => {
  await withStore(async (_store, rows) => {
    await rows.threadsUpsert("o/r", [thread(1, { title: "present", body: "the body", labels: ["bug"] })], {
      observedAt: T0,
    });
    const answer = getThreads(rows, { threads: ["o/r#1", "o/r#2", "O/R#1", "other/repo#1"] });
    assert.equal(answer.batch_status, "partial");
    assert.deepEqual(answer.items.map((i) => [i.key, i.item_status, i.reason]), [
      ["o/r#1", "complete", undefined],
      ["o/r#2", "unavailable", "not_synced"],
      ["O/R#1", "complete", undefined],
      ["other/repo#1", "unavailable", "not_synced"],
    ]);
    assert.match(answer.items[1]?.message ?? "", /unknown whether it exists/);
    const compact = answer.items[0]?.value;
    assert.ok(compact !== undefined);
    assert.ok(!("body" in compact));
    assert.equal(compact.synced_at, new Date(T0).toISOString());
    assert.equal(compact.created_at, new Date(T0).toISOString());
    assert.deepEqual(compact.labels, ["bug"]);

    const full = getThreads(rows, { threads: ["o/r#1"], view: "full" });
    assert.equal(full.batch_status, "complete");
    assert.deepEqual(full.items[0]?.value, {
      ...compact,
      body: "the body",
      body_truncated: false,
    });
  });
});

Deno.test("getThreads answers CORPUS_ITEMS_PER_CALL_MAX references and refuses a malformed one by its index", async () => {
  await withStore((_store, rows) => {
    const hundred = Array.from({ length: CORPUS_ITEMS_PER_CALL_MAX }, (_, i) => `o/r#${i + 1}`);
    assert.equal(getThreads(rows, { threads: hundred }).items.length, CORPUS_ITEMS_PER_CALL_MAX);
    for (const bad of ["o/r", "o/r#0", "o/r#01", "o/r#-1", "o#1", "/r#1", "o/r#1#2", "o/r #1", "o/..#1"]) {
      assertInvalid(() => getThreads(rows, { threads: ["o/r#1", bad] }), "$.threads.1");
    }
  });
});

Deno.test("getRepositories answers stored metadata, keeps the newer observation and reports unknown ones", async () => {
  await withStore(async (_store, rows) => {
    const base = {
      owner: "acme",
      name: "widgets",
      description: "Widgets",
      topics: ["ui", "widgets"],
      default_branch: "main",
      stargazers_count: 42,
      license: "MIT",
      archived: false,
      observed_at: T0 + HOUR,
    };
    assert.equal(await rows.repositoryUpsert(base), true);
    assert.equal(await rows.repositoryUpsert({ ...base, description: "older", observed_at: T0 }), false);
    const answer = getRepositories(rows, { repositories: ["acme/widgets", "acme/unknown", "ACME/WIDGETS"] });
    assert.equal(answer.batch_status, "partial");
    assert.deepEqual(answer.items[0], {
      key: "acme/widgets",
      item_status: "complete",
      value: {
        full_name: "acme/widgets",
        owner: "acme",
        name: "widgets",
        description: "Widgets",
        topics: ["ui", "widgets"],
        default_branch: "main",
        stargazers_count: 42,
        license: "MIT",
        archived: false,
        synced_at: new Date(T0 + HOUR).toISOString(),
      },
    });
    assert.equal(answer.items[1]?.reason, "not_synced");
    assert.equal(answer.items[2]?.item_status, "complete");
    const hundred = Array.from({ length: CORPUS_ITEMS_PER_CALL_MAX }, (_, i) => `o/r${i}`);
    assert.equal(getRepositories(rows, { repositories: hundred }).items.length, CORPUS_ITEMS_PER_CALL_MAX);
    assertInvalid(() => getRepositories(rows, { repositories: ["acme/widgets#1"] }), "$.repositories.0");
  });
});

Deno.test("getPullRequestChecks answers the last stored observation and reports unknown ones", async () => {
  await withStore(async (_store, rows) => {
    const obs = {
      repository: "acme/widgets",
      number: 5,
      head_sha: SHA,
      outcome: "succeeded",
      signature: "sig-2",
      checks: [{ kind: "check_run", name: "ci", status: "completed", conclusion: "success" }],
      observed_at: T0 + HOUR,
    };
    assert.equal(await rows.pullRequestChecksPut(obs), true);
    assert.equal(await rows.pullRequestChecksPut({ ...obs, outcome: "failed", observed_at: T0 }), false);
    await assert.rejects(() => rows.pullRequestChecksPut({ ...obs, head_sha: "abc" }), TypeError);
    const answer = getPullRequestChecks(rows, { pull_requests: ["acme/widgets#5", "acme/widgets#6"] });
    assert.equal(answer.batch_status, "partial");
    assert.deepEqual(answer.items[0]?.value, {
      ref: "acme/widgets#5",
      repository: "acme/widgets",
      number: 5,
      head_sha: SHA,
      outcome: "succeeded",
      signature: "sig-2",
      checks: obs.checks,
      synced_at: new Date(T0 + HOUR).toISOString(),
    });
    assert.equal(answer.items[1]?.item_status, "unavailable");
    assert.equal(answer.items[1]?.reason, "not_synced");
    const hundred = Array.from({ length: CORPUS_ITEMS_PER_CALL_MAX }, (_, i) => `o/r#${i + 1}`);
    assert.equal(getPullRequestChecks(rows, { pull_requests: hundred }).items.length, CORPUS_ITEMS_PER_CALL_MAX);
    assertInvalid(() => getPullRequestChecks(rows, { pull_requests: ["o/r#1", "o/r"] }), "$.pull_requests.1");
  });
});

Deno.test("corpus reads work in a child process started with --deny-net", async () => {
  await withStore(async (store, rows) => {
    const dir = dirname(store.path); // the store's temporary directory, which holds nothing else
    await rows.threadsUpsert("acme/widgets", [thread(1, { title: "offline search works" })], { observedAt: T0 });
    await rows.pullRequestChecksPut({
      repository: "acme/widgets",
      number: 1,
      head_sha: SHA,
      outcome: "failed",
      signature: "s",
      checks: [],
      observed_at: T0,
    });
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--deny-net",
        // openStore stats the database's directory before opening (src/store/db.ts prepareFile),
        // so read is granted on that directory, which holds nothing but this database.
        `--allow-read=${dir}`,
        `--allow-write=${store.path}`,
        new URL(import.meta.url).pathname,
        store.path,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    const report = JSON.parse(new TextDecoder().decode(output.stdout)) as Record<string, unknown>;
    assert.deepEqual(report, {
      net: "denied",
      fetch: "NotCapable",
      search: ["acme/widgets#1"],
      threads: ["complete", "unavailable"],
      checks: "failed",
    });
  });
});

/** Child mode of the `--deny-net` test: reads the corpus at `path` and prints a JSON report. */
async function childReadOffline(path: string): Promise<void> {
  const store = openStore(path);
  const rows = store.corpus;
  let fetchOutcome = "succeeded";
  try {
    await fetch("http://127.0.0.1:47123/"); // loopback only, should it ever be allowed
  } catch (err) {
    fetchOutcome = err instanceof Deno.errors.NotCapable ? "NotCapable" : String(err);
  }
  const report = {
    net: (await Deno.permissions.query({ name: "net" })).state,
    fetch: fetchOutcome,
    search: refsOf(searchThreads(rows, { query: "offline" })),
    threads: getThreads(rows, { threads: ["acme/widgets#1", "acme/widgets#2"] }).items.map((i) => i.item_status),
    checks: getPullRequestChecks(rows, { pull_requests: ["acme/widgets#1"] }).items[0]?.value?.outcome,
  };
  store.close();
  console.log(JSON.stringify(report));
}

if (import.meta.main) {
  const path = Deno.args[0];
  if (path === undefined) throw new TypeError("Cannot run the child: current value of the database path is undefined");
  await childReadOffline(path);
}
