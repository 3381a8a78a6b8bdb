/**
 * The MCP server: one factory serving both protocol generations through the official
 * SDK (`serveStdio`, `createMcpHandler`). Long-lived state (the job store) lives outside
 * the factory; the factory may build throwaway probe instances.
 *
 * @module
 */

import { type AuthInfo, McpServer, type McpServerFactory } from "@modelcontextprotocol/server";
import { AppError } from "../base/errors.ts";
import { ADVERTISED_CHECK_DELAY_MS, ADVERTISED_RELIST_SERVERS_MAX, JOB_WAIT_MS_MAX } from "../base/limits.ts";
import { once } from "../base/once.ts";
import type { Logger } from "../base/log.ts";
import { VERSION } from "../base/version.ts";
import type { Authority, JobControl } from "../jobs/control.ts";
import type * as TasksAdapter from "../tasks/adapter.ts";
import { forwardCancellations, RequestCancels } from "./cancels.ts";
import {
  advertised,
  type AdvertisedTool,
  answersAny,
  type PrecomputedSchemas,
  type PrecomputedSource,
  toolSchemasTrusted,
  verifyAdvertised,
  warmAdvertised,
} from "./advertised.ts";
import { errorResult, type ToolResult, withErrorOutput } from "./tool_kit.ts";
import type { ToolDef } from "./tools.ts";
import type { z } from "zod";

/** The Tasks extension's adapter: src/tasks/adapter.ts (with the extension's official schemas). */
export type TasksAdapterModule = typeof TasksAdapter;

/** What the factory needs. */
export interface ServerDeps {
  control: JobControl;
  /**
   * Loads the Tasks extension's adapter, called once, by the first modern connection: the 2025 generation
   * has no Tasks extension, so a server that only ever serves it never loads the adapter. Handed in by
   * the entry, as the MCP layer itself is (src/main.ts: a dynamic import; the bundle's generated entry: a
   * static one, since a dynamic import inside the bundle would wrap every module it reaches in a lazy
   * initializer).
   */
  tasks: () => Promise<TasksAdapterModule>;
  tools: ToolDef[];
  log: Logger;
  /** List only tools whose readOnlyHint is true. */
  readOnly?: boolean;
  /** Server instructions for the model. */
  instructions?: string;
  /**
   * Jobs that ask for input mid-flight (`input_required` tasks). Used only by the conformance
   * fixture; no product tool asks for input.
   */
  taskInputs?: TasksAdapter.TaskInputs;
  /**
   * Precomputed JSON Schemas of the tools (src/mcp/tool_schemas.json, for the product's tools):
   * `tools/list` answers from them instead of converting at start-up (see src/mcp/advertised.ts).
   * Without them every schema is converted in the first turn of the event loop.
   */
  toolSchemas?: PrecomputedSchemas;
  /**
   * How long after the first answer taken from an untrusted `toolSchemas` set its check runs, 0 to
   * {@linkcode ADVERTISED_CHECK_DELAY_MS} (the default); in-process tests pass 0.
   */
  schemaCheckDelayMs?: number;
}

/** Default instructions: how a model should use longcall's tools. */
export const INSTRUCTIONS = [
  "longcall runs long GitHub work (watching a pull request's CI, syncing issues and pull requests) as durable jobs.",
  "Tools named github.* (github_* in hosts that rename tools) start a job and return at once: either an MCP task",
  "(if your host supports the tasks extension, it will follow the task for you) or a JobReference {id,",
  "poll_after_ms}. With a JobReference, call the jobs.get tool (jobs_get in hosts that rename tools, e.g.",
  "mcp__longcall__jobs_get) with {ids: [id]} after poll_after_ms, then again after each item's retry_after_ms, until",
  "execution_state is terminal; use response_format detailed to read the result.",
  `If you cannot wait between calls, pass wait_ms (up to ${JOB_WAIT_MS_MAX}) to jobs.get: it then returns as soon`,
  'as a job changes or ends, or after wait_ms (add until: "terminal" to skip intermediate changes).',
  "The jobs.cancel tool (jobs_cancel) stops a job. corpus.* tools read the local corpus only and never touch the",
  "network; they say when the data was synced.",
].join(" ");

/** The authority of an HTTP request (set by the HTTP layer after bearer validation); null on stdio. */
export function authorityOf(authInfo: AuthInfo | undefined): Authority {
  const a = authInfo?.extra?.["authority"];
  return typeof a === "string" ? a : null;
}

/**
 * The schemas each tool advertises (its results with the error alternative every tool may answer),
 * wrapped so the SDK converts each to JSON Schema at most once (see src/mcp/advertised.ts).
 */
export function advertiseTools(tools: readonly ToolDef[], precomputed?: PrecomputedSource): AdvertisedTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    inputSchema: advertised(tool.inputSchema, { tool: tool.name, slot: "input", precomputed }),
    outputSchema: tool.outputSchema === undefined
      ? undefined
      : advertised(() => withErrorOutput((tool.outputSchema as () => z.ZodType)()), {
        tool: tool.name,
        slot: "output",
        precomputed,
      }),
  }));
}

/**
 * The tools' advertised schemas for one factory: precomputed ones when given and they answer for
 * any of these tools (checked against a real conversion {@linkcode ADVERTISED_CHECK_DELAY_MS} after their first
 * answer unless the build checked them), else converted in the first turn of the event loop, before or while the first
 * requests are read. Either way no tools/list of any instance converts a schema twice. `serving`
 * lists the instances a stale precomputed schema must reach with `notifications/tools/list_changed`.
 */
