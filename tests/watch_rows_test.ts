/**
 * The watcher's verdicts on the cases where real GitHub is less kind than a naive fake (issue 11):
 * paged statuses, re-runs on one commit, late dependent jobs and queued suites, workflows waiting
 * for approval, completed runs without a conclusion, a pull request closed or merged mid-watch,
 * anonymous accounting, 13 MB check-run pages, failure details and required checks. In-process:
 * a real Executor + JobControl on a temp SQLite store, the real GitHubClient against the real
 * fake GitHub on loopback, time on a ManualClock shared with the fake.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-net=127.0.0.1 tests/watch_rows_test.ts
 */
import assert from "node:assert/strict";
import {
  GITHUB_ANONYMOUS_LIMIT_PER_HOUR,
  GITHUB_ETAG_BODY_BYTES_MAX,
  GITHUB_RESPONSE_BYTES_MAX,
  WATCH_ANNOTATION_MESSAGE_CHARS_MAX,
  WATCH_CHECK_RUNS_PER_PAGE_MIN,
  WATCH_FAILURE_ANNOTATIONS_MAX,
  WATCH_FAILURE_DETAILS_MAX,
  WATCH_FAILURE_SUMMARY_CHARS_MAX,
  WATCH_FAILURE_TITLE_CHARS_MAX,
  WATCH_REQUIRED_CHECKS_MAX,
  WATCH_SETTLE_MS_MIN,
} from "../src/base/limits.ts";
import { silentLogger } from "../src/base/log.ts";
import { latestRuns, normalizeChecks, verdictOf } from "../src/github/checks_state.ts";
import { GitHubClient, SqliteEtagCache } from "../src/github/client.ts";
import { clientObserver } from "../src/github/observer.ts";
import { WATCH_KIND, type WatchResult } from "../src/github/watch_kind.ts";
import { watchRunner } from "../src/github/watch_runner.ts";
import type { JobRow } from "../src/store/job_rows.ts";
import { type FakeGitHub, SCENARIO_PULL, type ScenarioName, type ScenarioStep } from "../testing/fake_github.ts";
import {
  type GitHubHarnessOptions,
  openGitHubHarness,
  productRequest,
  runJob,
  TERMINAL,
} from "../testing/github_jobs.ts";
import { waitForStatus } from "../testing/temp.ts";

const PR = { owner: SCENARIO_PULL.owner, repo: SCENARIO_PULL.repo, number: SCENARIO_PULL.number };

async function watchOn(
  scenario: ScenarioName | ScenarioStep[],
  input: Record<string, unknown> = {},
  options: Omit<GitHubHarnessOptions, "scenario"> = {},
): Promise<{ row: JobRow; result: WatchResult; fake: FakeGitHub; elapsedMs: number }> {
  await using h = await openGitHubHarness({ scenario, ...options });
  const done = await runJob<WatchResult>(h, { kind: WATCH_KIND, input: { ...PR, ...input } }, { timeoutMs: 30_000 });
  assert.equal(done.row.outcome, done.result.outcome, "the job's outcome is the watch outcome");
  const elapsedMs = Date.parse(done.result.finished_at) - Date.parse(done.result.started_at);
  return { ...done, fake: h.fake, elapsedMs };
}

const names = (r: WatchResult) => r.checks.map((c) => `${c.kind}:${c.name}:${c.app ?? "-"}:${c.conclusion}`);

// ---------------------------------------------------------------- statuses beyond one page

Deno.test("watch rows: 40 commit statuses with #35 failing are read over two pages and end failed", async () => {
  const { result, fake } = await watchOn("statuses_paged");
  assert.equal(result.outcome, "failed");
  assert.equal(result.summary.total, 41, "build + 40 statuses");
  assert.equal(result.summary.failed, 1);
  assert.deepEqual(result.failures.map((f) => `${f.kind}:${f.name}`), ["status:ci/shard-35"]);
  const statusReads = fake.requests.filter((r) => r.kind === "status").map((r) => r.path);
  assert.ok(statusReads.every((p) => p.includes("per_page=100")), "per_page=100 on every read");
  assert.deepEqual(result.coverage_gaps, []);
});

/** A client whose transport rewrites combined-status answers (between the real client and the real fake). */
function statusRewritingHarness(rewrite: (body: Record<string, unknown>, res: Response) => Response | undefined) {
  return {
    kinds: (
      store: Parameters<NonNullable<GitHubHarnessOptions["kinds"]>>[0],
      { baseUrl, clock }: Parameters<NonNullable<GitHubHarnessOptions["kinds"]>>[1],
    ) => [
      watchRunner({
        observer: () =>
          clientObserver(
            new GitHubClient({
              baseUrl,
              clock,
              log: silentLogger,
              etagCache: new SqliteEtagCache(store.etags, clock),
              fetch: async (input, init) => {
                const res = await fetch(input, init);
                const url = input instanceof Request ? input.url : String(input);
                if (!url.includes("/status?") || res.status !== 200) return res;
                const body = await res.json() as Record<string, unknown>;
                return rewrite(body, res) ?? new Response(JSON.stringify(body), res);
              },
            }),
          ),
      }),
    ],
  };
}

