import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import {
  GITHUB_NUMBER_MAX,
  WATCH_FIRST_CHECK_GRACE_MS_DEFAULT,
  WATCH_FIRST_CHECK_GRACE_MS_MAX,
  WATCH_POLL_INTERVAL_MS_DEFAULT,
  WATCH_POLL_INTERVAL_MS_MAX,
  WATCH_POLL_INTERVAL_MS_MIN,
  WATCH_TIMEOUT_MS_DEFAULT,
  WATCH_TIMEOUT_MS_MAX,
} from "../base/limits.ts";
import { parseJobInput } from "../jobs/spec.ts";
import { WATCH_KIND } from "./watch_kind.ts";
import { WATCH_EXAMPLE, watchSpec } from "./watch_spec.ts";

const PR = { owner: "octo", repo: "widgets", number: 7 };
const SHA = "0123456789abcdef0123456789abcdef01234567";

const parse = (input: unknown) => parseJobInput(watchSpec, input);

/** Asserts `input` is refused with a typed invalid_argument at `path`, showing the spec's example. */
function assertRefused(input: unknown, path: string): void {
  assert.throws(() => parse(input), (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, "invalid_argument");
    assert.equal(err.data?.["path"], path, err.message);
    assert.deepEqual(err.data?.["example"], WATCH_EXAMPLE);
    assert.match(err.message, /^Cannot accept arguments: /);
    return true;
  }, JSON.stringify(input));
}

Deno.test("watchSpec: names the watch kind, and its examples parse", () => {
  assert.equal(watchSpec.name, WATCH_KIND);
  assert.equal(watchSpec.kind, WATCH_KIND);
  assert.ok((watchSpec.examples?.length ?? 0) > 0);
  for (const example of watchSpec.examples ?? []) parse(example);
  assert.deepEqual(watchSpec.examples?.[0], WATCH_EXAMPLE);
});

Deno.test("parseJobInput(watchSpec): fills every default and adds no head SHA", () => {
  assert.deepEqual(parse(PR), {
    ...PR,
    until: "terminal",
    timeout_ms: WATCH_TIMEOUT_MS_DEFAULT,
    poll_interval_ms: WATCH_POLL_INTERVAL_MS_DEFAULT,
    fail_fast: false,
    first_check_grace_ms: WATCH_FIRST_CHECK_GRACE_MS_DEFAULT,
    required_only: false,
  });
  assert.equal("expected_head_sha" in parse(PR), false);
});

Deno.test("parseJobInput(watchSpec): keeps every field given", () => {
  const input = {
    ...PR,
    expected_head_sha: SHA,
    until: "change",
    timeout_ms: 60_000,
    poll_interval_ms: 6_000,
    fail_fast: true,
    first_check_grace_ms: 0,
    required_only: true,
  };
  assert.deepEqual(parse(input), input);
});

Deno.test("parseJobInput(watchSpec): number accepts 1 and GITHUB_NUMBER_MAX, refuses 0, one more and fractions", () => {
  assert.equal(parse({ ...PR, number: 1 }).number, 1);
  assert.equal(parse({ ...PR, number: GITHUB_NUMBER_MAX }).number, GITHUB_NUMBER_MAX);
  assertRefused({ ...PR, number: 0 }, "$.number");
  assertRefused({ ...PR, number: GITHUB_NUMBER_MAX + 1 }, "$.number");
  assertRefused({ ...PR, number: 1.5 }, "$.number");
  assertRefused({ ...PR, number: "7" }, "$.number");
});

Deno.test("parseJobInput(watchSpec): timeout_ms accepts 1 s and WATCH_TIMEOUT_MS_MAX, refuses 1 ms less and 1 ms more", () => {
  assert.equal(parse({ ...PR, timeout_ms: 1_000 }).timeout_ms, 1_000);
  assert.equal(parse({ ...PR, timeout_ms: WATCH_TIMEOUT_MS_MAX }).timeout_ms, WATCH_TIMEOUT_MS_MAX);
  assertRefused({ ...PR, timeout_ms: 999 }, "$.timeout_ms");
  assertRefused({ ...PR, timeout_ms: WATCH_TIMEOUT_MS_MAX + 1 }, "$.timeout_ms");
  assertRefused({ ...PR, timeout_ms: 1_000.5 }, "$.timeout_ms");
});

