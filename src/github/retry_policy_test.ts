import assert from "node:assert/strict";
import { ManualClock } from "../base/clock.ts";
import { AppError } from "../base/errors.ts";
import {
  GITHUB_ERROR_MESSAGE_CHARS_MAX,
  GITHUB_RATE_LIMIT_RESET_SLACK_MS,
  GITHUB_RATE_LIMIT_WAIT_MS_MAX,
  GITHUB_RATE_LIMIT_WAITS_MAX,
  GITHUB_RETRIES_MAX,
  GITHUB_RETRY_BACKOFF_MS_MIN,
} from "../base/limits.ts";
import { createLogger } from "../base/log.ts";
import { emptyRateLimitState } from "./rate_limit.ts";
import {
  freshAttempt,
  isNoAnswer,
  type PolicyCall,
  RetryPolicy,
  type RetryStats,
  TOKEN_REFUSED_HINT,
} from "./retry_policy.ts";
import type { RawResponse } from "./transport.ts";

/** Distinctive and not token-shaped, so only the policy's own scrub can hide it. */
const TOKEN = "policy-test-secret-0451";
const WHAT = "GET /repos/octo/widgets";

function setup(options: { maxRateLimitWaitMs?: number; authenticated?: boolean } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  const lines: string[] = [];
  const stats: RetryStats = { retries: 0, rate_limit_waits: 0, rateLimit: emptyRateLimitState() };
  const policy = new RetryPolicy({
    clock,
    log: createLogger("debug", { scope: "test", write: (line) => lines.push(line) }),
    stats,
    scrub: (text) => text.split(TOKEN).join("[redacted]"),
    ...options,
  });
  return { clock, lines, stats, policy };
}

/** A GitHub answer of `status` with `options.body` (JSON unless a string; default empty) and `options.headers`. */
function answer(status: number, options: { body?: unknown; headers?: Record<string, string> } = {}): RawResponse {
  const { body = "", headers = {} } = options;
  return {
    status,
    statusText: "",
    headers: new Headers(headers),
    text: typeof body === "string" ? body : JSON.stringify(body),
  };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err;
  }
  assert.fail("expected a refusal");
}

const signal = () => new AbortController().signal;

/** A call of {@linkcode WHAT} with a fresh attempt and no wait allowed, unless `options` says otherwise. */
function call(options: Partial<PolicyCall> = {}): PolicyCall {
  return { what: WHAT, signal: signal(), maxWaitMs: 0, attempt: freshAttempt(), ...options };
}

Deno.test("RetryPolicy.afterRefusal: 404, 401, 403 and 422 are typed at once, with GitHub's message", async () => {
  const { policy, stats } = setup();
  const cases = [[404, "not_found"], [401, "access_denied"], [403, "access_denied"], [422, "request_failed"]] as const;
  for (const [status, code] of cases) {
    const err = await refusal(
      policy.afterRefusal(call({ maxWaitMs: 60_000 }), answer(status, { body: { message: `nope ${status}` } })),
    );
    assert.equal(err.code, code);
    assert.equal(err.retryable, false);
    assert.deepEqual(err.data, { status, path: WHAT });
    const hidden = status === 404
      ? "; GitHub answers the same for a private repository without a token (set GITHUB_TOKEN)"
      : "";
    assert.equal(err.message, `Cannot ${WHAT}: GitHub answered ${status}: nope ${status}${hidden}`);
  }
  assert.equal(stats.retries, 0, "no refusal of these is retried");
});

