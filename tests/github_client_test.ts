/**
 * The GitHub client against the real fake server on loopback.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-net=127.0.0.1 tests/github_client_test.ts
 */
import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import { AppError } from "../src/base/errors.ts";
import { createLogger, silentLogger } from "../src/base/log.ts";
import { GITHUB_CONCURRENCY_MAX, GITHUB_PAGES_MAX } from "../src/base/limits.ts";
import {
  type EtagCache,
  GitHubClient,
  type GitHubClientOptions,
  MemoryEtagCache,
  type RepoRef,
  RequestBudget,
  SqliteEtagCache,
} from "../src/github/client.ts";
import { newRateGate } from "../src/github/retry_policy.ts";
import { nextLink, parseLinkHeader } from "../src/github/link.ts";
import { EtagRows } from "../src/store/etag_rows.ts";
import { openStore, storeConnection } from "../src/store/store.ts";
import {
  type FakeGitHub,
  type FakeGitHubOptions,
  SCENARIO_PULL,
  SCENARIO_SHA_FIRST,
  startFakeGitHub,
} from "../testing/fake_github.ts";

/** Distinctive and deliberately not token-shaped, so redact() cannot hide a leak. */
const TOKEN = "tok-LEAKCANARY-7f3e9a1c5b2d";

/** A ManualClock that records every sleep it is asked for. */
class RecordingClock extends ManualClock {
  readonly sleeps: number[] = [];
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return super.sleep(ms, signal);
  }
}

const signal = () => new AbortController().signal;

/** The fake's scenario repository and its large listing. */
const WIDGETS: RepoRef = { owner: "octo", repo: "widgets" };
const BIG_REPO: RepoRef = { owner: "big", repo: "repo" };

async function withFake(
  options: FakeGitHubOptions,
  fn: (fake: FakeGitHub) => Promise<void>,
): Promise<void> {
  const fake = await startFakeGitHub(options);
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

/** A client of `fake` on `clock` with the test token; `options` add to or override its defaults. */
function client(fake: FakeGitHub, clock: ManualClock, options: Partial<GitHubClientOptions> = {}): GitHubClient {
  return new GitHubClient({ baseUrl: fake.url, token: TOKEN, clock, log: silentLogger, ...options });
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AppError, `expected AppError ${code}, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected AppError ${code}, but the call succeeded`);
}

async function tempDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "longcall-github-" });
}

