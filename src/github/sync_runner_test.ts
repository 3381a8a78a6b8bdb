import assert from "node:assert/strict";
import { AppError, type AppErrorCode } from "../base/errors.ts";
import { itemForError, toObservation } from "./sync_runner.ts";
import type { GitHubIssue } from "./types.ts";

/** An issue header as GitHub lists it, overridden field by field. */
function issueOf(over: Partial<GitHubIssue> = {}): GitHubIssue {
  return {
    id: 1001,
    number: 7,
    title: "Widgets break",
    body: "Steps to reproduce",
    state: "open",
    html_url: "https://github.com/octo/widgets/issues/7",
    user: { login: "mona", id: 1 },
    labels: [{ name: "bug", color: "ff0000" }, { name: "ci" }],
    comments: 2,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:01:00Z",
    closed_at: null,
    ...over,
  };
}

const PR_LINKS = { url: "https://api.github.com/repos/octo/widgets/pulls/7", html_url: "https://github.com/x" };

Deno.test("toObservation: an issue's header, times in epoch ms, label names, merged null", () => {
  assert.deepEqual(toObservation(issueOf()), {
    number: 7,
    kind: "issue",
    state: "open",
    title: "Widgets break",
    body: "Steps to reproduce",
    labels: ["bug", "ci"],
    author: "mona",
    comments: 2,
    created_at: Date.UTC(2026, 0, 1),
    updated_at: Date.UTC(2026, 0, 1, 0, 1),
    closed_at: null,
    merged: null,
    html_url: "https://github.com/octo/widgets/issues/7",
  });
});

Deno.test("toObservation: a closed issue keeps its closed_at; a deleted author and a null body stay null", () => {
  const t = toObservation(issueOf({ state: "closed", closed_at: "2026-01-02T00:00:00Z", user: null, body: null }));
  assert.equal(t.state, "closed");
  assert.equal(t.closed_at, Date.UTC(2026, 0, 2));
  assert.equal(t.author, null);
  assert.equal(t.body, null);
});

Deno.test("toObservation: labels given as plain strings keep their text", () => {
  const issue = issueOf();
  // GitHub's schema allows a label as a bare string; the listing's type only says objects.
  (issue as { labels: unknown[] }).labels = ["bug", { name: "ci" }];
  assert.deepEqual(toObservation(issue).labels, ["bug", "ci"]);
});

Deno.test("toObservation: a pull request is merged when merged_at is set, not when null, unknown when absent", () => {
  const pr = (merged_at?: string | null) =>
    toObservation(issueOf({ pull_request: merged_at === undefined ? PR_LINKS : { ...PR_LINKS, merged_at } }));
  assert.equal(pr("2026-01-02T00:00:00Z").kind, "pull_request");
  assert.equal(pr("2026-01-02T00:00:00Z").merged, true);
  assert.equal(pr(null).merged, false);
  assert.equal(pr(undefined).merged, null);
  assert.equal(pr(undefined).kind, "pull_request");
});

Deno.test("itemForError: rate limits, transient and store errors are retryable, with retry_after_ms when known", () => {
  const retryable: AppErrorCode[] = [
    "rate_limited",
    "transient",
    "budget_exhausted",
    "store_busy",
    "storage_unavailable",
  ];
  for (const code of retryable) {
    assert.deepEqual(itemForError("octo/a", new AppError(code, `Cannot read: ${code}`, { retryAfterMs: 1_500 })), {
      key: "octo/a",
      item_status: "retryable",
      reason: code,
      message: `Cannot read: ${code}`,
      retry_after_ms: 1_500,
    });
    const item = itemForError("octo/a", new AppError(code, "x"));
    assert.equal(item.item_status, "retryable", code);
    assert.equal("retry_after_ms" in item, false, `${code}: no retry_after_ms when unknown`);
  }
  assert.equal(itemForError("octo/a", new AppError("rate_limited", "x", { retryAfterMs: 0 })).retry_after_ms, 0);
});

Deno.test("itemForError: a repository not found or not readable is unavailable", () => {
  for (const code of ["not_found", "access_denied"] as const) {
    const err = new AppError(code, "Cannot read octo/a", { retryAfterMs: 5 });
    assert.deepEqual(itemForError("octo/a", err), {
      key: "octo/a",
      item_status: "unavailable",
      reason: code,
      message: "Cannot read octo/a",
    });
  }
});

Deno.test("itemForError: any other AppError fails the item with its code and message", () => {
  for (const code of ["github_invalid", "request_failed", "internal", "invalid_argument"] as const) {
    assert.deepEqual(itemForError("octo/a", new AppError(code, "Cannot use it")), {
      key: "octo/a",
      item_status: "failed",
      reason: code,
      message: "Cannot use it",
    });
  }
});

Deno.test("itemForError: an unexpected error fails the item as internal without its text", () => {
  for (const err of [new TypeError("secret detail"), "secret detail", undefined]) {
    const item = itemForError("octo/a", err);
    assert.deepEqual(item, {
      key: "octo/a",
      item_status: "failed",
      reason: "internal",
      message: "Internal error; see the server log",
    });
    assert.doesNotMatch(JSON.stringify(item), /secret/);
  }
});
