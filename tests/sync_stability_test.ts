/**
 * `github.sync_threads` while threads move between the pages of `/issues?sort=updated`
 * (issue 11): the fake GitHub updates a thread right after a page is answered, as GitHub
 * does when someone comments while a sync pages through. No thread may be skipped, or the
 * result must say the listing is incomplete; re-listing is bounded by SYNC_RELISTINGS_MAX.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/sync_stability_test.ts
 */
import assert from "node:assert/strict";
import { SYNC_RELISTINGS_MAX } from "../src/base/limits.ts";
import { silentLogger } from "../src/base/log.ts";
import { GitHubClient } from "../src/github/client.ts";
import { SYNC_KIND, type SyncResult } from "../src/github/sync_kind.ts";
import { listIssuesStable } from "../src/github/sync_listing.ts";
import { CorpusRows } from "../src/store/corpus_rows.ts";
import { type GitHubHarness, openGitHubHarness, runJob } from "../testing/github_jobs.ts";

const REPO = "move/repo";

/** The fake's generated `updated_at` of item i (mirrors testing/fake_github.ts). */
function generatedUpdatedAt(i: number): number {
  return Date.UTC(2024, 0, 1) + i * 3_600_000 + ((i * 7919) % 2000) * 60_000;
}

/** Item numbers 1..n, newest `updated_at` first (the fake's order for sort=updated&direction=desc). */
function newestFirst(n: number, keep: (i: number) => boolean = () => true): number[] {
  return Array.from({ length: n }, (_, i) => i + 1).filter(keep)
    .sort((a, b) => generatedUpdatedAt(b) - generatedUpdatedAt(a) || a - b);
}

function storedNumbers(h: GitHubHarness, n: number): number[] {
  const rows = new CorpusRows(h.store.conn);
  return rows.threadsGet(Array.from({ length: n }, (_, i) => ({ repository: REPO, number: i + 1 })))
    .flatMap((t, i) => t === undefined ? [] : [i + 1]);
}

async function syncValue(h: GitHubHarness, input: Record<string, unknown>) {
  const { result } = await runJob<SyncResult>(h, { kind: SYNC_KIND, input: { repositories: [REPO], ...input } });
  const value = result.items[0]?.value;
  assert.ok(value !== undefined, JSON.stringify(result.items[0]));
  return { result, value };
}

Deno.test("sync stability: a thread updated between page 1 and page 2 is stored (150 of 150), listing complete", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { [REPO]: 150 } });
  const order = newestFirst(150);
  const mover = order[120] ?? 0; // on page 2; once updated it jumps to page 1, which was already read
  h.fake.touchIssueAfterPage(REPO, mover, { afterPage: 1, title: "Edited while the sync paged through" });
  const { value } = await syncValue(h, { limit_per_repository: 1000 });
  assert.deepEqual(storedNumbers(h, 150).length, 150, "no thread skipped");
  assert.equal(value.threads_seen, 150);
  assert.equal(value.listing_complete, true);
  const thread = new CorpusRows(h.store.conn).threadsGet([{ repository: REPO, number: mover }])[0];
  assert.equal(thread?.title, "Edited while the sync paged through", "the moved thread's newest version is stored");
  // Two pages, a since= re-listing that finds the mover, and one that finds nothing new.
  assert.equal(h.fake.counts.byKind.issues, 4);
});

Deno.test("sync stability: a thread closing during an open-only listing does not make the next one skipped", async () => {
  const n = 240; // 160 open (the fake closes every third), two pages of 100
  await using h = await openGitHubHarness({ generatedRepos: { [REPO]: n } });
  const open = newestFirst(n, (i) => i % 3 !== 0);
  assert.ok(open.length > 100);
  const closer = open[50] ?? 0; // on page 1: leaving the filter shifts open[100] onto page 1 unseen
  h.fake.touchIssueAfterPage(REPO, closer, { afterPage: 1, state: "closed" });
  const { value } = await syncValue(h, { state: "open", limit_per_repository: 1000 });
  const stored = new Set(storedNumbers(h, n));
  assert.deepEqual(open.filter((i) => !stored.has(i)), [], "every thread open when the sync started is stored");
  assert.equal(value.listing_complete, true);
  const thread = new CorpusRows(h.store.conn).threadsGet([{ repository: REPO, number: closer }])[0];
  assert.equal(thread?.state, "closed", "the thread that closed is stored as it is now");
});

