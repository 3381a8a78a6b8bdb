/**
 * Thread search: full-text search over `threads_fts` (title, labels, body) with BM25, one
 * keyset page at a time. User text becomes a `MATCH` expression in fts_query.ts and is never
 * parsed as FTS5 syntax; a very broad query ranks only the newest matches so a search stays
 * bounded (see {@linkcode SearchRanking}).
 *
 * @module
 */

import { SEARCH_RANKED_MATCHES_MAX } from "../base/limits.ts";
import { num, type Raw, requireCount } from "./corpus_columns.ts";
import type { ThreadRow } from "./corpus_types.ts";
import { ftsSearchExpression, type ThreadsSearchFilters } from "./fts_query.ts";
import { THREAD_HEAD_COLUMNS, threadHeadFromRaw } from "./thread_rows.ts";
import type { Connection } from "./tx.ts";

/** BM25 column weights (title, labels, body): a title or label hit outranks a body hit. */
export const SEARCH_BM25_WEIGHTS = { title: 10, labels: 5, body: 1 } as const;

/** Keyset position in a search: the last row's BM25 score and id. */
export interface SearchPosition {
  score: number;
  id: number;
}

/** Parameters of {@linkcode ThreadSearchRows.threadsSearch}. */
export interface ThreadsSearchParams extends ThreadsSearchFilters {
  /** Free text typed by a user; never parsed as FTS5 syntax. */
  query: string;
  limit: number;
  after?: SearchPosition;
}

/** A search hit: the row (without body) and its BM25 score (lower is better). */
export interface ThreadSearchRow extends Omit<ThreadRow, "body"> {
  score: number;
}

/**
 * Which matches were ranked. `all_matches`: every match. `newest_matches`: more than
 * {@linkcode SEARCH_RANKED_MATCHES_MAX} threads matched, and only the most recently stored
 * {@linkcode SEARCH_RANKED_MATCHES_MAX} of them were ranked (a more specific query or a filter
 * ranks everything).
 */
export type SearchRanking = "all_matches" | "newest_matches";

/** The ranking a search with `matches` matching threads gets (counted up to one past the bound). */
export function searchRanking(matches: number): SearchRanking {
  return matches > SEARCH_RANKED_MATCHES_MAX ? "newest_matches" : "all_matches";
}

/** A page of search hits. */
export interface ThreadsSearchPage {
  /** Which matches were ranked. */
  ranking: SearchRanking;
  rows: ThreadSearchRow[];
  /** Position after the last row when more rows match; `null` at the end. */
  next: SearchPosition | null;
  /** The FTS5 expression that ran (`null` when the text had no searchable words). */
  match: string | null;
}

const BM25 =
  `bm25(threads_fts, ${SEARCH_BM25_WEIGHTS.title}, ${SEARCH_BM25_WEIGHTS.labels}, ${SEARCH_BM25_WEIGHTS.body}, 0)`;

const SEARCH_PROBE_SQL = `
SELECT count(*) AS n FROM (SELECT 1 FROM threads_fts WHERE threads_fts MATCH :match LIMIT :cap)`;

const SEARCH_SQL = `
WITH candidates AS MATERIALIZED (
  SELECT rowid AS id, ${BM25} AS score FROM threads_fts
  WHERE threads_fts MATCH :match ORDER BY rowid DESC LIMIT :cap
)
SELECT ${THREAD_HEAD_COLUMNS}, c.score AS score
FROM candidates AS c JOIN threads AS t ON t.id = c.id
WHERE (:label IS NULL OR EXISTS (SELECT 1 FROM json_each(t.labels) AS l WHERE l.value = :label COLLATE NOCASE))
  AND (:after_id IS NULL OR c.score > :after_score OR (c.score = :after_score AND c.id > :after_id))
ORDER BY c.score, c.id
LIMIT :limit`;

/** Search SQL over `threads_fts` and `threads`. */
export class ThreadSearchRows {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /**
   * Full-text search over title, labels and body with BM25 (title and labels weigh more),
   * ordered by score then id, one page after `after`. User text is never parsed as FTS5
   * syntax (see {@linkcode ftsSearchExpression}).
   */
  threadsSearch(params: ThreadsSearchParams): ThreadsSearchPage {
    requireCount(params.limit, "limit", { what: "search threads", min: 1 });
    const match = ftsSearchExpression(params.query, params);
    if (match === null) return { rows: [], next: null, match: null, ranking: "all_matches" };
    const matches = num(
      this.#conn.stmt(SEARCH_PROBE_SQL).get({ match, cap: SEARCH_RANKED_MATCHES_MAX + 1 }) as Raw,
      "n",
    );
    const raws = this.#conn.stmt(SEARCH_SQL).all({
      match,
      cap: SEARCH_RANKED_MATCHES_MAX,
      label: params.label ?? null,
      after_id: params.after?.id ?? null,
      after_score: params.after?.score ?? null,
      limit: params.limit + 1,
    }) as Raw[];
    const rows = raws.slice(0, params.limit).map((raw) => ({ ...threadHeadFromRaw(raw), score: num(raw, "score") }));
    const last = rows.at(-1);
    const next = raws.length > params.limit && last !== undefined ? { score: last.score, id: last.id } : null;
    return { rows, next, match, ranking: searchRanking(matches) };
  }
}
