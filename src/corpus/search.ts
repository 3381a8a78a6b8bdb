/**
 * `corpus.search_threads`: offline full-text search with BM25 ranking (titles and labels weigh
 * more than bodies), filters, and an opaque keyset cursor. Every hit says when it was synced;
 * `coverage` says, per repository in scope, whether and when its threads were synced, so an
 * empty answer for an unsynced repository reads as unknown, not as "no such threads".
 *
 * @module
 */

import { iso } from "../base/answers.ts";
import { SEARCH_LIMIT_DEFAULT } from "../base/limits.ts";
import type { CorpusRows } from "../store/corpus_rows.ts";
import { ftsQueryFromText } from "../store/fts_query.ts";
import type { SearchRanking } from "../store/thread_search_rows.ts";
import { decodeSearchCursor, encodeSearchCursor, hash53 } from "./cursor.ts";
import type { SearchThreadsInput } from "./inputs.ts";
import { invalidArgument, parseRepositoryName } from "./refs.ts";
import { type CompactThread, compactThread } from "./projection.ts";

/** A search hit: the compact thread and its relevance (higher is better). */
export interface SearchThreadsHit extends CompactThread {
  score: number;
}

/** Whether (and when) the corpus holds threads of a repository in scope. */
export interface RepositoryCoverage {
  repository: string;
  /** `not_synced`: no threads of it are stored, so its matches are unknown. */
  status: "synced" | "not_synced";
  /** Last time threads of this repository were written to the corpus. */
  threads_synced_at: string | null;
}

/** Answer of {@linkcode searchThreads}. */
export interface SearchThreadsAnswer {
  items: SearchThreadsHit[];
  /** Opaque; pass it back as `cursor` for the next page. `null` when this is the last page. */
  next_cursor: string | null;
  /** The FTS5 expression the query text became (for transparency). */
  interpreted_query: string;
  /**
   * Which matches were ranked: `all_matches`, or for a very broad query `newest_matches` (only
   * the most recently stored SEARCH_RANKED_MATCHES_MAX (1,000) matches were ranked); refine the query or add filters to rank
   * everything.
   */
  ranking: SearchRanking;
  /** The requested repositories, or (without a repository filter) those of the hits. */
  coverage: RepositoryCoverage[];
}

/**
 * Searches the corpus. `input` is what `SearchThreadsArgs` (src/corpus/inputs.ts) parsed: the tool
 * and the CLI parse with it, so its bounds are not checked again here.
 *
 * @throws {AppError} `invalid_argument` for a query with no letters or digits, a repository that is
 *   not owner/repo (path `$.repositories.I`), or a cursor not issued for this query and filters.
 */
export function searchThreads(rows: CorpusRows, input: SearchThreadsInput): SearchThreadsAnswer {
  const { query, label } = input;
  const match = ftsQueryFromText(query);
  if (match === null) {
    invalidArgument("$.query", {
      message: `Cannot search: the query ${JSON.stringify(query)} has no letters or digits to search for`,
      example: "flaky test timeout",
    });
  }
  const repositories = input.repositories?.map((value, i) => parseRepositoryName(value, `$.repositories.${i}`));
  const kind = input.kind ?? "both";
  const state = input.state ?? "all";
  const limit = input.limit ?? SEARCH_LIMIT_DEFAULT;

  const fingerprint = hash53(JSON.stringify([
    match,
    repositories === undefined ? null : [...new Set(repositories.map((r) => r.toLowerCase()))].sort(),
    kind,
    state,
    label === undefined ? null : label.toLowerCase(),
  ]));
  const after = input.cursor === undefined ? undefined : decodeSearchCursor(input.cursor, fingerprint);

  const page = rows.threadsSearch({
    query,
    ...(repositories === undefined ? {} : { repositories }),
    ...(kind === "both" ? {} : { kind }),
    ...(state === "all" ? {} : { state }),
    ...(label === undefined ? {} : { label }),
    limit,
    ...(after === undefined ? {} : { after }),
  });

  const scope = repositories ?? page.rows.map((r) => r.repository);
  const seen = new Set<string>();
  const coverage: RepositoryCoverage[] = [];
  for (const repository of scope) {
    const folded = repository.toLowerCase();
    if (seen.has(folded)) continue;
    seen.add(folded);
    const at = rows.threadsSyncedAt(repository);
    coverage.push(
      at === undefined
        ? { repository, status: "not_synced", threads_synced_at: null }
        : { repository, status: "synced", threads_synced_at: iso(at) },
    );
  }

  return {
    items: page.rows.map((row) => ({ ...compactThread(row), score: -row.score })),
    next_cursor: page.next === null ? null : encodeSearchCursor(fingerprint, page.next),
    interpreted_query: match,
    ranking: page.ranking,
    coverage,
  };
}
