/**
 * The PR checks watcher (`github.wait_pull_request_checks`) driven in-process through a real
 * Executor + JobControl on a temp SQLite store, with the real GitHubClient against the real
 * fake GitHub on loopback. Time is a ManualClock shared by the job handlers and the fake
 * (`autoAdvance` makes every sleep jump time), so minutes of CI run in milliseconds.
 *
 * Every outcome on scripted timelines, the confirming re-read, free 304s, the transitions
 * bound, rate-limit waits on the injected clock (and their cancellation), progress and
 * poll guidance, the stored observation, and the default head.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-net=127.0.0.1 tests/watch_test.ts
 */
import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import {
  GITHUB_RETRIES_MAX,
  POLL_INTERVAL_MS_MIN,
  WATCH_FAILED_POLLS_MAX,
  WATCH_POLL_TIME_MIN_MS,
  WATCH_TRANSITIONS_MAX,
} from "../src/base/limits.ts";
import { countOf } from "../src/base/text.ts";
import { getPullRequestChecks } from "../src/corpus/get.ts";
import { checksSignature } from "../src/github/checks_state.ts";
import { watchResultOutput } from "../src/github/result_schemas.ts";
import { WATCH_KIND, type WatchResult } from "../src/github/watch_kind.ts";
import { requestsAbandonedAt } from "../src/github/watch_runner.ts";
import type { JobRow } from "../src/store/job_rows.ts";
import {
  type FakeGitHub,
  SCENARIO_PULL,
  SCENARIO_SHA_FIRST,
  SCENARIO_SHA_SECOND,
  type ScenarioStep,
} from "../testing/fake_github.ts";
import { type GitHubHarness, openGitHubHarness, productRequest, runJob, TERMINAL } from "../testing/github_jobs.ts";
import { assertMatchesAdvertised } from "../testing/output_schemas.ts";
import { waitFor, waitForStatus } from "../testing/temp.ts";

const PR = { owner: SCENARIO_PULL.owner, repo: SCENARIO_PULL.repo, number: SCENARIO_PULL.number };
const PR_REF = `${PR.owner}/${PR.repo}#${PR.number}`;

type WatchHarness = GitHubHarness;
const openWatchHarness = openGitHubHarness;

/** Submits a watch of the scenario PR and waits for the job to end. */
async function watch(
  h: WatchHarness,
  input: Record<string, unknown> = {},
): Promise<{ row: JobRow; result: WatchResult }> {
  const done = await runJob<WatchResult>(h, { kind: WATCH_KIND, input: { ...PR, ...input } }, { timeoutMs: 20_000 });
  assert.equal(done.row.outcome, done.result.outcome, "the job's outcome is the watch outcome");
  // Every outcome's result is what the tool's outputSchema advertises (clients validate it).
  assertMatchesAdvertised(watchResultOutput(), done.result, { what: `the ${done.result.outcome} watch result` });
  return done;
}

function elapsedMs(result: WatchResult): number {
  return Date.parse(result.finished_at) - Date.parse(result.started_at);
}

function storedChecks(h: WatchHarness) {
  return getPullRequestChecks(h.store.corpus, { pull_requests: [PR_REF] }).items[0];
}

// ---------------------------------------------------------------- outcomes

