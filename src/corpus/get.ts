/**
 * `corpus.get_threads`, `corpus.get_repositories` and `corpus.get_pull_request_checks`:
 * vectorized offline reads. One item per input in input order (duplicates answered in place);
 * data the corpus does not hold is `unavailable` with reason `not_synced`, never "absent".
 *
 * @module
 */

import { batchOf } from "../base/answers.ts";
import { CORPUS_ITEMS_PER_CALL_MAX } from "../base/limits.ts";
import type { CorpusRows } from "../store/corpus_rows.ts";
import type { ThreadRow } from "../store/corpus_types.ts";
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
  type FullThread,
  fullThread,
  type PullRequestChecksItem,
  pullRequestChecksItem,
  type RepositoryItem,
  repositoryItem,
} from "./projection.ts";

/** Input of {@linkcode getThreads}. */
export interface GetThreadsInput {
  /** 1..{@linkcode CORPUS_ITEMS_PER_CALL_MAX} references `owner/repo#n`. */
  threads: readonly string[];
  /** `compact` (default) drops the body; `full` includes it. */
  view?: "compact" | "full" | undefined;
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

/** One item per key, in order: the stored row's view, or `not_synced` with a message (never "absent"). */
function answerEach<R, V>(
  keys: readonly string[],
  found: readonly (R | undefined)[],
  view: (row: R) => V,
  missing: (key: string, index: number) => string,
): CorpusBatch<V> {
  return batchOf(keys.map((key, i) => {
    const row = found[i];
    return row === undefined
      ? { key, item_status: "unavailable", reason: "not_synced", message: missing(key, i) }
      : { key, item_status: "complete", value: view(row) };
  }));
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
  return answerEach<ThreadRow, CompactThread | FullThread>(
    refs.map((r) => r.key),
    rows.threadsGet(refs),
    (row) => view === "full" ? fullThread(row) : compactThread(row),
    (key, i) =>
      `The corpus holds no copy of ${key}; it is unknown whether it exists (sync ${refs[i]?.repository} first)`,
  );
}

/**
 * Stored repository metadata by name.
 *
 * @throws {AppError} `invalid_argument` for a bad list or name.
 */
export function getRepositories(rows: CorpusRows, input: GetRepositoriesInput): CorpusBatch<RepositoryItem> {
  const list = requireList(input.repositories, "repositories", EXAMPLE_REPOSITORY, CORPUS_ITEMS_PER_CALL_MAX);
  const names = list.map((value, i) => parseRepositoryName(value, `repositories[${i}]`));
  return answerEach(
    names,
    rows.repositoriesGet(names),
    repositoryItem,
    (name) => `The corpus holds no metadata for ${name}; it is unknown whether it exists (sync it first)`,
  );
}

/**
 * The last stored complete checks observation per pull request.
 *
 * @throws {AppError} `invalid_argument` for a bad list or reference.
 */
export function getPullRequestChecks(
  rows: CorpusRows,
  input: GetPullRequestChecksInput,
): CorpusBatch<PullRequestChecksItem> {
  const list = requireList(input.pull_requests, "pull_requests", EXAMPLE_THREAD_REF, CORPUS_ITEMS_PER_CALL_MAX);
  const refs = list.map((value, i) => parseThreadRef(value, `pull_requests[${i}]`));
  return answerEach(
    refs.map((r) => r.key),
    rows.pullRequestChecksGet(refs),
    pullRequestChecksItem,
    (key) =>
      `No checks observation of ${key} is stored; its CI state is unknown (watch it with github.wait_pull_request_checks)`,
  );
}
