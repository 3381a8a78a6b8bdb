import type { Migration } from "../migrations.ts";

/**
 * Poll guidance reads the recent run times of a kind on every `jobs.get` item; without
 * this index that read scanned every retained job.
 */
export const M003_RECENT_RUNS: Migration = {
  version: 3,
  name: "recent_runs",
  sql: `
CREATE INDEX jobs_recent_succeeded ON jobs (kind, completed_at) WHERE status = 'succeeded';
`,
};