Deno.test("watch rows: statuses missing a page or a combined state they contradict end incomplete, never succeeded", async () => {
  const passing: ScenarioStep[] = [{
    atMs: 0,
    statuses: Array.from({ length: 130 }, (_, i) => ({ context: `ci/${i}`, state: "success" as const })),
  }];
  // The Link header is dropped: only the first 100 of total_count 130 are read.
  const noLink = statusRewritingHarness((body, res) => {
    const headers = new Headers(res.headers);
    headers.delete("link");
    headers.delete("content-length");
    return new Response(JSON.stringify(body), { status: 200, headers });
  });
  const cut = await watchOn(passing, {}, { ...noLink, omitLinkOn304: true } as GitHubHarnessOptions);
  assert.equal(cut.result.outcome, "incomplete");
  assert.match(cut.result.coverage_gaps.join(";"), /statuses: read 100 of 130/);
  // Every status reads success, but the combined state (over all of them) says failure.
  const lying = statusRewritingHarness((body, res) => {
    body.state = "failure";
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    return new Response(JSON.stringify(body), { status: 200, headers });
  });
  const contradicted = await watchOn(passing, {}, lying as GitHubHarnessOptions);
  assert.equal(contradicted.result.outcome, "incomplete");
  assert.match(contradicted.result.reason, /combined state is failure/);
});

// ---------------------------------------------------------------- re-runs on one commit

Deno.test("watch rows: a workflow re-triggered on the same SHA (old run failed, new passed) ends succeeded", async () => {
  const { result, fake, elapsedMs } = await watchOn("rerun_passed");
  assert.equal(result.outcome, "succeeded", result.reason);
  assert.equal(elapsedMs, 90_000, "the new run passes at 60 s, confirmed WATCH_SETTLE_MS_MIN (30 s) later");
  assert.equal(result.duplicates_dropped, 1, "the old failed build run is left out");
  assert.deepEqual(names(result), [
    "check_run:build:github-actions:success",
    "check_run:lint:github-actions:success",
    "check_run:lint:other-ci:success",
  ], "two apps reporting one name stay two checks");
  assert.ok(fake.counts.byKind.workflow_runs > 0, "workflow and event were read to tell re-runs apart");
});

Deno.test("watch rows: a re-run still in progress with fail_fast is pending until it ends", async () => {
  const { result, elapsedMs } = await watchOn("rerun_running", { fail_fast: true });
  assert.equal(result.outcome, "succeeded", result.reason);
  assert.equal(elapsedMs, 90_000, "pending until the new run passed at 60 s, confirmed 30 s later");
  // A failure of the new run is still a failure.
  const failing: ScenarioStep[] = [
    { atMs: -60_000, checks: [{ name: "build", status: "completed", conclusion: "failure", suite: "a" }] },
    {
      atMs: -10_000,
      checks: [
        { name: "build", status: "completed", conclusion: "failure", suite: "a" },
        { name: "build", status: "in_progress", suite: "b" },
      ],
      suites: [{ key: "a", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" }, {
        key: "b",
        status: "in_progress",
        workflow: "CI",
        event: "pull_request",
      }],
    },
    {
      atMs: 30_000,
      checks: [
        { name: "build", status: "completed", conclusion: "failure", suite: "a" },
        { name: "build", status: "completed", conclusion: "failure", suite: "b" },
      ],
    },
  ];
  const failed = await watchOn(failing, { fail_fast: true });
  assert.equal(failed.result.outcome, "failed");
  assert.equal(failed.elapsedMs, 30_000);
});

Deno.test("latestRuns: newest per name + app + workflow + event; other workflows, events and apps are kept", () => {
  const run = (fields: {
    id: number;
    name: string;
    suite: number;
    started: string;
    conclusion: string;
    app?: string;
  }) => {
    const { id, name, suite, started, conclusion, app = "github-actions" } = fields;
    return {
      id,
      name,
      status: "completed",
      conclusion,
      started_at: started,
      app: { slug: app },
      check_suite: { id: suite },
    };
  };
  const runs = [
    run({ id: 1, name: "build", suite: 10, started: "2026-01-01T00:00:00Z", conclusion: "failure" }),
    run({ id: 2, name: "build", suite: 11, started: "2026-01-01T00:05:00Z", conclusion: "success" }), // re-run of workflow 1 / pull_request
    run({ id: 3, name: "build", suite: 12, started: "2026-01-01T00:01:00Z", conclusion: "failure" }), // workflow 2: kept
    run({ id: 4, name: "build", suite: 13, started: "2026-01-01T00:02:00Z", conclusion: "failure" }), // workflow 1, event push: kept
    run({ id: 5, name: "build", suite: 14, started: "2026-01-01T00:03:00Z", conclusion: "failure", app: "other-ci" }), // another app: kept
  ];
  const workflows = new Map([
    [10, { workflow_id: 1, event: "pull_request" }],
    [11, { workflow_id: 1, event: "pull_request" }],
    [12, { workflow_id: 2, event: "pull_request" }],
    [13, { workflow_id: 1, event: "push" }],
  ]);
  const kept = latestRuns(runs, workflows);
  assert.deepEqual(kept.runs.map((r) => r.id).sort(), [2, 3, 4, 5]);
  assert.equal(kept.dropped, 1);
  // Without workflow information, runs of different suites are never collapsed on a guess.
  assert.equal(latestRuns(runs).dropped, 0);
});

