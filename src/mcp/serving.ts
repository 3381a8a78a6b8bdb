/**
 * The MCP layer `longcall serve` runs on, as one module: the server factory, the transports and the
 * product's tools. src/cli/serve.ts takes it from its caller instead of importing it, so whoever
 * starts a server decides when these modules (the SDK, zod, the tools' schemas) load:
 *
 * - from source, src/main.ts imports this module only for `serve`, once its runtime exists and its
 *   network worker has been created (the other commands never load the SDK; the worker loads its own
 *   code only once the server starts it, see src/cli/serve.ts);
 * - the bundle's generated entry (scripts/build.ts) and the test and benchmark servers import it
 *   statically (in the bundle a dynamic import would wrap every module it reaches in a lazy
 *   initializer, which costs more at start-up than it saves).
 *
 * `toolSchemas` are the product tools' JSON Schemas as `tools/list` advertises them, precomputed by
 * `deno task schemas` (see src/mcp/advertised.ts).
 *
 * @module
 */

import committedSchemas from "./tool_schemas.json" with { type: "json" };
import { type PrecomputedSchemas, trustToolSchemas } from "./advertised.ts";

export { createServerFactory } from "./server.ts";
export { serveOnHttp, serveOnStdio } from "./transports.ts";
export { productTools } from "./product_tools.ts";
/** The product tools' precomputed JSON Schemas (src/mcp/tool_schemas.json). */
export const toolSchemas: PrecomputedSchemas = committedSchemas;
// A compiled binary was built by `deno task compile`, which refuses a stale file (scripts/build.ts); the
// bundle's generated entry trusts the same object itself.
if (Deno.build.standalone) trustToolSchemas(toolSchemas);
