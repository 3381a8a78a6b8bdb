/**
 * Minimal dual-era reference server used only to prove the test helpers in
 * `mcp_clients.ts`. It will be replaced by the real longcall server.
 *
 *   deno run --no-prompt tests/helpers/spike_server.ts --stdio
 *   deno run --no-prompt --allow-net=127.0.0.1 tests/helpers/spike_server.ts --http 0
 *
 * In HTTP mode it prints `LISTENING <port>` on stderr once bound.
 */
import {
  createMcpHandler,
  McpServer,
  type McpServerFactory,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { hasTaskClientCapabilityV2, TASKS_EXTENSION_ID_V2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import { z } from "zod";

interface SpikeTask {
  taskId: string;
  status: "working" | "completed" | "cancelled";
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** Epoch ms after which a working task reports completed. */
  readyAt: number;
  text: string;
}

/** Long-lived state: lives outside the factory (the factory runs per request on HTTP). */
const tasks = new Map<string, SpikeTask>();

function requireTasksDeclared(envelope: unknown): void {
  if (!hasTaskClientCapabilityV2({ _meta: envelope })) {
    throw new ProtocolError(
      ProtocolErrorCode.MissingRequiredClientCapability,
      "Missing required client capability: io.modelcontextprotocol/tasks",
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } } },
    );
  }
}

function lookup(taskId: string): SpikeTask {
  const task = tasks.get(taskId);
  if (task === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      "Failed to retrieve task: Task not found",
    );
  }
  if (task.status === "working" && Date.now() >= task.readyAt) {
    task.status = "completed";
    task.lastUpdatedAt = new Date().toISOString();
  }
  return task;
}

function wireTask(task: SpikeTask): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
}

const TaskIdParams = z.looseObject({ taskId: z.string() });

export const factory: McpServerFactory = ({ era }) => {
  const mcp = new McpServer({ name: "longcall-spike", version: "0.0.0" }, {
    capabilities: { tools: {} },
  });

  mcp.registerTool("echo", {
    description: "Echo the text back",
    inputSchema: z.object({ text: z.string() }),
  }, ({ text }) => ({
    content: [{ type: "text", text }],
    structuredContent: { text },
  }));

  mcp.registerTool("slow", {
    description: "Finish after ms milliseconds (a task when the request declares the tasks extension)",
    inputSchema: z.object({ ms: z.number().int().min(0).default(50) }),
  }, ({ ms }, ctx) => {
    const text = `slept ${ms}ms`;
    if (era === "modern" && hasTaskClientCapabilityV2({ _meta: ctx.mcpReq.envelope })) {
      const now = new Date();
      const task: SpikeTask = {
        taskId: crypto.randomUUID(),
        status: "working",
        createdAt: now.toISOString(),
        lastUpdatedAt: now.toISOString(),
        ttlMs: 60_000,
        pollIntervalMs: 20,
        readyAt: now.getTime() + ms,
        text,
      };
      tasks.set(task.taskId, task);
      // The tool callback type does not admit a CreateTaskResult; it passes at runtime.
      return { resultType: "task", ...wireTask(task) } as unknown as {
        content: [];
      };
    }
    return {
      content: [{ type: "text", text }],
      structuredContent: { text },
    };
  });

  if (era === "modern") {
    mcp.server.registerCapabilities({
      extensions: { [TASKS_EXTENSION_ID_V2]: {} },
    });
    mcp.server.setRequestHandler(
      "tasks/get",
      { params: TaskIdParams },
      (params, ctx) => {
        requireTasksDeclared(ctx.mcpReq.envelope);
        const task = lookup(params.taskId);
        const base = { ...wireTask(task), resultType: "complete" };
        if (task.status !== "completed") return base;
        return {
          ...base,
          result: {
            content: [{ type: "text", text: task.text }],
            structuredContent: { text: task.text },
            resultType: "complete",
          },
        };
      },
    );
    mcp.server.setRequestHandler(
      "tasks/cancel",
      { params: TaskIdParams },
      (params, ctx) => {
        requireTasksDeclared(ctx.mcpReq.envelope);
        const task = lookup(params.taskId);
        if (task.status === "working") {
          task.status = "cancelled";
          task.lastUpdatedAt = new Date().toISOString();
        }
        return { resultType: "complete" };
      },
    );
    mcp.server.setRequestHandler(
      "tasks/update",
      { params: TaskIdParams },
      (params, ctx) => {
        requireTasksDeclared(ctx.mcpReq.envelope);
        lookup(params.taskId);
        return { resultType: "complete" };
      },
    );
    // Probe for the notes: what does a handler-thrown plain Error become?
    mcp.server.setRequestHandler(
      "spike/throw",
      { params: z.looseObject({ kind: z.string() }) },
      (params) => {
        if (params.kind === "plain") throw new Error("boom");
        throw new ProtocolError(ProtocolErrorCode.InternalError, "internal", {
          detail: "x",
        });
      },
    );
  }
  return mcp;
};

if (import.meta.main) {
  const [mode, portArg] = Deno.args;
  if (mode === "--stdio") {
    serveStdio(factory, {
      onerror: (error) => console.error("spike stdio error:", error.message),
    });
  } else if (mode === "--http") {
    const handler = createMcpHandler(factory, {
      onerror: (error) => console.error("spike http error:", error.message),
    });
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: Number(portArg ?? "0"),
      onListen: ({ port }) => console.error(`LISTENING ${port}`),
    }, (request) => handler.fetch(request));
    Deno.addSignalListener("SIGTERM", () => {
      void handler.close().then(() => server.shutdown());
    });
  } else {
    console.error("usage: spike_server.ts --stdio | --http PORT");
    Deno.exit(2);
  }
}
