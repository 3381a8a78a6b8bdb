/**
 * The projections of stored corpus rows: the JSON shapes the corpus read tools answer with (as in
 * src/jobs/projection.ts, a *projection* is a stored row in an answer's shape; a *view* only the
 * level of detail a caller asks for, here `view: "compact" | "full"` of threads). Times are ISO 8601
 * strings; every value carries `synced_at`, the time its data was read from GitHub.
 *
 * @module
 */

import { type Batch, type BatchItem, iso } from "../base/answers.ts";
import type { PullRequestChecksRow, RepositoryRow, ThreadKind, ThreadRow, ThreadState } from "../store/corpus_types.ts";

const isoOrNull = (ms: number | null): string | null => ms === null ? null : iso(ms);

/** A thread without its body (search hits and `view: "compact"`). */
export interface CompactThread {
  /** `owner/repo#number`. */
  ref: string;
  repository: string;
  number: number;
  kind: ThreadKind;
  state: ThreadState;
  title: string;
  labels: string[];
  author: string | null;
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /** Pull requests: whether merged, when known; `null` when unknown or an issue. */
  merged: boolean | null;
  html_url: string;
  synced_at: string;
}

/** A thread with its stored body (`view: "full"`). */
export interface FullThread extends CompactThread {
  body: string;
  /** The stored body was cut at the corpus bound; the full text is on GitHub. */
  body_truncated: boolean;
}

/** A repository's stored metadata, with its sync time as ISO 8601. */
export type RepositoryItem = Omit<RepositoryRow, "synced_at"> & { synced_at: string };

/** The last stored complete checks observation of a pull request. */
export interface PullRequestChecksItem {
  ref: string;
  repository: string;
  number: number;
  head_sha: string;
  outcome: string;
  signature: string;
  checks: unknown[];
  /** When the observation was made; CI may have moved on since. */
  synced_at: string;
}

/** Why an item is unavailable. `not_synced`: the corpus has no data for it (unknown, not absent). */
export type CorpusUnavailableReason = "not_synced";

/** A vectorized corpus answer: the shared batch (src/base/answers.ts), one item per input, in input order. */
export type CorpusBatch<T> = Batch<BatchItem<T, CorpusUnavailableReason>>;

/** The compact view of a stored thread. */
export function compactThread(row: Omit<ThreadRow, "body">): CompactThread {
  return {
    ref: `${row.repository}#${row.number}`,
    repository: row.repository,
    number: row.number,
    kind: row.kind,
    state: row.state,
    title: row.title,
    labels: row.labels,
    author: row.author,
    comments: row.comments,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    closed_at: isoOrNull(row.closed_at),
    merged: row.merged,
    html_url: row.html_url,
    synced_at: iso(row.synced_at),
  };
}

/** The full view of a stored thread. */
export function fullThread(row: ThreadRow): FullThread {
  return { ...compactThread(row), body: row.body, body_truncated: row.body_truncated };
}

/** The item of a stored repository. */
export function repositoryItem(row: RepositoryRow): RepositoryItem {
  return { ...row, synced_at: iso(row.synced_at) };
}

/** The item of a stored checks observation. */
export function pullRequestChecksItem(row: PullRequestChecksRow): PullRequestChecksItem {
  return {
    ref: `${row.repository}#${row.number}`,
    repository: row.repository,
    number: row.number,
    head_sha: row.head_sha,
    outcome: row.outcome,
    signature: row.signature,
    checks: row.checks,
    synced_at: iso(row.observed_at),
  };
}
