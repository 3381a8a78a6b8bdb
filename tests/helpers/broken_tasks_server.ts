/**
 * The product's stdio server (runServer, its tools, the executor in this thread) whose Tasks extension adapter
 * cannot load, as after an install that lost `src/tasks/adapter.ts`. Used by tests/tasks_adapter_load_test.ts to
 * see what hosts get then: modern requests an error answer, legacy sessions the whole service.
 *
 *   deno run --allow-read --allow-write --allow-env --allow-net=127.0.0.1 tests/helpers/broken_tasks_server.ts --db <path>
 */

import { parseArgs } from "node:util";
import { runServer } from "../../src/cli/serve.ts";
import { githubConfigFromEnv } from "../../src/cli/product_kinds.ts";
import { productRegistry } from "../../src/cli/product_runners.ts";
import * as mcp from "../../src/mcp/serving.ts";

/** What the loader rejects with; the test looks for it in the server's log. */
export const ADAPTER_LOAD_ERROR = "Module not found: src/tasks/adapter.ts (a broken install)";

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { db: { type: "string" } } });
  const code = await runServer(
    { db: values.db ?? ":memory:", http: false, listen: "127.0.0.1:0", readOnly: false, lingerMs: 0 },
    {
      kinds: { product: { github: githubConfigFromEnv(), runners: productRegistry } },
      mcp,
      tools: ({ control, store }) => mcp.productTools(control, store),
      tasks: () => Promise.reject(new Error(ADAPTER_LOAD_ERROR)),
    },
  );
  Deno.exit(code);
}
