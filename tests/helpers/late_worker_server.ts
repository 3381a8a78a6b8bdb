/**
 * The product's server (runServer over stdio, its network worker from src/main.ts as `longcall serve`
 * starts it) with `--worker-start-delay-ms` for how long after serving begins it starts that worker
 * unasked. Used by tests/worker_start_test.ts to show that a submission starts it sooner; never lingers.
 *
 *   deno run <the flags of src/cli/permissions.ts> tests/helpers/late_worker_server.ts --db <path> \
 *     --worker-start-delay-ms <ms>
 */

import { parseArgs } from "node:util";
import { runServer } from "../../src/cli/serve.ts";
import { githubConfigFromEnv } from "../../src/cli/product_kinds.ts";
import * as mcp from "../../src/mcp/serving.ts";

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { db: { type: "string" }, "worker-start-delay-ms": { type: "string" } },
  });
  const code = await runServer(
    { db: values.db ?? ":memory:", http: false, listen: "127.0.0.1:0", readOnly: false, lingerMs: 0 },
    {
      kinds: { product: { github: githubConfigFromEnv() } },
      mcp,
      tools: ({ control, store }) => mcp.productTools(control, store),
      networkWorker: { moduleUrl: new URL("../../src/main.ts", import.meta.url).href },
      workerStartDelayMs: Number(values["worker-start-delay-ms"]),
    },
  );
  Deno.exit(code);
}
