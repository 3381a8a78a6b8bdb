import assert from "node:assert/strict";
import { budgetView, pacedWaitMs, type RateWindow } from "./watch_pacing.ts";
import type { PullObserver } from "./watch_kind.ts";

const NOW = 1_000_000;
const HOUR = 3_600_000;

// ---------------------------------------------------------------- pacedWaitMs

Deno.test("pacedWaitMs: stretches the wait so what is left lasts until the reset, never shortens it", () => {
  const now = NOW;
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 40, reset_at: now + 3_600_000 }, now }),
    360_000,
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 4_000, reset_at: now + 3_600_000 }, now }),
    10_000,
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 3, reset_at: now + 60_000 }, now }),
    60_000,
    "nothing left: the reset",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 0, rateLimit: { remaining: 0, reset_at: now + 60_000 }, now }),
    10_000,
    "free polls",
  );
  assert.equal(pacedWaitMs(10_000, { perPoll: 4, rateLimit: undefined, now }), 10_000);
  assert.equal(
    pacedWaitMs(10_000, {
      perPoll: 4,
      rateLimit: { remaining: 40, reset_at: now + 3_600_000 },
      now,
      deadline: now + 600_000,
    }),
    60_000,
    "the budget only has to last until the deadline",
  );
});

Deno.test("pacedWaitMs: remaining at exactly one poll spreads it over the horizon; one request less waits for the reset", () => {
  const rl = (remaining: number) => ({ remaining, reset_at: NOW + HOUR });
  const deadline = NOW + 60_000;
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: rl(4), now: NOW, deadline }),
    60_000,
    "one poll left: it runs by the deadline",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: rl(3), now: NOW, deadline }),
    HOUR,
    "no whole poll left: wait for the reset",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: rl(0), now: NOW, deadline }),
    HOUR,
    "nothing left: wait for the reset",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: rl(8), now: NOW }),
    HOUR / 2,
    "two polls left: half the horizon each",
  );
});

Deno.test("pacedWaitMs: with no whole poll left, a reset sooner than the wait keeps the wait", () => {
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 0, reset_at: NOW + 9_999 }, now: NOW }),
    10_000,
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 0, reset_at: NOW + 10_001 }, now: NOW }),
    10_001,
  );
});

Deno.test("pacedWaitMs: a stretched wait is rounded up to a whole millisecond", () => {
  // 10 ms over 3 polls: 3.33 ms each, rounded up (pacing never lets the budget run out early).
  assert.equal(pacedWaitMs(1, { perPoll: 1, rateLimit: { remaining: 3, reset_at: NOW + 10 }, now: NOW }), 4);
});

Deno.test("pacedWaitMs: the remaining budget exactly fitting the interval keeps the interval", () => {
  // 360 polls left over an hour: one every 10 s, exactly the requested interval.
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 1_440, reset_at: NOW + HOUR }, now: NOW }),
    10_000,
  );
  // One poll fewer: the wait stretches past the interval.
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 1_436, reset_at: NOW + HOUR }, now: NOW }),
    Math.ceil(HOUR / 359),
  );
});

Deno.test("pacedWaitMs: a reset at or before now, or no counted requests a poll, keeps the wait", () => {
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 0, reset_at: NOW }, now: NOW }),
    10_000,
    "reset now",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 0, reset_at: NOW - 1 }, now: NOW }),
    10_000,
    "reset past",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 0, reset_at: NOW + 1 }, now: NOW }),
    10_000,
    "reset in 1 ms",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: -1, rateLimit: { remaining: 0, reset_at: NOW + HOUR }, now: NOW }),
    10_000,
    "negative per poll",
  );
});

Deno.test("pacedWaitMs: a rate limit without a numeric remaining or reset_at keeps the wait", () => {
  assert.equal(pacedWaitMs(10_000, { perPoll: 4, rateLimit: {}, now: NOW }), 10_000);
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: "0", reset_at: NOW + HOUR }, now: NOW }),
    10_000,
  );
  assert.equal(pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 0 }, now: NOW }), 10_000);
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: { remaining: 0, reset_at: String(NOW + HOUR) }, now: NOW }),
    10_000,
  );
});

Deno.test("pacedWaitMs: a deadline before the reset bounds the horizon; one after it does not", () => {
  const rl = { remaining: 40, reset_at: NOW + HOUR };
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: rl, now: NOW, deadline: NOW + HOUR }),
    HOUR / 10,
    "deadline at the reset",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: rl, now: NOW, deadline: NOW + 2 * HOUR }),
    HOUR / 10,
    "deadline past the reset",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: rl, now: NOW, deadline: NOW + HOUR - 10 }),
    Math.ceil((HOUR - 10) / 10),
    "just before",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: rl, now: NOW, deadline: NOW }),
    10_000,
    "deadline now: the wait",
  );
  assert.equal(
    pacedWaitMs(10_000, { perPoll: 4, rateLimit: rl, now: NOW, deadline: NOW - 5_000 }),
    10_000,
    "deadline past: the wait",
  );
});

Deno.test("pacedWaitMs: with no whole poll left, the deadline does not shorten the wait for the reset", () => {
  assert.equal(
    pacedWaitMs(10_000, {
      perPoll: 4,
      rateLimit: { remaining: 3, reset_at: NOW + HOUR },
      now: NOW,
      deadline: NOW + 60_000,
    }),
    HOUR,
  );
});

// ---------------------------------------------------------------- budgetView

