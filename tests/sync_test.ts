/**
 * `github.sync_threads` through a real Executor + JobControl against the fake GitHub on
 * loopback: pagination, filters, limits, newer-wins re-sync, free conditional re-syncs,
 * per-repository outcomes (unavailable, retryable with retry_after_ms, budget_exhausted),
 * the request budget, search over what was synced, and offline corpus reads from a child
 * process that has no network permission at all.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/sync_test.ts
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ManualClock } from "../src/base/clock.ts";
import { silentLogger } from "../src/base/log.ts";
import { getThreads } from "../src/corpus/get.ts";
import { searchThreads } from "../src/corpus/search.ts";
import { GitHubClient, SqliteEtagCache } from "../src/github/client.ts";
import { syncResultOutput } from "../src/github/result_schemas.ts";
import { SYNC_KIND, type SyncItem, type SyncResult } from "../src/github/sync_kind.ts";
import { syncRunner } from "../src/github/sync_runner.ts";
import { CorpusRows } from "../src/store/corpus_rows.ts";
import type { FakeGitHub } from "../testing/fake_github.ts";
import { type GitHubHarness, openGitHubHarness, productRequest, runJob, TERMINAL } from "../testing/github_jobs.ts";
import { waitFor } from "../testing/temp.ts";
import { assertMatchesAdvertised } from "../testing/output_schemas.ts";

const BIG = "big/repo";
const BIG_THREADS = 250;

async function sync(h: GitHubHarness, input: Record<string, unknown>) {
  const done = await runJob<SyncResult>(h, { kind: SYNC_KIND, input });
  assert.equal(done.row.outcome, done.result.batch_status === "complete" ? "succeeded" : "partial");
  assertMatchesAdvertised(syncResultOutput(), done.result, { what: `the ${done.result.batch_status} sync result` });
  return done;
}

function item(result: SyncResult, key: string): SyncItem {
  const found = result.items.find((i) => i.key === key);
  assert.ok(found !== undefined, `no item for ${key}`);
  return found;
}

/** Stored threads of `threads.repository`, numbers 1..`threads.n` (undefined where not stored). */
function stored(h: GitHubHarness, threads: { repository: string; n: number }) {
  const { repository, n } = threads;
  const rows = new CorpusRows(h.store.conn);
  return rows.threadsGet(Array.from({ length: n }, (_, i) => ({ repository, number: i + 1 })));
}

/** The fake's generated `updated_at` of item i (mirrors testing/fake_github.ts). */
function generatedUpdatedAt(i: number): number {
  return Date.UTC(2024, 0, 1) + i * 3_600_000 + ((i * 7919) % 2000) * 60_000;
}

Deno.test("sync: paginates through > 100 threads with Link, stores them all, and counts every page", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { [BIG]: BIG_THREADS } });
  const { result } = await sync(h, { repositories: [BIG], limit_per_repository: 1000 });
  assert.equal(result.batch_status, "complete");
  const v = item(result, BIG).value;
  assert.ok(v !== undefined);
  assert.equal(v.threads_seen, BIG_THREADS);
  assert.equal(v.inserted, BIG_THREADS);
  assert.equal(v.listing_complete, true);
  // Three pages of 100, then one since= re-listing that finds nothing new (src/github/sync_listing.ts).
  assert.equal(h.fake.counts.countedByKind.issues, 4, "three pages of 100 and one re-listing");
  assert.equal(h.fake.counts.countedByKind.repository, 1);
  assert.equal(result.requests, 5);
  assert.deepEqual(result.budget, { max: 200, used: 5 });
  // The rate-limit state GitHub reported on the last answer (the fake counts down from 5,000).
  assert.equal(result.rate_limit["remaining"], h.fake.remaining());
  assert.ok(
    stored(h, { repository: BIG, n: BIG_THREADS }).every((t) => t !== undefined),
    "every thread is in the corpus",
  );
  assert.equal(new CorpusRows(h.store.conn).repositoriesGet([BIG])[0]?.description?.startsWith("Generated"), true);
});

