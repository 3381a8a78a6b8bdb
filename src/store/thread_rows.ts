/**
 * Thread rows: the SQL of the `threads` table (issue and pull request headers with their
 * bodies) and of `thread_observations` (the recent versions seen of each). A batch write is
 * one `BEGIN IMMEDIATE` transaction (through {@linkcode Connection.write}); the full-text
 * index `threads_fts` follows by triggers in the same transaction. Searching it is
 * thread_search_rows.ts.
 *
 * @module
 */

import { truncateChars } from "../base/text.ts";
import { assert } from "../base/errors.ts";
import {
  STORE_FAULT_RETRY_MS_EXECUTION,
  THREAD_BODY_CHARS_MAX,
  THREAD_LABELS_MAX,
  THREAD_OBSERVATIONS_PER_THREAD_MAX,
  THREAD_TITLE_CHARS_MAX,
} from "../base/limits.ts";
import {
  boolOrNull,
  num,
  numOrNull,
  type Raw,
  requireCount,
  requireRepository,
  requireTime,
  str,
  strings,
  strOrNull,
} from "./corpus_columns.ts";
import type { ThreadKey, ThreadKind, ThreadObservation, ThreadRow, ThreadState } from "./corpus_types.ts";
import type { Connection } from "./tx.ts";

/** What one {@linkcode ThreadRows.threadsUpsert} did. */
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

/** The columns of a thread without its body, on `threads AS t`. */
export const THREAD_HEAD_COLUMNS =
  `t.id, t.repository, t.number, t.kind, t.state, t.title, t.body_truncated, t.labels, t.author,
  t.comments, t.created_at, t.updated_at, t.closed_at, t.merged, t.html_url, t.synced_at`;

/** Decodes {@linkcode THREAD_HEAD_COLUMNS}. */
export function threadHeadFromRaw(raw: Raw): Omit<ThreadRow, "body"> {
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

const FIND_SQL = "SELECT id, updated_at FROM threads WHERE repository = ? AND number = ?";
const INSERT_SQL = `
INSERT INTO threads (repository, number, kind, state, title, body, body_truncated, labels, author, comments,
  created_at, updated_at, closed_at, merged, html_url, synced_at)
VALUES (:repository, :number, :kind, :state, :title, :body, :body_truncated, :labels, :author, :comments,
  :created_at, :updated_at, :closed_at, :merged, :html_url, :synced_at)
RETURNING id`;
const UPDATE_SQL = `
UPDATE threads SET repository = :repository, number = :number, kind = :kind, state = :state, title = :title, body = :body,
  body_truncated = :body_truncated, labels = :labels, author = :author, comments = :comments,
  created_at = :created_at, updated_at = :updated_at, closed_at = :closed_at, merged = :merged,
  html_url = :html_url, synced_at = :synced_at
WHERE id = :id`;
const TOUCH_SQL = "UPDATE threads SET synced_at = max(synced_at, ?) WHERE id = ?";
const OBSERVE_SQL = "INSERT INTO thread_observations (thread_id, observed_at, updated_at, data) VALUES (?, ?, ?, ?)";
const PRUNE_SQL = `
DELETE FROM thread_observations WHERE thread_id = :thread_id AND id <= (
  SELECT id FROM thread_observations WHERE thread_id = :thread_id ORDER BY id DESC LIMIT 1 OFFSET :keep)`;

/** SQL over `threads` and `thread_observations`. */
export class ThreadRows {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
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
   * but the body, plus `body_chars`); a re-observation of the stored version adds none. After
   * each append, only the newest {@linkcode THREAD_OBSERVATIONS_PER_THREAD_MAX} entries of that
   * thread are kept.
   *
   * @param options.observedAt when the batch was read from GitHub (ms); becomes `synced_at`.
   */
  async threadsUpsert(
    repository: string,
    threads: readonly ThreadObservation[],
    options: { observedAt: number },
  ): Promise<ThreadsUpsertResult> {
    const { observedAt } = options;
    const what = "store threads";
    requireRepository(repository, what);
    requireTime(observedAt, "observedAt", { what });
    const prepared = threads.map((t) => prepareThread(t, what));
    return await this.#conn.write(() => {
      const counts: ThreadsUpsertResult = { inserted: 0, updated: 0, unchanged: 0, stale: 0 };
      const find = this.#conn.stmt(FIND_SQL);
      const insert = this.#conn.stmt(INSERT_SQL);
      const update = this.#conn.stmt(UPDATE_SQL);
      const touch = this.#conn.stmt(TOUCH_SQL);
      const observe = this.#conn.stmt(OBSERVE_SQL);
      const prune = this.#conn.stmt(PRUNE_SQL);
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

  /** The stored threads for `keys`, in input order (`undefined` where none is stored). */
  threadsGet(keys: readonly ThreadKey[]): (ThreadRow | undefined)[] {
    const stmt = this.#conn.stmt(
      `SELECT ${THREAD_HEAD_COLUMNS}, t.body FROM threads AS t WHERE repository = ? AND number = ?`,
    );
    return keys.map((key) => {
      const raw = stmt.get(key.repository, key.number) as Raw | undefined;
      return raw === undefined ? undefined : { ...threadHeadFromRaw(raw), body: str(raw, "body") };
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

/** Checks one observation and shapes it into the row's parameters and its observation entry. */
function prepareThread(t: ThreadObservation, what: string): PreparedThread {
  requireCount(t.number, "number", { what, min: 1 });
  requireCount(t.comments, "comments", { what, min: 0 });
  requireTime(t.created_at, "created_at", { what });
  requireTime(t.updated_at, "updated_at", { what });
  requireTime(t.closed_at, "closed_at", { what });
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