Deno.test("watch: checks_pass ends succeeded at 120 s after a confirming re-read WATCH_SETTLE_MS_MIN later; 304s are free", async () => {
  // Authorized: GitHub charges anonymous 304s (the fake too), so "free" needs a token.
  await using h = await openWatchHarness({ scenario: "checks_pass", token: "test-token" });
  const { result } = await watch(h);
  assert.equal(result.outcome, "succeeded");
  assert.equal(elapsedMs(result), 120_000, "all green at 90 s, confirmed WATCH_SETTLE_MS_MIN (30 s) later");
  // Polls at 0, 10, ..., 90 s (10), plus the confirming re-read at 100 s.
  assert.equal(result.polls, 11);
  assert.equal(h.fake.counts.byKind.pull, 1 + 11, "the head read at submission, then one pull read per poll");
  assert.equal(result.expected_head_sha, SCENARIO_SHA_FIRST);
  assert.equal(result.observed_head_sha, SCENARIO_SHA_FIRST);
  assert.deepEqual(result.summary, { total: 3, pending: 0, passed: 3, failed: 0 });
  assert.deepEqual(result.checks.map((c) => `${c.kind}:${c.name}:${c.conclusion}`), [
    "check_run:build:success",
    "check_run:lint:success",
    "status:ci/legacy:success",
  ]);
  assert.ok(result.checks.every((c) => typeof c.details_url === "string"), "details URLs are kept");
  assert.equal(result.checks_truncated, false);
  // Transitions: empty (0 s), queued (20 s), running (40 s), lint done (60 s), all done (90 s).
  assert.equal(result.transitions.length, 5);
  assert.equal(result.transitions_truncated, false);

  // Only changed representations are counted: the fake's charged answers are the result's requests.
  const c = h.fake.counts;
  assert.equal(result.requests, c.counted);
  assert.equal(result.not_modified, c.notModified);
  assert.equal(c.total, c.counted + c.free, "every request was a charged 200 or a free 304");
  assert.deepEqual(
    {
      pull: c.countedByKind.pull,
      check_runs: c.countedByKind.check_runs,
      status: c.countedByKind.status,
      check_suites: c.countedByKind.check_suites,
    },
    { pull: 1, check_runs: 5, status: 3, check_suites: 5 },
    "pull once; check runs and suites at 0/20/40/60/90 s; statuses at 0/20/90 s",
  );
  assert.equal(result.not_modified, 4 * result.polls + 1 - result.requests);
  assert.equal(result.not_modified_counted, 0, "with a token, 304s are free");
  assert.equal(result.authenticated, true);
  assert.equal(result.anonymous_cost, undefined);
  assert.equal(result.reason, "3 of 3 checks passed");
  assert.deepEqual(result.suites, { total: 1, pending: 0, action_required: 0, idle: 0 });
});

Deno.test("watch: the ETag cache is persisted, so a second watch of an unchanged PR costs no counted request", async () => {
  await using h = await openWatchHarness({ scenario: "checks_pass", token: "test-token" });
  h.clock.advance(120_000);
  const first = await watch(h);
  assert.equal(first.result.outcome, "succeeded");
  h.fake.resetCounts();
  const second = await watch(h);
  assert.equal(second.result.outcome, "succeeded");
  assert.equal(second.result.polls, 2);
  assert.equal(second.result.requests, 0);
  assert.equal(h.fake.counts.counted, 0);
  assert.equal(second.result.not_modified, h.fake.counts.notModified);
  assert.equal(h.fake.counts.notModified, 1 + 4 * 2);
});

Deno.test("watch: checks_fail without fail_fast waits for every check and ends failed at 90 s", async () => {
  await using h = await openWatchHarness({ scenario: "checks_fail" });
  const { result } = await watch(h);
  assert.equal(result.outcome, "failed");
  assert.equal(elapsedMs(result), 90_000);
  assert.equal(result.polls, 11);
  assert.deepEqual(result.summary, { total: 3, pending: 0, passed: 2, failed: 1 });
  const stored = storedChecks(h);
  assert.equal(stored?.item_status, "complete");
  assert.equal(stored?.value?.outcome, "failed");
});

Deno.test("watch: checks_fail with fail_fast ends failed at 60 s while build still runs", async () => {
  await using h = await openWatchHarness({ scenario: "checks_fail" });
  const { result } = await watch(h, { fail_fast: true });
  assert.equal(result.outcome, "failed");
  assert.equal(elapsedMs(result), 60_000);
  assert.equal(result.polls, 8, "polls at 0..60 s plus the confirming re-read");
  assert.deepEqual(result.summary, { total: 3, pending: 2, passed: 0, failed: 1 });
});

Deno.test("watch: a CI that never settles ends timed_out at the deadline, and is not stored", async () => {
  await using h = await openWatchHarness({ scenario: "flaky_unchanged" });
  const { result } = await watch(h, { timeout_ms: 300_000 });
  assert.equal(result.outcome, "timed_out");
  assert.equal(elapsedMs(result), 300_000);
  assert.equal(result.polls, 31, "polls at 0, 10, ..., 300 s");
  assert.equal(result.summary.pending, 2);
  assert.equal(storedChecks(h)?.item_status, "unavailable", "a timed-out watch stores nothing");
});

