/**
 * src/mcp/job_reference.ts: the JobReference's fields (id, job: ref, poll guidance in three places,
 * the wait_ms suggestion) and submittedAnswer's one choice: the JobReference as a tool result for a
 * client that did not declare tasks, else a CreateTaskResult that carries the JobReference as its
 * structuredContent. Admitted jobs are JobRow literals with their guidance given directly.
 */

import assert from "node:assert/strict";
import { CreateTaskResultV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import { JOB_WAIT_MS_MAX } from "../base/limits.ts";
import type { AdmittedJob } from "../jobs/control.ts";
import type { JobGuidance } from "../jobs/guidance.ts";
import { jobHandle } from "../jobs/projection.ts";
import type { JobRow } from "../store/job_rows.ts";
import { jobReference, submittedAnswer } from "./job_reference.ts";
import { jobRowOf } from "../../testing/job_row.ts";

const ID = "0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8";
const T0 = Date.UTC(2026, 0, 1);

/** A just-admitted job (queued unless `over` says otherwise) with `guidance` as its computed guidance. */
function admitted(guidance: JobGuidance, over: Partial<JobRow> = {}): AdmittedJob {
  const row: JobRow = jobRowOf({
    id: ID,
    kind: "github.wait_pull_request_checks",
    request: {},
    created_at: T0,
    updated_at: T0,
    ...over,
  });
  return { row, guidance };
}

Deno.test("jobReference: every field, from the handle; the guidance is poll_after_ms and retry_after_ms", () => {
  const job = admitted({ pollMs: 1_250, ttlMs: 60_000 });
  const kind = "github.wait_pull_request_checks";
  assert.deepEqual(jobReference(jobHandle(job.row, job.guidance)), {
    id: ID,
    ref: `job:${ID}`,
    kind,
    status: "queued",
    message: `Started ${kind} as job ${ID}. Call the jobs.get tool (jobs_get in hosts that rename tools) with ` +
      `ids ["${ID}"] after 1250 ms to follow it; the jobs.cancel tool (jobs_cancel) stops it.`,
    poll_after_ms: 1_250,
    follow_up: {
      action: { type: "poll_job", poll_job: { ids: [ID], wait_ms: JOB_WAIT_MS_MAX } },
      retry_after_ms: 1_250,
    },
  });
});

Deno.test("jobReference: a handle without guidance (a terminal job) says 0 ms and keeps its status", () => {
  const job = admitted({ pollMs: undefined, ttlMs: 1 }, { status: "cancelled" });
  const ref = jobReference(jobHandle(job.row, job.guidance));
  assert.equal(ref.status, "cancelled");
  assert.equal(ref.poll_after_ms, 0);
  assert.equal(ref.follow_up.retry_after_ms, 0);
  assert.match(ref.message, / after 0 ms /);
});

Deno.test("submittedAnswer without tasks: the JobReference as a tool result (text = structuredContent JSON)", () => {
  const job = admitted({ pollMs: 800, ttlMs: 60_000 });
  const answer = submittedAnswer(job, false) as {
    content: { type: string; text: string }[];
    structuredContent: Record<string, unknown>;
    isError?: boolean;
  };
  const ref = jobReference(jobHandle(job.row, job.guidance));
  assert.deepEqual(answer.structuredContent, ref);
  assert.deepEqual(answer.content, [{ type: "text", text: JSON.stringify(ref) }]);
  assert.equal("isError" in answer, false);
  assert.equal("resultType" in answer, false, "not a task");
});

Deno.test("submittedAnswer with tasks: a CreateTaskResult whose structuredContent is the same JobReference", () => {
  const job = admitted({ pollMs: 800, ttlMs: 60_000 });
  const answer = submittedAnswer(job, true) as Record<string, unknown>;
  const { structuredContent, ...task } = answer;
  assert.deepEqual(structuredContent, jobReference(jobHandle(job.row, job.guidance)));
  CreateTaskResultV2Schema.parse(task);
  assert.deepEqual(task, {
    taskId: ID,
    statusMessage: "github.wait_pull_request_checks is queued",
    createdAt: "2026-01-01T00:00:00.000Z",
    lastUpdatedAt: "2026-01-01T00:00:00.000Z",
    ttlMs: 60_000,
    pollIntervalMs: 800,
    status: "working",
    resultType: "task",
  });
  assert.equal("content" in answer, false, "a task handle has no content");
});

Deno.test("submittedAnswer: the guidance is read once for both the task and its JobReference", () => {
  let reads = 0;
  const row = admitted({ pollMs: 0, ttlMs: 0 });
  Object.defineProperty(row, "guidance", {
    get: () => {
      reads++;
      return { pollMs: 900, ttlMs: 30_000 };
    },
  });
  const answer = submittedAnswer(row, true) as Record<string, unknown> & {
    structuredContent: { poll_after_ms: number };
  };
  assert.equal(reads, 1);
  assert.equal(answer["pollIntervalMs"], 900);
  assert.equal(answer.structuredContent.poll_after_ms, 900);
});