Deno.test("GitHubClient.get: a 304 is free, served from the SQLite cache, and survives a new client", async () => {
  const clock = new ManualClock();
  const dir = await tempDir();
  const dbPath = `${dir}/longcall.db`;
  try {
    await withFake({ now: () => clock.now() }, async (fake) => {
      const store1 = openStore(dbPath);
      const c1 = client(fake, clock, { etagCache: new SqliteEtagCache(store1.etags, clock) });
      const first = await c1.getRepository(WIDGETS, { signal: signal() });
      assert.equal(first.status, 200);
      assert.equal(first.fromCache, false);
      assert.equal(first.data.full_name, "octo/widgets");
      assert.equal(first.data.default_branch, "main");
      assert.match(first.etag ?? "", /^"[0-9a-f]{16}"$/);

      const second = await c1.getRepository(WIDGETS, { signal: signal() });
      assert.equal(second.status, 304);
      assert.equal(second.fromCache, true);
      assert.deepEqual(second.data, first.data);
      assert.equal(fake.counts.counted, 1);
      assert.equal(fake.counts.notModified, 1);
      assert.equal(fake.remaining(TOKEN), 4999, "a 304 must not cost a request");
      assert.equal(c1.stats.requests, 1);
      assert.equal(c1.stats.not_modified, 1);
      assert.equal(c1.stats.rateLimit.remaining, 4999);
      assert.equal(c1.stats.rateLimit.resource, "core");
      store1.close();

      // A restart: new connection, new client, same file.
      const store2 = openStore(dbPath);
      try {
        const c2 = client(fake, clock, { etagCache: new SqliteEtagCache(store2.etags, clock) });
        const third = await c2.getRepository(WIDGETS, { signal: signal() });
        assert.equal(third.status, 304);
        assert.equal(third.fromCache, true);
        assert.equal(third.data.stargazers_count, 1234);
        assert.equal(fake.counts.counted, 1);
        assert.equal(fake.counts.notModified, 2);
        assert.equal(store2.etags.etagCount(), 1);

        // conditional: false bypasses the validator and is charged.
        const fresh = await c2.getRepository(WIDGETS, { signal: signal(), conditional: false });
        assert.equal(fresh.status, 200);
        assert.equal(fake.counts.counted, 2);
        assert.equal(fake.requests.at(-1)?.conditional, false);
      } finally {
        store2.close();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GitHubClient.getPaginated: follows Link rel=next, bounded by maxPages and itemsMax", async () => {
  const clock = new ManualClock();
  await withFake({ now: () => clock.now(), generatedRepos: { "big/repo": 250 } }, async (fake) => {
    const c = client(fake, clock, { etagCache: new MemoryEtagCache() });
    const all = await c.listIssues(BIG_REPO, { signal: signal(), state: "all" });
    assert.equal(all.pages, 3);
    assert.equal(all.items.length, 250);
    assert.equal(all.complete, true);
    assert.equal(all.notModified, false);
    assert.equal(new Set(all.items.map((i) => i.number)).size, 250);
    const updated = all.items.map((i) => Date.parse(i.updated_at));
    assert.deepEqual(updated, [...updated].sort((a, b) => a - b), "sort=updated&direction=asc");
    assert.equal(all.items.filter((i) => i.pull_request !== undefined).length, 62);

    const again = await c.listIssues(BIG_REPO, { signal: signal(), state: "all" });
    assert.equal(again.notModified, true);
    assert.equal(again.items.length, 250);
    assert.equal(fake.counts.notModifiedByKind.issues, 3);
    assert.equal(fake.counts.countedByKind.issues, 3);

    const bounded = await c.listIssues(BIG_REPO, { signal: signal(), pagesMax: 2, conditional: false });
    assert.equal(bounded.pages, 2);
    assert.equal(bounded.items.length, 200);
    assert.equal(bounded.complete, false);

    const few = await c.listIssues(BIG_REPO, { signal: signal(), itemsMax: 150, conditional: false });
    assert.equal(few.items.length, 150);
    assert.equal(few.pages, 2);
    assert.equal(few.complete, false);

    const open = await c.listIssues(BIG_REPO, { signal: signal(), state: "open", perPage: 50 });
    assert.equal(open.items.length, 250 - Math.floor(250 / 3));
    assert.ok(open.items.every((i) => i.state === "open"));

    const since = await c.listIssues(BIG_REPO, { signal: signal(), since: all.items[199]!.updated_at });
    assert.ok(since.items.length >= 50 && since.items.length < 250, `got ${since.items.length}`);

    await assert.rejects(
      c.getPaginated("/repos/big/repo/issues", { signal: signal(), maxPages: GITHUB_PAGES_MAX + 1 }),
      (err: unknown) => err instanceof RangeError && /current value of maxPages is 51/.test(err.message),
    );
  });
});

Deno.test("GitHubClient.getCheckRuns: fetches every page and reports completeness", async () => {
  const clock = new ManualClock();
  await withFake({ now: () => clock.now(), scenario: "many_checks" }, async (fake) => {
    const c = client(fake, clock, { etagCache: new MemoryEtagCache() });
    const { owner, repo } = SCENARIO_PULL;
    const runs = await c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    assert.equal(runs.total_count, 150);
    assert.equal(runs.check_runs.length, 150);
    assert.equal(runs.pages, 2);
    assert.equal(runs.complete, true);
    assert.equal(runs.notModified, false);
    assert.ok(runs.check_runs.every((r) => r.conclusion === "success" && r.app?.slug === "github-actions"));
    assert.match(fake.requests[0]?.path ?? "", /per_page=100&filter=latest/);
    const again = await c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    assert.equal(again.notModified, true);
    assert.equal(again.check_runs.length, 150);
  });
});

Deno.test("GitHubClient rate limits: retry-after is honoured on the clock", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  await withFake({ now: () => clock.now() }, async (fake) => {
    const c = client(fake, clock);
    fake.limitSecondaryNext(1, { status: 429, retryAfterSec: 7 });
    const res = await c.getRepository(WIDGETS, { signal: signal() });
    assert.equal(res.status, 200);
    assert.deepEqual(clock.sleeps, [7_000]);
    assert.equal(c.stats.rate_limit_waits, 1);
    assert.equal(fake.counts.rateLimited, 1);
    assert.equal(fake.counts.total, 2);
  });
});

Deno.test("GitHubClient.listIssues: onRateLimitWait is told when a page waits out a rate limit", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  await withFake({ now: () => clock.now(), generatedRepos: { "big/repo": 150 } }, async (fake) => {
    const c = client(fake, clock);
    const waits: number[] = [];
    fake.limitSecondaryNext(1, { status: 429, retryAfterSec: 7 });
    const before = clock.now();
    const all = await c.listIssues(BIG_REPO, {
      signal: signal(),
      onRateLimitWait: (untilMs) => waits.push(untilMs),
    });
    assert.equal(all.items.length, 150);
    assert.deepEqual(clock.sleeps, [7_000]);
    assert.deepEqual(waits, [before + 7_000], "the caller hears when requests resume (poll guidance)");
    assert.equal(c.stats.rate_limit_waits, 1);
  });
});

Deno.test("GitHubClient rate limits: remaining 0 waits until x-ratelimit-reset, and later calls wait too", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  await withFake({ now: () => clock.now() }, async (fake) => {
    const c = client(fake, clock);
    fake.exhaustPrimary({ resetInMs: 120_000 });
    const res = await c.getRepository(WIDGETS, { signal: signal() });
    assert.equal(res.status, 200);
    assert.deepEqual(clock.sleeps, [121_000], "reset plus one second of slack");
    assert.equal(fake.counts.rateLimited, 1);

    // A successful answer with remaining 0 holds the next request until the reset.
    const tight = await startFakeGitHub({ now: () => clock.now(), rateLimit: { limit: 1, windowMs: 30_000 } });
    try {
      const t = client(tight, clock);
      await t.getRepository(WIDGETS, { signal: signal() });
      assert.equal(t.stats.rateLimit.remaining, 0);
      clock.sleeps.length = 0;
      await t.getRepository(WIDGETS, { signal: signal() });
      assert.deepEqual(clock.sleeps, [31_000]);
      assert.equal(tight.counts.rateLimited, 0, "the gate waited instead of hammering");
      assert.equal(tight.counts.counted, 2);
    } finally {
      await tight.close();
    }
  });
});

Deno.test("GitHubClient rate limits: a secondary limit without a hint waits >= 60 s, then backs off", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  await withFake({ now: () => clock.now() }, async (fake) => {
    const c = client(fake, clock);
    fake.limitSecondaryNext(2, { status: 403 });
    const res = await c.getRepository(WIDGETS, { signal: signal() });
    assert.equal(res.status, 200);
    assert.deepEqual(clock.sleeps, [60_000, 120_000]);
    assert.equal(c.stats.rate_limit_waits, 2);

    // Backing off forever is bounded: 60+120+240+480 s, then 960 s > the 15 min cap.
    clock.sleeps.length = 0;
    fake.limitSecondaryNext(5, { status: 403 });
    const err = await rejectsWith(
      c.getRepository(WIDGETS, { signal: signal(), conditional: false }),
      "rate_limited",
    );
    assert.deepEqual(clock.sleeps, [60_000, 120_000, 240_000, 480_000]);
    assert.equal(err.retryAfterMs, 960_000);
    assert.equal(err.retryable, true);
  });
});