// ---------------------------------------------------------------- late checks and suites

Deno.test("watch rows: a dependent workflow registering 5 s after the last green run is waited for", async () => {
  const { result, elapsedMs } = await watchOn("late_dependent");
  assert.equal(result.outcome, "succeeded");
  assert.deepEqual(names(result), [
    "check_run:build:github-actions:success",
    "check_run:deploy-preview:github-actions:success",
  ], "the late check is part of the verdict");
  assert.equal(
    elapsedMs,
    60_000,
    "green at 30 s; re-read at 40 s sees deploy-preview; it passes at 50 s; confirmed at 60 s",
  );
});

Deno.test("watch rows: a workflow registering 20 s after the last green run (a workflow_run follow-up) turns the verdict: the re-read waits WATCH_SETTLE_MS_MIN, not one 10 s interval", async () => {
  const green = [{ name: "build", status: "completed" as const, conclusion: "success" as const }];
  const steps: ScenarioStep[] = [
    { atMs: 0, checks: [{ name: "build", status: "in_progress" }] },
    { atMs: 30_000, checks: green },
    { atMs: 50_000, checks: [...green, { name: "e2e", status: "in_progress" }] },
    { atMs: 55_000, checks: [...green, { name: "e2e", status: "completed", conclusion: "failure" }] },
  ];
  const { result, elapsedMs } = await watchOn(steps, { poll_interval_ms: 10_000 });
  assert.equal(result.outcome, "failed", "a 10 s re-read (at 40 s) would have confirmed a false green");
  assert.equal(elapsedMs, WATCH_SETTLE_MS_MIN + 30_000, "green at 30 s; the re-read at 60 s sees e2e failed");
});

Deno.test("watch rows: no_checks with an Actions suite queued without runs says so (as gh, the suite alone is no check)", async () => {
  const steps: ScenarioStep[] = [{ atMs: 0, checks: [], suites: [{ key: "ci", status: "queued", workflow: "CI" }] }];
  const { result } = await watchOn(steps, { first_check_grace_ms: 30_000 });
  assert.equal(result.outcome, "no_checks");
  assert.equal(
    result.reason,
    "no check registered within 30000 ms; 1 check suite(s) queued or in progress without runs (their workflows " +
      "may still be waiting for a runner: watch again to wait longer)",
  );
  const plain = await watchOn("no_checks", { first_check_grace_ms: 30_000 });
  assert.equal(plain.result.reason, "no check registered within 30000 ms", "no suite: nothing added");
});

Deno.test("watch rows: a check suite still queued (no runs yet) holds succeeded; an idle non-Actions suite does not", async () => {
  const steps: ScenarioStep[] = [
    { atMs: 0, checks: [{ name: "build", status: "in_progress" }] },
    {
      atMs: 30_000,
      checks: [{ name: "build", status: "completed", conclusion: "success" }],
      suites: [{ key: "deploy", status: "queued", workflow: "Deploy" }],
    },
    {
      atMs: 45_000,
      checks: [{ name: "build", status: "completed", conclusion: "success" }, {
        name: "deploy",
        status: "queued",
        suite: "deploy",
      }],
      suites: [{ key: "deploy", status: "in_progress", workflow: "Deploy" }],
    },
    {
      atMs: 60_000,
      checks: [{ name: "build", status: "completed", conclusion: "success" }, {
        name: "deploy",
        status: "completed",
        conclusion: "success",
        suite: "deploy",
      }],
      suites: [{ key: "deploy", status: "completed", conclusion: "success", workflow: "Deploy" }],
    },
  ];
  const { result, elapsedMs } = await watchOn(steps);
  assert.equal(result.outcome, "succeeded");
  assert.equal(result.summary.total, 2, "deploy, registered at 45 s, is in the verdict");
  assert.equal(elapsedMs, 90_000, "deploy passes at 60 s, confirmed WATCH_SETTLE_MS_MIN (30 s) later");

  const idle: ScenarioStep[] = [{
    atMs: 0,
    checks: [{ name: "build", status: "completed", conclusion: "success" }],
    suites: [{ key: "never", app: "never-reports", status: "queued" }],
  }];
  const idleRun = await watchOn(idle);
  assert.equal(idleRun.result.outcome, "succeeded");
  assert.deepEqual(idleRun.result.suites, { total: 2, pending: 0, action_required: 0, idle: 1 });
});