Deno.test("RetryPolicy.afterRefusal: a 401 to a request with a token names the settings a token comes from", async () => {
  const refused = (authenticated: boolean, status: number) =>
    refusal(
      setup({ authenticated }).policy.afterRefusal(
        call({ maxWaitMs: 60_000 }),
        answer(status, { body: { message: "Bad credentials" } }),
      ),
    );
  const withToken = await refused(true, 401);
  assert.equal(withToken.code, "access_denied");
  assert.equal(withToken.message, `Cannot ${WHAT}: GitHub answered 401: Bad credentials. ${TOKEN_REFUSED_HINT}`);
  const anonymous = await refused(false, 401);
  assert.equal(anonymous.message, `Cannot ${WHAT}: GitHub answered 401: Bad credentials`, "no token to check");
  const forbidden = await refused(true, 403);
  assert.equal(forbidden.message, `Cannot ${WHAT}: GitHub answered 403: Bad credentials`, "only a 401 is the token");
});

Deno.test("RetryPolicy.afterRefusal: GitHub's message is scrubbed and cut at GITHUB_ERROR_MESSAGE_CHARS_MAX", async () => {
  const { policy } = setup();
  const long = `${TOKEN} ${"m".repeat(GITHUB_ERROR_MESSAGE_CHARS_MAX)}`;
  const err = await refusal(policy.afterRefusal(call({ maxWaitMs: 0 }), answer(422, { body: { message: long } })));
  assert.ok(!err.message.includes(TOKEN), err.message);
  const kept = err.message.slice(err.message.indexOf(": GitHub answered 422: ") + ": GitHub answered 422: ".length);
  assert.equal(kept, `[redacted] ${"m".repeat(GITHUB_ERROR_MESSAGE_CHARS_MAX - TOKEN.length - 1)}`);
  const exact = "x".repeat(GITHUB_ERROR_MESSAGE_CHARS_MAX);
  const whole = await refusal(policy.afterRefusal(call({ maxWaitMs: 0 }), answer(422, { body: exact })));
  assert.ok(whole.message.endsWith(`: ${exact}`), "a non-JSON body at the bound is kept whole");
  const over = await refusal(policy.afterRefusal(call({ maxWaitMs: 0 }), answer(422, { body: `${exact}y` })));
  assert.ok(over.message.endsWith(`: ${exact}`), "one character more is cut");
});

Deno.test("RetryPolicy.afterRefusal: a 5xx is retried GITHUB_RETRIES_MAX times with doubling backoff, then transient", async () => {
  const { policy, clock, stats, lines } = setup();
  const attempt = freshAttempt();
  const start = clock.now();
  for (let i = 0; i < GITHUB_RETRIES_MAX; i++) {
    await policy.afterRefusal(call({ maxWaitMs: 0, attempt }), answer(502, { body: "bad gateway" }));
  }
  assert.equal(attempt.retries, GITHUB_RETRIES_MAX);
  assert.equal(stats.retries, GITHUB_RETRIES_MAX);
  assert.equal(clock.now() - start, GITHUB_RETRY_BACKOFF_MS_MIN * (2 ** GITHUB_RETRIES_MAX - 1), "1 s, 2 s, 4 s, ...");
  assert.equal(lines.filter((l) => l.includes("retrying")).length, GITHUB_RETRIES_MAX);
  const err = await refusal(policy.afterRefusal(call({ maxWaitMs: 0, attempt }), answer(502, { body: "bad gateway" })));
  assert.equal(err.code, "transient");
  assert.equal(err.retryable, true);
  assert.equal(err.retryAfterMs, GITHUB_RETRY_BACKOFF_MS_MIN * 2 ** GITHUB_RETRIES_MAX);
  assert.match(err.message, new RegExp(`after ${GITHUB_RETRIES_MAX} retries`));
  assert.equal(isNoAnswer(err), false, "GitHub answered, if only with a 5xx");
});

