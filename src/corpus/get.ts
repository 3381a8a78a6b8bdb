/**
 * `corpus.get_threads`, `corpus.get_repositories` and `corpus.get_pull_request_checks`:
 * vectorized offline reads. One item per input in input order (duplicates answered in place);
 * data the corpus does not hold is `unavailable` with reason `not_synced`, never "absent".
 *
 * @module
 */

import { batchOf } from "../base/answers.ts";
import type { CorpusRows } from "../store/corpus_rows.ts";
import type { ThreadRow } from "../store/corpus_types.ts";
import type { GetPullRequestChecksInput, GetRepositoriesInput, GetThreadsInput } from "./inputs.ts";
import { parseRepositoryName, parseThreadRef } from "./refs.ts";
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

/**
 * One item per key, in order: the view of the stored row found for it (`answers.found`, by index), or `not_synced`
 * with the message `answers.missing` gives (never "absent").
 */
function answerEach<R, V>(
  keys: readonly string[],
  answers: {
    found: readonly (R | undefined)[];
    view: (row: R) => V;
    missing: (key: string, index: number) => string;
  },
): CorpusBatch<V> {
  const { found, view, missing } = answers;
  return batchOf(keys.map((key, i) => {
    const row = found[i];
    return row === undefined
      ? { key, item_status: "unavailable", reason: "not_synced", message: missing(key, i) }
      : { key, item_status: "complete", value: view(row) };
  }));
}

/**
 * Stored threads by reference, compact or full. `input` is what `GetThreadsArgs`
 * (src/corpus/inputs.ts) parsed: the list's length and the view are not checked again here.
 *
 * @throws {AppError} `invalid_argument` for a reference that is not owner/repo#n (path `$.threads.I`).
 */
export function getThreads(rows: CorpusRows, input: GetThreadsInput): CorpusBatch<CompactThread | FullThread> {
  const view = input.view ?? "compact";
  const refs = input.threads.map((value, i) => parseThreadRef(value, `$.threads.${i}`));
  return answerEach<ThreadRow, CompactThread | FullThread>(refs.map((r) => r.key), {
    found: rows.threadsGet(refs),
    view: (row) => view === "full" ? fullThread(row) : compactThread(row),
    missing: (key, i) =>
      `The corpus holds no copy of ${key}; it is unknown whether it exists (sync ${refs[i]?.repository} first)`,
  });
}

/**
 * Stored repository metadata by name. `input` is what `GetRepositoriesArgs` (src/corpus/inputs.ts)
 * parsed.
 *
 * @throws {AppError} `invalid_argument` for a name that is not owner/repo (path `$.repositories.I`).
 */
export function getRepositories(rows: CorpusRows, input: GetRepositoriesInput): CorpusBatch<RepositoryItem> {
  const names = input.repositories.map((value, i) => parseRepositoryName(value, `$.repositories.${i}`));
  return answerEach(names, {
    found: rows.repositoriesGet(names),
    view: repositoryItem,
    missing: (name) => `The corpus holds no metadata for ${name}; it is unknown whether it exists (sync it first)`,
  });
}

/**
 * The last stored complete checks observation per pull request. `input` is what
 * `GetPullRequestChecksArgs` (src/corpus/inputs.ts) parsed.
 *
 * @throws {AppError} `invalid_argument` for a reference that is not owner/repo#n (path `$.pull_requests.I`).
 */
export function getPullRequestChecks(
  rows: CorpusRows,
  input: GetPullRequestChecksInput,
): CorpusBatch<PullRequestChecksItem> {
  const refs = input.pull_requests.map((value, i) => parseThreadRef(value, `$.pull_requests.${i}`));
  return answerEach(refs.map((r) => r.key), {
    found: rows.pullRequestChecksGet(refs),
    view: pullRequestChecksItem,
    missing: (key) =>
      `No checks observation of ${key} is stored; its CI state is unknown (watch it with github.wait_pull_request_checks)`,
  });
}
