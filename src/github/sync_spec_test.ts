import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import {
  SYNC_LIMIT_PER_REPOSITORY_DEFAULT,
  SYNC_LIMIT_PER_REPOSITORY_MAX,
  SYNC_REQUESTS_DEFAULT,
  SYNC_REQUESTS_MAX,
} from "../base/limits.ts";
import { parseJobInput } from "../jobs/spec.ts";
import { SYNC_KIND } from "./sync_kind.ts";
import { SYNC_EXAMPLE, syncSpec } from "./sync_spec.ts";

// SYNC_REPOSITORIES_MAX at and past its bound: tests/bounds_test.ts; bad repository names over MCP: tests/names_test.ts.

const ONE = { repositories: ["octo/widgets"] };

const parse = (input: unknown) => parseJobInput(syncSpec, input);

/** Asserts `input` is refused with a typed invalid_argument at `path`, showing the spec's example. */
function assertRefused(input: unknown, path: string): void {
  assert.throws(() => parse(input), (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, "invalid_argument");
    assert.equal(err.data?.["path"], path, err.message);
    assert.deepEqual(err.data?.["example"], SYNC_EXAMPLE);
    assert.match(err.message, /^Cannot accept arguments: /);
    return true;
  }, JSON.stringify(input));
}

Deno.test("syncSpec: names the sync kind, and its examples parse", () => {
  assert.equal(syncSpec.name, SYNC_KIND);
  assert.equal(syncSpec.kind, SYNC_KIND);
  assert.ok((syncSpec.examples?.length ?? 0) > 0);
  for (const example of syncSpec.examples ?? []) parse(example);
  assert.deepEqual(syncSpec.examples?.[0], SYNC_EXAMPLE);
});

Deno.test("parseJobInput(syncSpec): fills every default and adds no updated_after", () => {
  assert.deepEqual(parse(ONE), {
    repositories: ["octo/widgets"],
    kind: "both",
    state: "all",
    limit_per_repository: SYNC_LIMIT_PER_REPOSITORY_DEFAULT,
    max_requests: SYNC_REQUESTS_DEFAULT,
  });
  assert.equal("updated_after" in parse(ONE), false);
});

Deno.test("parseJobInput(syncSpec): keeps every field given, duplicate repositories included", () => {
  const input = {
    repositories: ["octo/widgets", "octo/widgets", "denoland/deno"],
    kind: "pull_request",
    state: "closed",
    updated_after: "2026-01-01T00:00:00+02:00",
    limit_per_repository: 5,
    max_requests: 9,
  };
  assert.deepEqual(parse(input), input);
  assert.equal(parse({ ...ONE, updated_after: "2026-01-01T00:00:00Z" }).updated_after, "2026-01-01T00:00:00Z");
});

Deno.test("parseJobInput(syncSpec): repositories refuses an empty list and a missing one", () => {
  assertRefused({ repositories: [] }, "$.repositories");
  assertRefused({}, "$.repositories");
  assertRefused(undefined, "$.repositories");
  assertRefused({ repositories: "octo/widgets" }, "$.repositories");
});

Deno.test("parseJobInput(syncSpec): limit_per_repository accepts 1 and its MAX, refuses 0 and one more", () => {
  assert.equal(parse({ ...ONE, limit_per_repository: 1 }).limit_per_repository, 1);
  assert.equal(
    parse({ ...ONE, limit_per_repository: SYNC_LIMIT_PER_REPOSITORY_MAX }).limit_per_repository,
    SYNC_LIMIT_PER_REPOSITORY_MAX,
  );
  assertRefused({ ...ONE, limit_per_repository: 0 }, "$.limit_per_repository");
  assertRefused({ ...ONE, limit_per_repository: SYNC_LIMIT_PER_REPOSITORY_MAX + 1 }, "$.limit_per_repository");
  assertRefused({ ...ONE, limit_per_repository: 2.5 }, "$.limit_per_repository");
});

Deno.test("parseJobInput(syncSpec): max_requests accepts 1 and SYNC_REQUESTS_MAX, refuses 0 and one more", () => {
  assert.equal(parse({ ...ONE, max_requests: 1 }).max_requests, 1);
  assert.equal(parse({ ...ONE, max_requests: SYNC_REQUESTS_MAX }).max_requests, SYNC_REQUESTS_MAX);
  assertRefused({ ...ONE, max_requests: 0 }, "$.max_requests");
  assertRefused({ ...ONE, max_requests: SYNC_REQUESTS_MAX + 1 }, "$.max_requests");
  assertRefused({ ...ONE, max_requests: "9" }, "$.max_requests");
});

Deno.test("parseJobInput(syncSpec): updated_after must be an ISO 8601 date-time", () => {
  assertRefused({ ...ONE, updated_after: "2026-01-01" }, "$.updated_after");
  assertRefused({ ...ONE, updated_after: "yesterday" }, "$.updated_after");
  assertRefused({ ...ONE, updated_after: Date.UTC(2026, 0, 1) }, "$.updated_after");
});

Deno.test("parseJobInput(syncSpec): kind and state refuse values outside their enums", () => {
  assertRefused({ ...ONE, kind: "issues" }, "$.kind");
  assertRefused({ ...ONE, state: "merged" }, "$.state");
});

Deno.test("parseJobInput(syncSpec): refuses unknown keys at the root, naming them", () => {
  assert.throws(() => parse({ ...ONE, repos: ["octo/widgets"] }), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, "invalid_argument");
    assert.equal(err.data?.["path"], "$");
    assert.match(err.message, /repos/);
    return true;
  });
});
