/**
 * Tool definitions: name, annotations, schemas and handler. Job-submitting tools share
 * one handler that answers with a task when the request declared the extension and with
 * a JobReference otherwise.
 *
 * @module
 */

import { z } from "zod";
import { batchOf } from "../base/answers.ts";
import { AppError } from "../base/errors.ts";
import { once } from "../base/once.ts";
import { IDS_PER_CALL_MAX, JOB_KEY_CHARS_MAX, JOB_WAIT_MS_MAX } from "../base/limits.ts";
import { jobCancelItems, jobGetItems, jobIdsOf } from "../jobs/projection.ts";
import type { Authority, JobControl } from "../jobs/control.ts";
import type { JobSpec } from "../jobs/spec.ts";
import { submittedAnswer } from "./job_reference.ts";
import { jobItemOutput, jobResultOutputs } from "./output_schemas.ts";
import { errorResult, JsonValueOutput, okResult, parseArgs, type ToolResult } from "./tool_kit.ts";

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
  /** Aborted when the client cancels the request (`notifications/cancelled`) or the wire closes. */
  signal?: AbortSignal;
}

/** One tool. */
export interface ToolDef {
  name: string;
  description: string;
  inputSchema: z.ZodType;
  /**
   * The structuredContent's schema, built when first called (advertising converts it; the shipped
   * bundle embeds the conversion, so its server never builds it): not at module load, on start-up.
   */
  outputSchema?: () => z.ZodType;
  annotations: Annotations;
  /** The tool's `_meta` in `tools/list` (e.g. {@linkcode ALWAYS_LOAD_META}). */
  _meta?: Record<string, unknown>;
  /** Returns a tool result, or a CreateTaskResult for a declaring request. */
  call(args: unknown, ctx: ToolCallContext): Promise<ToolResult | Record<string, unknown>>;
}

/** Annotations of a read that never leaves the machine. */
export const LOCAL_READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Annotations of a GitHub read that writes only local observations. */
export const GITHUB_READ = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

/**
 * Claude Code defers MCP tools behind its tool search (one extra model call before the first use)
 * unless the tool sets this: given to the watch and to `jobs.get`, which a watch's follow-up needs.
 */
export const ALWAYS_LOAD_META: Readonly<Record<string, unknown>> = { "anthropic/alwaysLoad": true };

const Ids = z.array(z.string().max(JOB_KEY_CHARS_MAX)).min(1).max(IDS_PER_CALL_MAX);

export const JobsGetInput = z.object({
  ids: Ids.describe(`Job ids (1..${IDS_PER_CALL_MAX}); answered one item per id, in order`),
  response_format: z.enum(["concise", "detailed"]).default("concise")
    .describe("detailed adds the job's id, started_at, expires_at, the request and, once succeeded, the typed result"),
  wait_ms: z.number().int().min(0).max(JOB_WAIT_MS_MAX).default(0)
    .describe(
      `Wait up to this long (0..${JOB_WAIT_MS_MAX} ms) for a job to change or end before answering; 0 answers at ` +
        "once. For hosts that cannot sleep between calls.",
    ),
  until: z.enum(["change", "terminal"]).default("change")
    .describe("With wait_ms: change returns at the first material change of any job; terminal only once all end"),
}).strict();

export const JobsCancelInput = z.object({
  ids: Ids.describe(`Job ids (1..${IDS_PER_CALL_MAX}) to cancel`),
}).strict();

/**
 * The output schemas below are built on first use (src/base/once.ts): only advertising (converted once
 * to check src/mcp/tool_schemas.json from source; never in the bundle or a compiled binary) and tests
 * read them, never the start-up path.
 */
const batchOutput = once(() => {
  const batchItemBase = {
    key: z.string(),
    item_status: z.enum(["complete", "unavailable"]),
    reason: z.enum(["not_found", "terminal", "invalid_id"]).optional(),
    message: z.string().optional(),
    retry_after_ms: z.number().int().optional(),
  };
  return z.object({
    batch_status: z.enum(["complete", "partial"]),
    items: z.array(z.union([
      z.object({ ...batchItemBase, value: jobItemOutput().optional() }),
      // Shortened to fit the answer bound (src/mcp/fit_answer.ts): shrunk JSON of the item's shape, which
      // need not meet every bound of jobItemOutput().
      z.object({
        ...batchItemBase,
        value: JsonValueOutput,
        truncated: z.literal(true),
        omitted_bytes: z.number().int(),
      }),
    ])),
  });
});

/** `jobs.get`: the batch, plus how a wait ended when `wait_ms` was given. */
const jobsGetOutput = once(() =>
  batchOutput().extend({
    wait: z.object({
      until: z.enum(["change", "terminal"]),
      ended: z.enum(["changed", "terminal", "deadline", "cancelled", "shutdown", "waiters_full"]),
      waited_ms: z.number().int(),
    }).optional(),
  })
);