Deno.test("GitHubClient rate limits: a wait is cancelled by the caller's signal", async () => {
  const clock = new RecordingClock();
  await withFake({ now: () => clock.now() }, async (fake) => {
    const c = client(fake, clock);
    fake.limitSecondaryNext(1, { retryAfterSec: 30 });
    const controller = new AbortController();
    const pending = c.getRepository(WIDGETS, { signal: controller.signal });
    while (clock.pendingSleeps === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(clock.sleeps, [30_000]);
    const reason = new Error("caller gave up");
    controller.abort(reason);
    await assert.rejects(pending, (err: unknown) => err === reason);
    assert.equal(clock.pendingSleeps, 0);
    assert.equal(fake.counts.total, 1, "nothing was sent after the abort");
  });
});

Deno.test("GitHubClient rate limits: maxRateLimitWaitMs gives up early with rate_limited", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  await withFake({ now: () => clock.now() }, async (fake) => {
    const c = client(fake, clock, { maxRateLimitWaitMs: 5_000 });
    fake.limitSecondaryNext(1, { retryAfterSec: 30 });
    const err = await rejectsWith(c.getRepository(WIDGETS, { signal: signal() }), "rate_limited");
    assert.equal(err.retryAfterMs, 30_000);
    assert.equal(err.toJobError().retry_after_ms, 30_000);
    assert.deepEqual(clock.sleeps, []);

    // The known block is respected without sending: no request reaches GitHub.
    const sent = fake.counts.total;
    const gated = await rejectsWith(c.getRepository(WIDGETS, { signal: signal() }), "rate_limited");
    assert.ok((gated.retryAfterMs ?? 0) > 0 && (gated.retryAfterMs ?? 0) <= 30_000);
    assert.equal(fake.counts.total, sent);

    // A per-call bound can only lower the client's.
    clock.advance(31_000);
    fake.exhaustPrimary({ resetInMs: 60_000 });
    const perCall = await rejectsWith(
      new GitHubClient({ baseUrl: fake.url, token: TOKEN, clock, log: silentLogger })
        .getRepository(WIDGETS, { signal: signal(), maxRateLimitWaitMs: 1_000 }),
      "rate_limited",
    );
    assert.equal(perCall.retryAfterMs, 61_000);
  });
});