Deno.test("watch: a new push mid-watch ends superseded (confirmed), and is not stored", async () => {
  await using h = await openWatchHarness({ scenario: "new_push" });
  const { result } = await watch(h);
  assert.equal(result.outcome, "superseded");
  assert.equal(result.expected_head_sha, SCENARIO_SHA_FIRST, "the default head is the head at the first poll");
  assert.equal(result.observed_head_sha, SCENARIO_SHA_SECOND);
  assert.equal(elapsedMs(result), 60_000);
  assert.equal(result.polls, 8);
  assert.equal(storedChecks(h)?.item_status, "unavailable");
});

Deno.test("watch: a SHA just pushed that GitHub does not show as the head yet is waited for, not superseded", async () => {
  // The agent pushed the second commit and watches it at once; GitHub's pull request still shows the first head
  // until 60 s (the scenario's push).
  await using h = await openWatchHarness({ scenario: "new_push" });
  const { result } = await watch(h, { expected_head_sha: SCENARIO_SHA_SECOND });
  assert.equal(result.outcome, "succeeded", result.reason);
  assert.equal(result.observed_head_sha, SCENARIO_SHA_SECOND);
  assert.ok(elapsedMs(result) >= 130_000, "the second head's build passes at 130 s");
});

Deno.test("watch: a SHA that never becomes the head (GitHub does not know it) ends superseded after the grace, saying so", async () => {
  // GitHub answers 422 for the checks of a commit it does not know: they are not read while the head differs.
  await using h = await openWatchHarness({ scenario: "checks_pass" });
  const unknown = "f".repeat(40);
  const { result } = await watch(h, { expected_head_sha: unknown, first_check_grace_ms: 60_000 });
  assert.equal(result.outcome, "superseded");
  assert.match(result.reason, /^the pull request's head never became fffffff within 60000 ms; it is aaaaaaa/);
  assert.ok(elapsedMs(result) >= 60_000, `after the grace: ${elapsedMs(result)} ms`);
});

Deno.test("watch: the default head is the head at the first poll (after a push, the new head is watched)", async () => {
  await using h = await openWatchHarness({ scenario: "new_push" });
  h.clock.advance(70_000); // the push happened at 60 s
  const { result } = await watch(h);
  assert.equal(result.expected_head_sha, SCENARIO_SHA_SECOND);
  assert.equal(result.outcome, "succeeded");
  assert.equal(elapsedMs(result), 90_000, "the second head's build passes at 130 s, confirmed at 160 s");
  const stored = storedChecks(h);
  assert.equal(stored?.value?.head_sha, SCENARIO_SHA_SECOND);
});

Deno.test("watch: no check within the grace ends no_checks; zero checks before the grace is not terminal", async () => {
  await using h = await openWatchHarness({ scenario: "no_checks" });
  const { result } = await watch(h, { first_check_grace_ms: 60_000 });
  assert.equal(result.outcome, "no_checks");
  assert.equal(elapsedMs(result), 60_000);
  assert.equal(result.polls, 8, "polls at 0..60 s plus the confirming re-read");
  assert.equal(result.summary.total, 0);
  assert.equal(storedChecks(h)?.value?.outcome, "no_checks");

  await using late = await openWatchHarness({ scenario: "checks_pass" });
  const waited = await watch(late, { first_check_grace_ms: 30_000 });
  assert.equal(waited.result.outcome, "succeeded", "zero checks at 0 and 10 s did not end the watch");
  assert.equal(elapsedMs(waited.result), 120_000, "green at 90 s, confirmed 30 s later");

  await using none = await openWatchHarness({ scenario: "checks_pass" });
  const immediate = await watch(none, { first_check_grace_ms: 0 });
  assert.equal(immediate.result.outcome, "no_checks", "with no grace, zero checks is an answer at once");
  assert.equal(immediate.result.polls, 2);
  assert.equal(elapsedMs(immediate.result), 0);
});

Deno.test("watch: until change returns changed at the first material change, without a re-read", async () => {
  await using h = await openWatchHarness({ scenario: "checks_pass" });
  const { result } = await watch(h, { until: "change" });
  assert.equal(result.outcome, "changed");
  assert.equal(elapsedMs(result), 20_000, "checks register at 20 s");
  assert.equal(result.polls, 3);
  assert.equal(result.transitions.length, 2);
  assert.equal(result.summary.pending, 3);

  // Unchanged polls are coalesced: a long unchanged stretch is one transition.
  await using flaky = await openWatchHarness({ scenario: "flaky_unchanged" });
  flaky.clock.advance(20_000);
  const quiet = await watch(flaky, { until: "change" });
  assert.equal(quiet.result.outcome, "succeeded", "the first change after 10 min is the verdict, which wins");
  assert.equal(quiet.result.transitions.length, 2);
});

Deno.test("watch: coverage that cannot be proven (total_count > fetched) ends incomplete, never succeeded", async () => {
  // The fake's total_count always equals its check runs, so a fetch wrapper between the real
  // client and the real fake inflates total_count by one (as GitHub does when runs are hidden).
  const inflating: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!url.includes("/check-runs") || res.status !== 200) return res;
    const body = await res.json() as { total_count: number };
    body.total_count += 1;
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    return new Response(JSON.stringify(body), { status: 200, headers });
  };
  // The shipped wiring (its corpus write included), with the fault between the real client and the fake.
  await using h = await openWatchHarness({ scenario: "checks_pass", fetch: inflating });
  const { result } = await watch(h);
  assert.equal(result.outcome, "incomplete");
  assert.equal(elapsedMs(result), 90_000);
  assert.equal(result.polls, 11);
  assert.deepEqual(result.summary, { total: 3, pending: 0, passed: 3, failed: 0 });
  assert.equal(storedChecks(h)?.item_status, "unavailable", "an incomplete observation is not stored");
});

