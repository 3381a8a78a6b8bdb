/**
 * The JSON Schemas the shipped server's `tools/list` advertises, precomputed: src/mcp/tool_schemas.json
 * holds what {@linkcode productToolSchemas} returns, so no server's first `tools/list` converts the
 * product's zod schemas (see src/mcp/advertised.ts). The tools are built exactly as `longcall serve`
 * builds them, over an in-memory store; the conversion is the one the server itself would run.
 *
 *   deno task schemas            # rewrite src/mcp/tool_schemas.json after changing a tool's schema
 *   deno task schemas --check    # exit 1 when the file differs from a fresh conversion
 *   (--file PATH checks or writes another file, through `deno run` with write access to it; tests use it)
 *
 * scripts/build.ts refuses to bundle while the file is stale, and tests/advertised_schemas_test.ts fails.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { silentLogger } from "../src/base/log.ts";
import { openRuntime } from "../src/cli/runtime.ts";
import { precomputeToolSchemas } from "../src/mcp/advertised.ts";
import { productTools } from "../src/mcp/product_tools.ts";
import { advertiseTools } from "../src/mcp/server.ts";

/** The committed file src/mcp/serving.ts imports. */
export const TOOL_SCHEMAS_FILE = new URL("../src/mcp/tool_schemas.json", import.meta.url);

/** The product tools' advertised JSON Schemas, keyed as src/mcp/advertised.ts looks them up. */
export async function productToolSchemas(): Promise<Record<string, Record<string, unknown>>> {
  // The GitHub host does not change any schema; the kinds only need a configuration to exist.
  const runtime = openRuntime({
    db: ":memory:",
    kinds: { product: { github: { baseUrl: "https://api.github.com" } } },
    log: silentLogger,
    execution: "none",
  });
  try {
    return precomputeToolSchemas(advertiseTools(productTools(runtime.control, runtime.store)));
  } finally {
    await runtime.close();
  }
}

/** The file's text for a set of schemas (what `deno fmt` leaves as it is). */
export function toolSchemasText(schemas: Record<string, Record<string, unknown>>): string {
  return `${JSON.stringify(schemas, null, 2)}\n`;
}

/** Whether `file` (default the committed one) holds exactly a fresh conversion; the fresh text either way. */
export async function toolSchemasFresh(
  file: URL | string = TOOL_SCHEMAS_FILE,
): Promise<{ fresh: boolean; text: string }> {
  const text = toolSchemasText(await productToolSchemas());
  const committed = await Deno.readTextFile(file).catch(() => "");
  return { fresh: committed === text, text };
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { check: { type: "boolean" }, file: { type: "string" } } });
  const file = values.file ?? TOOL_SCHEMAS_FILE;
  const name = values.file ?? "src/mcp/tool_schemas.json";
  const { fresh, text } = await toolSchemasFresh(file);
  if (fresh) console.error(`${name} is up to date`);
  else if (values.check === true) {
    console.error(`${name} is stale: run \`deno task schemas\``);
    Deno.exit(1);
  } else {
    await Deno.writeTextFile(file, text);
    console.error(`wrote ${name}`);
  }
}
