import assert from "node:assert/strict";
import { GITHUB_OWNER_CHARS_MAX, GITHUB_REF_CHARS_MAX, GITHUB_REPO_CHARS_MAX } from "../base/limits.ts";
import { refPath, repoPath } from "./repo_path.ts";

Deno.test("repoPath() builds /repos/{owner}/{repo} from valid names", () => {
  assert.equal(repoPath("octo", "widgets"), "/repos/octo/widgets");
  assert.equal(repoPath("a-b", ".github"), "/repos/a-b/.github");
  assert.equal(repoPath("denoland", "deno_std.v2"), "/repos/denoland/deno_std.v2");
});

Deno.test("repoPath() takes an owner of GITHUB_OWNER_CHARS_MAX characters and refuses one more", () => {
  const owner = "o".repeat(GITHUB_OWNER_CHARS_MAX);
  assert.equal(repoPath(owner, "r"), `/repos/${owner}/r`);
  assert.throws(() => repoPath(`${owner}o`, "r"), TypeError);
});

Deno.test("repoPath() takes a repository of GITHUB_REPO_CHARS_MAX characters and refuses one more", () => {
  const repo = "r".repeat(GITHUB_REPO_CHARS_MAX);
  assert.equal(repoPath("o", repo), `/repos/o/${repo}`);
  assert.throws(() => repoPath("o", `${repo}r`), TypeError);
});

Deno.test("repoPath() refuses names that would walk or leave the path, naming the bad value", () => {
  for (const owner of ["", "-octo", "octo-", "oc--to", "oc/to", "..", "octo?x", "oc to"]) {
    assert.throws(
      () => repoPath(owner, "widgets"),
      (err: unknown) =>
        err instanceof TypeError &&
        err.message === `Cannot use a GitHub owner name: current value is ${JSON.stringify(owner)}`,
      owner,
    );
  }
  for (const repo of ["", ".", "..", "-x", "a/b", "a?b", "a#b", "a%2fb", "a b"]) {
    assert.throws(
      () => repoPath("octo", repo),
      (err: unknown) =>
        err instanceof TypeError &&
        err.message === `Cannot use a GitHub repository name: current value is ${JSON.stringify(repo)}`,
      repo,
    );
  }
});

Deno.test("refPath() keeps slashes between segments and percent-encodes each segment", () => {
  assert.equal(refPath("main"), "main");
  assert.equal(refPath("feature/x"), "feature/x");
  assert.equal(refPath("6dcb09b5b57875f334f61aebed695e2e4193db5e"), "6dcb09b5b57875f334f61aebed695e2e4193db5e");
  assert.equal(refPath("a#b/100%/é"), "a%23b/100%25/%C3%A9");
  assert.equal(refPath("v1.2.3"), "v1.2.3");
});

Deno.test("refPath() takes a ref of GITHUB_REF_CHARS_MAX characters and refuses one more", () => {
  const ref = "r".repeat(GITHUB_REF_CHARS_MAX);
  assert.equal(refPath(ref), ref);
  assert.throws(() => refPath(`${ref}r`), /Cannot use a git ref: current value is "r{256}"/);
});

Deno.test("refPath() refuses empty refs and segments, dot segments, whitespace, controls and git's special characters", () => {
  const refused = [
    "",
    "/main",
    "main/",
    "a//b",
    ".",
    "..",
    "a/./b",
    "a/../b",
    "a b",
    "a\tb",
    "a\nb",
    "a\u0000b",
    "a\u001fb",
    "a~1",
    "a^",
    "a:b",
    "a?b",
    "a*b",
    "a[b",
    "a\\b",
  ];
  for (const ref of refused) {
    assert.throws(
      () => refPath(ref),
      (err: unknown) =>
        err instanceof TypeError && err.message === `Cannot use a git ref: current value is ${JSON.stringify(ref)}`,
      JSON.stringify(ref),
    );
  }
  assert.throws(() => refPath(42 as unknown as string), TypeError);
});
