/**
 * The one place that knows both job and task vocabulary: the projection of a stored job as an
 * `io.modelcontextprotocol/tasks` task, built from the protocol-neutral handle
 * (src/jobs/projection.ts `jobHandle`: id, summary, poll guidance, ttl, ISO times) that the
 * JobReference is built from too. Wire shapes come from the official
 * `@modelcontextprotocol/ext-tasks` `core/v2` types, never written by hand.
 *
 * | job                                              | task                                              |
 * |--------------------------------------------------|---------------------------------------------------|
 * | queued, running                                  | working (statusMessage from phase and counts)     |
 * | succeeded (incl. partial / per-item outcomes)    | completed, result = the tool's CallToolResult     |
 * | failed with an operation error                   | completed, result has isError: true + typed error |
 * | failed: process_lost, interrupted, internal      | failed, error = JSON-RPC -32603 with typed data   |
 * | cancelled                                        | cancelled                                         |
 *
 * A running job whose kind waits for input (conformance fixture only, through
 * {@linkcode TaskInputs}) is `input_required` with its `inputRequests`.
 *
 * @module
 */

import type {
  CompletedTaskV2,
  CreateTaskResultV2,
  DetailedTaskV2,
  GetTaskResultV2,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import { assert, type JobError } from "../base/errors.ts";
import { JOB_RESULT_VIEW_BYTES_MAX, MCP_RESULT_BYTES_MAX, TASK_ANSWER_FIELDS_BYTES_MAX } from "../base/limits.ts";
import type { JobControl } from "../jobs/control.ts";
import { boundedResult, type JobHandle, jobHandle } from "../jobs/projection.ts";
import type { JobRow } from "../store/job_rows.ts";
import { outstandingInput, type TaskInputs } from "./inputs.ts";

/** JSON-RPC internal error: the only code a failed task carries. */
export const JSONRPC_INTERNAL_ERROR = -32603;

/** Job error codes that mean the execution itself broke (not the operation): these make a task `failed`. */
export const EXECUTION_FAILURE_CODES: ReadonlySet<string> = new Set([
  "process_lost",
  "interrupted",
  "internal",
  "store_busy",
  "storage_unavailable",
]);

/** A CallToolResult as the spec wants it inside a completed task. */
export interface CompleteToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
  resultType: "complete";
}

/**
 * The tool result a finished job produces: identical whether read through a task or
 * reconstructed for `jobs.get` parity. `structuredContent.result` is the same bounded
 * result `jobs.get` shows in its detailed view.
 */
export function terminalToolResult(row: JobRow, resultBytesMax = JOB_RESULT_VIEW_BYTES_MAX): CompleteToolResult {
  if (row.status === "failed") {
    const error = row.error as JobError;
    const structured = { id: row.id, kind: row.kind, outcome: row.outcome ?? "failed", error };
    return {
      content: [{ type: "text", text: JSON.stringify(structured) }],
      structuredContent: structured,
      isError: true,
      resultType: "complete",
    };
  }
  const { result, truncated, omittedBytes } = boundedResult(row.result, resultBytesMax);
  const structured = {
    id: row.id,
    kind: row.kind,
    outcome: row.outcome ?? "succeeded",
    result,
    result_truncated: truncated,
    ...(truncated ? { result_omitted_bytes: omittedBytes } : {}),
  };
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
    resultType: "complete",
  };
}

/** Whether a failed job is an execution failure (task `failed`) rather than an operation error. */
export function isExecutionFailure(row: JobRow): boolean {
  return row.status === "failed" && EXECUTION_FAILURE_CODES.has(row.error?.code ?? "internal");
}

/** Fields every task shares, from the job's handle. */
function base(handle: JobHandle) {
  const out: {
    taskId: string;
    statusMessage: string;
    createdAt: string;
    lastUpdatedAt: string;
    ttlMs: number;
    pollIntervalMs?: number;
  } = {
    taskId: handle.id,
    statusMessage: handle.summary,
    createdAt: handle.createdAt,
    lastUpdatedAt: handle.updatedAt,
    ttlMs: handle.ttlMs,
  };
  if (handle.pollMs !== undefined) out.pollIntervalMs = handle.pollMs;
  return out;
}

