/**
 * GitHub's naming rules, in one place for every layer that checks input (the watch and sync
 * schemas, the corpus references, the REST client's paths, the CLI):
 *
 * - owner (user or organization login): 1..39 characters, ASCII letters, digits and single
 *   hyphens, neither starting nor ending with a hyphen;
 * - repository: 1..100 characters of ASCII letters, digits, `.`, `_` and `-`, not starting with
 *   `-`, and not `.` or `..` (which would walk the API path);
 * - `owner/repo#n` (n a positive 32-bit integer, no leading zeros, nothing else around it) and
 *   a pull request's address on github.com, also one copied from inside the pull request
 *   (`https://github.com/owner/repo/pull/n/checks`, `...?tab=checks`, `...#discussion`), as `gh` takes it;
 * - a commit SHA from GitHub: 40 lowercase hex digits.
 *
 * @module
 */

import { GITHUB_NUMBER_MAX, GITHUB_OWNER_CHARS_MAX, GITHUB_REPO_CHARS_MAX } from "./limits.ts";

const OWNER = new RegExp(`^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,${GITHUB_OWNER_CHARS_MAX - 1}}$`);
const REPO = new RegExp(`^[A-Za-z0-9._][A-Za-z0-9._-]{0,${GITHUB_REPO_CHARS_MAX - 1}}$`);
const NUMBER = /^[1-9][0-9]{0,9}$/;
const SHA = /^[0-9a-f]{40}$/;

/** Owner pattern as a string (JSON Schema `pattern` for clients). */
export const GITHUB_OWNER_PATTERN = OWNER.source;
/** Repository pattern as a string (JSON Schema `pattern`; `.`/`..` are refused separately). */
export const GITHUB_REPO_PATTERN = REPO.source;

/** Whether `value` is a valid GitHub owner (user or organization) name. */
export function isOwnerName(value: unknown): value is string {
  return typeof value === "string" && OWNER.test(value);
}

/** Whether `value` is a valid GitHub repository name (without the owner). */
export function isRepoName(value: unknown): value is string {
  return typeof value === "string" && REPO.test(value) && value !== "." && value !== "..";
}

/** Whether `value` is `owner/repo` with both parts valid. */
export function isFullRepositoryName(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const slash = value.indexOf("/");
  return slash > 0 && isOwnerName(value.slice(0, slash)) && isRepoName(value.slice(slash + 1));
}

/** Whether `value` is a commit SHA as GitHub writes it (40 lowercase hex). */
export function isCommitSha(value: unknown): value is string {
  return typeof value === "string" && SHA.test(value);
}

/** A pull request or issue number as written in a reference, or undefined. */
function refNumber(text: string): number | undefined {
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text);
  return n <= GITHUB_NUMBER_MAX ? n : undefined;
}

/**
 * One repository, `owner/repo`: what every repository endpoint of the GitHub client takes first. The
 * names are validated where they enter a path (`repoPath` in src/github/repo_path.ts).
 */
export interface RepoRef {
  /** The user or organization login, e.g. `denoland`. */
  owner: string;
  /** The repository's name without the owner, e.g. `deno`. */
  repo: string;
}

/** One pull request (or issue): its repository and number, `owner/repo#number`. */
export interface PullRef extends RepoRef {
  number: number;
}

/** Parses `owner/repo#n` strictly, or returns undefined. */
export function parseThreadRefText(text: string): PullRef | undefined {
  const m = /^([^/#]+)\/([^/#]+)#([^#]+)$/.exec(text);
  if (m === null) return undefined;
  const [, owner = "", repo = "", num = ""] = m;
  const number = refNumber(num);
  if (!isOwnerName(owner) || !isRepoName(repo) || number === undefined) return undefined;
  return { owner, repo, number };
}

/**
 * Parses `owner/repo#n`, or the address of a pull request on github.com (`http` or `https`, with or
 * without `www.`): `/owner/repo/pull/n`, then nothing or a path, query or fragment inside it
 * (`/checks`, `/files#diff-...`, `?tab=checks`), as `gh` reads such an address.
 */
export function parsePullRefText(text: string): PullRef | undefined {
  const fromRef = parseThreadRefText(text);
  if (fromRef !== undefined) return fromRef;
  const m = /^https?:\/\/(?:www\.)?github\.com\/([^/?#]+)\/([^/?#]+)\/pull\/([^/?#]+)(?:[/?#].*)?$/i.exec(text);
  if (m === null) return undefined;
  const [, owner = "", repo = "", num = ""] = m;
  const number = refNumber(num);
  if (!isOwnerName(owner) || !isRepoName(repo) || number === undefined) return undefined;
  return { owner, repo, number };
}
