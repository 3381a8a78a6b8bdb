import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import { GITHUB_RATE_LIMIT_RESET_SLACK_MS, GITHUB_RATE_LIMIT_WAIT_MS_MIN } from "../base/limits.ts";
import {
  emptyRateLimitState,
  parseRateLimitHeaders,
  parseRetryAfterMs,
  rateLimitWait,
  RequestBudget,
} from "./rate_limit.ts";

const NOW = Date.parse("2026-01-01T00:00:00Z");

Deno.test("parseRateLimitHeaders() reads every x-ratelimit-* header, reset in epoch ms", () => {
  const headers = new Headers({
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4999",
    "x-ratelimit-used": "1",
    "x-ratelimit-reset": "1767225600",
    "x-ratelimit-resource": "core",
  });
  assert.deepEqual(parseRateLimitHeaders(headers), {
    limit: 5000,
    remaining: 4999,
    used: 1,
    reset_at: 1767225600_000,
    resource: "core",
  });
});

Deno.test("parseRateLimitHeaders() is undefined without a readable header and null for a non-integer one", () => {
  assert.equal(parseRateLimitHeaders(new Headers()), undefined);
  assert.equal(
    parseRateLimitHeaders(new Headers({ "x-ratelimit-remaining": "-1", "x-ratelimit-limit": "6.5" })),
    undefined,
  );
  assert.deepEqual(
    parseRateLimitHeaders(new Headers({ "x-ratelimit-remaining": " 7 ", "x-ratelimit-limit": "6.5" })),
    { ...emptyRateLimitState(), remaining: 7 },
  );
});

Deno.test("parseRetryAfterMs() reads delta seconds and an HTTP date; a past date is 0, garbage undefined", () => {
  assert.equal(parseRetryAfterMs(new Headers(), NOW), undefined);
  assert.equal(parseRetryAfterMs(new Headers({ "retry-after": "30" }), NOW), 30_000);
  assert.equal(parseRetryAfterMs(new Headers({ "retry-after": "0" }), NOW), 0);
  const inAMinute = new Date(NOW + 60_000).toUTCString();
  assert.equal(parseRetryAfterMs(new Headers({ "retry-after": inAMinute }), NOW), 60_000);
  const past = new Date(NOW - 60_000).toUTCString();
  assert.equal(parseRetryAfterMs(new Headers({ "retry-after": past }), NOW), 0);
  assert.equal(parseRetryAfterMs(new Headers({ "retry-after": "soon" }), NOW), undefined);
});

/** A call that has made no secondary-limit wait yet. */
const FIRST = { secondaryWaits: 0 };

Deno.test("rateLimitWait() only classifies 403 and 429", () => {
  const limited = new Headers({ "retry-after": "5", "x-ratelimit-remaining": "0" });
  for (const status of [200, 304, 401, 404, 422, 500]) {
    assert.equal(
      rateLimitWait({ status, headers: limited, message: "API rate limit exceeded" }, NOW, FIRST),
      undefined,
      String(status),
    );
  }
});

Deno.test("rateLimitWait() prefers retry-after, then the primary reset (plus slack), then a secondary backoff", () => {
  const reset = String((NOW + 90_000) / 1000);
  assert.deepEqual(
    rateLimitWait(
      {
        status: 403,
        headers: new Headers({ "retry-after": "7", "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }),
        message: "",
      },
      NOW,
      FIRST,
    ),
    { kind: "retry_after", waitMs: 7_000 },
  );
  assert.deepEqual(
    rateLimitWait(
      { status: 403, headers: new Headers({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }), message: "" },
      NOW,
      FIRST,
    ),
    { kind: "primary", waitMs: 90_000 + GITHUB_RATE_LIMIT_RESET_SLACK_MS },
  );
  // A reset already past still waits the slack, never a negative time.
  const past = String((NOW - 10_000) / 1000);
  assert.deepEqual(
    rateLimitWait(
      { status: 429, headers: new Headers({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": past }), message: "" },
      NOW,
      FIRST,
    ),
    { kind: "primary", waitMs: GITHUB_RATE_LIMIT_RESET_SLACK_MS },
  );
});

Deno.test("rateLimitWait() backs a secondary limit off from a minute, doubling per wait already made", () => {
  const message = "You have exceeded a secondary rate limit";
  for (const [waits, factor] of [[0, 1], [1, 2], [3, 8]] as const) {
    assert.deepEqual(rateLimitWait({ status: 403, headers: new Headers(), message }, NOW, { secondaryWaits: waits }), {
      kind: "secondary",
      waitMs: GITHUB_RATE_LIMIT_WAIT_MS_MIN * factor,
    });
  }
  // GitHub's older wording of a secondary limit, with no retry-after and a budget left: a limit, not a denial.
  const abuse = "You have triggered an abuse detection mechanism. Please wait a few minutes before you try again.";
  const budgetLeft = new Headers({ "x-ratelimit-remaining": "4000" });
  assert.equal(rateLimitWait({ status: 403, headers: budgetLeft, message: abuse }, NOW, FIRST)?.kind, "secondary");
  // A 429 is a limit even without a hint; so is remaining 0 without a reset.
  assert.equal(rateLimitWait({ status: 429, headers: new Headers(), message: "" }, NOW, FIRST)?.kind, "secondary");
  assert.equal(
    rateLimitWait({ status: 403, headers: new Headers({ "x-ratelimit-remaining": "0" }), message: "" }, NOW, FIRST)
      ?.kind,
    "secondary",
  );
});

Deno.test("rateLimitWait() leaves a plain 403 (a permission denial) unclassified", () => {
  const headers = new Headers({ "x-ratelimit-remaining": "4000", "x-ratelimit-reset": String(NOW / 1000) });
  assert.equal(
    rateLimitWait({ status: 403, headers, message: "Resource not accessible by integration" }, NOW, FIRST),
    undefined,
  );
});

Deno.test("RequestBudget: reserves up to max, then budget_exhausted; a release gives the unit back", () => {
  const budget = new RequestBudget(2);
  budget.reserve("GET /a");
  budget.commit();
  budget.reserve("GET /b");
  assert.equal(budget.remaining, 0, "the reserved request is not left for another");
  assert.throws(() => budget.reserve("GET /c"), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, "budget_exhausted");
    assert.deepEqual(err.data, { budget: 2, used: 1 });
    assert.match(err.message, /Cannot send GET \/c: the request budget of 2 is spent \(used 1\)/);
    return true;
  });
  budget.release(); // the request in flight was a free 304
  assert.equal(budget.used, 1);
  assert.equal(budget.remaining, 1);
  budget.reserve("GET /c");
  budget.commit();
  assert.equal(budget.used, 2);
  assert.equal(budget.remaining, 0);
  assert.throws(() => budget.reserve("GET /d"), AppError);
});

Deno.test("RequestBudget: a budget of 0 refuses the first request; a negative or fractional max is a RangeError", () => {
  assert.throws(() => new RequestBudget(0).reserve("GET /"), /budget of 0 is spent/);
  assert.throws(() => new RequestBudget(-1), RangeError);
  assert.throws(() => new RequestBudget(1.5), /Cannot create a request budget: current value of max is 1.5/);
});

Deno.test("RequestBudget: a release or commit without a reservation never drives the counters negative", () => {
  const budget = new RequestBudget(1);
  budget.release();
  assert.equal(budget.remaining, 1);
  budget.commit();
  assert.equal(budget.used, 1);
  assert.equal(budget.remaining, 0);
});