Deno.test("verdictOf: a pending suite holds succeeded and failed (without fail_fast) but not a fail-fast failure", () => {
  const entries = normalizeChecks([{ name: "a", status: "completed", conclusion: "failure" }], []);
  const suites = [{
    id: 1,
    status: "in_progress",
    conclusion: null,
    app: { slug: "github-actions" },
    latest_check_runs_count: 0,
  }];
  assert.equal(verdictOf(entries, { coverageComplete: true, failFast: false, suites }), "pending");
  assert.equal(verdictOf(entries, { coverageComplete: true, failFast: true, suites }), "failed");
  const nullConclusion = normalizeChecks([{ name: "a", status: "completed", conclusion: null }], []);
  assert.equal(verdictOf(nullConclusion, { coverageComplete: true, failFast: false }), "pending");
});

// ---------------------------------------------------------------- approval, null conclusions, closed PRs

Deno.test("watch rows: a fork PR whose workflows await approval ends action_required, with the reason", async () => {
  const { result } = await watchOn("fork_approval");
  assert.equal(result.outcome, "action_required");
  assert.match(result.reason, /approv/);
  assert.equal(result.suites.action_required, 1);
  assert.equal(result.summary.passed, 1, "the external status passed; that alone is not a pass");
});

Deno.test("watch rows: a completed run with a null conclusion is pending (fail closed)", async () => {
  const short = await watchOn("null_conclusion", { timeout_ms: 30_000 });
  assert.equal(short.result.outcome, "timed_out");
  assert.equal(short.result.summary.pending, 1);
  assert.equal(short.result.checks[0]?.conclusion, null);
  const long = await watchOn("null_conclusion");
  assert.equal(long.result.outcome, "succeeded");
  assert.equal(long.elapsedMs, 90_000, "passes only once the conclusion is success (60 s), confirmed at 90 s");
});

Deno.test("watch rows: a pull request closed or merged during the watch ends within one poll", async () => {
  const closed = await watchOn("pr_closed");
  assert.equal(closed.result.outcome, "closed");
  assert.equal(closed.elapsedMs, 60_000);
  assert.equal(closed.result.pull_state, "closed");
  assert.equal(closed.result.merged, false);
  const merged = await watchOn("pr_merged");
  assert.equal(merged.result.outcome, "merged");
  assert.equal(merged.elapsedMs, 60_000);
  assert.equal(merged.result.merged, true);
  assert.match(merged.result.reason, /merged/);
});

// ---------------------------------------------------------------- anonymous accounting

Deno.test("watch rows: an anonymous watch books its 304s as counted and says what it costs", async () => {
  const { result, fake } = await watchOn("checks_pass");
  assert.equal(result.authenticated, false);
  assert.ok(result.not_modified_counted > 0);
  assert.equal(result.not_modified_counted, result.not_modified, "every anonymous 304 is counted");
  // What GitHub counts: every answer except /rate_limit, 304s included when anonymous.
  const countedByGitHub =
    fake.requests.filter((r) => r.kind !== "rate_limit" && (r.status !== 304 || !r.authenticated)).length;
  assert.equal(result.requests, countedByGitHub);
  const cost = result.anonymous_cost;
  assert.ok(cost !== undefined);
  assert.equal(cost.counted_not_modified, result.not_modified_counted);
  assert.ok(cost.counted_per_hour_at_interval > 60, "at 10 s an anonymous watch costs more than 60/h");
  assert.match(cost.note, /GITHUB_TOKEN/);
});

Deno.test("watch rows: an anonymous watch paces its polls to fit the 60/h limit instead of hitting it", async () => {
  const { result, fake } = await watchOn("flaky_unchanged", { timeout_ms: 30 * 60_000 }, {
    rateLimit: { anonymousLimit: 60 },
  });
  assert.equal(result.outcome, "succeeded", "both checks pass at 10 min");
  assert.equal(fake.counts.rateLimited, 0, "never refused");
  assert.ok((result.anonymous_cost?.paced_polls ?? 0) > 0, "poll waits were stretched");
  assert.ok(result.requests <= 60, `${result.requests} counted requests within the hour's 60`);
});

Deno.test("watch rows: an anonymous watch paces itself per rate-limit window, not against its whole history", async () => {
  // 60 requests a minute: a poll costs about 4, so the 10-s interval never has to stretch, in any window.
  const { result, fake } = await watchOn("flaky_unchanged", { timeout_ms: 30 * 60_000 }, {
    rateLimit: { anonymousLimit: 60, windowMs: 60_000 },
  });
  assert.equal(result.outcome, "succeeded");
  assert.equal(fake.counts.rateLimited, 0, "never refused");
  assert.ok(result.requests > 60, `${result.requests} counted requests: more than one window's worth`);
  assert.ok(result.polls >= 50, `${result.polls} polls in 10 min at a 10-s interval (a stall would give about 20)`);
});

