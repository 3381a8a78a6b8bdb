/**
 * A server (runServer over stdio) whose network worker fails to start while its MCP layer is still
 * loading: the MCP loader waits `--load-ms` before it answers, the worker (tests/helpers/refusing_worker.ts)
 * fails at once. Used by tests/serve_late_load_test.ts; never lingers.
 *
 *   deno run --unstable-worker-options --allow-read --allow-write --allow-env --allow-net=127.0.0.1 \
 *     tests/helpers/late_load_server.ts --db <path> --load-ms <ms>
 */

import { parseArgs } from "node:util";
import { runServer } from "../../src/cli/serve.ts";
import { githubConfigFromEnv } from "../../src/cli/product_kinds.ts";
import * as mcp from "../../src/mcp/serving.ts";

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { db: { type: "string" }, "load-ms": { type: "string" } } });
  const loadMs = Number(values["load-ms"] ?? "0");
  const code = await runServer(
    { db: values.db ?? ":memory:", http: false, listen: "127.0.0.1:0", readOnly: false, lingerMs: 0 },
    {
      kinds: { product: { github: githubConfigFromEnv() } },
      mcp: async () => {
        await new Promise((resolve) => setTimeout(resolve, loadMs));
        return mcp;
      },
      tools: ({ control, store }) => mcp.productTools(control, store),
      networkWorker: { moduleUrl: new URL("./refusing_worker.ts", import.meta.url).href },
    },
  );
  Deno.exit(code);
}
