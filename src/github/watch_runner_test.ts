import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import { GITHUB_VALUE_QUOTED_CHARS_MAX } from "../base/limits.ts";
import { GITHUB_ANONYMOUS_LIMIT_PER_HOUR } from "../base/limits.ts";
import { anonymousCostOf, clip, requireRef, requireSha } from "./watch_runner.ts";

const SHA = "0123456789abcdef0123456789abcdef01234567";

// ---------------------------------------------------------------- clip

Deno.test("clip: text at the bound is kept whole; one character more is cut to the bound and marked", () => {
  assert.deepEqual(clip("abc", 3), { text: "abc", truncated: false });
  assert.deepEqual(clip("abcd", 3), { text: "abc", truncated: true });
  assert.deepEqual(clip("", 3), { text: "", truncated: false });
  assert.deepEqual(clip("abc", 0), { text: "", truncated: true });
});

Deno.test("clip: a cut never leaves half a surrogate pair (a lone surrogate would not survive UTF-8)", () => {
  assert.deepEqual(clip("a😀", 2), { text: "a", truncated: true });
  assert.deepEqual(clip("a😀", 3), { text: "a😀", truncated: false });
});

Deno.test("clip: null and undefined give null, never truncated", () => {
  assert.deepEqual(clip(null, 3), { text: null, truncated: false });
  assert.deepEqual(clip(undefined, 3), { text: null, truncated: false });
});

// ---------------------------------------------------------------- requireSha

Deno.test("requireSha: 40 lowercase hex digits are returned as they are", () => {
  assert.equal(requireSha(SHA, "the head SHA"), SHA);
});

Deno.test("requireSha: anything else is github_invalid, not retryable, naming what and the value", () => {
  for (const bad of [SHA.slice(1), SHA + "0", SHA.toUpperCase(), "", null, undefined, 42, { sha: SHA }]) {
    assert.throws(() => requireSha(bad, "the pull request's head SHA"), (err: unknown) => {
      assert.ok(err instanceof AppError, String(err));
      assert.equal(err.code, "github_invalid");
      assert.equal(err.retryable, false);
      assert.match(err.message, /^Cannot use the pull request's head SHA GitHub answered: expected 40 lowercase hex/);
      assert.ok(err.message.includes(`current value is ${JSON.stringify(bad)}`), err.message);
      return true;
    }, JSON.stringify(bad));
  }
});

Deno.test(`requireSha: a long string in the message is cut at ${GITHUB_VALUE_QUOTED_CHARS_MAX} characters`, () => {
  const long = "x".repeat(GITHUB_VALUE_QUOTED_CHARS_MAX + 1);
  assert.throws(() => requireSha(long, "the SHA"), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.ok(err.message.endsWith(`current value is "${"x".repeat(GITHUB_VALUE_QUOTED_CHARS_MAX)}"`), err.message);
    return true;
  });
  assert.throws(() => requireSha("y".repeat(GITHUB_VALUE_QUOTED_CHARS_MAX), "the SHA"), (err: unknown) => {
    assert.ok(err instanceof AppError);
    const whole = `current value is "${"y".repeat(GITHUB_VALUE_QUOTED_CHARS_MAX)}"`;
    assert.ok(err.message.endsWith(whole), "kept whole at the bound");
    return true;
  });
});

// ---------------------------------------------------------------- requireRef

Deno.test("requireRef: a branch name is returned as it is", () => {
  assert.equal(requireRef("main", "the base branch"), "main");
  assert.equal(requireRef("release/v1.2", "the base branch"), "release/v1.2");
});

Deno.test("requireRef: an empty, missing or malformed base branch is github_invalid, not an internal error", () => {
  for (const bad of ["", "a..b/..", "a b", "x/", null, undefined, 7]) {
    assert.throws(() => requireRef(bad, "the pull request's base branch"), (err: unknown) => {
      assert.ok(err instanceof AppError, String(err));
      assert.equal(err.code, "github_invalid");
      assert.equal(err.retryable, false);
      assert.match(err.message, /^Cannot use the pull request's base branch GitHub answered: expected a git ref/);
      assert.ok(err.message.includes(`current value is ${JSON.stringify(bad)}`), err.message);
      return true;
    }, JSON.stringify(bad));
  }
});

// ---------------------------------------------------------------- anonymousCostOf

Deno.test("anonymousCostOf: counted requests a poll and an hour at the interval, against the headers' limit", () => {
  const cost = anonymousCostOf({
    requests: 12,
    not_modified: 6,
    not_modified_counted: 6,
    rate_limit: { limit: 60, remaining: 48 },
  }, { polls: 3, pollIntervalMs: 60_000, pacedPolls: 1 });
  assert.deepEqual(cost, {
    counted_not_modified: 6,
    counted_per_poll: 4,
    counted_per_hour_at_interval: 240,
    hourly_limit: 60,
    paced_polls: 1,
    note: "anonymous watch: GitHub counts every request, 304s included (6 counted 304s here); about 240 " +
      "counted requests/h at this poll interval against 60/h. Set GITHUB_TOKEN (or GH_TOKEN) so unchanged polls are free.",
  });
});

Deno.test("anonymousCostOf: before the first poll it costs 0 a poll; per poll is rounded to two decimals", () => {
  const none = anonymousCostOf({ requests: 1, not_modified: 0 }, { polls: 0, pollIntervalMs: 10_000, pacedPolls: 0 });
  assert.equal(none.counted_per_poll, 0);
  assert.equal(none.counted_per_hour_at_interval, 0);
  // 10 requests over 3 polls: 3.33 a poll; at 10 s, 360 polls an hour: 1199 (rounded from 1198.8).
  const third = anonymousCostOf({ requests: 10, not_modified: 0 }, { polls: 3, pollIntervalMs: 10_000, pacedPolls: 0 });
  assert.equal(third.counted_per_poll, 3.33);
  assert.equal(third.counted_per_hour_at_interval, 1_199);
});

Deno.test("anonymousCostOf: without a numeric limit in the headers, GitHub's anonymous 60/h", () => {
  for (const rate_limit of [undefined, {}, { limit: "60" }]) {
    const cost = anonymousCostOf({ requests: 4, not_modified: 0, rate_limit }, {
      polls: 1,
      pollIntervalMs: 10_000,
      pacedPolls: 0,
    });
    assert.equal(cost.hourly_limit, GITHUB_ANONYMOUS_LIMIT_PER_HOUR, JSON.stringify(rate_limit));
    assert.match(cost.note, new RegExp(`against ${GITHUB_ANONYMOUS_LIMIT_PER_HOUR}/h`));
  }
});

Deno.test("anonymousCostOf: without a counted-304 counter, 0 counted 304s", () => {
  const cost = anonymousCostOf({ requests: 4, not_modified: 3 }, { polls: 1, pollIntervalMs: 10_000, pacedPolls: 0 });
  assert.equal(cost.counted_not_modified, 0);
  assert.match(cost.note, /\(0 counted 304s here\)/);
});
