import assert from "node:assert/strict";
import type { PullRequestChecksRow, RepositoryRow, ThreadRow } from "../store/corpus_types.ts";
import { compactThread, fullThread, pullRequestChecksItem, repositoryItem } from "./projection.ts";

const T0 = Date.UTC(2026, 0, 1);

/** A stored pull request with every column set, overridden field by field. */
function threadRowOf(over: Partial<ThreadRow> = {}): ThreadRow {
  return {
    id: 11,
    repository: "octo/widgets",
    number: 7,
    kind: "pull_request",
    state: "closed",
    title: "Fix the widget",
    body: "It was broken.",
    body_truncated: false,
    labels: ["bug", "ci"],
    author: "mona",
    comments: 3,
    created_at: T0,
    updated_at: T0 + 60_000,
    closed_at: T0 + 120_000,
    merged: true,
    html_url: "https://github.com/octo/widgets/pull/7",
    synced_at: T0 + 180_000,
    ...over,
  };
}

Deno.test("compactThread: the thread's ref and columns, times as ISO 8601, no id and no body", () => {
  assert.deepEqual(compactThread(threadRowOf()), {
    ref: "octo/widgets#7",
    repository: "octo/widgets",
    number: 7,
    kind: "pull_request",
    state: "closed",
    title: "Fix the widget",
    labels: ["bug", "ci"],
    author: "mona",
    comments: 3,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:01:00.000Z",
    closed_at: "2026-01-01T00:02:00.000Z",
    merged: true,
    html_url: "https://github.com/octo/widgets/pull/7",
    synced_at: "2026-01-01T00:03:00.000Z",
  });
});

Deno.test("compactThread: an open issue keeps closed_at, merged and author null", () => {
  const item = compactThread(
    threadRowOf({ kind: "issue", state: "open", closed_at: null, merged: null, author: null }),
  );
  assert.equal(item.closed_at, null);
  assert.equal(item.merged, null);
  assert.equal(item.author, null);
  assert.equal(item.kind, "issue");
});

Deno.test("compactThread: a row without its body projects the same as one with it", () => {
  const { body: _body, ...headerOnly } = threadRowOf();
  assert.deepEqual(compactThread(headerOnly), compactThread(threadRowOf()));
});

Deno.test("fullThread: the compact view plus the stored body and whether it was cut", () => {
  const row = threadRowOf({ body: "x".repeat(10), body_truncated: true });
  assert.deepEqual(fullThread(row), { ...compactThread(row), body: "x".repeat(10), body_truncated: true });
  assert.equal(fullThread(threadRowOf()).body_truncated, false);
});

Deno.test("repositoryItem: every stored column, synced_at as ISO 8601", () => {
  const row: RepositoryRow = {
    full_name: "octo/widgets",
    owner: "octo",
    name: "widgets",
    description: null,
    topics: ["ci"],
    default_branch: "main",
    stargazers_count: null,
    license: "MIT",
    archived: false,
    synced_at: T0 + 1,
  };
  assert.deepEqual(repositoryItem(row), { ...row, synced_at: "2026-01-01T00:00:00.001Z" });
});

Deno.test("pullRequestChecksItem: the observation's ref and columns, synced_at is when it was observed", () => {
  const row: PullRequestChecksRow = {
    repository: "octo/widgets",
    number: 7,
    head_sha: "a".repeat(40),
    outcome: "failed",
    signature: "sig",
    checks: [{ name: "ci" }],
    observed_at: T0,
  };
  assert.deepEqual(pullRequestChecksItem(row), {
    ref: "octo/widgets#7",
    repository: "octo/widgets",
    number: 7,
    head_sha: "a".repeat(40),
    outcome: "failed",
    signature: "sig",
    checks: [{ name: "ci" }],
    synced_at: "2026-01-01T00:00:00.000Z",
  });
});