Deno.test("RetryPolicy.afterRefusal: a retry-after within the bound closes the gate, which waitForGate waits out", async () => {
  const { policy, clock, stats } = setup();
  const attempt = freshAttempt();
  await policy.afterRefusal(call({ maxWaitMs: 60_000, attempt }), answer(429, { headers: { "retry-after": "30" } }));
  assert.deepEqual(attempt, { retries: 0, limitedWaits: 1, secondaryWaits: 0 });
  const resumes: number[] = [];
  const before = clock.now();
  await policy.waitForGate(call({ maxWaitMs: 60_000, onWait: (until) => resumes.push(until) }));
  assert.deepEqual(resumes, [before + 30_000], "the wait is announced with the instant requests resume");
  assert.equal(clock.now(), before + 30_000);
  assert.equal(stats.rate_limit_waits, 1);
  await policy.waitForGate(call({ maxWaitMs: 60_000, onWait: (until) => resumes.push(until) }));
  assert.equal(resumes.length, 1, "an open gate does not wait");
});

Deno.test("RetryPolicy.afterRefusal: a limit longer than the call's bound is rate_limited, with when to retry", async () => {
  const { policy } = setup();
  const err = await refusal(
    policy.afterRefusal(call({ maxWaitMs: 60_000 }), answer(403, { headers: { "retry-after": "61" } })),
  );
  assert.equal(err.code, "rate_limited");
  assert.equal(err.retryable, true);
  assert.equal(err.retryAfterMs, 61_000);
  assert.deepEqual(err.data, { retry_after_ms: 61_000, kind: "retry_after", reset_at: null });
  // At the bound it is waited for.
  await policy.afterRefusal(call({ maxWaitMs: 60_000 }), answer(403, { headers: { "retry-after": "60" } }));
});

Deno.test("RetryPolicy.afterRefusal: GITHUB_RATE_LIMIT_WAITS_MAX limited answers are waited for; one more gives up", async () => {
  const { policy } = setup();
  const attempt = freshAttempt();
  const limited = () => answer(429, { body: { message: "secondary rate limit" }, headers: { "retry-after": "1" } });
  for (let i = 0; i < GITHUB_RATE_LIMIT_WAITS_MAX; i++) {
    await policy.afterRefusal(call({ maxWaitMs: 60_000, attempt }), limited());
  }
  const err = await refusal(policy.afterRefusal(call({ maxWaitMs: 60_000, attempt }), limited()));
  assert.equal(err.code, "rate_limited");
  assert.match(err.message, new RegExp(`gave up after ${GITHUB_RATE_LIMIT_WAITS_MAX} waits`));
});

Deno.test("RetryPolicy.afterRefusal: secondary limits without a hint back off from a minute, doubling", async () => {
  const { policy, clock } = setup({ maxRateLimitWaitMs: GITHUB_RATE_LIMIT_WAIT_MS_MAX });
  const attempt = freshAttempt();
  const waits: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = clock.now();
    await policy.afterRefusal(
      call({ maxWaitMs: 600_000, attempt }),
      answer(403, { body: { message: "secondary rate limit" } }),
    );
    await policy.waitForGate(call({ maxWaitMs: 600_000 }));
    waits.push(clock.now() - before);
  }
  assert.deepEqual(waits, [60_000, 120_000, 240_000]);
  assert.equal(attempt.secondaryWaits, 3);
});

Deno.test("RetryPolicy.observe: remaining 0 holds every call until the reset plus slack; beyond a bound it is rate_limited", async () => {
  const { policy, clock, stats } = setup();
  const resetS = Math.floor(clock.now() / 1000) + 100;
  policy.observe(
    new Headers({ "x-ratelimit-remaining": "0", "x-ratelimit-limit": "60", "x-ratelimit-reset": `${resetS}` }),
  );
  assert.equal(stats.rateLimit.remaining, 0);
  assert.equal(stats.rateLimit.reset_at, resetS * 1000);
  const err = await refusal(policy.waitForGate(call({ maxWaitMs: 1_000 })));
  assert.equal(err.code, "rate_limited");
  assert.equal((err.data as { kind: string }).kind, "known");
  assert.equal(stats.rate_limit_waits, 0, "a refused wait is not a wait");
  await policy.waitForGate(call({ maxWaitMs: 600_000 }));
  assert.equal(clock.now(), resetS * 1000 + GITHUB_RATE_LIMIT_RESET_SLACK_MS);
  policy.observe(new Headers());
  assert.equal(stats.rateLimit.reset_at, resetS * 1000, "an answer without headers keeps the last state");
});

