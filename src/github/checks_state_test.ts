import assert from "node:assert/strict";
import {
  ACTIONS_APP_SLUG,
  type CheckEntry,
  type CheckRunLike,
  checksSignature,
  hasDuplicateRuns,
  latestRuns,
  normalizeChecks,
  requiredEntries,
  type StatusLike,
  type SuiteLike,
  summarize,
  summarizeSuites,
  type Verdict,
  verdictDetail,
  verdictOf,
  type VerdictOptions,
} from "./checks_state.ts";

let nextId = 1;
/** A completed GitHub Actions check run of `name` ending in `conclusion`; `options` overrides any other field. */
function run(name: string, conclusion: string | null, options: Partial<CheckRunLike> = {}): CheckRunLike {
  return {
    id: nextId++,
    name,
    status: "completed",
    conclusion,
    app: { id: 15368, slug: ACTIONS_APP_SLUG },
    ...options,
  };
}
function status(context: string, state: string): StatusLike {
  return { context, state };
}
/** A GitHub Actions check suite in `status` with `conclusion` and one run; `options` overrides any other field. */
function suite(status: string, conclusion: string | null, options: Partial<SuiteLike> = {}): SuiteLike {
  return { id: nextId++, status, conclusion, app: { slug: ACTIONS_APP_SLUG }, latest_check_runs_count: 1, ...options };
}

const DONE: VerdictOptions = { coverageComplete: true, failFast: false };

/** One row: check runs and statuses as GitHub lists them, the options, the verdict and its reason. */
const VERDICT_ROWS: ReadonlyArray<{
  name: string;
  runs?: CheckRunLike[];
  statuses?: StatusLike[];
  options?: Partial<VerdictOptions>;
  verdict: Verdict;
  reason: RegExp;
}> = [
  {
    name: "every check passed",
    runs: [run("build", "success"), run("lint", "success")],
    statuses: [status("ci/legacy", "success")],
    verdict: "succeeded",
    reason: /^3 of 3 checks passed$/,
  },
  {
    name: "neutral and skipped count as passed",
    runs: [run("build", "success"), run("docs", "neutral"), run("deploy", "skipped")],
    verdict: "succeeded",
    reason: /^3 of 3 checks passed$/,
  },
  {
    name: "a completed run with a null conclusion is pending (fail closed), never a pass",
    runs: [run("build", "success"), run("lint", null)],
    verdict: "pending",
    reason: /^1 of 2 checks pending$/,
  },
  {
    name: "a conclusion GitHub may add later is not terminal: pending",
    runs: [run("build", "some_new_conclusion")],
    verdict: "pending",
    reason: /^1 of 1 checks pending$/,
  },
  {
    name: "a run in progress is pending, whatever its conclusion field says",
    runs: [run("build", "success", { status: "in_progress" })],
    verdict: "pending",
    reason: /pending/,
  },
  {
    name: "a failure while another check runs waits without fail_fast",
    runs: [run("build", null, { status: "in_progress" }), run("lint", "failure")],
    verdict: "pending",
    reason: /^1 of 2 checks pending$/,
  },
  {
    name: "a failure while another check runs fails at once with fail_fast",
    runs: [run("build", null, { status: "in_progress" }), run("lint", "failure")],
    options: { failFast: true },
    verdict: "failed",
    reason: /^1 of 2 checks failed$/,
  },
  {
    name: "every failing conclusion fails once all are done",
    runs: ["failure", "cancelled", "timed_out", "action_required", "stale", "startup_failure"].map((c) => run(c, c)),
    statuses: [status("ci/legacy", "error")],
    verdict: "failed",
    reason: /^7 of 7 checks failed$/,
  },
  {
    name: "a pending legacy status holds the verdict",
    runs: [run("build", "success")],
    statuses: [status("ci/legacy", "pending")],
    verdict: "pending",
    reason: /^1 of 2 checks pending$/,
  },
  {
    name: "no checks at all is pending (GitHub registers checks late)",
    verdict: "pending",
    reason: /^no checks reported$/,
  },
  {
    name: "coverage not proven complete is incomplete, never succeeded",
    runs: [run("build", "success")],
    options: { coverageComplete: false },
    verdict: "incomplete",
    reason: /not every check or status/,
  },
  {
    name: "a suite still queued (its runs may not exist yet) holds succeeded",
    runs: [run("build", "success")],
    options: { suites: [suite("completed", "success"), suite("queued", null, { latest_check_runs_count: 0 })] },
    verdict: "pending",
    reason: /^1 check suite\(s\) still queued or in progress$/,
  },
  {
    name: "a pending suite holds a failure without fail_fast",
    runs: [run("lint", "failure")],
    options: { suites: [suite("in_progress", null)] },
    verdict: "pending",
    reason: /still queued or in progress/,
  },
  {
    name: "an idle queued suite of another app (never reports) does not hold the verdict",
    runs: [run("build", "success")],
    options: { suites: [suite("queued", null, { app: { slug: "some-app" }, latest_check_runs_count: 0 })] },
    verdict: "succeeded",
    reason: /^1 of 1 checks passed$/,
  },
  {
    name: "a suite waiting for approval with nothing else pending is action_required",
    runs: [run("build", "success")],
    options: { suites: [suite("completed", "action_required", { latest_check_runs_count: 0 })] },
    verdict: "action_required",
    reason: /^1 check suite\(s\) wait for approval/,
  },
  {
    name: "a suite waiting for approval with a failure is failed",
    runs: [run("lint", "failure")],
    options: { suites: [suite("completed", "action_required")] },
    verdict: "failed",
    reason: /^1 of 1 checks failed$/,
  },
  {
    name: "with required_only pending suites do not matter",
    runs: [run("build", "success")],
    options: { requiredOnly: true, suites: [suite("in_progress", null)] },
    verdict: "succeeded",
    reason: /^1 of 1 checks passed$/,
  },
];

