/**
 * The `io.modelcontextprotocol/tasks` adapter: registers `tasks/get`, `tasks/update` and
 * `tasks/cancel` on a modern-era server instance through the SDK's documented
 * custom-method mechanism, and decides per request whether a job-submitting tool answers
 * with a task. Kept in one folder so the SDK's own Tasks runtime can replace the
 * plumbing later. A server loads this module (and with it the extension's schemas) at its first
 * modern connection, through the loader its entry hands it (`ServerDeps.tasks`, src/mcp/server.ts);
 * a server that serves only the 2025 generation never does.
 *
 * `tasks/get` is a bounded local read: one row by primary key, no network, no process,
 * no job submission, no write.
 *
 * @module
 */

import {
  CancelTaskResultV2Schema,
  GetTaskResultV2Schema,
  hasTaskClientCapabilityV2,
  TASKS_EXTENSION_ID_V2,
  UpdateTaskResultV2Schema,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import { type McpServer, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { z } from "zod";
import { AppError } from "../base/errors.ts";
import { JOB_KEY_CHARS_MAX } from "../base/limits.ts";
import type { Logger } from "../base/log.ts";
import type { Authority, JobControl } from "../jobs/control.ts";
import type { JobRow } from "../store/job_rows.ts";
import type { TaskInputs } from "./inputs.ts";
import { getTaskResult } from "./task_projection.ts";

export { TASKS_EXTENSION_ID_V2 };
export type { TaskInputs };

/** Whether this request declared the tasks extension (per request; never inferred from earlier ones). */
export function requestDeclaresTasks(era: "modern" | "legacy", envelope: unknown): boolean {
  return era === "modern" && hasTaskClientCapabilityV2({ _meta: envelope });
}

/**
 * The params every `tasks/*` method takes, as loose as the SDK's routing allows: the taskId is checked
 * inside the handler ({@linkcode taskIdOf}), after the extension's declaration, so an undeclared request
 * gets -32021 whatever its params (the SDK would answer a params mismatch with -32602 first).
 */
const TaskParams = z.looseObject({ taskId: z.unknown().optional() });
const TaskId = z.string().min(1).max(JOB_KEY_CHARS_MAX);

function taskIdOf(params: { taskId?: unknown }): string {
  const parsed = TaskId.safeParse(params.taskId);
  if (parsed.success) return parsed.data;
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid params: taskId must be a string of 1 to ${JOB_KEY_CHARS_MAX} characters`,
  );
}

export interface TasksAdapterDeps {
  control: JobControl;
  authority: Authority;
  log: Logger;
  /**
   * Jobs that wait for input mid-flight. Used only by the conformance fixture; no product tool
   * asks for input, so without it nothing is ever `input_required` or outstanding.
   */
  inputs?: TaskInputs;
  /** A `--read-only` server: `tasks/get` reads, `tasks/cancel` is refused (it lists no tool that writes either). */
  readOnly?: boolean;
}

function requireDeclared(envelope: unknown): void {
  if (!hasTaskClientCapabilityV2({ _meta: envelope })) {
    throw new ProtocolError(
      ProtocolErrorCode.MissingRequiredClientCapability,
      "Missing required client capability: io.modelcontextprotocol/tasks",
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } } },
    );
  }
}

function findTask(deps: TasksAdapterDeps, taskId: string): JobRow {
  const found = deps.control.find(taskId, deps.authority);
  if ("row" in found) return found.row;
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    found.missing === "expired"
      ? "Failed to retrieve task: Task has expired"
      : "Failed to retrieve task: Task not found",
  );
}

/**
 * A runner of `method`'s handler `fn`, logging to `log`. An expected operating failure (an `AppError`: the store
 * busy or out of space) is -32603 with its message and the typed error as `data.error` (retryable, retry_after_ms),
 * the shape a failed task's error has; anything else is -32603 "Internal error", logged, without leaking internals.
 */
function guardedBy(log: Logger): <T>(method: string, fn: () => T | Promise<T>) => Promise<T> {
  return async <T>(method: string, fn: () => T | Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      if (err instanceof AppError) {
        log.warn(`${method} failed`, { code: err.code, error: err.message });
        throw new ProtocolError(ProtocolErrorCode.InternalError, err.message, { error: err.toJobError() });
      }
      log.error(`${method} failed`, { error: String(err) });
      throw new ProtocolError(ProtocolErrorCode.InternalError, "Internal error");
    }
  };
}

/** Advertises the extension and registers its methods on a modern-era instance. */
export function registerTasksExtension(mcp: McpServer, deps: TasksAdapterDeps): void {
  mcp.server.registerCapabilities({ extensions: { [TASKS_EXTENSION_ID_V2]: {} } });
  const guarded = guardedBy(deps.log);

  mcp.server.setRequestHandler(
    "tasks/get",
    { params: TaskParams },
    (params, ctx) =>
      guarded("tasks/get", () => {
        requireDeclared(ctx.mcpReq.envelope);
        const result = getTaskResult(findTask(deps, taskIdOf(params)), deps.control, { inputs: deps.inputs });
        return GetTaskResultV2Schema.parse(result);
      }),
  );

  mcp.server.setRequestHandler(
    "tasks/cancel",
    { params: TaskParams },
    (params, ctx) =>
      guarded("tasks/cancel", async () => {
        requireDeclared(ctx.mcpReq.envelope);
        const taskId = taskIdOf(params);
        findTask(deps, taskId);
        if (deps.readOnly === true) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            "Failed to cancel task: this server is read-only (longcall serve --read-only) and cancels nothing; " +
              "cancel it through a server started without --read-only",
          );
        }
        // The persisted cooperative path: queued ends at once, running is aborted by its owner.
        await deps.control.cancel(taskId, deps.authority);
        return CancelTaskResultV2Schema.parse({ resultType: "complete" });
      }),
  );

  // No longcall tool asks for input mid-flight, so nothing is ever outstanding: the
  // acknowledgement ignores every key, as the spec allows. Only the conformance fixture sets
  // `inputs`; then the answers (which the SDK lifts out of the params into
  // `ctx.mcpReq.inputResponses`) are applied before the acknowledgement.
  mcp.server.setRequestHandler(
    "tasks/update",
    { params: TaskParams },
    (params, ctx) =>
      guarded("tasks/update", async () => {
        requireDeclared(ctx.mcpReq.envelope);
        const row = findTask(deps, taskIdOf(params));
        const responses = ctx.mcpReq.inputResponses;
        if (deps.inputs !== undefined && responses !== undefined && Object.keys(responses).length > 0) {
          await deps.inputs.respond(row, responses);
        }
        return UpdateTaskResultV2Schema.parse({ resultType: "complete" });
      }),
  );
}