// ---------------------------------------------------------------- 13 MB pages

Deno.test("watch rows: 100 check runs with 64 KB outputs (a 13 MB page) still complete, in smaller pages", async () => {
  const { result, fake } = await watchOn("huge_outputs", {}, { token: "test-token" });
  assert.equal(result.outcome, "succeeded", result.reason);
  assert.equal(result.summary.total, 100);
  const pages = fake.requests.filter((r) => r.kind === "check_runs").map((r) => new URL(r.path, "http://x"));
  assert.ok(pages.some((u) => u.searchParams.get("per_page") === "100"), "first asked for 100");
  const smaller = pages.filter((u) => Number(u.searchParams.get("per_page")) < 100);
  assert.ok(smaller.length > 0, "then for smaller pages");
  assert.ok(100 * 2 * 64 * 1024 / Number(smaller[0]?.searchParams.get("per_page")) < GITHUB_RESPONSE_BYTES_MAX);
});

Deno.test("watch rows: check-run pages over the ETag cache's bound shrink until cacheable, so an unchanged CI costs 304s", async () => {
  // 20 running checks with 2 x 30,000-character outputs: a 1.2 MB page, over GITHUB_ETAG_BODY_BYTES_MAX (1 MiB)
  // but under GITHUB_RESPONSE_BYTES_MAX, unchanged for 5 minutes.
  const output = { paddingBytes: 30_000 };
  const running = Array.from({ length: 20 }, (_, i) => ({ name: `job-${i}`, status: "in_progress" as const, output }));
  const done = running.map((c) => ({ ...c, status: "completed" as const, conclusion: "success" as const }));
  assert.ok(20 * 2 * output.paddingBytes > GITHUB_ETAG_BODY_BYTES_MAX, "one page of them is not cacheable");
  const steps: ScenarioStep[] = [{ atMs: 0, checks: running }, { atMs: 5 * 60_000, checks: done }];
  const { result, fake } = await watchOn(steps, {}, { token: "test-token" });
  assert.equal(result.outcome, "succeeded", result.reason);
  const checkRuns = fake.requests.filter((r) => r.kind === "check_runs");
  const perPage = checkRuns.map((r) => Number(new URL(r.path, "http://x").searchParams.get("per_page")));
  assert.deepEqual(perPage.slice(0, 4), [100, 50, 25, 12], "halved at each poll while a page is too large to keep");
  assert.ok(perPage.slice(3).every((n) => n === 12), "then kept: 12 x 60 KB is cacheable");
  const fresh = checkRuns.filter((r) => r.status === 200).length;
  const notModified = checkRuns.filter((r) => r.status === 304).length;
  assert.ok(notModified > 40, `${notModified} free 304s while CI was unchanged`);
  assert.ok(fresh <= 10, `${fresh} full check-run pages (the shrinking, then one per change)`);
});

// ---------------------------------------------------------------- why it failed

Deno.test("watch rows: a failed watch carries each failing check's URL, output and first annotations, read once", async () => {
  const { result, fake } = await watchOn("checks_fail");
  assert.equal(result.outcome, "failed");
  assert.equal(result.failures.length, 1);
  const f = result.failures[0];
  assert.ok(f !== undefined);
  assert.equal(f.name, "lint");
  assert.equal(f.conclusion, "failure");
  assert.match(f.html_url ?? "", /^https:\/\/github\.com\/octo\/widgets\/actions\/runs\/\d+\/job\/\d+$/);
  assert.equal(f.details_url, f.html_url);
  assert.equal(f.title, "2 problems (2 errors)");
  assert.match(f.summary ?? "", /eslint found 2 errors/);
  assert.equal(f.annotations_count, 2);
  assert.deepEqual(f.annotations.map((a) => `${a.path}:${a.start_line}:${a.message}`), [
    "src/widget.ts:12:'x' is assigned a value but never used.",
    "src/widget.ts:30:Missing return type on function.",
  ]);
  assert.equal(fake.counts.byKind.annotations, 1, "annotations are fetched once, when the verdict is reached");
});