for (const row of VERDICT_ROWS) {
  Deno.test(`verdictDetail(): ${row.name}`, () => {
    const entries = normalizeChecks(row.runs ?? [], row.statuses ?? []);
    const options = { ...DONE, ...row.options };
    const detail = verdictDetail(entries, options);
    assert.equal(detail.verdict, row.verdict, detail.reason);
    assert.match(detail.reason, row.reason);
    assert.equal(verdictOf(entries, options), row.verdict, "verdictOf is verdictDetail's verdict");
  });
}

Deno.test("verdictDetail(): a required check that has not reported is pending; with a waiting suite, action_required", () => {
  const entries = requiredEntries(normalizeChecks([run("build", "success")], []), [{ context: "build" }, {
    context: "e2e",
  }], { appIds: new Map() });
  assert.deepEqual(entries.map((e) => `${e.kind}:${e.name}`), ["check_run:build", "expected:e2e"]);
  assert.equal(verdictOf(entries, { ...DONE, requiredOnly: true }), "pending");
  const waiting = [suite("completed", "action_required", { latest_check_runs_count: 0 })];
  assert.equal(verdictOf(entries, { ...DONE, requiredOnly: true, suites: waiting }), "action_required");
  // Every required check passed: an optional workflow awaiting approval does not hold the verdict.
  const allPassed = requiredEntries(normalizeChecks([run("build", "success")], []), [{ context: "build" }], {
    appIds: new Map(),
  });
  assert.equal(verdictOf(allPassed, { ...DONE, requiredOnly: true, suites: waiting }), "succeeded");
  assert.equal(verdictOf(allPassed, { ...DONE, suites: waiting }), "action_required", "watching every check: it does");
});

Deno.test("latestRuns(): a re-run of one workflow keeps only the newest run, so an old failure no longer counts", () => {
  const workflows = new Map([[10, { workflow_id: 1, event: "pull_request" }], [11, {
    workflow_id: 1,
    event: "pull_request",
  }]]);
  const old = run("build", "failure", { started_at: "2026-01-01T00:00:00Z", check_suite: { id: 10 } });
  const rerun = run("build", "success", { started_at: "2026-01-01T00:10:00Z", check_suite: { id: 11 } });
  assert.ok(hasDuplicateRuns([old, rerun]));
  const { runs, dropped } = latestRuns([old, rerun], workflows);
  assert.deepEqual(runs, [rerun]);
  assert.equal(dropped, 1);
  assert.equal(verdictOf(normalizeChecks(runs, []), DONE), "succeeded");
  assert.equal(
    verdictOf(normalizeChecks([old, rerun], []), DONE),
    "failed",
    "without the dedupe the old failure counts",
  );
});

Deno.test("latestRuns(): a run not started yet is the newest; other workflows, events, apps and unknown suites are kept", () => {
  const workflows = new Map([
    [20, { workflow_id: 1, event: "push" }],
    [21, { workflow_id: 1, event: "pull_request" }],
    [22, { workflow_id: 2, event: "pull_request" }],
  ]);
  const push = run("test", "success", { started_at: "2026-01-01T00:00:00Z", check_suite: { id: 20 } });
  const pr = run("test", "failure", { started_at: "2026-01-01T00:01:00Z", check_suite: { id: 21 } });
  const other = run("test", "success", { started_at: "2026-01-01T00:02:00Z", check_suite: { id: 22 } });
  const unknownA = run("test", "success", { started_at: "2026-01-01T00:03:00Z", check_suite: { id: 30 } });
  const unknownB = run("test", "failure", { started_at: "2026-01-01T00:04:00Z", check_suite: { id: 31 } });
  const app = run("test", "success", { app: { id: 9, slug: "other-app" }, check_suite: { id: 40 } });
  assert.equal(latestRuns([push, pr, other, unknownA, unknownB, app], workflows).dropped, 0);

  const queued = run("lint", null, { status: "queued", started_at: null, check_suite: { id: 21 } });
  const earlier = run("lint", "failure", { started_at: "2026-01-01T00:05:00Z", check_suite: { id: 21 } });
  assert.deepEqual(latestRuns([earlier, queued], workflows).runs, [queued]);
});

