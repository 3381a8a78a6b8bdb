/**
 * A server (runServer over stdio, the product's tools, test kinds run in this process) whose
 * precomputed tool schemas are the committed ones, or with `--stale` the committed ones with
 * jobs.get's input schema changed, as if a schema had been edited without `deno task schemas`.
 * Used by tests/advertised_schemas_test.ts; never lingers.
 *
 *   deno run --allow-read --allow-write --allow-env tests/helpers/schemas_server.ts --db <path> [--stale]
 */

import { parseArgs } from "node:util";
import { runServer } from "../../src/cli/serve.ts";
import { ADVERTISED_TARGET, schemaKey } from "../../src/mcp/advertised.ts";
import * as mcp from "../../src/mcp/serving.ts";
import { tasksAdapter } from "../../testing/tasks_adapter.ts";
import { testRegistry } from "../../testing/test_kinds.ts";

/** The key of jobs.get's input schema in the precomputed set, and the member `--stale` adds to it. */
export const STALE_KEY = schemaKey({ tool: "jobs.get", slot: "input", io: "input" }, { target: ADVERTISED_TARGET });
export const STALE_MARK = "x-stale";

/** `schemas` with jobs.get's input schema changed (the {@linkcode STALE_MARK} member added). */
export function staleSchemas(
  schemas: Readonly<Record<string, Record<string, unknown>>>,
): Record<string, Record<string, unknown>> {
  if (schemas[STALE_KEY] === undefined) throw new Error(`no precomputed schema under ${JSON.stringify(STALE_KEY)}`);
  return { ...schemas, [STALE_KEY]: { ...schemas[STALE_KEY], [STALE_MARK]: true } };
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { db: { type: "string" }, stale: { type: "boolean" } } });
  const toolSchemas = values.stale === true ? staleSchemas(mcp.toolSchemas) : mcp.toolSchemas;
  const code = await runServer(
    { db: values.db ?? ":memory:", http: false, listen: "127.0.0.1:0", readOnly: false, lingerMs: 0 },
    {
      kinds: { registry: () => testRegistry() },
      mcp: { ...mcp, toolSchemas },
      tasks: tasksAdapter,
      tools: ({ control, store }) => mcp.productTools(control, store),
    },
  );
  Deno.exit(code);
}
