/**
 * A stored job row for unit tests of the pure projections (guidance, job items, tasks, the
 * JobReference): a queued job with every column set, overridden field by field. Tests that need
 * the store's own rows read them from a real database instead (testing/temp.ts).
 *
 * @module
 */

import type { JobRow } from "../src/store/job_rows.ts";

/** When the default row was created (2026-01-01T00:00:00Z). */
export const JOB_ROW_T0 = Date.UTC(2026, 0, 1);

/** A queued job of kind `k` created at {@linkcode JOB_ROW_T0}, with `over` applied. */
export function jobRowOf(over: Partial<JobRow> = {}): JobRow {
  return {
    id: "019adf3c5e21-0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8",
    kind: "k",
    status: "queued",
    outcome: null,
    request: null,
    result: null,
    error: null,
    phase: null,
    progress_message: null,
    completed_items: 0,
    total_items: null,
    next_poll_at: null,
    created_at: JOB_ROW_T0,
    started_at: null,
    updated_at: JOB_ROW_T0,
    completed_at: null,
    cancel_requested_at: null,
    owner_id: null,
    attempt: 0,
    retention_ms: 86_400_000,
    expires_at: null,
    authority: null,
    ...over,
  };
}
