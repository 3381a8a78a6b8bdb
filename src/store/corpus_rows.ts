/**
 * Corpus rows: every SQL statement about repositories, threads, their full-text index and
 * stored pull-request checks. Writes are one `BEGIN IMMEDIATE` transaction each (through
 * {@linkcode Connection.write}); reads are plain statements. Nothing here touches the network.
 *
 * Conventions: times are integer milliseconds since the epoch; repository names are
 * `owner/name` and compare case-insensitively.
 *
 * @module
 */

import { assert } from "../base/errors.ts";
import { isFullRepositoryName } from "../base/names.ts";
export {
  SEARCH_PREFIX_CHARS_MIN,
  SEARCH_QUERY_TERMS_MAX,
  SEARCH_RANKED_MATCHES_MAX,
  THREAD_LABELS_MAX,
  THREAD_OBSERVATIONS_PER_THREAD_MAX,
  THREAD_TITLE_CHARS_MAX,
} from "../base/limits.ts";
import {
  SEARCH_PREFIX_CHARS_MIN,
  SEARCH_QUERY_TERMS_MAX,
  SEARCH_RANKED_MATCHES_MAX,
  STORE_FAULT_RETRY_MS_EXECUTION,
  THREAD_BODY_CHARS_MAX,
  THREAD_LABELS_MAX,
  THREAD_OBSERVATIONS_PER_THREAD_MAX,
  THREAD_TITLE_CHARS_MAX,
  WATCH_CHECKS_MAX,
} from "../base/limits.ts";
import type { Connection } from "./tx.ts";

/** BM25 column weights (title, labels, body): a title or label hit outranks a body hit. */
export const SEARCH_BM25_WEIGHTS = { title: 10, labels: 5, body: 1 } as const;

/** Kind of a thread. */
export type ThreadKind = "issue" | "pull_request";
/** State of a thread. */
export type ThreadState = "open" | "closed";

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
  /** Truncated to {@linkcode THREAD_BODY_CHARS_MAX} when stored. */
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

/** What one {@linkcode CorpusRows.threadsUpsert} did. */
export interface ThreadsUpsertResult {
  /** New threads. */
  inserted: number;
  /** Existing threads replaced by a newer `updated_at`. */
  updated: number;
  /** Re-observations of the stored version: only `synced_at` moved. */
  unchanged: number;
  /** Observations older than the stored row: recorded as observations, row kept. */
  stale: number;
}

/** The last complete checks observation of a pull request (written by the watcher). */
export interface PullRequestChecksObservation {
  repository: string;
  number: number;
  head_sha: string;
  outcome: string;
  /** Digest over every check's kind, name, status and conclusion. */
  signature: string;
  /** JSON-able check entries (at most {@linkcode WATCH_CHECKS_MAX}). */
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

/** A thread addressed by repository and number. */
export interface ThreadKey {
  repository: string;
  number: number;
}

/** Keyset position in a search: the last row's BM25 score and id. */
export interface SearchPosition {
  score: number;
  id: number;
}

/** Parameters of {@linkcode CorpusRows.threadsSearch}. */
export interface ThreadsSearchParams {
  /** Free text typed by a user; never parsed as FTS5 syntax. */
  query: string;
  repositories?: readonly string[];
  kind?: ThreadKind;
  state?: ThreadState;
  label?: string;
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

const SHA_PATTERN = /^[0-9a-f]{40}$/;
/** Characters the unicode61 tokenizer keeps inside a token (letters, numbers, private use). */
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;
const TOKEN_CHARS = /[\p{L}\p{N}\p{Co}]/gu;

/** Whether `value` is `owner/name` by GitHub's rules (src/base/names.ts). */
export function isRepositoryName(value: string): boolean {
  return isFullRepositoryName(value);
}

function requireRepository(value: string, what: string): void {
  if (!isRepositoryName(value)) {
    throw new TypeError(`Cannot ${what}: repository must be owner/name; current value is ${JSON.stringify(value)}`);
  }
}

function requireCount(value: number, name: string, what: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`Cannot ${what}: ${name} must be an integer >= ${min}; current value is ${value}`);
  }
}