Deno.test("sync: a kind filter keeps only that kind; limit_per_repository keeps the newest N", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { [BIG]: BIG_THREADS, "small/repo": BIG_THREADS } });
  const prs = await sync(h, { repositories: [BIG], kind: "pull_request", limit_per_repository: 1000 });
  const expectedPrs = Math.floor(BIG_THREADS / 4); // the fake makes every 4th item a pull request
  assert.equal(item(prs.result, BIG).value?.threads_seen, expectedPrs);
  const rows = stored(h, { repository: BIG, n: BIG_THREADS });
  assert.equal(rows.filter((t) => t !== undefined).length, expectedPrs);
  assert.ok(rows.every((t, i) => t === undefined ? (i + 1) % 4 !== 0 : t.kind === "pull_request"));

  const limited = await sync(h, { repositories: ["small/repo"], limit_per_repository: 30 });
  const v = item(limited.result, "small/repo").value;
  assert.equal(v?.threads_seen, 30);
  assert.equal(v?.listing_complete, false, "more threads were left on GitHub");
  assert.equal(v?.listing_stable, true, "nothing moved: only the limit left threads behind");
  const kept = stored(h, { repository: "small/repo", n: BIG_THREADS }).filter((t) => t !== undefined);
  assert.equal(kept.length, 30);
  const newest = Array.from({ length: BIG_THREADS }, (_, i) => generatedUpdatedAt(i + 1)).sort((a, b) => b - a);
  assert.ok(kept.every((t) => t.updated_at >= (newest[29] ?? Infinity)), "the 30 most recently updated");
});

Deno.test("sync: updated_after sends since= and stores only threads updated at or after it", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { [BIG]: BIG_THREADS } });
  const after = Date.UTC(2024, 0, 8);
  const { result } = await sync(h, {
    repositories: [BIG],
    updated_after: new Date(after).toISOString(),
    limit_per_repository: 1000,
  });
  const expected = Array.from({ length: BIG_THREADS }, (_, i) => generatedUpdatedAt(i + 1)).filter((u) => u >= after);
  assert.ok(expected.length > 0 && expected.length < BIG_THREADS);
  assert.equal(item(result, BIG).value?.threads_seen, expected.length);
  const kept = stored(h, { repository: BIG, n: BIG_THREADS }).filter((t) => t !== undefined);
  assert.equal(kept.length, expected.length);
  assert.ok(kept.every((t) => t.updated_at >= after));
  const listings = h.fake.requests.filter((r) => r.kind === "issues");
  assert.ok(listings.length > 0 && listings.some((r) => r.path.includes("since=2024-01-08T00%3A00%3A00.000Z")));
  // The stability re-listing asks from the newest thread seen, never from before updated_after.
  const sinces = listings.map((r) => Date.parse(new URL(r.path, "http://x").searchParams.get("since") ?? ""));
  assert.ok(sinces.every((t) => t >= after), JSON.stringify(listings.map((r) => r.path)));
});