Deno.test("GitHubClient rate limits: clients sharing a RateGate hold each other's requests; a client without waits alone", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  const tight = await startFakeGitHub({ now: () => clock.now(), rateLimit: { limit: 1, windowMs: 30_000 } });
  try {
    const gate = newRateGate();
    const first = client(tight, clock, { rateGate: gate });
    const second = client(tight, clock, { rateGate: gate });
    await first.getRepository(WIDGETS, { signal: signal() });
    assert.equal(first.stats.rateLimit.remaining, 0, "the first job spent the window");
    clock.sleeps.length = 0;
    await second.getRepository(WIDGETS, { signal: signal() });
    assert.deepEqual(clock.sleeps, [31_000], "the second job waited for the reset before sending");
    assert.equal(second.stats.rate_limit_waits, 1);
    assert.equal(tight.counts.rateLimited, 0, "no request was refused");

    // Without the shared gate the other job learns the limit by a refused request.
    const own = client(tight, clock);
    await first.getRepository(WIDGETS, { signal: signal() });
    clock.sleeps.length = 0;
    await own.getRepository(WIDGETS, { signal: signal() });
    assert.equal(tight.counts.rateLimited, 1, "the unshared client was refused once, then waited");
  } finally {
    await tight.close();
  }
});

Deno.test("GitHubClient.get: 5xx is retried with backoff, then fails as transient", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  await withFake({ now: () => clock.now() }, async (fake) => {
    const c = client(fake, clock);
    fake.failNext(2, { status: 502 });
    const ok = await c.getRepository(WIDGETS, { signal: signal() });
    assert.equal(ok.status, 200);
    assert.equal(c.stats.retries, 2);
    assert.deepEqual(clock.sleeps, [1_000, 2_000]);

    clock.sleeps.length = 0;
    fake.failNext(4, { status: 503 });
    const err = await rejectsWith(c.getRepository(WIDGETS, { signal: signal() }), "transient");
    assert.equal(err.retryable, true);
    assert.match(err.message, /503/);
    assert.deepEqual(clock.sleeps, [1_000, 2_000, 4_000]);
    assert.equal(fake.counts.injectedErrors, 6);
  });
});

Deno.test("GitHubClient.get: network errors are retried, then transient", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  const fake = await startFakeGitHub({ now: () => clock.now() });
  const url = fake.url;
  await fake.close();
  const c = new GitHubClient({ baseUrl: url, token: TOKEN, clock, log: silentLogger });
  const err = await rejectsWith(c.getRepository(WIDGETS, { signal: signal() }), "transient");
  assert.equal(c.stats.retries, 3);
  assert.equal(c.stats.requests, 0);
  assert.match(err.message, /network error after 3 retries/);
});

