/**
 * A longcall server with the product wiring and test job kinds exposed as tools
 * (`test.sleep`, `test.echo`, `test.fail`, `test.partial`, `test.hang`). Used by the MCP
 * integration tests; never shipped.
 *
 *   deno run --no-prompt --allow-read=DIR --allow-write=DIR --allow-env --allow-net=127.0.0.1 \
 *     testing/test_server.ts serve [--http --listen 127.0.0.1:0] --db DIR/x.db [--lease-ms N ...]
 *
 * `--product`: the shipped tools and job kinds instead (GitHub at `LONGCALL_GITHUB_API_URL`), run
 * in this process so the executor overrides (`--lease-ms` ...) apply.
 *
 * Without `--linger-ms` the test server does not linger (the product's `serve` does by default).
 *
 * `--tasks-unloadable`: the Tasks extension's adapter cannot load (its loader rejects with
 * {@linkcode ADAPTER_LOAD_ERROR}), as after an install that lost `src/tasks/adapter.ts`.
 *
 * @module
 */

import { z } from "zod";
import { parseArgs } from "node:util";
import { githubConfigFromEnv } from "../src/cli/product_kinds.ts";
import { productRegistry } from "../src/cli/product_runners.ts";
import { productTools } from "../src/mcp/product_tools.ts";
import { runServer } from "../src/cli/serve.ts";
import * as mcp from "../src/mcp/serving.ts";
import { tasksAdapter } from "./tasks_adapter.ts";
import type { JobControl } from "../src/jobs/control.ts";
import { jobsTools, jobTool, type ToolDef } from "../src/mcp/tools.ts";
import { testRegistry } from "./test_kinds.ts";

/** What the adapter's loader rejects with under `--tasks-unloadable`; tests look for it in the log. */
export const ADAPTER_LOAD_ERROR = "Module not found: src/tasks/adapter.ts (a broken install)";

const TEST_TOOL = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** The test job kinds as job-submitting tools (shared with the benchmark server). */
export function testJobTools(control: JobControl): ToolDef[] {
  return [
    jobTool(control, {
      name: "test.sleep",
      kind: "sleep",
      description: "Sleep ms milliseconds in steps (a test job)",
      inputSchema: z.object({ ms: z.number().int().min(0), steps: z.number().int().min(1).optional() }),
      annotations: { title: "Sleep", ...TEST_TOOL },
    }),
    jobTool(control, {
      name: "test.echo",
      kind: "echo",
      description: "Echo the input as the job result",
      inputSchema: z.object({}).passthrough(),
      annotations: { title: "Echo job", ...TEST_TOOL },
    }),
    jobTool(control, {
      name: "test.fail",
      kind: "fail",
      description: "Fail with a typed error",
      inputSchema: z.object({ code: z.string(), message: z.string(), retryable: z.boolean().optional() }),
      annotations: { title: "Failing job", ...TEST_TOOL },
    }),
    jobTool(control, {
      name: "test.partial",
      kind: "partial",
      description: "Succeed with outcome partial",
      inputSchema: z.object({}),
      annotations: { title: "Partial job", ...TEST_TOOL },
    }),
    jobTool(control, {
      name: "test.hang",
      kind: "hang",
      description: "Never finish and ignore cancellation",
      inputSchema: z.object({}),
      annotations: { title: "Hanging job", ...TEST_TOOL },
    }),
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args.slice(1),
    options: {
      db: { type: "string" },
      http: { type: "boolean" },
      "http-no-auth": { type: "boolean" },
      listen: { type: "string" },
      "read-only": { type: "boolean" },
      "admitted-max": { type: "string" },
      "retention-ms": { type: "string" },
      "heartbeat-ms": { type: "string" },
      "lease-ms": { type: "string" },
      "reconcile-ms": { type: "string" },
      "grace-ms": { type: "string" },
      "running-max": { type: "string" },
      product: { type: "boolean" },
      "linger-ms": { type: "string" },
      "tasks-unloadable": { type: "boolean" },
      "time-rate": { type: "string" },
    },
  });
  const tasks = values["tasks-unloadable"] === true
    ? () => Promise.reject(new Error(ADAPTER_LOAD_ERROR))
    : tasksAdapter;
  const num = (v: string | undefined) => v === undefined ? undefined : Number(v);
  const executor = Object.fromEntries(
    Object.entries({
      heartbeatMs: num(values["heartbeat-ms"]),
      leaseMs: num(values["lease-ms"]),
      reconcileMs: num(values["reconcile-ms"]),
      shutdownGraceMs: num(values["grace-ms"]),
      runningMax: num(values["running-max"]),
    }).filter(([, v]) => v !== undefined),
  );
  const code = await runServer(
    {
      db: values.db ?? ":memory:",
      http: values.http === true,
      httpNoAuth: values["http-no-auth"] === true,
      listen: values.listen ?? "127.0.0.1:0",
      readOnly: values["read-only"] === true,
      ...(values["admitted-max"] === undefined ? {} : { admittedMax: Number(values["admitted-max"]) }),
      ...(values["retention-ms"] === undefined ? {} : { retentionMs: Number(values["retention-ms"]) }),
      // Unset: no linger, so a test never leaves a process behind unless it asks for one.
      ...(values["linger-ms"] === undefined ? {} : { lingerMs: Number(values["linger-ms"]) }),
      // Job handlers' time runs this many times faster (a watch's polls and settle wait), as serve's --simulate-time-rate.
      ...(values["time-rate"] === undefined ? {} : { timeRate: Number(values["time-rate"]) }),
    },
    values.product === true
      ? {
        kinds: { product: { github: githubConfigFromEnv(), runners: productRegistry } },
        mcp,
        tasks,
        executor,
        tools: ({ control, store }) => productTools(control, store),
      }
      : {
        kinds: { registry: () => testRegistry() },
        mcp,
        tasks,
        executor,
        tools: ({ control }) => [...jobsTools(control), ...testJobTools(control)],
      },
  );
  Deno.exit(code);
}