Deno.test("parseJobInput(watchSpec): poll_interval_ms accepts its MIN and MAX, refuses 1 ms past either", () => {
  assert.equal(
    parse({ ...PR, poll_interval_ms: WATCH_POLL_INTERVAL_MS_MIN }).poll_interval_ms,
    WATCH_POLL_INTERVAL_MS_MIN,
  );
  assert.equal(
    parse({ ...PR, poll_interval_ms: WATCH_POLL_INTERVAL_MS_MAX }).poll_interval_ms,
    WATCH_POLL_INTERVAL_MS_MAX,
  );
  assertRefused({ ...PR, poll_interval_ms: WATCH_POLL_INTERVAL_MS_MIN - 1 }, "$.poll_interval_ms");
  assertRefused({ ...PR, poll_interval_ms: WATCH_POLL_INTERVAL_MS_MAX + 1 }, "$.poll_interval_ms");
});

Deno.test("parseJobInput(watchSpec): first_check_grace_ms accepts 0 and its MAX, refuses -1 and 1 ms more", () => {
  assert.equal(parse({ ...PR, first_check_grace_ms: 0 }).first_check_grace_ms, 0);
  assert.equal(
    parse({ ...PR, first_check_grace_ms: WATCH_FIRST_CHECK_GRACE_MS_MAX }).first_check_grace_ms,
    WATCH_FIRST_CHECK_GRACE_MS_MAX,
  );
  assertRefused({ ...PR, first_check_grace_ms: -1 }, "$.first_check_grace_ms");
  assertRefused({ ...PR, first_check_grace_ms: WATCH_FIRST_CHECK_GRACE_MS_MAX + 1 }, "$.first_check_grace_ms");
});

Deno.test("parseJobInput(watchSpec): expected_head_sha must be exactly 40 lowercase hex digits", () => {
  assert.equal(parse({ ...PR, expected_head_sha: SHA }).expected_head_sha, SHA);
  assertRefused({ ...PR, expected_head_sha: SHA.slice(1) }, "$.expected_head_sha");
  assertRefused({ ...PR, expected_head_sha: SHA + "0" }, "$.expected_head_sha");
  assertRefused({ ...PR, expected_head_sha: SHA.toUpperCase() }, "$.expected_head_sha");
  assertRefused({ ...PR, expected_head_sha: "g".repeat(40) }, "$.expected_head_sha");
});

Deno.test("parseJobInput(watchSpec): until, fail_fast and required_only refuse values outside their type", () => {
  assertRefused({ ...PR, until: "never" }, "$.until");
  assertRefused({ ...PR, fail_fast: "true" }, "$.fail_fast");
  assertRefused({ ...PR, required_only: 1 }, "$.required_only");
});

Deno.test("parseJobInput(watchSpec): refuses unknown keys at the root, naming them", () => {
  assert.throws(() => parse({ ...PR, pollInterval: 5_000 }), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, "invalid_argument");
    assert.equal(err.data?.["path"], "$");
    assert.match(err.message, /pollInterval/);
    return true;
  });
});

Deno.test("parseJobInput(watchSpec): a missing owner, repo or number is refused at its path; no input at $.owner", () => {
  assertRefused({ repo: "widgets", number: 7 }, "$.owner");
  assertRefused({ owner: "octo", number: 7 }, "$.repo");
  assertRefused({ owner: "octo", repo: "widgets" }, "$.number");
  assertRefused(undefined, "$.owner");
  assertRefused(null, "$.owner");
  assertRefused(["octo", "widgets", 7], "$");
});