Deno.test("sync: a re-sync of unchanged threads is free (304s); a newer updated_at wins and is searchable", async () => {
  // Authorized: GitHub charges anonymous 304s (the fake too), so "free" needs a token.
  await using h = await openGitHubHarness({ generatedRepos: { [BIG]: BIG_THREADS }, token: "test-token" });
  await sync(h, { repositories: [BIG], limit_per_repository: 1000 });

  h.fake.resetCounts();
  const again = await sync(h, { repositories: [BIG], limit_per_repository: 1000 });
  const same = item(again.result, BIG).value;
  assert.deepEqual(
    { inserted: same?.inserted, updated: same?.updated, unchanged: same?.unchanged },
    { inserted: 0, updated: 0, unchanged: BIG_THREADS },
  );
  assert.equal(again.result.requests, 0, "every page and the repository were 304s");
  assert.equal(again.result.not_modified, 5, "the repository, three pages and the re-listing");
  assert.equal(h.fake.counts.counted, 0);

  h.clock.advance(60_000);
  h.fake.touchIssue(BIG, 7, { title: "Quasar tooltip vanishes on resize", state: "closed" });
  const changed = await sync(h, { repositories: [BIG], limit_per_repository: 1000 });
  const v = item(changed.result, BIG).value;
  assert.equal(v?.updated, 1);
  assert.equal(v?.inserted, 0);
  assert.equal(v?.unchanged, BIG_THREADS - 1);
  const thread = getThreads(new CorpusRows(h.store.conn), { threads: [`${BIG}#7`] }).items[0]?.value;
  assert.equal(thread?.title, "Quasar tooltip vanishes on resize");
  assert.equal(thread?.state, "closed");

  const found = searchThreads(new CorpusRows(h.store.conn), { query: "quasar tooltip", repositories: [BIG] });
  assert.deepEqual(found.items.map((i) => i.ref), [`${BIG}#7`]);
  assert.equal(found.coverage[0]?.status, "synced");
  const labelled = searchThreads(new CorpusRows(h.store.conn), {
    query: "layout",
    kind: "issue",
    state: "open",
    label: "bug",
    limit: 50,
  });
  assert.ok(labelled.items.length > 0);
  assert.ok(labelled.items.every((i) => i.kind === "issue" && i.state === "open" && i.labels.includes("bug")));
});

Deno.test("sync: one batch with 404, private 403, retry-after and success ends partial with per-repository outcomes", async () => {
  const ref: { fake?: FakeGitHub } = {};
  let armed = false;
  await using h = await openGitHubHarness({
    generatedRepos: { [BIG]: BIG_THREADS, "gen/limited": 10 },
    kinds: (store, { baseUrl, clock }) => {
      const corpus = store.corpus;
      const etags = new SqliteEtagCache(store.etags, clock);
      // Between the real client and the real fake: arms the fake's secondary limit right before
      // the first request for gen/limited, so that repository (and only it) is limited.
      const arming: typeof fetch = (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        if (!armed && url.includes("/repos/gen/limited")) {
          armed = true;
          ref.fake?.limitSecondaryNext(1, { status: 429, retryAfterSec: 60 });
        }
        return fetch(input, init);
      };
      return [
        syncRunner({
          client: () => new GitHubClient({ baseUrl, clock, log: silentLogger, etagCache: etags, fetch: arming }),
          corpus: () => corpus,
        }),
      ];
    },
  });
  ref.fake = h.fake;
  const { row, result } = await sync(h, {
    repositories: [BIG, "octo/missing", "octo/secret", "gen/limited"],
    limit_per_repository: 1000,
  });
  assert.equal(row.outcome, "partial");
  assert.equal(result.batch_status, "partial");
  assert.deepEqual(result.items.map((i) => i.key), [BIG, "octo/missing", "octo/secret", "gen/limited"]);
  assert.equal(item(result, BIG).item_status, "complete");
  assert.deepEqual(
    [item(result, "octo/missing").item_status, item(result, "octo/missing").reason],
    ["unavailable", "not_found"],
  );
  assert.deepEqual(
    [item(result, "octo/secret").item_status, item(result, "octo/secret").reason],
    ["unavailable", "access_denied"],
  );
  const limited = item(result, "gen/limited");
  assert.equal(limited.item_status, "retryable");
  assert.equal(limited.reason, "rate_limited");
  assert.equal(limited.retry_after_ms, 60_000, "retry-after exceeds the sync's 10 s wait bound: reported, not waited");
  assert.equal(h.fake.counts.rateLimited, 1, "one refused request; no hammering");
  assert.equal(stored(h, { repository: "gen/limited", n: 10 }).filter((t) => t !== undefined).length, 0);
});

Deno.test("sync: after a long retry-after, later repositories are retryable without sending a request", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { "a/one": 5, "b/two": 5 } });
  h.fake.limitSecondaryNext(1, { status: 403, retryAfterSec: 120 });
  const { result } = await sync(h, { repositories: ["a/one", "b/two"] });
  assert.equal(result.batch_status, "partial");
  for (const key of ["a/one", "b/two"]) {
    const i = item(result, key);
    assert.equal(i.item_status, "retryable");
    assert.equal(i.reason, "rate_limited");
    assert.ok((i.retry_after_ms ?? 0) > 100_000 && (i.retry_after_ms ?? 0) <= 120_000);
  }
  assert.equal(h.fake.counts.total, 1, "the client held b/two back instead of asking again");
});