// ---------------------------------------------------------------- bounds

Deno.test("watch: transitions are bounded at 64 with transitions_truncated", async () => {
  const steps: ScenarioStep[] = Array.from({ length: 70 }, (_, i) => ({
    atMs: i * 10_000,
    checks: [{ name: "build", status: i % 2 === 0 ? "queued" : "in_progress" }],
  }));
  steps.push({ atMs: 700_000, checks: [{ name: "build", status: "completed", conclusion: "success" }] });
  await using h = await openWatchHarness({ scenario: steps });
  const { row, result } = await watch(h);
  assert.equal(result.outcome, "succeeded");
  assert.equal(result.polls, 72, "polls at 0..700 s plus the confirming re-read");
  assert.equal(result.transitions.length, WATCH_TRANSITIONS_MAX);
  // Waiting readers hear of every change, also past the kept list: the progress counts all of them.
  const seen = Number(/\b(\d+) transitions\b/.exec(row.progress_message ?? "")?.[1]);
  assert.ok(seen > WATCH_TRANSITIONS_MAX, `progress counts ${seen} transitions: ${row.progress_message}`);
  assert.equal(result.transitions_truncated, true);
  assert.equal(result.transitions[0]?.at, new Date(Date.parse(result.started_at)).toISOString());
  // The stored observation carries the final signature, not the last transition kept.
  const finalSignature = await checksSignature(result.checks);
  assert.notEqual(result.transitions.at(-1)?.signature, finalSignature);
  assert.equal(storedChecks(h)?.value?.signature, finalSignature);
});

// ---------------------------------------------------------------- rate limits

Deno.test("watch: a primary limit (remaining 0) is waited out on the injected clock until x-ratelimit-reset", async () => {
  await using h = await openWatchHarness({ scenario: "checks_pass" });
  h.fake.exhaustPrimary({ resetInMs: 5 * 60_000 });
  const realStart = Date.now();
  const { result } = await watch(h);
  assert.ok(Date.now() - realStart < 5_000, "five simulated minutes took no real minutes");
  assert.equal(h.fake.counts.rateLimited, 1, "one refused request, then silence until the reset");
  const [refused, next] = h.fake.requests;
  assert.equal(refused?.status, 403);
  assert.ok(next !== undefined && next.at - refused.at >= 5 * 60_000, "the next request waited for the reset");
  assert.equal(result.outcome, "succeeded", "after the reset, CI was already done");
});

Deno.test("watch: a secondary limit's retry-after is honoured on the injected clock", async () => {
  await using h = await openWatchHarness({ scenario: "checks_pass" });
  h.clock.advance(100_000);
  h.fake.limitSecondaryNext(1, { status: 429, retryAfterSec: 120 });
  const { result } = await watch(h);
  assert.equal(result.outcome, "succeeded");
  const [refused, next] = h.fake.requests;
  assert.equal(refused?.status, 429);
  assert.ok(next !== undefined && next.at - refused.at === 120_000, "waited exactly retry-after");
  assert.equal(h.fake.counts.rateLimited, 1);
});

