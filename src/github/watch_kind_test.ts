import assert from "node:assert/strict";
import {
  checksObservationOf,
  WATCH_KIND,
  WATCH_OUTCOMES,
  watchFirstPollMs,
  type WatchOutcome,
  watchPolicy,
  type WatchResult,
} from "./watch_kind.ts";

/** A finished watch's result, every field set, overridden field by field. */
function watchResultOf(over: Partial<WatchResult> = {}): WatchResult {
  const summary = { total: 1, pending: 0, passed: 1, failed: 0 };
  return {
    outcome: "succeeded",
    reason: "every check passed",
    repository: "octo/widgets",
    number: 7,
    expected_head_sha: "a".repeat(40),
    observed_head_sha: "b".repeat(40),
    pull_state: "open",
    merged: false,
    required_only: false,
    summary,
    suites: { total: 1, pending: 0, action_required: 0, idle: 0 },
    duplicates_dropped: 0,
    coverage_gaps: [],
    failures: [],
    failures_truncated: false,
    signature: "final-signature",
    checks: [{ kind: "check_run", name: "ci", status: "completed", conclusion: "success", details_url: null }],
    checks_truncated: false,
    transitions: [{ at: "2026-01-01T00:00:10.000Z", signature: "older-signature", summary }],
    transitions_truncated: true,
    polls: 3,
    requests: 9,
    not_modified: 2,
    not_modified_counted: 0,
    authenticated: true,
    started_at: "2026-01-01T00:00:00.000Z",
    finished_at: "2026-01-01T00:01:00.000Z",
    ...over,
  };
}

Deno.test("WATCH_OUTCOMES: ten distinct outcomes, succeeded first", () => {
  assert.equal(WATCH_OUTCOMES.length, 10);
  assert.equal(new Set(WATCH_OUTCOMES).size, WATCH_OUTCOMES.length);
  assert.equal(WATCH_OUTCOMES[0], "succeeded");
});

Deno.test("watchPolicy: its kind is the watch's, and the job's outcome is the watch outcome, each one", () => {
  assert.equal(watchPolicy.kind, WATCH_KIND);
  assert.equal(WATCH_KIND, "github.wait_pull_request_checks");
  for (const outcome of WATCH_OUTCOMES) {
    assert.equal(watchPolicy.outcome?.(watchResultOf({ outcome })), outcome);
  }
});

Deno.test("watchPolicy.firstPollAfterMs: the first scheduled poll, the timeout when it is sooner", () => {
  const first = (poll_interval_ms: number, timeout_ms: number) =>
    watchPolicy.firstPollAfterMs?.({ poll_interval_ms, timeout_ms, owner: "o", repo: "r", number: 1 });
  assert.equal(first(10_000, 30 * 60_000), 10_000, "interval sooner");
  assert.equal(first(10_000, 10_000), 10_000, "equal");
  assert.equal(first(10_000, 9_999), 9_999, "timeout sooner");
});

Deno.test("watchFirstPollMs: the smaller of the poll interval and the timeout", () => {
  assert.equal(watchFirstPollMs({ poll_interval_ms: 5_000, timeout_ms: 1_000 }), 1_000);
  assert.equal(watchFirstPollMs({ poll_interval_ms: 5_000, timeout_ms: 5_001 }), 5_000);
});

Deno.test("watchPolicy.materialProgress: a poll counter change is not material, a transition count change is", () => {
  const material = (m: string | null) => watchPolicy.materialProgress?.(m);
  const base = material("4 polls, 2 transitions; 1 passed, 0 failed, 2 pending");
  assert.equal(base, "2");
  assert.equal(material("9 polls, 2 transitions; 1 passed, 0 failed, 2 pending"), base, "another poll");
  assert.notEqual(material("5 polls, 3 transitions; 1 passed, 0 failed, 2 pending"), base, "a new transition");
  assert.equal(material("5 polls, 12 transitions; 1 passed, 0 failed, 2 pending"), "12", "the whole count");
  assert.equal(material("1 poll, 1 transition; 0 passed, 0 failed, 0 pending"), "1", "singular");
  assert.equal(material("7 polls, 0 transitions; waiting for GitHub's rate limit to reset"), "0", "rate limited");
  assert.equal(
    material("3 polls, 0 transitions; no_checks unless a check registers within 180 s"),
    "0",
    "the grace message counts transitions too",
  );
});

Deno.test("watchPolicy.materialProgress: no message, or one without a transition count, has no material part", () => {
  const material = (m: string | null) => watchPolicy.materialProgress?.(m);
  assert.equal(material(null), undefined);
  assert.equal(material(""), undefined);
  assert.equal(material("watching octo/widgets#7"), undefined);
  assert.equal(material("4 polls, 2transitions"), undefined, "the word must stand alone");
  assert.equal(material("4 polls, x transitions"), undefined, "the count must be digits");
});

Deno.test("checksObservationOf: the corpus record is the final observation, timed at the watch's end", () => {
  const r = watchResultOf();
  assert.deepEqual(checksObservationOf(r), {
    repository: "octo/widgets",
    number: 7,
    head_sha: "b".repeat(40),
    outcome: "succeeded",
    signature: "final-signature",
    checks: r.checks,
    observed_at: Date.UTC(2026, 0, 1, 0, 1),
  });
});

Deno.test("checksObservationOf: keeps the watch's outcome, whichever it is", () => {
  for (const outcome of ["failed", "merged", "closed"] satisfies WatchOutcome[]) {
    assert.equal(checksObservationOf(watchResultOf({ outcome })).outcome, outcome);
  }
});

Deno.test("watchPolicy.subject: the pull request", () => {
  assert.equal(watchPolicy.subject?.({ owner: "octo", repo: "widgets", number: 42 }), "octo/widgets#42");
});
