/**
 * Corpus domain types: what is observed on GitHub (repositories, issue and pull request
 * headers, pull-request checks) and how it is stored. Shared by the table modules
 * (repository_rows.ts, thread_rows.ts, pull_request_checks_rows.ts), the search and the
 * corpus read tools.
 *
 * Conventions: times are integer milliseconds since the epoch; repository names are
 * `owner/name` and compare case-insensitively.
 *
 * @module
 */

/** Kind of a thread. */
export type ThreadKind = "issue" | "pull_request";
/** State of a thread. */
export type ThreadState = "open" | "closed";

/** A thread addressed by repository and number. */
export interface ThreadKey {
  repository: string;
  number: number;
}

/** Repository metadata as observed on GitHub (`GET /repos/{o}/{r}`). */
export interface RepositoryObservation {
  owner: string;
  name: string;
  description: string | null;
  topics: readonly string[];
  default_branch: string | null;
  stargazers_count: number | null;
  /** SPDX id (or key) of the license, when known. */
  license: string | null;
  archived: boolean;
  /** When it was read from GitHub (ms). An older observation never replaces a newer one. */
  observed_at: number;
}

/** A stored repository. */
export interface RepositoryRow {
  full_name: string;
  owner: string;
  name: string;
  description: string | null;
  topics: string[];
  default_branch: string | null;
  stargazers_count: number | null;
  license: string | null;
  archived: boolean;
  synced_at: number;
}

/** One issue or pull request header as observed on GitHub (the issues listing). */
export interface ThreadObservation {
  number: number;
  kind: ThreadKind;
  state: ThreadState;
  title: string;
  /** Truncated to THREAD_BODY_CHARS_MAX (src/base/limits.ts) when stored. */
  body: string | null;
  labels: readonly string[];
  author: string | null;
  comments: number;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  /** Pull requests only, when known; `null` for issues or when not read. */
  merged: boolean | null;
  html_url: string;
}

/** A stored thread. */
export interface ThreadRow {
  id: number;
  repository: string;
  number: number;
  kind: ThreadKind;
  state: ThreadState;
  title: string;
  body: string;
  body_truncated: boolean;
  labels: string[];
  author: string | null;
  comments: number;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  merged: boolean | null;
  html_url: string;
  synced_at: number;
}

/** The last complete checks observation of a pull request (written by the watcher). */
export interface PullRequestChecksObservation {
  repository: string;
  number: number;
  head_sha: string;
  outcome: string;
  /** Digest over every check's kind, name, status and conclusion. */
  signature: string;
  /** JSON-able check entries (at most WATCH_CHECKS_MAX, src/base/limits.ts). */
  checks: readonly unknown[];
  observed_at: number;
}

/** A stored checks observation. */
export interface PullRequestChecksRow {
  repository: string;
  number: number;
  head_sha: string;
  outcome: string;
  signature: string;
  checks: unknown[];
  observed_at: number;
}
