/**
 * The JobReference every job-submitting tool returns at once to a client that did not ask for a
 * task: the MCP-facing shape that names the `jobs.get` / `jobs.cancel` tools to follow the job.
 * The protocol-neutral job item is in src/jobs/job_items.ts.
 *
 * @module
 */

import { JOB_WAIT_MS_MAX } from "../base/limits.ts";
import type { JobControl } from "../jobs/control.ts";
import type { JobRow } from "../store/job_rows.ts";

/** Returned at once by every job-submitting tool. */
export interface JobReference {
  id: string;
  ref: string;
  kind: string;
  status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
  message: string;
  poll_after_ms: number;
  follow_up: {
    /** `poll_job` is the `jobs.get` arguments to send; `wait_ms` lets a host that cannot sleep wait in the call. */
    action: { type: "poll_job"; poll_job: { ids: string[]; wait_ms?: number } };
    retry_after_ms: number;
  };
}

/** The JobReference for a freshly admitted job. */
export function jobReference(row: JobRow, control: JobControl): JobReference {
  const pollMs = control.pollAfterMs(row) ?? 0;
  return {
    id: row.id,
    ref: `job:${row.id}`,
    kind: row.kind,
    status: row.status,
    message:
      `Started ${row.kind} as job ${row.id}. Call the jobs.get tool (jobs_get in hosts that rename tools) with ` +
      `ids ["${row.id}"] after ${pollMs} ms to follow it; the jobs.cancel tool (jobs_cancel) stops it.`,
    poll_after_ms: pollMs,
    follow_up: {
      action: { type: "poll_job", poll_job: { ids: [row.id], wait_ms: JOB_WAIT_MS_MAX } },
      retry_after_ms: pollMs,
    },
  };
}