/** What a task projection may add to the job's own state. */
export interface TaskProjectionOptions {
  /** The input requests of jobs waiting for input; set only by the conformance fixture (no product job waits for input). */
  inputs?: TaskInputs | undefined;
}

/**
 * The detailed task for a job (what `tasks/get` returns, minus `resultType`), from its handle
 * (built once for this answer). `options.inputs` is set only by the conformance fixture: no product
 * job waits for input.
 */
export function detailedTask(
  row: JobRow,
  handle: JobHandle,
  options: TaskProjectionOptions = {},
): DetailedTaskV2 {
  const { inputs } = options;
  const b = base(handle);
  const status = taskStatusOf(row);
  switch (status) {
    case "working": {
      const inputRequests = outstandingInput(row, inputs);
      return inputRequests === undefined ? { ...b, status } : { ...b, status: "input_required", inputRequests };
    }
    case "cancelled":
      return { ...b, status };
    case "failed": {
      const error = row.error as JobError;
      return {
        ...b,
        status,
        error: { code: JSONRPC_INTERNAL_ERROR, message: error.message, data: JSON.parse(JSON.stringify({ error })) },
      };
    }
    case "completed":
      return { ...b, status, result: toJson(terminalToolResult(row)) };
  }
}

/**
 * `tasks/get` result. A succeeded job's answer is within {@linkcode MCP_RESULT_BYTES_MAX} by
 * construction: the embedded tool result carries its structuredContent (its result bounded to
 * {@linkcode JOB_RESULT_VIEW_BYTES_MAX}, `result_truncated` / `result_omitted_bytes` saying so)
 * twice, once as JSON text; escaping that text again at most doubles it (a JSON text has no raw
 * control characters or lone surrogates, only `"` and `\` grow, to two bytes each), so the answer
 * is at most three result copies plus {@linkcode TASK_ANSWER_FIELDS_BYTES_MAX}, about 197 KB of
 * 256 KiB (asserted below; tested at the worst case, a result of backslashes at the view bound).
 * `options.inputs` as for {@linkcode detailedTask}.
 */
export function getTaskResult(
  row: JobRow,
  control: JobControl,
  options: TaskProjectionOptions = {},
): GetTaskResultV2 {
  const handle = jobHandle(row, control.guidance(row));
  return { ...detailedTask(row, handle, options), resultType: "complete" } as GetTaskResultV2;
}

// The bound getTaskResult relies on, checked once when the limits are read: raising the view
// bound past it must come with a way to fit the answer (a smaller embedded budget), not a surprise.
assert(
  3 * JOB_RESULT_VIEW_BYTES_MAX + TASK_ANSWER_FIELDS_BYTES_MAX <= MCP_RESULT_BYTES_MAX,
  `Cannot fit a task answer: 3 x ${JOB_RESULT_VIEW_BYTES_MAX} + ${TASK_ANSWER_FIELDS_BYTES_MAX} bytes is over ` +
    `MCP_RESULT_BYTES_MAX (${MCP_RESULT_BYTES_MAX})`,
);

/**
 * The flat `CreateTaskResult` a job-submitting `tools/call` returns to a declaring client, from the
 * job's handle (built once with the JobReference the task handle carries beside it).
 */
export function createTaskResult(row: JobRow, handle: JobHandle): CreateTaskResultV2 {
  return { ...base(handle), status: taskStatusOf(row), resultType: "task" };
}

/**
 * The task status of a job, the one mapping from job to task states (a job waiting for input is
 * `working` here; {@linkcode detailedTask} alone tells `input_required` from it).
 */
function taskStatusOf(row: JobRow): Exclude<CreateTaskResultV2["status"], "input_required"> {
  switch (row.status) {
    case "queued":
    case "running":
      return "working";
    case "cancelled":
      return "cancelled";
    case "failed":
      return isExecutionFailure(row) ? "failed" : "completed";
    case "succeeded":
      return "completed";
  }
}

/** A plain-JSON copy, typed as the wire schema's JSON record. */
function toJson(value: CompleteToolResult): CompletedTaskV2["result"] {
  return JSON.parse(JSON.stringify(value)) as CompletedTaskV2["result"];
}
