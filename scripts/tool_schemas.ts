/**
 * The JSON Schemas the shipped server's `tools/list` advertises, precomputed for the bundle:
 * scripts/build.ts embeds what {@linkcode productToolSchemas} returns (printed by running this
 * module), so the bundle's first `tools/list` converts no zod schema (see
 * src/mcp/advertised.ts). The tools are built exactly as `longcall serve` builds them, over an
 * in-memory store; the conversion is the one the server itself would run.
 *
 * @module
 */

import { systemClock } from "../src/base/clock.ts";
import { silentLogger } from "../src/base/log.ts";
import { productRegistry, productTools } from "../src/cli/product.ts";
import { JobControl } from "../src/jobs/control.ts";
import { precomputeToolSchemas } from "../src/mcp/advertised.ts";
import { advertiseTools } from "../src/mcp/server.ts";
import { openStore } from "../src/store/store.ts";

/** The product tools' advertised JSON Schemas, keyed as src/mcp/advertised.ts looks them up. */
export function productToolSchemas(): Record<string, Record<string, unknown>> {
  const store = openStore(":memory:");
  try {
    // The GitHub host does not change any schema; the kinds only need a configuration to exist.
    const registry = productRegistry(store, { baseUrl: "https://api.github.com" }, silentLogger);
    const control = new JobControl(store.rows, registry, { clock: systemClock });
    return precomputeToolSchemas(advertiseTools(productTools(control, store)));
  } finally {
    store.close();
  }
}

if (import.meta.main) console.log(JSON.stringify(productToolSchemas()));