Deno.test("GitHubClient.get: 404, 403, 401 and 422 are typed", async () => {
  const clock = new ManualClock();
  await withFake({ now: () => clock.now(), validTokens: [TOKEN] }, async (fake) => {
    const c = client(fake, clock);
    const missing = await rejectsWith(
      c.getRepository({ owner: "octo", repo: "nope" }, { signal: signal() }),
      "not_found",
    );
    assert.match(missing.message, /^Cannot GET \/repos\/octo\/nope: GitHub answered 404/);
    // GitHub answers 404 (not 403) for a private repository the caller may not see: the message says so.
    assert.match(
      missing.message,
      /GitHub answers the same for a private repository (this token cannot see|without a token)/,
    );
    assert.equal(missing.retryable, false);
    const denied = await rejectsWith(
      c.getRepository({ owner: "octo", repo: "secret" }, { signal: signal() }),
      "access_denied",
    );
    assert.match(denied.message, /403.*Resource not accessible/);
    const badToken = new GitHubClient({ baseUrl: fake.url, token: "tok-wrong", clock, log: silentLogger });
    const unauthorized = await rejectsWith(
      badToken.getRepository(WIDGETS, { signal: signal() }),
      "access_denied",
    );
    assert.match(unauthorized.message, /401.*Bad credentials\. GitHub refused the token: check GITHUB_TOKEN, GH_TOKEN/);
    assert.ok(!unauthorized.message.includes("tok-wrong"), "the token itself is never in the message");
    const unknownSha = "c".repeat(40);
    await rejectsWith(c.getCheckRuns(WIDGETS, unknownSha, { signal: signal() }), "request_failed");
    await rejectsWith(c.getPull(WIDGETS, 39, { signal: signal() }), "not_found");
    assert.throws(() => c.getPull(WIDGETS, 0, { signal: signal() }), RangeError);
    assert.throws(() => c.getRepository({ owner: "octo", repo: "../x" }, { signal: signal() }), TypeError);
  });
});

Deno.test("GitHubClient: budget_exhausted before sending; a 304 costs nothing", async () => {
  const clock = new ManualClock();
  await withFake({ now: () => clock.now() }, async (fake) => {
    const c = client(fake, clock, { etagCache: new MemoryEtagCache() });
    const budget = new RequestBudget(3);
    await c.getRepository(WIDGETS, { signal: signal(), budget });
    await c.getPull(WIDGETS, 42, { signal: signal(), budget });
    assert.equal(budget.used, 2);
    const cached = await c.getPull(WIDGETS, 42, { signal: signal(), budget });
    assert.equal(cached.status, 304);
    assert.equal(budget.used, 2, "a free 304 gives its reservation back");
    await c.getCombinedStatusAll(WIDGETS, SCENARIO_SHA_FIRST, { signal: signal(), budget });
    assert.equal(budget.used, 3);
    assert.equal(budget.remaining, 0);
    const sent = fake.counts.total;
    const err = await rejectsWith(
      c.getPull(WIDGETS, 42, { signal: signal(), budget }),
      "budget_exhausted",
    );
    assert.match(err.message, /budget of 3/);
    assert.equal(fake.counts.total, sent, "nothing sent once the budget is spent, even a conditional request");
    // /rate_limit is free for the budget too.
    const rate = await c.getRateLimit({ signal: signal() });
    assert.equal(rate.data.resources.core?.remaining, 4997);
    assert.equal(c.stats.requests, 3);
    assert.equal(fake.counts.countedByKind.rate_limit, 0);
  });
});

Deno.test("GitHubClient: never more than GITHUB_CONCURRENCY_MAX requests in flight", async () => {
  const clock = new ManualClock();
  await withFake({ now: () => clock.now(), latencyMs: 30, generatedRepos: { "big/repo": 40 } }, async (fake) => {
    const c = client(fake, clock);
    const numbers = Array.from({ length: 10 }, (_, i) => (i + 1) * 4); // every 4th item is a PR
    const pulls = await Promise.all(numbers.map((n) => c.getPull(BIG_REPO, n, { signal: signal() })));
    assert.deepEqual(pulls.map((p) => p.data.number), numbers);
    assert.equal(fake.counts.maxInFlight, GITHUB_CONCURRENCY_MAX);
    assert.equal(c.inFlight, 0);
  });
});

