/**
 * Path validation for the REST client: the only way an owner, a repository name or a git ref
 * enters a request path, so a caller's string can never reach another endpoint (`..`, `?`, an
 * encoded slash) or carry a control character into the request line.
 *
 * @module
 */

import { GITHUB_REF_CHARS_MAX } from "../base/limits.ts";
import { isOwnerName, isRepoName } from "../base/names.ts";

/**
 * `/repos/{owner}/{repo}` after validating both names.
 *
 * @throws {TypeError} when either name is not a valid GitHub owner or repository name.
 */
export function repoPath(owner: string, repo: string): string {
  if (!isOwnerName(owner)) {
    throw new TypeError(`Cannot use a GitHub owner name: current value is ${JSON.stringify(owner)}`);
  }
  if (!isRepoName(repo)) {
    throw new TypeError(`Cannot use a GitHub repository name: current value is ${JSON.stringify(repo)}`);
  }
  return `/repos/${owner}/${repo}`;
}

/**
 * Whether `ref` can name a git ref (SHA, branch or tag) in a request path: not empty, at most
 * {@linkcode GITHUB_REF_CHARS_MAX} characters, no whitespace, control character or one of `~^:?*[\`, and no
 * empty, `.` or `..` segment.
 */
export function isGitRef(ref: unknown): ref is string {
  // deno-lint-ignore no-control-regex
  if (typeof ref !== "string" || ref === "" || ref.length > GITHUB_REF_CHARS_MAX || /[\s\x00-\x1f~^:?*[\\]/.test(ref)) {
    return false;
  }
  return !ref.split("/").some((s) => s === "" || s === "." || s === "..");
}

/**
 * A ref (SHA, branch or tag) as a path, each segment percent-encoded.
 *
 * @throws {TypeError} when {@linkcode isGitRef} refuses it.
 */
export function refPath(ref: string): string {
  if (!isGitRef(ref)) throw new TypeError(`Cannot use a git ref: current value is ${JSON.stringify(ref)}`);
  return ref.split("/").map(encodeURIComponent).join("/");
}
