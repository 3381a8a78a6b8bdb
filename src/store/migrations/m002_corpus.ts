import type { Migration } from "../migrations.ts";

/**
 * The offline corpus and the HTTP ETag cache.
 *
 * - `http_etags`: conditional-request cache of the GitHub client (owned by src/github/).
 * - `repositories`: the last observed metadata of each repository, one row per `full_name`.
 * - `threads`: the current row of each issue / pull request; a newer `updated_at` wins.
 * - `thread_observations`: append-only history of the distinct versions observed per thread,
 *   pruned to the newest few per thread by the writer (see src/store/thread_rows.ts).
 * - `threads_fts`: FTS5 index over `threads(title, labels, body, facets)` (external content), kept
 *   in sync by triggers, so it changes in the same transaction as the row it indexes.
 * - `pull_request_checks`: the last complete observation of each pull request's checks.
 *
 * Times are integer milliseconds since the epoch. Repository names compare case-insensitively
 * (GitHub names are ASCII and case-insensitive), so `Owner/Repo` and `owner/repo` are one row.
 */
export const M002_CORPUS: Migration = {
  version: 2,
  name: "corpus",
  sql: `
CREATE TABLE http_etags (
  url TEXT PRIMARY KEY,
  etag TEXT NOT NULL,
  body TEXT NOT NULL,
  stored_at INTEGER NOT NULL
) STRICT;

CREATE TABLE repositories (
  id INTEGER PRIMARY KEY,
  full_name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  owner TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  topics TEXT NOT NULL CHECK (json_valid(topics) AND json_type(topics) = 'array'),
  default_branch TEXT,
  stargazers_count INTEGER CHECK (stargazers_count >= 0),
  license TEXT,
  archived INTEGER NOT NULL CHECK (archived IN (0, 1)),
  synced_at INTEGER NOT NULL,
  CHECK (full_name = owner || '/' || name)
) STRICT;

CREATE TABLE threads (
  id INTEGER PRIMARY KEY,
  repository TEXT NOT NULL COLLATE NOCASE,
  number INTEGER NOT NULL CHECK (number > 0),
  kind TEXT NOT NULL CHECK (kind IN ('issue', 'pull_request')),
  state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
  title TEXT NOT NULL,
  labels TEXT NOT NULL CHECK (json_valid(labels) AND json_type(labels) = 'array'),
  author TEXT,
  comments INTEGER NOT NULL CHECK (comments >= 0),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  closed_at INTEGER,
  merged INTEGER CHECK (merged IN (0, 1)),
  html_url TEXT NOT NULL,
  synced_at INTEGER NOT NULL,
  body_truncated INTEGER NOT NULL CHECK (body_truncated IN (0, 1)),
  -- Last, so reading the other columns never walks the body's overflow pages.
  body TEXT NOT NULL,
  -- Filter tokens for the full-text index: repository, kind, state and kind+state hex-encoded
  -- into single alphanumeric tokens, so filters run inside the FTS5 match, not row by row.
  facets TEXT GENERATED ALWAYS AS (
    'zr' || lower(hex(lower(repository))) || ' zk' || lower(hex(kind)) || ' zs' || lower(hex(state))
      || ' zc' || lower(hex(kind || ' ' || state))
  ) VIRTUAL,
  UNIQUE (repository, number)
) STRICT;

CREATE INDEX threads_repository_synced ON threads (repository, synced_at);

CREATE TABLE thread_observations (
  id INTEGER PRIMARY KEY,
  thread_id INTEGER NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  observed_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  data TEXT NOT NULL CHECK (json_valid(data))
) STRICT;

CREATE INDEX thread_observations_thread ON thread_observations (thread_id, id);

CREATE VIRTUAL TABLE threads_fts USING fts5(
  title, labels, body, facets,
  content = 'threads', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER threads_fts_insert AFTER INSERT ON threads BEGIN
  INSERT INTO threads_fts (rowid, title, labels, body, facets)
  VALUES (NEW.id, NEW.title, NEW.labels, NEW.body, NEW.facets);
END;

CREATE TRIGGER threads_fts_delete AFTER DELETE ON threads BEGIN
  INSERT INTO threads_fts (threads_fts, rowid, title, labels, body, facets)
  VALUES ('delete', OLD.id, OLD.title, OLD.labels, OLD.body, OLD.facets);
END;

CREATE TRIGGER threads_fts_update AFTER UPDATE OF repository, kind, state, title, labels, body ON threads
WHEN OLD.title IS NOT NEW.title OR OLD.labels IS NOT NEW.labels OR OLD.body IS NOT NEW.body
  OR OLD.facets IS NOT NEW.facets
BEGIN
  INSERT INTO threads_fts (threads_fts, rowid, title, labels, body, facets)
  VALUES ('delete', OLD.id, OLD.title, OLD.labels, OLD.body, OLD.facets);
  INSERT INTO threads_fts (rowid, title, labels, body, facets)
  VALUES (NEW.id, NEW.title, NEW.labels, NEW.body, NEW.facets);
END;

CREATE TABLE pull_request_checks (
  repository TEXT NOT NULL COLLATE NOCASE,
  number INTEGER NOT NULL CHECK (number > 0),
  head_sha TEXT NOT NULL CHECK (length(head_sha) = 40),
  outcome TEXT NOT NULL,
  signature TEXT NOT NULL,
  checks TEXT NOT NULL CHECK (json_valid(checks) AND json_type(checks) = 'array'),
  observed_at INTEGER NOT NULL,
  PRIMARY KEY (repository, number)
) STRICT;
`,
};