function advertiseOnce(
  tools: readonly ToolDef[],
  deps: ServerDeps,
): { schemas: AdvertisedTool[]; serving(mcp: McpServer): void } {
  const precomputed = deps.toolSchemas;
  if (precomputed === undefined || !answersAny(precomputed, tools)) {
    const schemas = advertiseTools(tools);
    const warm = setTimeout(() => warmAdvertised(schemas), 0);
    Deno.unrefTimer(warm);
    return { schemas, serving: () => {} };
  }
  if (toolSchemasTrusted(precomputed)) {
    return { schemas: advertiseTools(tools, { schemas: precomputed }), serving: () => {} };
  }
  const delayMs = deps.schemaCheckDelayMs ?? ADVERTISED_CHECK_DELAY_MS;
  // Connected instances built before the check, the newest ADVERTISED_RELIST_SERVERS_MAX; none after it.
  let built: McpServer[] | undefined = [];
  const check = () => {
    const told = built ?? [];
    built = undefined;
    const { stale, failed } = verifyAdvertised(schemas);
    if (failed.length > 0) {
      deps.log.error("could not convert these tools' schemas to check them; they stay as precomputed", { failed });
    }
    if (stale.length === 0) {
      if (failed.length === 0) {
        deps.log.debug("the precomputed tool schemas equal their conversion", { tools: schemas.length });
      }
      return;
    }
    const connected = told.filter((mcp) => mcp.isConnected());
    deps.log.warn(
      "src/mcp/tool_schemas.json is stale (run `deno task schemas`): these tools now advertise their converted " +
        "schemas, and connected sessions are told to list tools again",
      { tools: stale, sessions: connected.length },
    );
    for (const mcp of connected) {
      mcp.server.sendToolListChanged().catch((err) =>
        deps.log.warn("could not send tools/list_changed", { error: String(err) })
      );
    }
  };
  // A while after the first answer taken from the precomputed set (a tools/list; the SDK's tools/call
  // reads the output schema too): converting every schema at once would hold that answer's write.
  const onUse = once(() => {
    deps.log.debug("answered from the precomputed tool schemas; checking them against their conversion later", {
      after_ms: delayMs,
    });
    Deno.unrefTimer(setTimeout(check, delayMs));
  });
  const schemas = advertiseTools(tools, { schemas: precomputed, onUse });
  return {
    schemas,
    serving: (mcp) => {
      if (built === undefined) return;
      built = built.filter((b) => b.isConnected());
      built.push(mcp);
      if (built.length > ADVERTISED_RELIST_SERVERS_MAX) built.shift();
    },
  };
}

/** Builds the dual-era factory. */
export function createServerFactory(deps: ServerDeps): McpServerFactory {
  const delay = deps.schemaCheckDelayMs;
  if (delay !== undefined && (!Number.isInteger(delay) || delay < 0 || delay > ADVERTISED_CHECK_DELAY_MS)) {
    throw new RangeError(
      `Cannot create the server factory: schemaCheckDelayMs must be an integer from 0 to ${ADVERTISED_CHECK_DELAY_MS}, ` +
        `current value is ${delay}`,
    );
  }
  const tools = deps.readOnly === true ? deps.tools.filter((t) => t.annotations.readOnlyHint) : deps.tools;
  // Wrapped once for every instance this factory builds.
  const { schemas, serving } = advertiseOnce(tools, deps);
  // One registry for every instance this factory builds (stateless HTTP: one per request).
  const cancels = new RequestCancels();
  const tasksAdapter = once(deps.tasks);
  const build = (
    { era, authInfo }: Parameters<McpServerFactory>[0],
    tasks: TasksAdapterModule | undefined,
  ): McpServer => {
    const authority = authorityOf(authInfo);
    const mcp = new McpServer(
      { name: "longcall", version: VERSION },
      { capabilities: { tools: {} }, instructions: deps.instructions ?? INSTRUCTIONS },
    );
    forwardCancellations(mcp.server, { cancels, authority });
    serving(mcp);
    tools.forEach((tool, i) => {
      const schema = schemas[i] as AdvertisedTool;
      mcp.registerTool(tool.name, {
        title: tool.annotations.title,
        description: tool.description,
        inputSchema: schema.inputSchema,
        ...(schema.outputSchema === undefined ? {} : { outputSchema: schema.outputSchema }),
        annotations: tool.annotations,
        ...(tool._meta === undefined ? {} : { _meta: tool._meta }),
      }, async (args: unknown, ctx) => {
        const cancel = cancels.open(authority, ctx.mcpReq.id);
        try {
          const inputResponses = ctx.mcpReq.inputResponses;
          const result = await tool.call(args, {
            authority,
            tasksDeclared: tasks !== undefined && tasks.requestDeclaresTasks(era, ctx.mcpReq.envelope),
            signal: AbortSignal.any([ctx.mcpReq.signal, cancel.signal]),
            ...(inputResponses === undefined ? {} : { inputResponses }),
          });
          // A CreateTaskResult (or a fixture's input_required result) passes through at runtime; the
          // callback type only knows CallToolResult.
          return result as ToolResult;
        } catch (err) {
          if (!(err instanceof AppError)) deps.log.error(`tool ${tool.name} failed`, { error: String(err) });
          return errorResult(err);
        } finally {
          cancel.close();
        }
      });
    });
    // The Tasks extension exists only in the 2026-07-28 generation.
    if (tasks !== undefined) {
      tasks.registerTasksExtension(mcp, {
        control: deps.control,
        authority,
        log: deps.log,
        ...(deps.taskInputs === undefined ? {} : { inputs: deps.taskInputs }),
        ...(deps.readOnly === true ? { readOnly: true } : {}),
      });
    }
    return mcp;
  };
  // A modern instance waits for the adapter (loaded once; at once after the first); a legacy one never does.
  return (ctx) => ctx.era === "modern" ? tasksAdapter().then((tasks) => build(ctx, tasks)) : build(ctx, undefined);
}