/** What every job-submitting tool returns at once to a client that did not declare tasks: the JobReference. */
const jobReferenceOutput = once(() =>
  z.object({
    id: z.string(),
    ref: z.string(),
    kind: z.string(),
    status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]),
    message: z.string(),
    poll_after_ms: z.number().int(),
    follow_up: z.object({
      action: z.object({
        type: z.literal("poll_job"),
        poll_job: z.object({ ids: z.array(z.string()), wait_ms: z.number().int().optional() }),
      }),
      retry_after_ms: z.number().int(),
    }),
  })
);

const EXAMPLE_ID = "019adf3c5e21-0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8";

/** `jobs.get` and `jobs.cancel`. */
export function jobsTools(control: JobControl): ToolDef[] {
  return [
    {
      name: "jobs.get",
      description: "Read jobs by id (up to 100 per call). Each id gets its own item in input order; an unknown id " +
        "is an item with reason not_found, never a failed call. Poll again after the item's retry_after_ms, or " +
        `pass wait_ms (up to ${JOB_WAIT_MS_MAX}) to wait in the call until a job changes or ends. ` +
        "The concise view (default) names each job by its item's key; response_format detailed adds the id, start " +
        "and expiry times, the request and the typed result of a succeeded job. Neither writes a default " +
        "(cancellation_requested appears once requested). An item too large for one answer " +
        "is shortened and says so (truncated: true, omitted_bytes); ask for fewer ids to see more.",
      inputSchema: JobsGetInput,
      outputSchema: jobsGetOutput,
      annotations: { title: "Read jobs", ...LOCAL_READ },
      _meta: { ...ALWAYS_LOAD_META },
      async call(args, ctx) {
        const input = parseArgs(JobsGetInput, args, {
          example: { ids: [EXAMPLE_ID], response_format: "concise", wait_ms: 0 },
        });
        const wait = input.wait_ms === 0 ? undefined : await control.wait(jobIdsOf(input.ids), ctx.authority, {
          ms: input.wait_ms,
          until: input.until,
          ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
        });
        const items = jobGetItems(control, input.ids, { authority: ctx.authority, format: input.response_format });
        const batch = wait === undefined ? batchOf(items) : { ...batchOf(items), wait };
        return okResult(batch as unknown as Record<string, unknown>);
      },
    },
    {
      name: "jobs.cancel",
      description: "Request cancellation of jobs (up to 100 per call). A queued job ends cancelled at once; a " +
        "running job stops cooperatively and ends cancelled. Repeating a cancel is harmless; a job that already " +
        "succeeded or failed is reported with reason terminal and left unchanged.",
      inputSchema: JobsCancelInput,
      outputSchema: batchOutput,
      annotations: {
        title: "Cancel jobs",
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
      async call(args, ctx) {
        const input = parseArgs(JobsCancelInput, args, { example: { ids: [EXAMPLE_ID] } });
        const items = await jobCancelItems(control, input.ids, { authority: ctx.authority });
        return okResult(batchOf(items) as unknown as Record<string, unknown>);
      },
    },
  ];
}

/**
 * The tool of a job kind's spec (src/jobs/spec.ts): validates and normalizes the arguments with
 * the spec's input schema, submits the job of `spec.kind` and returns a task or a JobReference.
 * `options._meta` is the tool's `_meta` in `tools/list`.
 */
export function jobTool(
  control: JobControl,
  jobSpec: JobSpec,
  options: { _meta?: Record<string, unknown> } = {},
): ToolDef {
  const spec = { ...jobSpec, ...options };
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    // Everything the tool's structuredContent can be: the JobReference (the immediate answer, and the
    // task handle's copy below), the final result of its completed task, or (added by the server for
    // every tool) the typed error. Clients that validate a completed task's result against this
    // schema (MCP Inspector, the Python SDK) accept the verdict only if it is covered here.
    outputSchema: once(() => z.union([jobReferenceOutput(), ...jobResultOutputs(spec.kind, spec.resultSchema?.())])),
    annotations: spec.annotations,
    ...(spec._meta === undefined ? {} : { _meta: spec._meta }),
    async call(args, ctx) {
      let row;
      try {
        // Validated and normalized once, here (the SDK only advertises the schema): a bad argument
        // is a typed invalid_argument with its path; the job is admitted with the normalized request.
        const request = parseArgs(spec.inputSchema, args);
        row = await control.submit(spec.kind, request, { authority: ctx.authority });
      } catch (err) {
        if (err instanceof AppError) return errorResult(err);
        throw err;
      }
      // Down once (admission; guidance computed once), up once: the task or the JobReference.
      return submittedAnswer(control.admitted(row), ctx.tasksDeclared);
    },
  };
}