Deno.test("sync: once GitHub gives no answer, later repositories are retryable without being tried", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { "a/one": 5, "b/two": 5, "c/three": 5 } });
  await h.fake.close(); // nothing listens at its address now: every connection is refused
  const before = h.clock.now();
  const { result } = await sync(h, { repositories: ["a/one", "b/two", "c/three", "b/two"] });
  assert.equal(result.batch_status, "partial");
  const first = item(result, "a/one");
  assert.deepEqual([first.item_status, first.reason], ["retryable", "transient"]);
  assert.match(first.message ?? "", /network error after 3 retries/);
  for (const key of ["b/two", "c/three"]) {
    const skipped = item(result, key);
    assert.deepEqual([skipped.item_status, skipped.reason], ["retryable", "transient"]);
    assert.equal(
      skipped.message,
      "Not attempted: GitHub gave no answer while a/one was synced just before; sync again later",
    );
    assert.equal(skipped.retry_after_ms, first.retry_after_ms);
  }
  // The clock moves only by the retries' waits (it advances as they sleep): a/one's 1 + 2 + 4 s, nothing more.
  assert.equal(h.clock.now() - before, 7_000, "b/two and c/three spent no retries");
});

Deno.test("sync: a repository GitHub answers with 5xx past the retries does not stop the ones after it", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { "a/one": 5, "b/two": 5 } });
  h.fake.failNext(4, { status: 503 });
  const { result } = await sync(h, { repositories: ["a/one", "b/two"] });
  const first = item(result, "a/one");
  assert.deepEqual([first.item_status, first.reason], ["retryable", "transient"]);
  assert.match(first.message ?? "", /503/);
  assert.equal(item(result, "b/two").item_status, "complete", "GitHub answered: b/two is tried");
});

Deno.test("sync: a short retry-after is waited out on the clock and the repository completes", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { "a/one": 5 } });
  h.fake.limitSecondaryNext(1, { status: 429, retryAfterSec: 5 });
  const { result } = await sync(h, { repositories: ["a/one"] });
  assert.equal(result.batch_status, "complete");
  const [refused, next] = h.fake.requests;
  assert.ok(refused !== undefined && next !== undefined && next.at - refused.at === 5_000);
});

Deno.test("sync: max_requests is enforced across repositories; the rest is retryable budget_exhausted", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { [BIG]: BIG_THREADS, "a/one": 5 } });
  const { row, result } = await sync(h, {
    repositories: [BIG, "a/one"],
    limit_per_repository: 1000,
    max_requests: 3,
  });
  assert.equal(row.outcome, "partial");
  assert.deepEqual(result.budget, { max: 3, used: 3 });
  assert.equal(h.fake.counts.counted, 3, "the fake saw exactly the budget");
  assert.equal(h.fake.counts.total, 3, "nothing beyond the budget was even sent");
  for (const key of [BIG, "a/one"]) {
    assert.deepEqual([item(result, key).item_status, item(result, key).reason], ["retryable", "budget_exhausted"]);
  }
});

Deno.test("sync: duplicates are synced once and answered in place; bad input is refused at submission", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { "a/one": 5 } });
  const { row, result } = await sync(h, { repositories: ["a/one", "a/one"] });
  assert.equal(result.items.length, 2);
  assert.equal(row.completed_items, row.total_items, "progress counts the repositories actually synced");
  assert.equal(h.fake.counts.countedByKind.repository, 1);
  // Validated once, at the boundary (the tool, the CLI command), with the kind's spec.
  assert.throws(() => productRequest(SYNC_KIND, { repositories: ["not a repo"] }), /invalid|expected/i);
  assert.throws(() => productRequest(SYNC_KIND, { repositories: [] }), /invalid|expected|Too small|least/i);
});