Deno.test("watch: cancelling during a long rate-limit wait ends the job cancelled at once, without more requests", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1)); // no autoAdvance: the wait really parks
  await using h = await openWatchHarness({ scenario: "checks_pass", clock });
  h.fake.exhaustPrimary({ resetInMs: 10 * 60_000 }); // within the client's 15-minute wait bound
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, PR));
  await waitFor("the watcher to park in the rate-limit wait", () => clock.pendingSleeps === 1 && h.fake.counts.total);
  assert.equal(h.fake.counts.rateLimited, 1);
  // Poll guidance follows the reset, not a busy interval: capped at the 60 s maximum here.
  const parked = await waitForStatus(h.store, job.id, { status: ["running"] });
  await waitFor("the rate_limited phase to be written", () => h.store.rows.jobGet(job.id)?.phase === "rate_limited");
  const limited = h.store.rows.jobGet(job.id) ?? parked;
  assert.equal(h.control.pollAfterMs(limited), 60_000);
  assert.equal(
    limited.progress_message,
    "0 polls, 0 transitions; waiting for GitHub's rate limit to reset",
    "the counts lead every phase's message (the head SHA read was refused before the first poll)",
  );
  const cancelledAt = Date.now();
  assert.equal((await h.control.cancel(job.id)).effect, "requested");
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 5_000 });
  assert.equal(row.status, "cancelled");
  assert.ok(Date.now() - cancelledAt < 2_000, "cancelled within a moment, not after the 10-minute wait");
  assert.equal(clock.pendingSleeps, 0, "the wait was released");
  assert.equal(h.fake.counts.total, 1, "no request after the refusal");
});

Deno.test("watch: a rate-limit reset beyond the deadline is not waited for: rate_limited before any observation", async () => {
  await using h = await openWatchHarness({ scenario: "flaky_unchanged" });
  h.fake.exhaustPrimary({ resetInMs: 14 * 60_000 });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...PR, timeout_ms: 5 * 60_000 }));
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 10_000 });
  assert.equal(row.status, "failed");
  assert.equal(row.error?.code, "rate_limited");
  assert.equal(row.error?.retryable, true);
  assert.ok((row.error?.retry_after_ms ?? 0) >= 14 * 60_000, "says when to retry");
  assert.ok(h.clock.now() - Date.UTC(2026, 0, 1) < 5 * 60_000, "did not sit out the 14-minute reset");
  assert.equal(h.fake.counts.total, 1);
});

Deno.test("watch: a rate limit that outlasts the deadline mid-watch ends timed_out with the last observation", async () => {
  let pulls = 0;
  const ref: { fake?: FakeGitHub } = {};
  await using h = await openWatchHarness({
    scenario: "flaky_unchanged",
    // Between the real client and the real fake: the limit runs out after the third poll.
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.includes("/pulls/") && ++pulls === 5) ref.fake?.exhaustPrimary({ resetInMs: 20 * 60_000 });
      return fetch(input, init);
    },
  });
  ref.fake = h.fake;
  const { result } = await watch(h, { timeout_ms: 5 * 60_000 });
  assert.equal(result.outcome, "timed_out");
  assert.ok(elapsedMs(result) < 5 * 60_000, "answered at once instead of waiting 20 minutes for the reset");
  assert.equal(result.polls, 3);
  assert.equal(result.summary.pending, 2, "the last observation: both checks still running");
  assert.equal(h.fake.counts.rateLimited, 1);
  assert.equal(result.rate_limit?.remaining, 0, "the result shows why");
});

/** A watch of the passing scenario whose polls from the second on meet `failures` injected 502s on check runs. */
async function watchThroughOutage(failures: number) {
  let pulls = 0;
  const ref: { fake?: FakeGitHub } = {};
  const h = await openWatchHarness({
    scenario: "checks_pass",
    // Between the real client and the real fake: the outage starts at the second poll.
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (/\/pulls\/\d+$/.test(url) && ++pulls === 3) ref.fake?.failNext(failures, { kind: "check_runs" });
      return fetch(input, init);
    },
  });
  ref.fake = h.fake;
  return h;
}