Deno.test("GitHubClient: the token never appears in errors, logs or the SQLite file", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  const dir = await tempDir();
  const dbPath = `${dir}/longcall.db`;
  const lines: string[] = [];
  const log = createLogger("debug", { scope: "test", write: (line) => lines.push(line) });
  const texts: string[] = [];
  const capture = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof AppError, String(err));
      texts.push(err.message, JSON.stringify(err.toJobError()), String(err.stack), Deno.inspect(err));
      return err.code;
    }
    return "ok";
  };
  const store = openStore(dbPath);
  try {
    await withFake(
      { now: () => clock.now(), validTokens: [TOKEN], generatedRepos: { "big/repo": 120 } },
      async (fake) => {
        const cache: EtagCache = new SqliteEtagCache(store.etags, clock);
        const c = new GitHubClient({ baseUrl: fake.url, token: TOKEN, clock, log, etagCache: cache });
        const codes: string[] = [];
        codes.push(await capture(c.getRepository(WIDGETS, { signal: signal() })));
        codes.push(await capture(c.listIssues(BIG_REPO, { signal: signal() })));
        codes.push(await capture(c.getRepository({ owner: "octo", repo: "nope" }, { signal: signal() })));
        codes.push(await capture(c.getRepository({ owner: "octo", repo: "secret" }, { signal: signal() })));
        codes.push(await capture(c.getCheckRuns(WIDGETS, "d".repeat(40), { signal: signal() })));
        fake.failNext(4);
        codes.push(await capture(c.getPull(WIDGETS, 42, { signal: signal() })));
        fake.limitSecondaryNext(1, { retryAfterSec: 3_600 });
        codes.push(await capture(c.getPull(WIDGETS, 42, { signal: signal() })));
        clock.advance(3_700_000);
        codes.push(
          await capture(c.getPull(WIDGETS, 42, { signal: signal(), budget: new RequestBudget(0) })),
        );
        const stranger = new GitHubClient({ baseUrl: fake.url, token: `${TOKEN}-x`, clock, log });
        codes.push(await capture(stranger.getRepository(WIDGETS, { signal: signal() })));
        const closed = await startFakeGitHub({});
        const closedUrl = closed.url;
        await closed.close();
        const offline = new GitHubClient({ baseUrl: closedUrl, token: TOKEN, clock, log });
        codes.push(await capture(offline.getRepository(WIDGETS, { signal: signal() })));
        assert.deepEqual(codes, [
          "ok",
          "ok",
          "not_found",
          "access_denied",
          "request_failed",
          "transient",
          "rate_limited",
          "budget_exhausted",
          "access_denied",
          "transient",
        ]);
        assert.ok(fake.requests.every((r) => r.authenticated), "the token was actually sent");
        texts.push(Deno.inspect(c), JSON.stringify(c.stats));
      },
    );
  } finally {
    store.close();
  }
  try {
    assert.ok(lines.length > 0, "the error paths logged something");
    for (const text of [...texts, ...lines]) assert.ok(!text.includes("LEAKCANARY"), `token leaked in: ${text}`);
    let scanned = 0;
    for await (const entry of Deno.readDir(dir)) {
      const bytes = await Deno.readFile(`${dir}/${entry.name}`);
      scanned += bytes.length;
      assert.ok(!new TextDecoder("latin1").decode(bytes).includes("LEAKCANARY"), `token stored in ${entry.name}`);
    }
    assert.ok(scanned > 0);
    const rows = openStore(dbPath);
    try {
      assert.ok(rows.etags.etagCount() >= 3, "responses were cached, so the scan covered stored rows");
    } finally {
      rows.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GitHubClient: refuses to follow a next link outside the API root, and http tokens off loopback", async () => {
  const clock = new ManualClock();
  await withFake({ now: () => clock.now() }, async (fake) => {
    const c = client(fake, clock);
    await rejectsWith(c.get("https://evil.example/repos/octo/widgets", { signal: signal() }), "request_failed");
    assert.equal(fake.counts.total, 0);
  });
  assert.throws(
    () => new GitHubClient({ baseUrl: "http://example.com", token: TOKEN, clock, log: silentLogger }),
    (err: unknown) => err instanceof TypeError && !err.message.includes("LEAKCANARY"),
  );
  assert.equal(new GitHubClient({ clock, log: silentLogger }).authenticated, false);
  assert.equal(new GitHubClient({ clock, log: silentLogger, token: TOKEN }).baseUrl, "https://api.github.com");
});

