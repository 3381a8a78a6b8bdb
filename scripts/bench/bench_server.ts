/**
 * The server behind the latency benchmarks of scripts/bench/mcp.ts: the real `runServer`
 * wiring (store, executor in this thread, dual-era factory over stdio) with `jobs.get` /
 * `jobs.cancel`, test job kinds as tools (`test.echo`, `test.sleep`, `test.hang`) and a
 * plain, job-less `bench.echo` tool that returns its arguments: the floor a tool call
 * costs on the same connection. Never shipped.
 *
 *   deno run --no-prompt --allow-read=DIR --allow-write=DIR --allow-env --deny-net \
 *     scripts/bench/bench_server.ts serve --db DIR/x.db [--running-max N] [--admitted-max N] [--grace-ms N]
 *
 * @module
 */

import { z } from "zod";
import { parseArgs } from "node:util";
import { runServer } from "../../src/cli/serve.ts";
import * as mcp from "../../src/mcp/serving.ts";
import { tasksAdapter } from "../../testing/tasks_adapter.ts";
import { okResult } from "../../src/mcp/tool_kit.ts";
import { jobsTools, LOCAL_READ, type ToolDef } from "../../src/mcp/tools.ts";
import { testJobTools } from "../../testing/test_server.ts";
import { testRegistry } from "../../testing/test_kinds.ts";

/** A plain tool: no job, no store; answers with its arguments. */
const benchEcho: ToolDef = {
  name: "bench.echo",
  description: "Return the arguments as the result (a benchmark baseline)",
  inputSchema: z.object({}).passthrough(),
  annotations: { title: "Echo", ...LOCAL_READ },
  call: (args) => Promise.resolve(okResult((args ?? {}) as Record<string, unknown>)),
};

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args.slice(1),
    options: {
      db: { type: "string" },
      "admitted-max": { type: "string" },
      "running-max": { type: "string" },
      "grace-ms": { type: "string" },
    },
  });
  const num = (v: string | undefined) => v === undefined ? undefined : Number(v);
  const executor = Object.fromEntries(
    Object.entries({
      runningMax: num(values["running-max"]),
      shutdownGraceMs: num(values["grace-ms"]),
    }).filter(([, v]) => v !== undefined),
  );
  const code = await runServer({
    db: values.db ?? ":memory:",
    http: false,
    listen: "127.0.0.1:0",
    readOnly: false,
    ...(values["admitted-max"] === undefined ? {} : { admittedMax: Number(values["admitted-max"]) }),
  }, {
    kinds: { registry: () => testRegistry() },
    mcp,
    tasks: tasksAdapter,
    executor,
    tools: ({ control }) => [...jobsTools(control), benchEcho, ...testJobTools(control)],
  });
  Deno.exit(code);
}