Deno.test("corpus reads work with the network unavailable (a --deny-net child reads the synced db)", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { [BIG]: BIG_THREADS } });
  await sync(h, { repositories: [BIG], limit_per_repository: 1000 });
  const db = h.dir.file("gh.db");
  const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--deny-net",
      `--allow-read=${h.dir.path}`,
      `--allow-write=${h.dir.path}`,
      "--allow-env",
      main,
      "search",
      "tooltip",
      "misaligns",
      "--repo",
      BIG,
      "--json",
      "--db",
      db,
    ],
    env: { LONGCALL_LOG: "warn", LONGCALL_GITHUB_API_URL: h.fake.url },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const answer = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(answer.items.length > 0);
  assert.ok(answer.items.every((i: { repository: string }) => i.repository === BIG));
  assert.equal(answer.coverage[0].status, "synced");
});

Deno.test("sync: while it waits out a rate limit the job says rate_limited with the reset as its next poll, then syncs on", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1)); // no autoAdvance: the wait really parks
  await using h = await openGitHubHarness({ generatedRepos: { "a/one": 5 }, clock });
  h.fake.exhaustPrimary({ resetInMs: 5_000 }); // within the sync's own wait bound (SYNC_RATE_LIMIT_WAIT_MS_MAX)
  const job = await h.control.submit(SYNC_KIND, productRequest(SYNC_KIND, { repositories: ["a/one"] }));
  await waitFor("the sync to park in the rate-limit wait", () => clock.pendingSleeps === 1 && h.fake.counts.total);
  const limited = await waitFor("the rate_limited phase to be written", () => {
    const row = h.store.rows.jobGet(job.id);
    return row?.phase === "rate_limited" ? row : undefined;
  });
  assert.match(limited.progress_message ?? "", /a\/one: waiting for GitHub's rate limit to reset/);
  assert.ok(limited.next_poll_at !== null && limited.next_poll_at >= clock.now() + 4_000, "next poll at the reset");
  // Past the reset; later sleeps on this clock (the progress throttle shares it) are released the same way.
  const done = await waitFor("the sync to end", () => {
    if (clock.pendingSleeps > 0) clock.advance(6_000);
    const row = h.store.rows.jobGet(job.id);
    return row !== undefined && TERMINAL.includes(row.status) ? row : undefined;
  });
  assert.equal(done.status, "succeeded");
  assert.equal(done.phase, "syncing", "the phase returns once the wait is over");
  assert.equal((done.result as SyncResult).items[0]?.item_status, "complete");
});

Deno.test("sync: jobs of one process share the rate-limit gate: a job started after another spent the window waits for the reset without a refused request", async () => {
  // One token, a window of 2 requests: a sync of a repository of 5 threads sends exactly 2 (the repository and
  // its one page), so the first job leaves GitHub's remaining count at 0.
  await using h = await openGitHubHarness({
    generatedRepos: { "a/one": 5, "b/two": 5 },
    token: "test-token",
    // A window that resets within the sync's own wait bound (SYNC_RATE_LIMIT_WAIT_MS_MAX), so it is waited out.
    rateLimit: { limit: 2, windowMs: 5_000 },
  });
  const first = await sync(h, { repositories: ["a/one"] });
  assert.equal(first.result.requests, 2);
  assert.equal(h.fake.remaining("test-token"), 0, "the first job spent the window");
  const windowOpened = h.fake.requests[0]?.at ?? NaN;
  const second = await sync(h, { repositories: ["b/two"] });
  assert.equal(item(second.result, "b/two").item_status, "complete");
  // The second job's own client never saw an answer before it had to wait: only the shared gate could hold it.
  assert.equal(h.fake.counts.rateLimited, 0, "no request was refused");
  const firstOfSecond = h.fake.requests.find((r) => r.path.startsWith("/repos/b/two"));
  assert.ok(firstOfSecond !== undefined && firstOfSecond.at >= windowOpened + 5_000, "sent only after the reset");
});
