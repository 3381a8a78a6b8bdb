import type { Migration } from "../migrations.ts";

/**
 * Jobs, their events and executor owners. Times are integer milliseconds since the
 * epoch. Terminal immutability and legal transitions are enforced here as well as in
 * code, so even raw SQL cannot rewrite history.
 */
export const M001_JOBS: Migration = {
  version: 1,
  name: "jobs",
  sql: `
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  outcome TEXT,
  request TEXT NOT NULL,
  result TEXT,
  error TEXT,
  phase TEXT,
  progress_message TEXT,
  completed_items INTEGER NOT NULL DEFAULT 0,
  total_items INTEGER,
  next_poll_at INTEGER,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  updated_at INTEGER NOT NULL,
  completed_at INTEGER,
  cancel_requested_at INTEGER,
  owner_id TEXT,
  attempt INTEGER NOT NULL DEFAULT 0,
  retention_ms INTEGER NOT NULL,
  expires_at INTEGER,
  authority TEXT
) STRICT;

CREATE INDEX jobs_active ON jobs (status, created_at) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_expiry ON jobs (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX jobs_created ON jobs (created_at);

CREATE TABLE job_events (
  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  at INTEGER NOT NULL,
  level TEXT NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
  message TEXT NOT NULL,
  PRIMARY KEY (job_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE job_owners (
  owner_id TEXT PRIMARY KEY,
  pid INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  lease_ms INTEGER NOT NULL
) STRICT;

-- A terminal row never changes its status, outcome, result or error.
CREATE TRIGGER jobs_terminal_immutable BEFORE UPDATE ON jobs
WHEN OLD.status IN ('succeeded', 'failed', 'cancelled')
  AND (NEW.status IS NOT OLD.status OR NEW.result IS NOT OLD.result
       OR NEW.error IS NOT OLD.error OR NEW.outcome IS NOT OLD.outcome)
BEGIN
  SELECT RAISE(ABORT, 'Cannot update job: it is terminal');
END;

-- Only the original system's transitions: queued -> running | cancelled | failed,
-- running -> succeeded | failed | cancelled.
CREATE TRIGGER jobs_legal_transition BEFORE UPDATE OF status ON jobs
WHEN NEW.status IS NOT OLD.status
  AND NOT ((OLD.status = 'queued' AND NEW.status IN ('running', 'cancelled', 'failed'))
        OR (OLD.status = 'running' AND NEW.status IN ('succeeded', 'failed', 'cancelled')))
BEGIN
  SELECT RAISE(ABORT, 'Cannot update job: illegal status transition');
END;

-- Retention deletes terminal rows only.
CREATE TRIGGER jobs_delete_terminal_only BEFORE DELETE ON jobs
WHEN OLD.status NOT IN ('succeeded', 'failed', 'cancelled')
BEGIN
  SELECT RAISE(ABORT, 'Cannot delete job: it is not terminal');
END;
`,
};