Deno.test("watch: a GitHub outage of WATCH_FAILED_POLLS_MAX - 1 polls mid-watch is waited out; the verdict still comes", async () => {
  // Each failed poll is its check-runs read and its GITHUB_RETRIES_MAX retries.
  const perPoll = 1 + GITHUB_RETRIES_MAX;
  await using h = await watchThroughOutage((WATCH_FAILED_POLLS_MAX - 1) * perPoll);
  const { result } = await watch(h);
  assert.equal(result.outcome, "succeeded");
  assert.equal(h.fake.counts.injectedErrors, (WATCH_FAILED_POLLS_MAX - 1) * perPoll, "every injected 502 was met");
});

Deno.test("watch: WATCH_FAILED_POLLS_MAX unanswered polls in a row end it failed transient (retryable)", async () => {
  const perPoll = 1 + GITHUB_RETRIES_MAX;
  await using h = await watchThroughOutage(WATCH_FAILED_POLLS_MAX * perPoll + 100);
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, PR));
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 20_000 });
  assert.equal(row.status, "failed");
  assert.equal(row.error?.code, "transient");
  assert.equal(row.error?.retryable, true);
  assert.match(row.error?.message ?? "", new RegExp(`did not answer ${WATCH_FAILED_POLLS_MAX} polls in a row`));
  assert.equal(h.fake.counts.injectedErrors, WATCH_FAILED_POLLS_MAX * perPoll, "no poll after the last allowed");
});

Deno.test("watch: an outage that outlasts the deadline ends timed_out with the last observation", async () => {
  await using h = await watchThroughOutage(WATCH_FAILED_POLLS_MAX * (1 + GITHUB_RETRIES_MAX));
  const { result } = await watch(h, { timeout_ms: 60_000 });
  assert.equal(result.outcome, "timed_out");
  assert.match(result.reason, /GitHub did not answer at the deadline/);
  assert.equal(result.polls, 1, "only the first poll was answered");
  assert.equal(result.summary.total, 0, "the last observation, the first poll's (no check registered yet)");
});

Deno.test("watch: an unanswered poll is reported as the retrying phase, with the next poll as guidance", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1)); // moves only when the test says so
  await using h = await openWatchHarness({ scenario: "checks_pass", clock });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, PR));
  await waitFor("the first poll's sleep", () => clock.pendingSleeps === 1);
  h.fake.failNext(1 + GITHUB_RETRIES_MAX, { kind: "check_runs" });
  // Through the poll interval and the retries' backoff, a second at a time.
  const row = await waitFor("the retrying phase", () => {
    const r = h.store.rows.jobGet(job.id);
    if (r?.phase === "retrying") return r;
    if (clock.pendingSleeps === 1) clock.advance(1_000);
    return undefined;
  });
  assert.equal(
    row.progress_message,
    "1 poll, 1 transition; no answer from GitHub (transient) for 1 poll in a row; polling again in 10 s",
  );
  assert.equal(row.status, "running");
  // Stored on the wall clock (the handler's manual clock is mapped to it): the next poll ~10 s ahead.
  const ahead = (row.next_poll_at ?? 0) - Date.now();
  assert.ok(ahead > 8_000 && ahead <= 10_000, `next poll ${ahead} ms ahead`);
  await h.control.cancel(job.id);
  assert.equal((await waitForStatus(h.store, job.id, { status: TERMINAL })).status, "cancelled");
});

Deno.test("watch: an unanswered first poll ends the watch at once (nothing seen yet to wait with)", async () => {
  await using h = await openWatchHarness({ scenario: "checks_pass" });
  h.fake.failNext(1 + GITHUB_RETRIES_MAX, { kind: "pull" });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, PR));
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 20_000 });
  assert.equal(row.error?.code, "transient");
  assert.equal(h.fake.counts.injectedErrors, 1 + GITHUB_RETRIES_MAX);
});

/**
 * A harness whose GitHub stops answering once `hanging.now` is set (each fetch then never settles until aborted,
 * as on a hung connection). Its clock moves only when the test says so; when requests are abandoned is a real
 * timer (src/github/watch_runner.ts `requestsAbandonedAt`), so that still comes.
 */