Deno.test("RetryPolicy.waitForGate: the caller's signal cancels a wait at once", async () => {
  const clock = new ManualClock(0);
  const stats: RetryStats = { retries: 0, rate_limit_waits: 0, rateLimit: emptyRateLimitState() };
  const policy = new RetryPolicy({ clock, log: createLogger("silent"), stats, scrub: (t) => t });
  await policy.afterRefusal(call({ maxWaitMs: 60_000 }), answer(429, { headers: { "retry-after": "30" } }));
  const controller = new AbortController();
  const waiting = policy.waitForGate(call({ maxWaitMs: 60_000, signal: controller.signal }));
  assert.equal(clock.pendingSleeps, 1);
  controller.abort(new Error("cancelled by the caller"));
  await assert.rejects(waiting, /cancelled by the caller/);
  assert.equal(clock.pendingSleeps, 0);
});

Deno.test("RetryPolicy.afterNoAnswer: network errors are retried, then transient with the token scrubbed", async () => {
  const { policy, clock, stats } = setup();
  const attempt = freshAttempt();
  const failure = new TypeError(`connection refused for ${TOKEN}`);
  const start = clock.now();
  for (let i = 0; i < GITHUB_RETRIES_MAX; i++) await policy.afterNoAnswer(call({ attempt }), failure);
  assert.equal(stats.retries, GITHUB_RETRIES_MAX);
  assert.equal(clock.now() - start, GITHUB_RETRY_BACKOFF_MS_MIN * (2 ** GITHUB_RETRIES_MAX - 1));
  const err = await refusal(policy.afterNoAnswer(call({ attempt }), failure));
  assert.equal(err.code, "transient");
  assert.equal(err.retryAfterMs, GITHUB_RETRY_BACKOFF_MS_MIN * 2 ** GITHUB_RETRIES_MAX);
  assert.deepEqual(err.data, { path: WHAT, no_answer: true });
  assert.equal(isNoAnswer(err), true);
  assert.match(err.message, /network error after 3 retries \(TypeError: connection refused for \[redacted\]\)/);
  assert.ok(!err.message.includes(TOKEN));
});

Deno.test("RetryPolicy.afterNoAnswer: an aborted call throws its reason; the transport's AppError passes as is", async () => {
  const { policy, stats } = setup();
  const controller = new AbortController();
  controller.abort(new Error("stopped"));
  await assert.rejects(policy.afterNoAnswer(call({ signal: controller.signal }), new TypeError("x")), /stopped/);
  const tooLarge = new AppError("request_failed", "too large");
  await assert.rejects(policy.afterNoAnswer(call(), tooLarge), (err) => err === tooLarge);
  assert.equal(stats.retries, 0);
});

Deno.test("RetryPolicy: the wait bound is capped at GITHUB_RATE_LIMIT_WAIT_MS_MAX and a call may only lower it", () => {
  assert.equal(setup().policy.maxWaitMs, GITHUB_RATE_LIMIT_WAIT_MS_MAX);
  assert.equal(
    setup({ maxRateLimitWaitMs: GITHUB_RATE_LIMIT_WAIT_MS_MAX + 1 }).policy.maxWaitMs,
    GITHUB_RATE_LIMIT_WAIT_MS_MAX,
  );
  const { policy } = setup({ maxRateLimitWaitMs: 5_000 });
  assert.equal(policy.waitBoundMs(undefined), 5_000);
  assert.equal(policy.waitBoundMs(1_000), 1_000);
  assert.equal(policy.waitBoundMs(9_000), 5_000, "a call cannot raise the client's bound");
  assert.throws(() => policy.waitBoundMs(-1), /Cannot use maxRateLimitWaitMs: current value is -1/);
  assert.throws(() => setup({ maxRateLimitWaitMs: Number.NaN }), RangeError);
});