Deno.test("watch rows: failure details are bounded: summary chars, annotations per check, failing checks", async () => {
  const failing = Array.from({ length: WATCH_FAILURE_DETAILS_MAX + 2 }, (_, i) => ({
    name: `test-${String(i).padStart(2, "0")}`,
    status: "completed" as const,
    conclusion: "failure",
    output: { title: "failed", summary: "y".repeat(WATCH_FAILURE_SUMMARY_CHARS_MAX + 1) },
    annotations: Array.from({ length: WATCH_FAILURE_ANNOTATIONS_MAX + 3 }, (_, j) => ({
      path: "a.ts",
      start_line: j + 1,
      message: "m".repeat(10_000),
    })),
  }));
  const { result, fake } = await watchOn([{ atMs: 0, checks: failing }], {}, { token: "test-token" });
  assert.equal(result.outcome, "failed");
  assert.equal(result.failures.length, WATCH_FAILURE_DETAILS_MAX);
  assert.equal(result.failures_truncated, true);
  const f = result.failures[0];
  assert.equal(f?.summary?.length, WATCH_FAILURE_SUMMARY_CHARS_MAX);
  assert.equal(f?.summary_truncated, true);
  assert.equal(f?.annotations.length, WATCH_FAILURE_ANNOTATIONS_MAX);
  assert.equal(f?.annotations_count, WATCH_FAILURE_ANNOTATIONS_MAX + 3);
  assert.ok((f?.annotations[0]?.message.length ?? 0) <= 500);
  const annotationReads = fake.requests.filter((r) => r.kind === "annotations");
  assert.equal(annotationReads.length, WATCH_FAILURE_DETAILS_MAX);
  assert.ok(annotationReads.every((r) => r.path.endsWith(`per_page=${WATCH_FAILURE_ANNOTATIONS_MAX}`)));
  // At the bound exactly: every failing check is detailed, nothing truncated.
  const atBound = await watchOn([{ atMs: 0, checks: failing.slice(0, WATCH_FAILURE_DETAILS_MAX) }], {}, {
    token: "test-token",
  });
  assert.equal(atBound.result.failures.length, WATCH_FAILURE_DETAILS_MAX);
  assert.equal(atBound.result.failures_truncated, false);
});

// ---------------------------------------------------------------- required checks

Deno.test("watch rows: required_only watches only the base branch's required checks; missing ones are pending", async () => {
  const all = await watchOn("required_checks");
  assert.equal(all.result.outcome, "failed", "every check: lint fails");
  const required = await watchOn("required_checks", { required_only: true });
  assert.equal(required.result.outcome, "succeeded", required.result.reason);
  assert.deepEqual(required.result.required_checks, ["build", "ci/legacy"]);
  assert.equal(required.result.required_only, true);
  assert.deepEqual(names(required.result), ["check_run:build:github-actions:success", "status:ci/legacy:-:success"]);
  assert.equal(required.elapsedMs, 70_000, "ci/legacy (required, missing until 40 s) was pending; confirmed at 70 s");
  assert.ok(
    required.result.transitions.some((t) => t.summary.pending > 0 && t.summary.total === 2),
    "the missing required check counted as pending",
  );
  assert.equal(required.fake.counts.byKind.rules, 1, "rules are read once");
});

Deno.test("watch rows: required_only on unreadable rules is a typed error; no required checks is no_checks", async () => {
  await using h = await openGitHubHarness({ scenario: "rules_forbidden" });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...PR, required_only: true }));
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 20_000 });
  assert.equal(row.status, "failed");
  assert.equal(row.error?.code, "required_checks_unavailable");
  assert.match(row.error?.message ?? "", /rules of branch main cannot be read/);

  const none = await watchOn("checks_pass", { required_only: true });
  assert.equal(none.result.outcome, "no_checks");
  assert.match(none.result.reason, /requires no status checks/);
});

Deno.test("watch rows: required_only where a ruleset requires workflows (checks it does not name) is a typed error, never a pass", async () => {
  // GitHub's `workflows` rule (repository-rule-workflows) gates the merge on a workflow's runs, which the rules do
  // not list as status checks: watching `build` alone could end succeeded while GitHub still blocks the merge.
  await using h = await openGitHubHarness({ scenario: "required_workflows" });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...PR, required_only: true }));
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 20_000 });
  assert.equal(row.status, "failed", JSON.stringify(row.result));
  assert.equal(row.error?.code, "required_checks_unavailable");
  assert.equal(row.error?.data?.["rule"], "workflows");
  assert.match(row.error?.message ?? "", /include a workflows rule, whose checks the rules do not name/);
  const all = await watchOn("required_workflows", {});
  assert.equal(all.result.outcome, "succeeded", "watching every check still works");
});

/** The required_checks timeline (build runs then passes, lint fails, ci/legacy reports at 40 s) with no rules. */
function requiredTimeline(first: Partial<ScenarioStep>): ScenarioStep[] {
  const lint = { name: "lint", status: "completed" as const, conclusion: "failure" };
  return [
    { atMs: 0, checks: [{ name: "build", status: "in_progress" }, lint], ...first },
    { atMs: 20_000, checks: [{ name: "build", status: "completed", conclusion: "success" }, lint] },
    { atMs: 40_000, statuses: [{ context: "ci/legacy", state: "success" }] },
  ];
}

