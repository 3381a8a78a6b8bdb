/**
 * GitHub's naming rules (src/base/names.ts), value by value, at and past each bound. The same
 * rules over the wire and in the CLI: tests/names_test.ts.
 */

import assert from "node:assert/strict";
import { GITHUB_NUMBER_MAX, GITHUB_OWNER_CHARS_MAX, GITHUB_REPO_CHARS_MAX } from "./limits.ts";
import {
  isCommitSha,
  isFullRepositoryName,
  isOwnerName,
  isRepoName,
  parsePullRefText,
  parseThreadRefText,
} from "./names.ts";

const BAD_OWNERS = [".", "..", "-", "_x", "a-", "-a", "a--b", "a_b", "a.b", "", "a/b", "é", "a".repeat(40)];
const BAD_REPOS = [".", "..", "-x", "", "a/b", "a b", "é", "a#1", "a".repeat(101)];

Deno.test("isOwnerName: GitHub's login rules, at and past the 39-character bound", () => {
  for (const ok of ["a", "A1", "octo-cat", "a-b-c", "0", "a".repeat(GITHUB_OWNER_CHARS_MAX)]) {
    assert.equal(isOwnerName(ok), true, ok);
  }
  for (const bad of BAD_OWNERS) assert.equal(isOwnerName(bad), false, JSON.stringify(bad));
  assert.equal(isOwnerName("a".repeat(GITHUB_OWNER_CHARS_MAX + 1)), false);
  assert.equal(isOwnerName(42), false);
});

Deno.test("isRepoName: GitHub's repository rules, at and past the 100-character bound", () => {
  for (const ok of ["a", ".github", "_x", "a.b_c-d", "...", "x-", "a".repeat(GITHUB_REPO_CHARS_MAX)]) {
    assert.equal(isRepoName(ok), true, ok);
  }
  for (const bad of BAD_REPOS) assert.equal(isRepoName(bad), false, JSON.stringify(bad));
  assert.equal(isRepoName("a".repeat(GITHUB_REPO_CHARS_MAX + 1)), false);
  assert.equal(isFullRepositoryName("acme/.."), false);
  assert.equal(isFullRepositoryName("acme/widgets"), true);
  assert.equal(isFullRepositoryName("acme/widgets/x"), false);
});

Deno.test("parseThreadRefText / parsePullRefText parse strictly", () => {
  assert.deepEqual(parseThreadRefText("octo/widgets#42"), { owner: "octo", repo: "widgets", number: 42 });
  assert.deepEqual(parsePullRefText("https://github.com/octo/widgets/pull/42"), {
    owner: "octo",
    repo: "widgets",
    number: 42,
  });
  assert.deepEqual(parsePullRefText("https://github.com/octo/widgets/pull/42/"), {
    owner: "octo",
    repo: "widgets",
    number: 42,
  });
  // An address copied from inside the pull request, as gh reads it.
  for (
    const inside of [
      "https://github.com/octo/widgets/pull/42/checks",
      "https://github.com/octo/widgets/pull/42/files#diff-0123",
      "https://github.com/octo/widgets/pull/42?tab=checks",
      "https://github.com/octo/widgets/pull/42#issuecomment-1",
      "http://github.com/octo/widgets/pull/42",
      "https://www.github.com/octo/widgets/pull/42",
      "HTTPS://GitHub.com/octo/widgets/pull/42",
    ]
  ) {
    assert.deepEqual(parsePullRefText(inside), { owner: "octo", repo: "widgets", number: 42 }, inside);
  }
  assert.deepEqual(parseThreadRefText(`o/r#${GITHUB_NUMBER_MAX}`)?.number, GITHUB_NUMBER_MAX);
  for (
    const bad of [
      "octo/widgets#0",
      "octo/widgets#042",
      "octo/widgets#-1",
      "octo/widgets#1.5",
      `octo/widgets#${GITHUB_NUMBER_MAX + 1}`,
      "octo/..#1",
      "-octo/widgets#1",
      "octo/widgets#1 ",
      " octo/widgets#1",
      "octo/widgets/x#1",
      "octo/widgets#1#2",
      "octo#1",
      "ftp://github.com/octo/widgets/pull/1",
      "github.com/octo/widgets/pull/1",
      "https://github.com/octo/widgets/pull/1x",
      "https://github.com/octo/widgets/pull/0/checks",
      "https://github.com/octo/widgets/pull/1 /checks",
      "https://gist.github.com/octo/widgets/pull/1",
      "https://github.com/octo/../pull/1",
      "https://github.com.evil/octo/widgets/pull/1",
      "https://github.com/octo/widgets/issues/1",
    ]
  ) {
    assert.equal(parsePullRefText(bad), undefined, bad);
  }
  assert.equal(isCommitSha("a".repeat(40)), true);
  assert.equal(isCommitSha("A".repeat(40)), false);
  assert.equal(isCommitSha("a".repeat(39)), false);
  assert.equal(isCommitSha("g".repeat(40)), false);
});