Deno.test("MemoryEtagCache: bounded by entries and bytes, least recently used first", () => {
  const cache = new MemoryEtagCache({ entriesMax: 2, bytesMax: 9 });
  cache.put("a", { etag: "e1", body: "aaaa" });
  cache.put("b", { etag: "e2", body: "bbbb" });
  assert.equal(cache.get("a")?.body, "aaaa"); // a is now the most recent
  cache.put("c", { etag: "e3", body: "cc" });
  assert.equal(cache.get("b"), undefined, "b was least recently used");
  assert.equal(cache.size, 2);
  cache.put("d", { etag: "e4", body: "dddddddd" });
  assert.equal(cache.bytes, 8);
  assert.deepEqual([cache.get("a"), cache.get("c"), cache.get("d")?.etag], [undefined, undefined, "e4"]);
  cache.put("huge", { etag: "e5", body: "x".repeat(10) });
  assert.equal(cache.get("huge"), undefined);
});

Deno.test("EtagRows: prunes the oldest rows and refuses oversized bodies", async () => {
  const dir = await tempDir();
  const store = openStore(`${dir}/db.sqlite`);
  try {
    const rows = new EtagRows(storeConnection(store), { rowsMax: 3, bodyBytesMax: 16 });
    for (let i = 0; i < 5; i++) {
      assert.equal(
        await rows.etagPut({ url: `u${i}`, etag: `"e${i}"`, body: `{"i":${i}}`, stored_at: 1_000 + i }),
        true,
      );
    }
    assert.equal(rows.etagCount(), 3);
    assert.equal(rows.etagGet("u0"), undefined);
    assert.equal(rows.etagGet("u4")?.etag, '"e4"');
    assert.equal(await rows.etagPut({ url: "u4", etag: '"big"', body: "x".repeat(17), stored_at: 2_000 }), false);
    assert.equal(rows.etagGet("u4"), undefined, "a stale row is dropped when its replacement is too big");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseLinkHeader: reads GitHub's pagination links", () => {
  const header = '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"';
  assert.equal(nextLink(header), "https://api.github.com/x?page=2");
  assert.equal(parseLinkHeader(header).get("last"), "https://api.github.com/x?page=5");
  assert.equal(nextLink(null), undefined);
  assert.equal(nextLink('<https://api.github.com/x?page=1>; rel="prev"'), undefined);
});

Deno.test("GitHubClient.get: the per-request timeout aborts a slow answer, which is retried, then transient", async () => {
  const clock = new RecordingClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  await withFake({ now: () => clock.now(), latencyMs: 300 }, async (fake) => {
    const c = client(fake, clock, { requestTimeoutMs: 40 });
    const err = await rejectsWith(c.getRepository(WIDGETS, { signal: signal() }), "transient");
    assert.match(err.message, /TimeoutError/);
    assert.equal(c.stats.retries, 3);
    assert.deepEqual(clock.sleeps, [1_000, 2_000, 4_000]);
    assert.equal(fake.counts.total, 4);
  });
});

Deno.test("GitHubClient.getPaginated: a 304 without Link still follows the stored next link", async () => {
  const clock = new ManualClock();
  const dir = await tempDir();
  const store = openStore(`${dir}/longcall.db`);
  try {
    await withFake(
      { now: () => clock.now(), generatedRepos: { "big/repo": 250 }, omitLinkOn304: true },
      async (fake) => {
        for (const cache of [new MemoryEtagCache(), new SqliteEtagCache(store.etags, clock)]) {
          const c = client(fake, clock, { etagCache: cache });
          const first = await c.listIssues(BIG_REPO, { signal: signal() });
          const again = await c.listIssues(BIG_REPO, { signal: signal() });
          assert.deepEqual([first.pages, first.items.length, first.notModified], [3, 250, false]);
          assert.deepEqual([again.pages, again.items.length, again.notModified, again.complete], [3, 250, true, true]);
        }
        assert.ok(fake.requests.some((r) => r.status === 304));
      },
    );
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