Deno.test("watch rows: required_only on classic branch protection alone watches its required check, not no_checks", async () => {
  for (const enforcement_level of ["non_admins", "everyone"] as const) {
    const classic = await watchOn(
      requiredTimeline({ branchProtection: { enforcement_level, checks: [{ context: "build" }] } }),
      { required_only: true },
    );
    assert.equal(classic.result.outcome, "succeeded", `${enforcement_level}: ${classic.result.reason}`);
    assert.deepEqual(classic.result.required_checks, ["build"]);
    assert.deepEqual(names(classic.result), ["check_run:build:github-actions:success"], "lint is not required");
    assert.equal(classic.fake.counts.byKind.rules, 1, "rules are read once");
    assert.equal(classic.fake.counts.byKind.branch, 1, "the branch's protection is read once, one counted GET");
  }
  // A classic check bound to another app than the one reporting it stays pending.
  const otherApp = await watchOn(
    requiredTimeline({
      branchProtection: { enforcement_level: "everyone", checks: [{ context: "build", app_id: 7 }] },
    }),
    { required_only: true, timeout_ms: 60_000 },
  );
  assert.equal(otherApp.result.outcome, "timed_out", otherApp.result.reason);
  assert.deepEqual(names(otherApp.result), ["expected:build:-:null"]);
});

Deno.test("watch rows: required_only watches the union of rulesets and classic protection, each check once", async () => {
  const both = await watchOn(
    requiredTimeline({
      requiredChecks: [{ context: "build" }],
      branchProtection: {
        enforcement_level: "non_admins",
        checks: [{ context: "build" }, { context: "build", app_id: 15368 }, { context: "ci/legacy" }],
      },
    }),
    { required_only: true },
  );
  assert.equal(both.result.outcome, "succeeded", both.result.reason);
  assert.deepEqual(both.result.required_checks, ["build", "ci/legacy"], "each required name once");
  assert.deepEqual(
    names(both.result),
    ["check_run:build:github-actions:success", "status:ci/legacy:-:success"],
    "build of any app and build of GitHub Actions (15368) match one run, listed once",
  );
  assert.equal(both.elapsedMs, 70_000, "ci/legacy (required by classic protection only) was pending until 40 s");
});

Deno.test("watch rows: unreadable classic protection is required_checks_unavailable, never no_checks on a guess", async () => {
  for (const branchProtection of ["forbidden", "not_found"] as const) {
    for (const requiredChecks of [[], [{ context: "build" }]]) {
      await using h = await openGitHubHarness({
        scenario: [{
          atMs: 0,
          checks: [{ name: "build", status: "completed", conclusion: "success" }],
          requiredChecks,
          branchProtection,
        }],
      });
      const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...PR, required_only: true }));
      const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 20_000 });
      const what = `${branchProtection}, ${requiredChecks.length} ruleset check(s)`;
      assert.equal(row.status, "failed", what);
      assert.equal(row.error?.code, "required_checks_unavailable", what);
      assert.match(row.error?.message ?? "", /classic protection of branch main cannot be read/, what);
      assert.equal(row.error?.data?.source, "branch_protection", what);
    }
  }
});

Deno.test("watch rows: classic protection with enforcement_level off requires nothing", async () => {
  const off = await watchOn(
    requiredTimeline({ branchProtection: { enforcement_level: "off", checks: [{ context: "lint" }] } }),
    { required_only: true },
  );
  assert.equal(off.result.outcome, "no_checks", off.result.reason);
  assert.match(off.result.reason, /requires no status checks/);
  const offWithRules = await watchOn(
    requiredTimeline({
      requiredChecks: [{ context: "build" }],
      branchProtection: { enforcement_level: "off", checks: [{ context: "lint" }] },
    }),
    { required_only: true },
  );
  assert.equal(offWithRules.result.outcome, "succeeded", "the failing lint is not enforced");
  assert.deepEqual(offWithRules.result.required_checks, ["build"]);
});

// ---------------------------------------------------------------- bounds of issue 11

Deno.test("watch rows: one check run over the byte bound even at per_page=1 fails request_failed, after halving", async () => {
  const huge: ScenarioStep[] = [{
    atMs: 0,
    checks: [{
      name: "huge",
      status: "completed",
      conclusion: "success",
      output: { paddingBytes: Math.ceil(GITHUB_RESPONSE_BYTES_MAX / 2) + 1 },
    }],
  }];
  await using h = await openGitHubHarness({ scenario: huge, token: "test-token" });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, PR));
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 30_000 });
  assert.equal(row.status, "failed");
  assert.equal(row.error?.code, "request_failed");
  const perPage = h.fake.requests.filter((r) => r.kind === "check_runs").map((r) =>
    Number(new URL(r.path, "http://x").searchParams.get("per_page"))
  );
  assert.deepEqual(perPage, [100, 50, 25, 12, 6, 3, WATCH_CHECK_RUNS_PER_PAGE_MIN], "halved down to the minimum");
});

