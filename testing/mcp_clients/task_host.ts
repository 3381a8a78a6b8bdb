/**
 * The task-aware host: a modern v2 Client wrapped by `createTaskSessionFromClient` from
 * `@modelcontextprotocol/ext-tasks/client`, dispatching through the raw channel, so `tools/call` may return a task
 * that the session polls with `tasks/get` until it settles; counts the polls and keeps the raw first answers.
 *
 * @module
 */

import {
  createTaskSessionFromClient,
  type DispatchOptions,
  type JsonRpcResponse,
  type TaskEnabledSession,
  type TaskOutcome,
  type TaskView,
} from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";
import { violationText } from "../output_schemas.ts";
import { MODERN_PROTOCOL_VERSION } from "./envelope.ts";
import type { RawResponse } from "./raw_channel.ts";
import { DEFAULT_CLIENT_INFO, isStdioTarget, type ServerTarget } from "./targets.ts";
import { makeConnection, openV2, type RawRequestOptions, type V2Connection, type V2Options } from "./v2.ts";

export interface TaskCallResult {
  /** "task" when tools/call returned `resultType: "task"`, "immediate" for a plain result. */
  kind: "task" | "immediate";
  taskId?: string;
  /** The raw `tools/call` result as it came off the wire (the CreateTaskResult for a task). */
  initial: Record<string, unknown> | undefined;
  outcome: TaskOutcome<unknown>;
  lastTask: TaskView | undefined;
  /** `tasks/get` requests the session made for this task. */
  polls: number;
}

export interface TaskHost extends V2Connection {
  readonly session: TaskEnabledSession;
  /** Calls a tool through the task session and waits for the final outcome. */
  callToolAsTask(
    name: string,
    args?: Record<string, JsonValue>,
    options?: { signal?: AbortSignal },
  ): Promise<TaskCallResult>;
  /** Raw `tasks/get` (tasks extension declared unless `declareTasks: false`). */
  tasksGet(taskId: string, options?: RawRequestOptions): Promise<RawResponse>;
  /** Raw `tasks/cancel` (tasks extension declared unless `declareTasks: false`). */
  tasksCancel(taskId: string, options?: RawRequestOptions): Promise<RawResponse>;
  /** Number of `tasks/get` polls the session made (all tasks; raw tasksGet calls excluded). */
  readonly tasksGetPolls: number;
  /** Every request the session sent through raw dispatch, in order (method + taskId if any). */
  readonly dispatched: ReadonlyArray<{ method: string; taskId?: string }>;
}

export interface TaskHostOptions extends Omit<V2Options, "era"> {
  endpointId?: string;
}

function fromSessionResponse(response: RawResponse): JsonRpcResponse {
  if (response.kind === "result") {
    return { kind: "result", result: response.result as JsonValue };
  }
  const { code, message, data } = response.error;
  return {
    kind: "error",
    error: { code, message, ...(data === undefined ? {} : { data: data as JsonValue }) },
  };
}

/**
 * A modern v2 Client plus `createTaskSessionFromClient(client, {rawDispatch, v2RequestFraming})`.
 * Works over stdio and streamable HTTP. The server must advertise
 * `capabilities.extensions["io.modelcontextprotocol/tasks"] = {}` in `server/discover`,
 * otherwise the session treats the server as task-less and calls go through the SDK Client.
 */
