/**
 * `corpus.get_threads`, `corpus.get_repositories` and `corpus.get_pull_request_checks`:
 * vectorized offline reads. One item per input in input order (duplicates answered in place);
 * data the corpus does not hold is `unavailable` with reason `not_synced`, never "absent".
 *
 * @module
 */

import { CORPUS_ITEMS_PER_CALL_MAX } from "../base/limits.ts";
import type { CorpusRows } from "../store/corpus_rows.ts";
import {
  EXAMPLE_REPOSITORY,
  EXAMPLE_THREAD_REF,
  invalidArgument,
  parseRepositoryName,
  parseThreadRef,
  requireList,
} from "./refs.ts";
import {
  type CompactThread,
  compactThread,
  type CorpusBatch,
  corpusBatchOf,
  type FullThread,
  fullThread,
  type PullRequestChecksView,
  pullRequestChecksView,
  type RepositoryView,
  repositoryView,
} from "./views.ts";

/** Input of {@linkcode getThreads}. */
export interface GetThreadsInput {
  /** 1..{@linkcode CORPUS_ITEMS_PER_CALL_MAX} references `owner/repo#n`. */
  threads: readonly string[];
  /** `compact` (default) drops the body; `full` includes it. */
  view?: "compact" | "full";
}

/** Input of {@linkcode getRepositories}. */
export interface GetRepositoriesInput {
  /** 1..{@linkcode CORPUS_ITEMS_PER_CALL_MAX} names `owner/repo`. */
  repositories: readonly string[];
}

/** Input of {@linkcode getPullRequestChecks}. */
export interface GetPullRequestChecksInput {
  /** 1..{@linkcode CORPUS_ITEMS_PER_CALL_MAX} references `owner/repo#n`. */
  pull_requests: readonly string[];
}

/**
 * Stored threads by reference, compact or full.
 *
 * @throws {AppError} `invalid_argument` for a bad list, reference or view.
 */
export function getThreads(rows: CorpusRows, input: GetThreadsInput): CorpusBatch<CompactThread | FullThread> {
  const list = requireList(input.threads, "threads", EXAMPLE_THREAD_REF, CORPUS_ITEMS_PER_CALL_MAX);
  const view = input.view ?? "compact";
  if (view !== "compact" && view !== "full") {
    invalidArgument("view", `Cannot read view: expected compact or full; current value is ${String(view)}`, "full");
  }
  const refs = list.map((value, i) => parseThreadRef(value, `threads[${i}]`));
  const found = rows.threadsGet(refs);
  return corpusBatchOf(refs.map((ref, i) => {
    const row = found[i];
    if (row === undefined) {
      return {
        key: ref.key,
        item_status: "unavailable",
        reason: "not_synced",
        message:
          `The corpus holds no copy of ${ref.key}; it is unknown whether it exists (sync ${ref.repository} first)`,
      };
    }
    return { key: ref.key, item_status: "complete", value: view === "full" ? fullThread(row) : compactThread(row) };
  }));
}

/**
 * Stored repository metadata by name.
 *
 * @throws {AppError} `invalid_argument` for a bad list or name.
 */
export function getRepositories(rows: CorpusRows, input: GetRepositoriesInput): CorpusBatch<RepositoryView> {
  const list = requireList(input.repositories, "repositories", EXAMPLE_REPOSITORY, CORPUS_ITEMS_PER_CALL_MAX);
  const names = list.map((value, i) => parseRepositoryName(value, `repositories[${i}]`));
  const found = rows.repositoriesGet(names);
  return corpusBatchOf(names.map((name, i) => {
    const row = found[i];
    if (row === undefined) {
      return {
        key: name,
        item_status: "unavailable",
        reason: "not_synced",
        message: `The corpus holds no metadata for ${name}; it is unknown whether it exists (sync it first)`,
      };
    }
    return { key: name, item_status: "complete", value: repositoryView(row) };
  }));
}

/**
 * The last stored complete checks observation per pull request.
 *
 * @throws {AppError} `invalid_argument` for a bad list or reference.
 */
export function getPullRequestChecks(
  rows: CorpusRows,
  input: GetPullRequestChecksInput,
): CorpusBatch<PullRequestChecksView> {
  const list = requireList(input.pull_requests, "pull_requests", EXAMPLE_THREAD_REF, CORPUS_ITEMS_PER_CALL_MAX);
  const refs = list.map((value, i) => parseThreadRef(value, `pull_requests[${i}]`));
  const found = rows.pullRequestChecksGet(refs);
  return corpusBatchOf(refs.map((ref, i) => {
    const row = found[i];
    if (row === undefined) {
      return {
        key: ref.key,
        item_status: "unavailable",
        reason: "not_synced",
        message:
          `No checks observation of ${ref.key} is stored; its CI state is unknown (watch it with github.wait_pull_request_checks)`,
      };
    }
    return { key: ref.key, item_status: "complete", value: pullRequestChecksView(row) };
  }));
}
