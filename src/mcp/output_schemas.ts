/**
 * Output schemas of the job projections (src/jobs/projection.ts, src/tasks/task_projection.ts): what a
 * `jobs.get` / `jobs.cancel` item holds and what a job-submitting tool's final result holds (the
 * `structuredContent` of a completed task). Clients that validate `structuredContent` against the
 * advertised `outputSchema` (MCP Inspector, the Python SDK, the v1 TypeScript SDK) see these.
 *
 * Every object is closed (`additionalProperties: false`); free-form values say so with a
 * validation keyword ({@linkcode JsonValueOutput}) rather than `{}`.
 *
 * @module
 */

import { z } from "zod";
import { once } from "../base/once.ts";
import type { Covers } from "../base/validation.ts";
import { JsonObjectOutput, JsonValueOutput } from "./tool_kit.ts";
import type { JobItem } from "../jobs/projection.ts";

const Count = z.number().int().min(0);

/** A stored job error (`JobError`, src/base/errors.ts). */
export const JobErrorOutput = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  retry_after_ms: Count.optional(),
  data: JsonObjectOutput.optional(),
});

/** One job as `jobs.get` and `jobs.cancel` show it ({@linkcode JobItem}), built on first use. */
export const jobItemOutput = once(() =>
  z.object({
    id: z.string().optional(),
    kind: z.string(),
    execution_state: z.enum(["queued", "running", "terminal"]),
    outcome: z.string().optional(),
    summary: z.string(),
    phase: z.string().optional(),
    completed_items: Count.optional(),
    total_items: Count.optional(),
    progress_percent: z.number().int().min(0).max(100).optional(),
    retry_after_ms: Count.optional(),
    created_at: z.string(),
    started_at: z.string().optional(),
    completed_at: z.string().optional(),
    expires_at: z.string().optional(),
    cancellation_requested: z.literal(true).optional(),
    error: JobErrorOutput.optional(),
    request: JsonValueOutput.optional(),
    result: JsonValueOutput.optional(),
    result_truncated: z.boolean().optional(),
    result_omitted_bytes: Count.optional(),
  })
);

/**
 * The final results a job-submitting tool's task can complete with (src/tasks/task_projection.ts
 * `terminalToolResult`): the job's result within the detailed view's bound (`result` is `resultSchema`), the
 * shrunk form past it, and a job that failed with an operation error (`isError: true`).
 */
export function jobResultOutputs(kind: string, resultSchema: z.ZodType = JsonValueOutput): z.ZodType[] {
  const base = { id: z.string(), kind: z.literal(kind), outcome: z.string() };
  return [
    z.object({ ...base, result: resultSchema, result_truncated: z.literal(false) }),
    // Past the bound the result is shrunk (src/base/json_bound.ts: long strings cut, long lists shortened),
    // so it keeps its JSON shape but need not satisfy every bound of `resultSchema`.
    z.object({ ...base, result: JsonValueOutput, result_truncated: z.literal(true), result_omitted_bytes: Count }),
    z.object({ ...base, error: JobErrorOutput }),
  ];
}

// Compile-time check: every field of a JobItem is declared (the object is closed).
const covered: Covers<z.output<ReturnType<typeof jobItemOutput>>, JobItem> = true;
void covered;