function requireTime(value: number | null, name: string, what: string): void {
  if (value !== null && (!Number.isSafeInteger(value) || value < 0)) {
    throw new RangeError(`Cannot ${what}: ${name} must be epoch milliseconds; current value is ${value}`);
  }
}

/** Cuts `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
export function truncateChars(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return { text: text.slice(0, end), truncated: true };
}

/** One word as a quoted FTS5 phrase, or `null` when it holds no token character. */
function ftsPhrase(word: string): string | null {
  return TOKEN_CHAR.test(word) ? `"${word.normalize("NFC").replaceAll('"', '""')}"` : null;
}

/**
 * Turns free text into a safe FTS5 expression: each whitespace-separated word becomes a
 * quoted phrase (internal `"` doubled), words are ANDed, and a word ending in `*` becomes a
 * prefix phrase (when it has at least {@linkcode SEARCH_PREFIX_CHARS_MIN} token characters). Operators (`AND`, `NEAR(`, `^`, `:`) are therefore searched as words, never
 * parsed. Words without any token character are dropped; `null` when nothing remains.
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

type Raw = Record<string, unknown>;

function str(raw: Raw, key: string): string {
  const v = raw[key];
  assert(typeof v === "string", `corpus column ${key} is a string`);
  return v;
}
function strOrNull(raw: Raw, key: string): string | null {
  const v = raw[key];
  assert(v === null || typeof v === "string", `corpus column ${key} is a string or null`);
  return v;
}
function num(raw: Raw, key: string): number {
  const v = raw[key];
  assert(typeof v === "number", `corpus column ${key} is a number`);
  return v;
}
function numOrNull(raw: Raw, key: string): number | null {
  const v = raw[key];
  assert(v === null || typeof v === "number", `corpus column ${key} is a number or null`);
  return v;
}
function boolOrNull(raw: Raw, key: string): boolean | null {
  const v = numOrNull(raw, key);
  return v === null ? null : v === 1;
}
function strings(raw: Raw, key: string): string[] {
  const parsed: unknown = JSON.parse(str(raw, key));
  assert(Array.isArray(parsed), `corpus column ${key} is a JSON array`);
  return parsed.map(String);
}

function threadHeadFromRaw(raw: Raw): Omit<ThreadRow, "body"> {
  return {
    id: num(raw, "id"),
    repository: str(raw, "repository"),
    number: num(raw, "number"),
    kind: str(raw, "kind") as ThreadKind,
    state: str(raw, "state") as ThreadState,
    title: str(raw, "title"),
    body_truncated: num(raw, "body_truncated") === 1,
    labels: strings(raw, "labels"),
    author: strOrNull(raw, "author"),
    comments: num(raw, "comments"),
    created_at: num(raw, "created_at"),
    updated_at: num(raw, "updated_at"),
    closed_at: numOrNull(raw, "closed_at"),
    merged: boolOrNull(raw, "merged"),
    html_url: str(raw, "html_url"),
    synced_at: num(raw, "synced_at"),
  };
}

const HEAD_COLUMNS = `t.id, t.repository, t.number, t.kind, t.state, t.title, t.body_truncated, t.labels, t.author,
  t.comments, t.created_at, t.updated_at, t.closed_at, t.merged, t.html_url, t.synced_at`;

const BM25 =
  `bm25(threads_fts, ${SEARCH_BM25_WEIGHTS.title}, ${SEARCH_BM25_WEIGHTS.labels}, ${SEARCH_BM25_WEIGHTS.body}, 0)`;

const SEARCH_PROBE_SQL = `
SELECT count(*) AS n FROM (SELECT 1 FROM threads_fts WHERE threads_fts MATCH :match LIMIT :cap)`;

const SEARCH_SQL = `
WITH candidates AS MATERIALIZED (
  SELECT rowid AS id, ${BM25} AS score FROM threads_fts
  WHERE threads_fts MATCH :match ORDER BY rowid DESC LIMIT :cap
)
SELECT ${HEAD_COLUMNS}, c.score AS score
FROM candidates AS c JOIN threads AS t ON t.id = c.id
WHERE (:label IS NULL OR EXISTS (SELECT 1 FROM json_each(t.labels) AS l WHERE l.value = :label COLLATE NOCASE))
  AND (:after_id IS NULL OR c.score > :after_score OR (c.score = :after_score AND c.id > :after_id))
ORDER BY c.score, c.id
LIMIT :limit`;

function hexLower(text: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(text.toLowerCase())) out += b.toString(16).padStart(2, "0");
  return out;
}

/** The FTS5 phrase matching the facet token of a repository (see the `threads.facets` column). */
function facetRepository(repository: string): string {
  return `"zr${hexLower(repository)}"`;
}