Deno.test("watch rows: titles and annotation messages are cut at their bounds; shorter ones are kept whole", async () => {
  const checks = [
    {
      name: "long",
      status: "completed" as const,
      conclusion: "failure",
      output: { title: "t".repeat(WATCH_FAILURE_TITLE_CHARS_MAX + 1), summary: "s" },
      annotations: [{ path: "a.ts", start_line: 1, message: "m".repeat(WATCH_ANNOTATION_MESSAGE_CHARS_MAX + 1) }],
    },
    {
      name: "exact",
      status: "completed" as const,
      conclusion: "failure",
      output: {
        title: "t".repeat(WATCH_FAILURE_TITLE_CHARS_MAX),
        summary: "s".repeat(WATCH_FAILURE_SUMMARY_CHARS_MAX),
      },
      annotations: [{ path: "a.ts", start_line: 1, message: "m".repeat(WATCH_ANNOTATION_MESSAGE_CHARS_MAX) }],
    },
  ];
  const { result } = await watchOn([{ atMs: 0, checks }], {}, { token: "test-token" });
  const [exact, long] = result.failures;
  assert.equal(exact?.name, "exact");
  assert.equal(exact?.title?.length, WATCH_FAILURE_TITLE_CHARS_MAX);
  assert.equal(exact?.summary?.length, WATCH_FAILURE_SUMMARY_CHARS_MAX);
  assert.equal(exact?.summary_truncated, false);
  assert.equal(exact?.annotations[0]?.message.length, WATCH_ANNOTATION_MESSAGE_CHARS_MAX);
  assert.equal(long?.title?.length, WATCH_FAILURE_TITLE_CHARS_MAX);
  assert.equal(long?.annotations[0]?.message.length, WATCH_ANNOTATION_MESSAGE_CHARS_MAX);
});

Deno.test("watch rows: required checks at the bound are watched; one more is required_checks_unavailable", async () => {
  const required = (n: number): ScenarioStep[] => [{
    atMs: 0,
    checks: [{ name: "build", status: "completed", conclusion: "success" }],
    requiredChecks: Array.from({ length: n }, (_, i) => ({ context: `req-${i}` })),
  }];
  const atBound = await watchOn(required(WATCH_REQUIRED_CHECKS_MAX), { required_only: true, timeout_ms: 10_000 });
  assert.equal(atBound.result.outcome, "timed_out", "every required check is missing: pending");
  assert.equal(atBound.result.required_checks?.length, WATCH_REQUIRED_CHECKS_MAX);
  assert.equal(atBound.result.summary.pending, Math.min(WATCH_REQUIRED_CHECKS_MAX, atBound.result.summary.total));
  await using h = await openGitHubHarness({ scenario: required(WATCH_REQUIRED_CHECKS_MAX + 1) });
  const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...PR, required_only: true }));
  const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 20_000 });
  assert.equal(row.error?.code, "required_checks_unavailable");
  assert.match(row.error?.message ?? "", new RegExp(`over the bound of ${WATCH_REQUIRED_CHECKS_MAX}`));
});

Deno.test("watch rows: without rate-limit headers an anonymous watch's cost assumes GitHub's 60/h", async () => {
  await using h = await openGitHubHarness({
    scenario: "checks_pass",
    kinds: (store, { baseUrl, clock }) => [
      watchRunner({
        observer: () =>
          clientObserver(
            new GitHubClient({
              baseUrl,
              clock,
              log: silentLogger,
              etagCache: new SqliteEtagCache(store.etags, clock),
              // Between the real client and the real fake: the x-ratelimit-* headers are dropped.
              fetch: async (input, init) => {
                const res = await fetch(input, init);
                const headers = new Headers(res.headers);
                for (const name of [...headers.keys()]) if (name.startsWith("x-ratelimit-")) headers.delete(name);
                return new Response(res.status === 304 ? null : await res.arrayBuffer(), {
                  status: res.status,
                  headers,
                });
              },
            }),
          ),
      }),
    ],
  });
  const { result } = await runJob<WatchResult>(h, { kind: WATCH_KIND, input: PR }, { timeoutMs: 20_000 });
  assert.equal(result.anonymous_cost?.hourly_limit, GITHUB_ANONYMOUS_LIMIT_PER_HOUR);
});

Deno.test("watch rows: workflow runs that cannot be read leave re-runs uncollapsed, so an old failure still counts", async () => {
  await using h = await openGitHubHarness({
    scenario: "rerun_passed",
    kinds: (store, { baseUrl, clock }) => [
      watchRunner({
        observer: () =>
          clientObserver(
            new GitHubClient({
              baseUrl,
              clock,
              log: silentLogger,
              etagCache: new SqliteEtagCache(store.etags, clock),
              // Between the real client and the real fake: a token without `actions: read`.
              fetch: (input, init) => {
                const url = input instanceof Request ? input.url : String(input);
                if (!url.includes("/actions/runs")) return fetch(input, init);
                return Promise.resolve(
                  new Response(JSON.stringify({ message: "Resource not accessible by integration", status: "403" }), {
                    status: 403,
                    headers: { "content-type": "application/json" },
                  }),
                );
              },
            }),
          ),
      }),
    ],
  });
  const { result } = await runJob<WatchResult>(h, { kind: WATCH_KIND, input: PR }, { timeoutMs: 20_000 });
  assert.equal(result.outcome, "failed", "fail closed: the old failed run is not dropped on a guess");
  assert.equal(result.duplicates_dropped, 0);
});
