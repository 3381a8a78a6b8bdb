/**
 * The JSON Schemas the shipped server's `tools/list` advertises, precomputed for the bundle:
 * scripts/build.ts embeds what {@linkcode productToolSchemas} returns (printed by running this
 * module), so the bundle's first `tools/list` converts no zod schema (see
 * src/mcp/advertised.ts). The tools are built exactly as `longcall serve` builds them, over an
 * in-memory store; the conversion is the one the server itself would run.
 *
 * @module
 */

import { silentLogger } from "../src/base/log.ts";
import { openRuntime } from "../src/cli/runtime.ts";
import { precomputeToolSchemas } from "../src/mcp/advertised.ts";
import { productTools } from "../src/mcp/product_tools.ts";
import { advertiseTools } from "../src/mcp/server.ts";

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

if (import.meta.main) console.log(JSON.stringify(await productToolSchemas()));