Deno.test("sync stability: threads still moving after SYNC_RELISTINGS_MAX re-listings give listing_complete false", async () => {
  // The full listing's page 1 moves X1; re-listing k sees X_k and moves X_k+1. With MAX - 1 moves the
  // MAX-th re-listing sees nothing new (stable, at the bound); with MAX it still sees a move (past it).
  for (const moves of [SYNC_RELISTINGS_MAX - 1, SYNC_RELISTINGS_MAX]) {
    await using h = await openGitHubHarness({ generatedRepos: { [REPO]: 150 } });
    const order = newestFirst(150);
    // One thread of page 2 moves after each read of page 1 (the full listing's, then each re-listing's).
    for (let k = 0; k < moves; k++) h.fake.touchIssueAfterPage(REPO, order[110 + k] ?? 0, { afterPage: 1 });
    const { value } = await syncValue(h, { limit_per_repository: 1000 });
    const stillMoving = moves === SYNC_RELISTINGS_MAX;
    assert.equal(value.listing_complete, !stillMoving, `moves=${moves}`);
    assert.equal(value.listing_stable, !stillMoving, `moves=${moves}: told apart from a listing cut by its limit`);
    assert.equal(h.fake.counts.byKind.issues, 2 + SYNC_RELISTINGS_MAX, `moves=${moves}: bounded re-listings`);
    // What was seen is stored either way (the last mover was read by the last re-listing).
    assert.equal(storedNumbers(h, 150).length, 150, `moves=${moves}`);
  }
});

Deno.test("sync stability: a one-page listing needs no re-listing (one page is one consistent answer)", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { [REPO]: 60 } });
  const { value } = await syncValue(h, {});
  assert.equal(value.listing_complete, true);
  assert.equal(value.threads_seen, 60);
  assert.equal(h.fake.counts.byKind.issues, 1);
});

Deno.test("listIssuesStable: relistingsMax outside 0..SYNC_RELISTINGS_MAX is a RangeError; 0 never claims stability", async () => {
  await using h = await openGitHubHarness({ generatedRepos: { [REPO]: 150 } });
  const gh = new GitHubClient({ baseUrl: h.fake.url, clock: h.clock, log: silentLogger });
  const signal = new AbortController().signal;
  for (const bad of [-1, SYNC_RELISTINGS_MAX + 1, 1.5]) {
    await assert.rejects(
      listIssuesStable(gh, { owner: "move", repo: "repo" }, { signal, state: "all", relistingsMax: bad }),
      (e: unknown) => e instanceof RangeError && e.message.startsWith("Cannot re-list"),
    );
  }
  assert.equal(h.fake.counts.total, 0, "refused before any request");
  const unchecked = await listIssuesStable(gh, { owner: "move", repo: "repo" }, {
    signal,
    state: "all",
    relistingsMax: 0,
  });
  assert.deepEqual([unchecked.items.length, unchecked.stable, unchecked.complete, unchecked.listings], [
    150,
    false,
    false,
    1,
  ], "two pages and no re-listing: nothing proves the pages were consistent");
  const checked = await listIssuesStable(gh, { owner: "move", repo: "repo" }, { signal, state: "all" });
  assert.deepEqual([checked.items.length, checked.stable, checked.complete, checked.listings], [150, true, true, 2]);
  assert.ok(
    checked.items.every((t, i) =>
      i === 0 || Date.parse(checked.items[i - 1]?.updated_at ?? "") >= Date.parse(t.updated_at)
    ),
    "newest first",
  );
});

Deno.test("sync stability: a thread leaving an open-only listing is stored as it is now, outside the limit", async () => {
  const n = 240; // 160 open (the fake closes every third)
  const limit = 150; // two pages of 100
  await using h = await openGitHubHarness({ generatedRepos: { [REPO]: n } });
  const open = newestFirst(n, (i) => i % 3 !== 0);
  const closer = open[50] ?? 0; // on page 1; closed right after page 1 is answered
  h.fake.touchIssueAfterPage(REPO, closer, { afterPage: 1, state: "closed" });
  const { value } = await syncValue(h, { state: "open", limit_per_repository: limit });
  const rows = new CorpusRows(h.store.conn);
  const stillOpen = open.filter((i) => i !== closer).slice(0, limit);
  const stored = rows.threadsGet(stillOpen.map((number) => ({ repository: REPO, number })));
  assert.deepEqual(
    stillOpen.filter((_, i) => stored[i] === undefined),
    [],
    `the newest ${limit} threads open at the end are all stored (the one that closed takes none of their places)`,
  );
  assert.equal(rows.threadsGet([{ repository: REPO, number: closer }])[0]?.state, "closed", "stored as it is now");
  assert.equal(value.threads_seen, limit + 1, "the limit's threads and the one that left the filter");
});