/** The counters of an observer: budgetView reads only `stats()` and `authenticated`. */
function countersOf(
  authenticated: boolean,
  stats: ReturnType<PullObserver["stats"]>,
): PullObserver {
  return {
    authenticated,
    stats: () => stats,
    headSha: () => Promise.reject(new Error("not read by budgetView")),
    observe: () => Promise.reject(new Error("not read by budgetView")),
  };
}

Deno.test("budgetView: an authenticated watch, or one with no rate limit seen, gets the headers as they are", () => {
  const rl = { limit: 5_000, remaining: 4_990, reset_at: NOW + HOUR };
  const window: RateWindow = { resetAt: undefined, requestsBefore: 0 };
  assert.equal(
    budgetView(countersOf(true, { requests: 10, not_modified: 0, rate_limit: rl }), window, { countedThisPoll: 4 }),
    rl,
  );
  assert.equal(
    budgetView(countersOf(false, { requests: 10, not_modified: 0 }), window, { countedThisPoll: 4 }),
    undefined,
  );
  assert.deepEqual(window, { resetAt: undefined, requestsBefore: 0 }, "the window is untouched");
});

Deno.test("budgetView: an anonymous rate limit without a numeric limit or remaining is returned as is", () => {
  const window: RateWindow = { resetAt: undefined, requestsBefore: 0 };
  const noLimit = { remaining: 10, reset_at: NOW + HOUR };
  const noRemaining = { limit: 60, reset_at: NOW + HOUR };
  assert.equal(
    budgetView(countersOf(false, { requests: 50, not_modified: 0, rate_limit: noLimit }), window, {
      countedThisPoll: 4,
    }),
    noLimit,
  );
  assert.equal(
    budgetView(countersOf(false, { requests: 50, not_modified: 0, rate_limit: noRemaining }), window, {
      countedThisPoll: 4,
    }),
    noRemaining,
  );
  assert.deepEqual(window, { resetAt: undefined, requestsBefore: 0 });
});

Deno.test("budgetView: anonymous, what is left is the limit less what this watch spent in the current window", () => {
  const window: RateWindow = { resetAt: undefined, requestsBefore: 0 };
  const resetAt = NOW + HOUR;
  // The server does not count 304s in `remaining` (60 left), but GitHub does count them anonymously.
  const rl = { limit: 60, remaining: 60, reset_at: resetAt, resource: "core" };
  // A new window begins with this poll: only its 4 requests were spent in it.
  const first = budgetView(countersOf(false, { requests: 20, not_modified: 3, rate_limit: rl }), window, {
    countedThisPoll: 4,
  });
  assert.deepEqual(first, { limit: 60, remaining: 56, reset_at: resetAt, resource: "core" });
  assert.deepEqual(window, { resetAt, requestsBefore: 16 });
  // Same window, two more polls: 12 spent.
  const later = budgetView(countersOf(false, { requests: 28, not_modified: 5, rate_limit: rl }), window, {
    countedThisPoll: 4,
  });
  assert.equal(later?.["remaining"], 48);
  assert.deepEqual(window, { resetAt, requestsBefore: 16 }, "the window stays while the reset does not move");
  // The server's own remaining is lower: it wins.
  const lower = { ...rl, remaining: 10 };
  assert.equal(
    budgetView(countersOf(false, { requests: 28, not_modified: 5, rate_limit: lower }), window, { countedThisPoll: 4 })
      ?.[
        "remaining"
      ],
    10,
  );
});

Deno.test("budgetView: anonymous, spent at the limit leaves 0, past it still 0 (never negative)", () => {
  const resetAt = NOW + HOUR;
  const rl = { limit: 60, remaining: 60, reset_at: resetAt };
  const at: RateWindow = { resetAt, requestsBefore: 0 };
  assert.equal(
    budgetView(countersOf(false, { requests: 60, not_modified: 0, rate_limit: rl }), at, { countedThisPoll: 4 })
      ?.["remaining"],
    0,
  );
  assert.equal(
    budgetView(countersOf(false, { requests: 59, not_modified: 0, rate_limit: rl }), at, { countedThisPoll: 4 })
      ?.["remaining"],
    1,
  );
  assert.equal(
    budgetView(countersOf(false, { requests: 75, not_modified: 0, rate_limit: rl }), at, { countedThisPoll: 4 })
      ?.["remaining"],
    0,
  );
});

Deno.test("budgetView: a moved reset starts a new window counting only this poll's requests", () => {
  const window: RateWindow = { resetAt: NOW, requestsBefore: 0 };
  const rl = { limit: 60, remaining: 60, reset_at: NOW + HOUR };
  const view = budgetView(countersOf(false, { requests: 100, not_modified: 0, rate_limit: rl }), window, {
    countedThisPoll: 6,
  });
  assert.equal(view?.["remaining"], 54, "100 spent over the watch, but only 6 in this window");
  assert.deepEqual(window, { resetAt: NOW + HOUR, requestsBefore: 94 });
});

Deno.test("budgetView: without a numeric reset_at the window never moves and counts from its start", () => {
  const window: RateWindow = { resetAt: undefined, requestsBefore: 0 };
  const rl = { limit: 60, remaining: 60 };
  const view = budgetView(countersOf(false, { requests: 50, not_modified: 0, rate_limit: rl }), window, {
    countedThisPoll: 4,
  });
  assert.equal(view?.["remaining"], 10);
  assert.deepEqual(window, { resetAt: undefined, requestsBefore: 0 });
});
