/**
 * What a job-submitting tool answers, decided in one place ({@linkcode submittedAnswer}): the
 * JobReference (the MCP-facing shape that names the `jobs.get` / `jobs.cancel` tools to follow
 * the job) for a client that did not ask for a task, else the task. Both are built from one
 * protocol-neutral handle (src/jobs/projection.ts `jobHandle`) of the admitted job, whose
 * guidance `JobControl.submit` computed once.
 *
 * @module
 */

import { JOB_WAIT_MS_MAX } from "../base/limits.ts";
import type { AdmittedJob } from "../jobs/control.ts";
import { type JobHandle, jobHandle } from "../jobs/projection.ts";
import { createTaskResult } from "../tasks/task_projection.ts";
import { okResult, type ToolResult } from "./tool_kit.ts";

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

/** The JobReference for a freshly admitted job, from its handle. */
export function jobReference(handle: JobHandle): JobReference {
  const { id, kind } = handle;
  const pollMs = handle.pollMs ?? 0;
  return {
    id,
    ref: `job:${id}`,
    kind,
    status: handle.status,
    message: `Started ${kind} as job ${id}. Call the jobs.get tool (jobs_get in hosts that rename tools) with ` +
      `ids ["${id}"] after ${pollMs} ms to follow it; the jobs.cancel tool (jobs_cancel) stops it.`,
    poll_after_ms: pollMs,
    follow_up: {
      action: { type: "poll_job", poll_job: { ids: [id], wait_ms: JOB_WAIT_MS_MAX } },
      retry_after_ms: pollMs,
    },
  };
}

/**
 * The answer of a job-submitting `tools/call`: a CreateTaskResult when the request declared the
 * tasks extension, else the JobReference as the tool result. One handle, one guidance computation.
 */
export function submittedAnswer(job: AdmittedJob, tasksDeclared: boolean): ToolResult | Record<string, unknown> {
  const handle = jobHandle(job.row, job.guidance);
  const ref = jobReference(handle) as unknown as Record<string, unknown>;
  // The SDK checks a declared output schema against structuredContent before any result leaves a tool
  // (its check is private and runs for task results too), so the task handle also carries the
  // JobReference: the same job, in the vocabulary of clients that poll jobs.get.
  return tasksDeclared ? { ...createTaskResult(job.row, handle), structuredContent: ref } : okResult(ref);
}
