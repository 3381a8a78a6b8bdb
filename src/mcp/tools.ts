/**
 * Tool definitions: name, annotations, schemas and handler. Job-submitting tools share
 * one handler that answers with a task when the request declared the extension and with
 * a JobReference otherwise.
 *
 * @module
 */

import { z } from "zod";
import { AppError } from "../base/errors.ts";
import { IDS_PER_CALL_MAX } from "../base/limits.ts";
import type { Authority, JobControl } from "../jobs/control.ts";
import { createTaskResult } from "../tasks/task_views.ts";
import { batchOf, jobCancelItems, jobGetItems, jobReference } from "./job_views.ts";
import { errorResult, okResult, parseArgs, type ToolResult } from "./tool_kit.ts";

/** MCP tool annotations, always all four hints. */
export interface Annotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a handler knows about the request. */
export interface ToolCallContext {
  authority: Authority;
  /** The request declared `io.modelcontextprotocol/tasks` (modern era only). */
  tasksDeclared: boolean;
  /**
   * A retried call's multi-round-trip answers (`ctx.mcpReq.inputResponses`). Read only by the
   * conformance fixture's MRTR tool; no product tool returns `input_required`.
   */
  inputResponses?: Record<string, unknown>;
}

/** One tool. */
export interface ToolDef {
  name: string;
  description: string;
  inputSchema: z.ZodType;
  outputSchema?: z.ZodType;
  annotations: Annotations;
  /** Returns a tool result, or a CreateTaskResult for a declaring request. */
  call(args: unknown, ctx: ToolCallContext): Promise<ToolResult | Record<string, unknown>>;
}

/** Annotations of a read that never leaves the machine. */
export const LOCAL_READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Annotations of a GitHub read that writes only local observations. */
export const GITHUB_READ = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

const Ids = z.array(z.string().max(200)).min(1).max(IDS_PER_CALL_MAX);

export const JobsGetInput = z.object({
  ids: Ids.describe(`Job ids (1..${IDS_PER_CALL_MAX}); answered one item per id, in order`),
  response_format: z.enum(["concise", "detailed"]).default("concise")
    .describe("detailed adds the request and, once succeeded, the job's typed result"),
}).strict();

export const JobsCancelInput = z.object({
  ids: Ids.describe(`Job ids (1..${IDS_PER_CALL_MAX}) to cancel`),
}).strict();

const BatchOutput = z.object({
  batch_status: z.enum(["complete", "partial"]),
  items: z.array(z.object({
    key: z.string(),
    item_status: z.enum(["complete", "unavailable"]),
    value: z.record(z.string(), z.unknown()).optional(),
    reason: z.enum(["not_found", "terminal", "invalid_id"]).optional(),
    message: z.string().optional(),
    retry_after_ms: z.number().int().optional(),
    /** Set when `value` was shortened to fit the answer bound (src/mcp/fit_answer.ts). */
    truncated: z.literal(true).optional(),
    omitted_bytes: z.number().int().optional(),
  })),
});

/** Declared output of every job-submitting tool: the JobReference. */
export const JobReferenceOutput = z.object({
  id: z.string(),
  ref: z.string(),
  kind: z.string(),
  status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]),
  message: z.string(),
  poll_after_ms: z.number().int(),
  follow_up: z.object({
    action: z.object({ type: z.literal("poll_job"), poll_job: z.object({ ids: z.array(z.string()) }) }),
    retry_after_ms: z.number().int(),
  }),
});

const EXAMPLE_ID = "0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8";

/** `jobs.get` and `jobs.cancel`. */
export function jobsTools(control: JobControl): ToolDef[] {
  return [
    {
      name: "jobs.get",
      description: "Read jobs by id (up to 100 per call). Each id gets its own item in input order; an unknown id " +
        "is an item with reason not_found, never a failed call. Poll again after the item's retry_after_ms. " +
        "response_format detailed includes the typed result of a succeeded job. An item too large for one answer " +
        "is shortened and says so (truncated: true, omitted_bytes); ask for fewer ids to see more.",
      inputSchema: JobsGetInput,
      outputSchema: BatchOutput,
      annotations: { title: "Read jobs", ...LOCAL_READ },
      call(args, ctx) {
        const input = parseArgs(JobsGetInput, args, { ids: [EXAMPLE_ID], response_format: "concise" });
        const items = jobGetItems(control, input.ids, ctx.authority, input.response_format);
        const batch = batchOf(items);
        return Promise.resolve(okResult(batch as unknown as Record<string, unknown>));
      },
    },
    {
      name: "jobs.cancel",
      description: "Request cancellation of jobs (up to 100 per call). A queued job ends cancelled at once; a " +
        "running job stops cooperatively and ends cancelled. Repeating a cancel is harmless; a job that already " +
        "succeeded or failed is reported with reason terminal and left unchanged.",
      inputSchema: JobsCancelInput,
      outputSchema: BatchOutput,
      annotations: {
        title: "Cancel jobs",
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
      async call(args, ctx) {
        const input = parseArgs(JobsCancelInput, args, { ids: [EXAMPLE_ID] });
        const items = await jobCancelItems(control, input.ids, ctx.authority);
        return okResult(batchOf(items) as unknown as Record<string, unknown>);
      },
    },
  ];
}

/** A tool that submits a job of `kind` and returns a task or a JobReference. */
export function jobTool(
  control: JobControl,
  spec: {
    name: string;
    kind: string;
    description: string;
    inputSchema: z.ZodType;
    annotations: Annotations;
  },
): ToolDef {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    outputSchema: JobReferenceOutput,
    annotations: spec.annotations,
    async call(args, ctx) {
      let row;
      try {
        // The declared schema is enforced here (the SDK only advertises it), so a bad argument
        // is a typed invalid_argument with its path; the kind then normalizes the same input.
        parseArgs(spec.inputSchema, args);
        row = await control.submit(spec.kind, args ?? {}, { authority: ctx.authority });
      } catch (err) {
        if (err instanceof AppError) return errorResult(err);
        throw err;
      }
      const ref = jobReference(row, control);
      if (ctx.tasksDeclared) {
        // The SDK checks a declared output schema against structuredContent before any result leaves
        // a tool (its check is private and runs for task results too), so the task handle also carries
        // the JobReference: the same job, in the vocabulary of clients that poll jobs.get.
        return { ...createTaskResult(row, control), structuredContent: ref };
      }
      return okResult(ref as unknown as Record<string, unknown>);
    },
  };
}