async function hangingGitHub(hanging: { now: boolean }) {
  return await openWatchHarness({
    scenario: "checks_pass",
    clock: new ManualClock(Date.UTC(2026, 0, 1)),
    fetch: (input, init) => {
      if (!hanging.now) return fetch(input, init);
      return new Promise<Response>((_, reject) => {
        const signal = init?.signal;
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    },
  });
}

Deno.test("watch: GitHub hanging mid-watch carries it at most WATCH_POLL_TIME_MIN_MS past timeout_ms: timed_out with the last observation", async () => {
  // The first poll is answered; everything after hangs. Without the deadline inside the requests each would wait
  // GITHUB_REQUEST_TIMEOUT_MS (30 s) and be retried GITHUB_RETRIES_MAX times.
  const hanging = { now: false };
  await using h = await hangingGitHub(hanging);
  const job = await h.control.submit(
    WATCH_KIND,
    productRequest(WATCH_KIND, { ...PR, timeout_ms: 6_000, poll_interval_ms: 5_000 }),
  );
  await waitFor("the first poll's sleep", () => h.clock.pendingSleeps === 1);
  hanging.now = true;
  // The second poll starts, 1 s before the deadline, and hangs: abandoned WATCH_POLL_TIME_MIN_MS (5 s) later.
  h.clock.advance(5_000);
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 20_000 });
  const result = row.result as WatchResult;
  assertMatchesAdvertised(watchResultOutput(), result, { what: "the timed_out watch result" });
  assert.equal(result.outcome, "timed_out");
  assert.match(result.reason, /deadline \(timeout_ms\) came while GitHub had not answered; checks still pending/);
  assert.equal(result.polls, 1, "the first poll's observation");
});

Deno.test("requestsAbandonedAt(): at the deadline, but never sooner than WATCH_POLL_TIME_MIN_MS after the requests start", () => {
  const deadline = 60_000;
  assert.equal(requestsAbandonedAt(0, deadline), deadline, "long before: at the deadline");
  assert.equal(requestsAbandonedAt(deadline - WATCH_POLL_TIME_MIN_MS, deadline), deadline, "at the bound");
  assert.equal(requestsAbandonedAt(deadline - 1, deadline), deadline - 1 + WATCH_POLL_TIME_MIN_MS, "past it");
  assert.equal(requestsAbandonedAt(deadline, deadline), deadline + WATCH_POLL_TIME_MIN_MS, "the last poll, at it");
});

Deno.test("watch: the poll made at the deadline (the last) gets its answer: timed_out still pending, not 'GitHub had not answered'", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1)); // moves only when the test says so
  await using h = await openWatchHarness({ scenario: "flaky_unchanged", clock });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...PR, timeout_ms: 1_000 }));
  await waitFor("the first poll's sleep (1 s: up to the deadline)", () => clock.pendingSleeps === 1);
  // Real time past the deadline, so a timer armed for it at the start would have fired before the last poll.
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  clock.advance(1_000); // the last poll, at the deadline
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 20_000 });
  const result = row.result as WatchResult;
  assert.equal(result.outcome, "timed_out");
  assert.match(result.reason, /^still pending at the deadline/);
  assert.equal(result.polls, 2, "the last poll was answered");
});

Deno.test("watch: GitHub hanging from the first request ends the watch at the deadline, transient (retryable)", async () => {
  await using h = await hangingGitHub({ now: true });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...PR, timeout_ms: 1_000 }));
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 20_000 });
  assert.equal(row.status, "failed");
  assert.equal(row.error?.code, "transient");
  assert.equal(row.error?.retryable, true);
  assert.match(row.error?.message ?? "", /GitHub did not answer before the watch's deadline \(timeout_ms 1000\)/);
});

// ---------------------------------------------------------------- progress and guidance