export async function connectTaskHost(
  target: ServerTarget,
  options: TaskHostOptions = {},
): Promise<TaskHost> {
  const v2Options: V2Options = { ...options, era: "modern" };
  const connected = await openV2(target, v2Options);
  const { client, raw } = connected;
  const capabilities = options.capabilities ?? {};
  const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
  const dispatched: Array<{ method: string; taskId?: string }> = [];
  const pollsByTask = new Map<string, number>();
  const initialByTask = new Map<string, Record<string, unknown>>();
  let lastImmediate: Record<string, unknown> | undefined;
  let tasksGetPolls = 0;

  const rawDispatch = async (request: JsonValue, dispatchOptions?: DispatchOptions) => {
    const body = request as { method: string; params?: Record<string, unknown> };
    const taskId = typeof body.params?.["taskId"] === "string" ? body.params["taskId"] : undefined;
    dispatched.push({ method: body.method, ...(taskId === undefined ? {} : { taskId }) });
    if (body.method === "tasks/get" && taskId !== undefined) {
      tasksGetPolls++;
      pollsByTask.set(taskId, (pollsByTask.get(taskId) ?? 0) + 1);
    }
    const context = dispatchOptions?.context;
    const response = await raw.send(body, {
      ...(dispatchOptions?.signal === undefined ? {} : { signal: dispatchOptions.signal }),
      ...(context?.requestTimeoutMs === undefined ? {} : { timeoutMs: context.requestTimeoutMs }),
      ...(context?.headers === undefined ? {} : { headers: { ...context.headers } }),
    });
    if (body.method === "tools/call" && response.kind === "result") {
      const result = response.result;
      if (result["resultType"] === "task" && typeof result["taskId"] === "string") {
        initialByTask.set(result["taskId"], result);
      } else {
        lastImmediate = result;
      }
    }
    return fromSessionResponse(response);
  };

  let session: TaskEnabledSession;
  try {
    session = createTaskSessionFromClient(client, {
      endpointId: options.endpointId ?? `longcall-test:${isStdioTarget(target) ? target.command : String(target.url)}`,
      rawDispatch,
      v2RequestFraming: {
        protocolVersion: MODERN_PROTOCOL_VERSION,
        clientInfo: { ...clientInfo },
        clientCapabilities: capabilities as Record<string, JsonValue>,
      },
    });
  } catch (error) {
    await client.close();
    throw error;
  }

  const base = makeConnection(connected, { ...v2Options, beforeClose: () => session.close() });
  const callAndSettle = async (
    name: string,
    args: Record<string, JsonValue>,
    callOptions: { signal?: AbortSignal },
  ): Promise<TaskCallResult> => {
    const execution = await session.callTool(name, args, {
      ...(callOptions.signal === undefined ? {} : { signal: callOptions.signal }),
    });
    const settlement = await execution.settle(
      callOptions.signal === undefined ? {} : { signal: callOptions.signal },
    );
    if (execution.kind === "task") {
      const taskId: string = execution.handle.taskId;
      return {
        kind: "task",
        taskId,
        initial: initialByTask.get(taskId),
        outcome: settlement.outcome,
        lastTask: settlement.lastTask,
        polls: pollsByTask.get(taskId) ?? 0,
      };
    }
    return {
      kind: "immediate",
      initial: lastImmediate,
      outcome: settlement.outcome,
      lastTask: settlement.lastTask,
      polls: 0,
    };
  };
  return {
    ...base,
    get pid() {
      return base.pid;
    },
    session,
    async callToolAsTask(name, args = {}, callOptions = {}) {
      lastImmediate = undefined;
      // A task host that validates like MCP Inspector: a completed result (read by the session's
      // tasks/get polls, checked on the way in) that misses the tool's outputSchema fails the call.
      const violationsBefore = connected.outputSchemas.violations.length;
      const result = await callAndSettle(name, args, callOptions);
      const fresh = connected.outputSchemas.violations.slice(violationsBefore);
      if (fresh.length > 0) throw new Error(fresh.map(violationText).join("\n"));
      return result;
    },
    tasksGet(taskId, requestOptions = {}) {
      return base.rawRequest("tasks/get", { taskId }, { declareTasks: true, ...requestOptions });
    },
    tasksCancel(taskId, requestOptions = {}) {
      return base.rawRequest("tasks/cancel", { taskId }, { declareTasks: true, ...requestOptions });
    },
    get tasksGetPolls() {
      return tasksGetPolls;
    },
    get dispatched() {
      return dispatched;
    },
  };
}
