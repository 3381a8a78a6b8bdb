/**
 * Building FTS5 `MATCH` expressions for `threads_fts` from user input. Free text is never
 * parsed as FTS5 syntax: every word becomes a quoted phrase. Filters become phrases over the
 * `facets` column (see the `threads.facets` generated column in migrations/m002_corpus.ts) and
 * the `labels` column, so the index answers them. Pure: no SQL runs here.
 *
 * @module
 */

import { SEARCH_PREFIX_CHARS_MIN, SEARCH_QUERY_TERMS_MAX } from "../base/limits.ts";
import type { ThreadKind, ThreadState } from "./corpus_types.ts";

/** Characters the unicode61 tokenizer keeps inside a token (letters, numbers, private use). */
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;
const TOKEN_CHARS = /[\p{L}\p{N}\p{Co}]/gu;

/** One word as a quoted FTS5 phrase, or `null` when it holds no token character. */
export function ftsPhrase(word: string): string | null {
  return TOKEN_CHAR.test(word) ? `"${word.normalize("NFC").replaceAll('"', '""')}"` : null;
}

/**
 * Turns free text into a safe FTS5 expression: each whitespace-separated word becomes a
 * quoted phrase (internal `"` doubled), words are ANDed, and a word ending in `*` becomes a
 * prefix phrase (when it has at least {@linkcode SEARCH_PREFIX_CHARS_MIN} token characters).
 * Operators (`AND`, `NEAR(`, `^`, `:`) are therefore searched as words, never parsed. Words
 * without any token character are dropped; at most {@linkcode SEARCH_QUERY_TERMS_MAX} words
 * are kept; `null` when nothing remains.
 */
export function ftsQueryFromText(text: string): string | null {
  const terms: string[] = [];
  // Control characters (NUL ends an FTS5 string early) separate words like spaces do.
  // deno-lint-ignore no-control-regex
  for (const raw of text.normalize("NFC").replace(/[\u0000-\u001f\u007f]/gu, " ").split(/\s+/u)) {
    if (terms.length >= SEARCH_QUERY_TERMS_MAX) break;
    const word = raw.replace(/\*+$/u, "");
    const prefix = word !== raw && (word.match(TOKEN_CHARS) ?? []).length >= SEARCH_PREFIX_CHARS_MIN;
    const phrase = ftsPhrase(word);
    if (phrase !== null) terms.push(`${phrase}${prefix ? "*" : ""}`);
  }
  return terms.length === 0 ? null : terms.join(" ");
}

/** Filters of a thread search, each answered by the full-text index. */
export interface ThreadsSearchFilters {
  /** Any of these repositories (`owner/name`, case-insensitive); none or empty: every repository. */
  repositories?: readonly string[];
  kind?: ThreadKind;
  state?: ThreadState;
  /** A label phrase; the exact, case-insensitive label match is checked in SQL after the index. */
  label?: string;
}

function hexLower(text: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(text.toLowerCase())) out += b.toString(16).padStart(2, "0");
  return out;
}

/** The FTS5 phrase of a facet token: `zr` repository, `zk` kind, `zs` state, `zc` kind+state. */
function facet(prefix: "zr" | "zk" | "zs" | "zc", value: string): string {
  return `"${prefix}${hexLower(value)}"`;
}

/**
 * The whole `MATCH` expression of a search: the text's phrases (see
 * {@linkcode ftsQueryFromText}) ANDed with one phrase group per filter; `null` when the text
 * has no searchable words.
 */
export function ftsSearchExpression(text: string, filters: ThreadsSearchFilters = {}): string | null {
  const words = ftsQueryFromText(text);
  if (words === null) return null;
  const parts = [`(${words})`];
  const repositories = filters.repositories ?? [];
  if (repositories.length > 0) {
    parts.push(`{facets} : (${repositories.map((r) => facet("zr", r)).join(" OR ")})`);
  }
  if (filters.kind !== undefined && filters.state !== undefined) {
    parts.push(`{facets} : ${facet("zc", `${filters.kind} ${filters.state}`)}`);
  } else if (filters.kind !== undefined) parts.push(`{facets} : ${facet("zk", filters.kind)}`);
  else if (filters.state !== undefined) parts.push(`{facets} : ${facet("zs", filters.state)}`);
  const labelPhrase = filters.label === undefined ? null : ftsPhrase(filters.label);
  if (labelPhrase !== null) parts.push(`{labels} : ${labelPhrase}`);
  return parts.join(" AND ");
}