Deno.test("watch: progress says waiting_for_checks with polls, and nextPollAt feeds JobControl.pollAfterMs", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1)); // moves only when the test says so
  await using h = await openWatchHarness({ scenario: "checks_pass", clock });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...PR, poll_interval_ms: 30_000 }));
  // The first guidance (the JobReference's poll_after_ms, the task's pollIntervalMs) is the first
  // scheduled GitHub poll, not the 250 ms floor: the first reading happens at once and a pending CI
  // can change only by then.
  assert.equal(job.status, "queued");
  assert.equal(h.control.pollAfterMs(job), 30_000 + POLL_INTERVAL_MS_MIN);
  await waitFor("the first poll's sleep", () => clock.pendingSleeps === 1);
  const row = await waitFor("the first poll's progress", () => {
    const r = h.store.rows.jobGet(job.id);
    return r?.progress_message?.startsWith("1 poll,") ? r : undefined;
  });
  assert.equal(row.status, "running");
  assert.equal(row.phase, "waiting_for_checks");
  assert.match(row.progress_message ?? "", /^1 poll, 1 transition; 0 passed, 0 failed, 0 pending$/);
  assert.ok(row.next_poll_at !== null && row.next_poll_at > Date.now() + 25_000, "next poll ~30 s ahead");
  const after = h.control.pollAfterMs(row);
  assert.ok(after !== undefined && after >= 28_000 && after <= 31_000, `poll_after_ms ${after} follows the next poll`);

  clock.advance(30_000);
  await waitFor("the second poll", () => h.store.rows.jobGet(job.id)?.progress_message?.startsWith("2 polls"));
  clock.advance(30_000);
  const third = await waitFor("the third poll (60 s: lint done, build running, legacy pending)", () => {
    const r = h.store.rows.jobGet(job.id);
    return r?.progress_message?.startsWith("3 polls") ? r : undefined;
  });
  assert.equal(third.total_items, 3);
  assert.equal(third.completed_items, 1);
  await h.control.cancel(job.id);
  assert.equal((await waitForStatus(h.store, job.id, { status: TERMINAL })).status, "cancelled");
});

Deno.test("watch: the confirming phase shows the counts of the reading it confirms, not the last poll's", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1)); // moves only when the test says so
  await using h = await openWatchHarness({ scenario: "checks_pass", clock });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...PR, poll_interval_ms: 30_000 }));
  // Polls at 0, 30 and 60 s see CI pending (at 60 s: lint done, 1 of 3); at 90 s all three passed.
  for (const polls of [1, 2, 3]) {
    const counted = `${countOf(polls, "poll")},`;
    await waitFor(`poll ${polls}`, () => h.store.rows.jobGet(job.id)?.progress_message?.startsWith(counted));
    await waitFor(`poll ${polls}'s sleep`, () => clock.pendingSleeps === 1);
    clock.advance(30_000);
  }
  const confirming = await waitFor("the confirming phase", () => {
    const r = h.store.rows.jobGet(job.id);
    return r?.phase === "confirming" ? r : undefined;
  });
  assert.equal(confirming.status, "running");
  assert.equal(confirming.total_items, 3);
  assert.equal(confirming.completed_items, 3, "all three passed in the reading being confirmed");
  assert.equal(
    confirming.progress_message,
    "4 polls, 4 transitions; 3 passed, 0 failed, 0 pending; succeeded unless a check registers within 30 s",
  );
  await waitFor("the confirming sleep", () => clock.pendingSleeps === 1);
  clock.advance(30_000);
  const done = await waitForStatus(h.store, job.id, { status: TERMINAL });
  assert.equal(done.outcome, "succeeded");
});

// ---------------------------------------------------------------- stored observation

Deno.test("watch: the last complete observation is stored and readable offline via getPullRequestChecks", async () => {
  await using h = await openWatchHarness({ scenario: "checks_pass" });
  const before = storedChecks(h);
  assert.equal(before?.item_status, "unavailable");
  assert.equal(before?.reason, "not_synced");
  const { result } = await watch(h);
  const answer = getPullRequestChecks(h.store.corpus, { pull_requests: [PR_REF, "octo/widgets#7"] });
  assert.equal(answer.batch_status, "partial");
  const item = answer.items[0];
  assert.equal(item?.item_status, "complete");
  const v = item?.value;
  assert.ok(v !== undefined);
  assert.equal(v.ref, PR_REF);
  assert.equal(v.head_sha, SCENARIO_SHA_FIRST);
  assert.equal(v.outcome, "succeeded");
  assert.equal(v.signature, result.signature);
  assert.equal(
    v.signature,
    result.transitions.at(-1)?.signature,
    "no truncation: the last transition is the final state",
  );
  assert.deepEqual(v.checks, result.checks);
  assert.equal(v.synced_at, result.finished_at);
  assert.equal(answer.items[1]?.reason, "not_synced", "never watched: unknown, not absent");
});