Deno.test("latestRuns(): another app's runs of one name collapse to the newest; no workflows needed", () => {
  const a = run("ci", "failure", { app: { id: 9, slug: "circleci" }, started_at: "2026-01-01T00:00:00Z" });
  const b = run("ci", "success", { app: { id: 9, slug: "circleci" }, started_at: "2026-01-01T00:01:00Z" });
  assert.deepEqual(latestRuns([a, b]).runs, [b]);
  assert.equal(hasDuplicateRuns([a, run("ci", "success", { app: { id: 8, slug: "travis" } })]), false);
});

Deno.test("normalizeChecks(): runs and statuses become one list sorted by kind, name and app", () => {
  const entries = normalizeChecks(
    [
      run("z", "success", { id: 7, html_url: "https://h/7" }),
      run("a", "failure", { id: 8, status: "queued", details_url: "d", app: null }),
    ],
    [status("ci/b", "pending"), { context: "ci/a", state: "failure", target_url: "https://t/a" }],
  );
  assert.deepEqual(entries, [
    { kind: "check_run", name: "a", status: "queued", conclusion: null, details_url: "d", app: null, id: 8 },
    {
      kind: "check_run",
      name: "z",
      status: "completed",
      conclusion: "success",
      details_url: "https://h/7",
      app: ACTIONS_APP_SLUG,
      id: 7,
    },
    { kind: "status", name: "ci/a", status: "completed", conclusion: "failure", details_url: "https://t/a" },
    { kind: "status", name: "ci/b", status: "pending", conclusion: null, details_url: null },
  ]);
});

Deno.test("summarize() and summarizeSuites() count by state", () => {
  const entries: CheckEntry[] = normalizeChecks([run("a", "success"), run("b", "failure"), run("c", null)], [
    status("s", "pending"),
  ]);
  assert.deepEqual(summarize(entries), { total: 4, pending: 2, passed: 1, failed: 1 });
  assert.deepEqual(
    summarizeSuites([
      suite("completed", "success"),
      suite("completed", "action_required", { latest_check_runs_count: 0 }),
      suite("completed", "action_required", { latest_check_runs_count: 2 }),
      suite("queued", null, { latest_check_runs_count: 0 }),
      suite("queued", null, { app: { slug: "other" }, latest_check_runs_count: 0 }),
      suite("in_progress", null, { app: { slug: "other" } }),
    ]),
    { total: 6, pending: 2, action_required: 2, idle: 1 },
  );
});

Deno.test("requiredEntries(): a required check bound to an app matches only that app's run", () => {
  const entries = normalizeChecks([run("build", "success", { id: 100 }), run("build", "failure", { id: 101 })], []);
  const appIds = new Map([[100, 1], [101, 2]]);
  const bound = requiredEntries(entries, [{ context: "build", integration_id: 2 }], { appIds });
  assert.deepEqual(bound.map((e) => e.id), [101]);
  const missing = requiredEntries(entries, [{ context: "build", integration_id: 3 }], { appIds });
  assert.deepEqual(missing, [{
    kind: "expected",
    name: "build",
    status: "expected",
    conclusion: null,
    details_url: null,
  }]);
});

Deno.test("checksSignature(): equal for equal checks, different when a status or conclusion changes", async () => {
  const before = normalizeChecks([run("build", null, { status: "in_progress" })], [status("ci", "pending")]);
  const same = normalizeChecks([run("build", null, { status: "in_progress", details_url: "elsewhere" })], [
    status("ci", "pending"),
  ]);
  const after = normalizeChecks([run("build", "success")], [status("ci", "pending")]);
  const signature = await checksSignature(before);
  assert.match(signature, /^[0-9a-f]{64}$/);
  assert.equal(await checksSignature(same), signature, "a URL is not a material change");
  assert.notEqual(await checksSignature(after), signature);
});

Deno.test("requiredEntries(): a run two requirements match (ruleset and classic protection) is listed once", () => {
  const entries = normalizeChecks([run("build", "success", { id: 100 }), run("build", "failure", { id: 101 })], []);
  const appIds = new Map([[100, 1], [101, 2]]);
  const both = requiredEntries(entries, [{ context: "build" }, { context: "build", integration_id: 2 }], { appIds });
  assert.deepEqual(both.map((e) => e.id).sort(), [100, 101], "each run once, not 101 twice");
  const unmatched = requiredEntries(
    entries,
    [{ context: "lint" }, { context: "lint", integration_id: 2 }, { context: "build", integration_id: 3 }],
    { appIds },
  );
  assert.deepEqual(
    unmatched.map((e) => `${e.kind}:${e.name}`),
    ["expected:build", "expected:lint"],
    "one pending per name",
  );
});