function facet(prefix: "zk" | "zs" | "zc", value: string): string {
  return `"${prefix}${hexLower(value)}"`;
}

/** Corpus SQL over one connection. */
export class CorpusRows {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /**
   * Stores repository metadata. An observation older than the stored one is ignored.
   *
   * @returns whether the row was written.
   */
  async repositoryUpsert(obs: RepositoryObservation): Promise<boolean> {
    const what = "store repository";
    const fullName = `${obs.owner}/${obs.name}`;
    requireRepository(fullName, what);
    requireTime(obs.observed_at, "observed_at", what);
    if (obs.stargazers_count !== null) requireCount(obs.stargazers_count, "stargazers_count", what, 0);
    const topics = JSON.stringify(obs.topics.map(String));
    return await this.#conn.write(() => {
      const result = this.#conn.stmt(`
INSERT INTO repositories (full_name, owner, name, description, topics, default_branch, stargazers_count, license,
  archived, synced_at)
VALUES (:full_name, :owner, :name, :description, :topics, :default_branch, :stargazers_count, :license,
  :archived, :synced_at)
ON CONFLICT (full_name) DO UPDATE SET
  full_name = excluded.full_name, owner = excluded.owner, name = excluded.name,
  description = excluded.description, topics = excluded.topics, default_branch = excluded.default_branch,
  stargazers_count = excluded.stargazers_count, license = excluded.license, archived = excluded.archived,
  synced_at = excluded.synced_at
WHERE excluded.synced_at >= repositories.synced_at`).run({
        full_name: fullName,
        owner: obs.owner,
        name: obs.name,
        description: obs.description,
        topics,
        default_branch: obs.default_branch,
        stargazers_count: obs.stargazers_count,
        license: obs.license,
        archived: obs.archived ? 1 : 0,
        synced_at: obs.observed_at,
      });
      return Number(result.changes) > 0;
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /**
   * Stores a batch of thread observations of one repository in ONE transaction, keeping the
   * full-text index in step (triggers in the same transaction).
   *
   * Per thread: a new thread is inserted; a newer `updated_at` replaces the row; the same
   * `updated_at` only advances `synced_at`; an older `updated_at` never overwrites the row.
   *
   * Observation policy (`thread_observations`): one entry per distinct version observed
   * (inserted, newer, or older out-of-order reads) holding the observed header (every field
   * but the body, plus `body_chars`); a re-observation of the stored version adds none. After each append, only the newest
   * {@linkcode THREAD_OBSERVATIONS_PER_THREAD_MAX} entries of that thread are kept.
   *
   * @param observedAt when the batch was read from GitHub (ms); becomes `synced_at`.
   */
  async threadsUpsert(
    repository: string,
    threads: readonly ThreadObservation[],
    observedAt: number,
  ): Promise<ThreadsUpsertResult> {
    const what = "store threads";
    requireRepository(repository, what);
    requireTime(observedAt, "observedAt", what);
    const prepared = threads.map((t) => prepareThread(t, what));
    return await this.#conn.write(() => {
      const counts: ThreadsUpsertResult = { inserted: 0, updated: 0, unchanged: 0, stale: 0 };
      const find = this.#conn.stmt("SELECT id, updated_at FROM threads WHERE repository = ? AND number = ?");
      const insert = this.#conn.stmt(`
INSERT INTO threads (repository, number, kind, state, title, body, body_truncated, labels, author, comments,
  created_at, updated_at, closed_at, merged, html_url, synced_at)
VALUES (:repository, :number, :kind, :state, :title, :body, :body_truncated, :labels, :author, :comments,
  :created_at, :updated_at, :closed_at, :merged, :html_url, :synced_at)
RETURNING id`);
      const update = this.#conn.stmt(`
UPDATE threads SET repository = :repository, number = :number, kind = :kind, state = :state, title = :title, body = :body,
  body_truncated = :body_truncated, labels = :labels, author = :author, comments = :comments,
  created_at = :created_at, updated_at = :updated_at, closed_at = :closed_at, merged = :merged,
  html_url = :html_url, synced_at = :synced_at
WHERE id = :id`);
      const touch = this.#conn.stmt("UPDATE threads SET synced_at = max(synced_at, ?) WHERE id = ?");
      const observe = this.#conn.stmt(
        "INSERT INTO thread_observations (thread_id, observed_at, updated_at, data) VALUES (?, ?, ?, ?)",
      );
      const prune = this.#conn.stmt(`
DELETE FROM thread_observations WHERE thread_id = :thread_id AND id <= (
  SELECT id FROM thread_observations WHERE thread_id = :thread_id ORDER BY id DESC LIMIT 1 OFFSET :keep)`);
      for (const p of prepared) {
        const params = { ...p.params, repository, synced_at: observedAt };
        const existing = find.get(repository, p.params.number) as Raw | undefined;
        let threadId: number;
        if (existing === undefined) {
          const row = insert.get(params) as Raw | undefined;
          assert(row !== undefined, "INSERT ... RETURNING returns the new thread id");
          threadId = num(row, "id");
          counts.inserted++;
        } else {
          threadId = num(existing, "id");
          const storedUpdatedAt = num(existing, "updated_at");
          if (p.params.updated_at > storedUpdatedAt) {
            update.run({ ...params, id: threadId });
            counts.updated++;
          } else if (p.params.updated_at === storedUpdatedAt) {
            touch.run(observedAt, threadId);
            counts.unchanged++;
            continue;
          } else {
            counts.stale++;
          }
        }
        observe.run(threadId, observedAt, p.params.updated_at, p.json);
        if (existing !== undefined) {
          prune.run({ thread_id: threadId, keep: THREAD_OBSERVATIONS_PER_THREAD_MAX });
        }
      }
      return counts;
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /**
   * Stores the last complete checks observation of a pull request. An observation older than
   * the stored one is ignored.
   *
   * @returns whether the row was written.
   */
  async pullRequestChecksPut(obs: PullRequestChecksObservation): Promise<boolean> {
    const what = "store pull request checks";
    requireRepository(obs.repository, what);
    requireCount(obs.number, "number", what, 1);
    requireTime(obs.observed_at, "observed_at", what);
    if (!SHA_PATTERN.test(obs.head_sha)) {
      throw new TypeError(`Cannot ${what}: head_sha must be 40 lowercase hex; current value is ${obs.head_sha}`);
    }
    if (obs.checks.length > WATCH_CHECKS_MAX) {
      throw new RangeError(
        `Cannot ${what}: at most ${WATCH_CHECKS_MAX} checks are stored; current value is ${obs.checks.length}`,
      );
    }
    const checks = JSON.stringify(obs.checks);
    return await this.#conn.write(() => {
      const result = this.#conn.stmt(`
INSERT INTO pull_request_checks (repository, number, head_sha, outcome, signature, checks, observed_at)
VALUES (:repository, :number, :head_sha, :outcome, :signature, :checks, :observed_at)
ON CONFLICT (repository, number) DO UPDATE SET
  repository = excluded.repository, head_sha = excluded.head_sha, outcome = excluded.outcome,
  signature = excluded.signature, checks = excluded.checks, observed_at = excluded.observed_at
WHERE excluded.observed_at >= pull_request_checks.observed_at`).run({
        repository: obs.repository,
        number: obs.number,
        head_sha: obs.head_sha,
        outcome: obs.outcome,
        signature: obs.signature,
        checks,
        observed_at: obs.observed_at,
      });
      return Number(result.changes) > 0;
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /**
   * Full-text search over title, labels and body with BM25 (title and labels weigh more),
   * ordered by score then id, one page after `after`. User text is never parsed as FTS5
   * syntax (see {@linkcode ftsQueryFromText}).
   */
  threadsSearch(params: ThreadsSearchParams): ThreadsSearchPage {
    requireCount(params.limit, "limit", "search threads", 1);
    const text = ftsQueryFromText(params.query);
    if (text === null) return { rows: [], next: null, match: null, ranking: "all_matches" };
    const filters: string[] = [];
    const repositories = params.repositories ?? [];
    if (repositories.length > 0) filters.push(`{facets} : (${repositories.map(facetRepository).join(" OR ")})`);
    if (params.kind !== undefined && params.state !== undefined) {
      filters.push(`{facets} : ${facet("zc", `${params.kind} ${params.state}`)}`);
    } else if (params.kind !== undefined) filters.push(`{facets} : ${facet("zk", params.kind)}`);
    else if (params.state !== undefined) filters.push(`{facets} : ${facet("zs", params.state)}`);
    const labelPhrase = params.label === undefined ? null : ftsPhrase(params.label);
    if (labelPhrase !== null) filters.push(`{labels} : ${labelPhrase}`);
    const expression = (textPart: string) => [textPart, ...filters].join(" AND ");
    const count = (match: string) =>
      num(this.#conn.stmt(SEARCH_PROBE_SQL).get({ match, cap: SEARCH_RANKED_MATCHES_MAX + 1 }) as Raw, "n");

    const match = expression(`(${text})`);
    const ranking: SearchRanking = count(match) > SEARCH_RANKED_MATCHES_MAX ? "newest_matches" : "all_matches";
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
    return { rows, next, match, ranking };
  }

  /** The stored threads for `keys`, in input order (`undefined` where none is stored). */
  threadsGet(keys: readonly ThreadKey[]): (ThreadRow | undefined)[] {
    const stmt = this.#conn.stmt(
      `SELECT ${HEAD_COLUMNS}, t.body FROM threads AS t WHERE repository = ? AND number = ?`,
    );
    return keys.map((key) => {
      const raw = stmt.get(key.repository, key.number) as Raw | undefined;
      return raw === undefined ? undefined : { ...threadHeadFromRaw(raw), body: str(raw, "body") };
    });
  }

  /** The stored repositories for `names` (`owner/name`), in input order. */
  repositoriesGet(names: readonly string[]): (RepositoryRow | undefined)[] {
    const stmt = this.#conn.stmt(`
SELECT full_name, owner, name, description, topics, default_branch, stargazers_count, license, archived, synced_at
FROM repositories WHERE full_name = ?`);
    return names.map((name) => {
      const raw = stmt.get(name) as Raw | undefined;
      if (raw === undefined) return undefined;
      return {
        full_name: str(raw, "full_name"),
        owner: str(raw, "owner"),
        name: str(raw, "name"),
        description: strOrNull(raw, "description"),
        topics: strings(raw, "topics"),
        default_branch: strOrNull(raw, "default_branch"),
        stargazers_count: numOrNull(raw, "stargazers_count"),
        license: strOrNull(raw, "license"),
        archived: num(raw, "archived") === 1,
        synced_at: num(raw, "synced_at"),
      };
    });
  }

  /** The stored checks observations for `keys`, in input order. */
  pullRequestChecksGet(keys: readonly ThreadKey[]): (PullRequestChecksRow | undefined)[] {
    const stmt = this.#conn.stmt(`
SELECT repository, number, head_sha, outcome, signature, checks, observed_at
FROM pull_request_checks WHERE repository = ? AND number = ?`);
    return keys.map((key) => {
      const raw = stmt.get(key.repository, key.number) as Raw | undefined;
      if (raw === undefined) return undefined;
      const checks: unknown = JSON.parse(str(raw, "checks"));
      assert(Array.isArray(checks), "pull_request_checks.checks is a JSON array");
      return {
        repository: str(raw, "repository"),
        number: num(raw, "number"),
        head_sha: str(raw, "head_sha"),
        outcome: str(raw, "outcome"),
        signature: str(raw, "signature"),
        checks,
        observed_at: num(raw, "observed_at"),
      };
    });
  }

  /** When threads of `repository` were last written (`undefined` when none are stored). */
  threadsSyncedAt(repository: string): number | undefined {
    const raw = this.#conn.stmt("SELECT max(synced_at) AS at FROM threads WHERE repository = ?").get(repository) as
      | Raw
      | undefined;
    const at = raw === undefined ? null : numOrNull(raw, "at");
    return at ?? undefined;
  }

  /** Thread observations kept for one thread, oldest first (for audits and tests). */
  threadObservationsList(key: ThreadKey): { observed_at: number; updated_at: number; data: unknown }[] {
    const raws = this.#conn.stmt(`
SELECT o.observed_at, o.updated_at, o.data FROM thread_observations AS o JOIN threads AS t ON t.id = o.thread_id
WHERE t.repository = ? AND t.number = ? ORDER BY o.id`).all(key.repository, key.number) as Raw[];
    return raws.map((raw) => ({
      observed_at: num(raw, "observed_at"),
      updated_at: num(raw, "updated_at"),
      data: JSON.parse(str(raw, "data")),
    }));
  }
}

interface PreparedThread {
  params: {
    number: number;
    kind: ThreadKind;
    state: ThreadState;
    title: string;
    body: string;
    body_truncated: number;
    labels: string;
    author: string | null;
    comments: number;
    created_at: number;
    updated_at: number;
    closed_at: number | null;
    merged: number | null;
    html_url: string;
  };
  /** The observation as stored in `thread_observations.data`. */
  json: string;
}

function prepareThread(t: ThreadObservation, what: string): PreparedThread {
  requireCount(t.number, "number", what, 1);
  requireCount(t.comments, "comments", what, 0);
  requireTime(t.created_at, "created_at", what);
  requireTime(t.updated_at, "updated_at", what);
  requireTime(t.closed_at, "closed_at", what);
  if (t.kind !== "issue" && t.kind !== "pull_request") {
    throw new TypeError(`Cannot ${what}: kind must be issue or pull_request; current value is ${String(t.kind)}`);
  }
  if (t.state !== "open" && t.state !== "closed") {
    throw new TypeError(`Cannot ${what}: state must be open or closed; current value is ${String(t.state)}`);
  }
  if (t.labels.length > THREAD_LABELS_MAX) {
    throw new RangeError(
      `Cannot ${what}: at most ${THREAD_LABELS_MAX} labels per thread; current value is ${t.labels.length}`,
    );
  }
  const body = truncateChars(t.body ?? "", THREAD_BODY_CHARS_MAX);
  const title = truncateChars(t.title, THREAD_TITLE_CHARS_MAX).text;
  const labels = t.labels.map(String);
  const params = {
    number: t.number,
    kind: t.kind,
    state: t.state,
    title,
    body: body.text,
    body_truncated: body.truncated ? 1 : 0,
    labels: JSON.stringify(labels),
    author: t.author,
    comments: t.comments,
    created_at: t.created_at,
    updated_at: t.updated_at,
    closed_at: t.closed_at,
    merged: t.merged === null ? null : t.merged ? 1 : 0,
    html_url: t.html_url,
  };
  // The body is kept only in the current row: observations record its length, not its text,
  // so history costs bytes per version rather than up to THREAD_BODY_CHARS_MAX.
  const { body: _body, ...header } = t;
  const json = JSON.stringify({ ...header, title, labels, body_chars: (t.body ?? "").length });
  return { params, json };
}
