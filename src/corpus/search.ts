/**
 * `corpus.search_threads`: offline full-text search with BM25 ranking (titles and labels weigh
 * more than bodies), filters, and an opaque keyset cursor. Every hit says when it was synced;
 * `coverage` says, per repository in scope, whether and when its threads were synced, so an
 * empty answer for an unsynced repository reads as unknown, not as "no such threads".
 *
 * @module
 */

import { iso } from "../base/answers.ts";
import {
  CORPUS_ITEMS_PER_CALL_MAX,
  SEARCH_LABEL_CHARS_MAX,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_CHARS_MAX,
} from "../base/limits.ts";
import type { CorpusRows } from "../store/corpus_rows.ts";
import type { ThreadKind, ThreadState } from "../store/corpus_types.ts";
import { ftsQueryFromText } from "../store/fts_query.ts";
import type { SearchRanking } from "../store/thread_search_rows.ts";
import { decodeSearchCursor, encodeSearchCursor, hash53 } from "./cursor.ts";
import { EXAMPLE_REPOSITORY, invalidArgument, parseRepositoryName, requireList } from "./refs.ts";
import { type CompactThread, compactThread } from "./projection.ts";

/** Input of {@linkcode searchThreads}. */
export interface SearchThreadsInput {
  /** Free text: words are ANDed, `word*` is a prefix; operators are searched as plain words. */
  query: string;
  /** Only these repositories (1..{@linkcode CORPUS_ITEMS_PER_CALL_MAX}). */
  repositories?: readonly string[] | undefined;
  /** Default `both`. */
  kind?: ThreadKind | "both" | undefined;
  /** Default `all`. */
  state?: ThreadState | "all" | undefined;
  /** Only threads carrying this label (case-insensitive, exact name). */
  label?: string | undefined;
  /** 1..{@linkcode SEARCH_LIMIT_MAX}, default {@linkcode SEARCH_LIMIT_DEFAULT}. */
  limit?: number | undefined;
  /** `next_cursor` of the previous page of the same query and filters. */
  cursor?: string | undefined;
}

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

function oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  return invalidArgument(
    path,
    `Cannot read ${path}: expected one of ${allowed.join(", ")}; current value is ${JSON.stringify(value)}`,
    fallback,
  );
}

/**
 * Searches the corpus.
 *
 * @throws {AppError} `invalid_argument` for a bad query, filter, limit or cursor.
 */
export function searchThreads(rows: CorpusRows, input: SearchThreadsInput): SearchThreadsAnswer {
  const query: unknown = input.query;
  if (typeof query !== "string" || query.trim() === "" || query.length > SEARCH_QUERY_CHARS_MAX) {
    const shown = typeof query === "string" ? `${query.length} characters` : JSON.stringify(query);
    invalidArgument(
      "query",
      `Cannot read query: expected 1..${SEARCH_QUERY_CHARS_MAX} characters of text; current value is ${shown}`,
      "flaky test timeout",
    );
  }
  const match = ftsQueryFromText(query);
  if (match === null) {
    invalidArgument(
      "query",
      `Cannot search: the query ${JSON.stringify(query)} has no letters or digits to search for`,
      "flaky test timeout",
    );
  }
  const repositories = input.repositories === undefined ? undefined : requireList(
    input.repositories,
    "repositories",
    EXAMPLE_REPOSITORY,
    CORPUS_ITEMS_PER_CALL_MAX,
  ).map((value, i) => parseRepositoryName(value, `repositories[${i}]`));
  const kind = oneOf<ThreadKind | "both">(input.kind, ["issue", "pull_request", "both"], "kind", "both");
  const state = oneOf<ThreadState | "all">(input.state, ["open", "closed", "all"], "state", "all");
  const label: unknown = input.label;
  if (
    label !== undefined &&
    (typeof label !== "string" || label.trim() === "" || label.length > SEARCH_LABEL_CHARS_MAX)
  ) {
    invalidArgument(
      "label",
      `Cannot read label: expected a label name of 1..${SEARCH_LABEL_CHARS_MAX} characters; current value is ${
        JSON.stringify(label)
      }`,
      "bug",
    );
  }
  const limit: unknown = input.limit ?? SEARCH_LIMIT_DEFAULT;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) {
    invalidArgument(
      "limit",
      `Cannot read limit: expected an integer 1..${SEARCH_LIMIT_MAX}; current value is ${JSON.stringify(limit)}`,
      SEARCH_LIMIT_DEFAULT,
    );
  }

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
