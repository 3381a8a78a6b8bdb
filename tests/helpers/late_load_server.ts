/**
 * A server (runServer over stdio) whose network worker (tests/helpers/refusing_worker.ts) fails.
 * With `--refuse-at entry` its entry fails while the MCP layer is still loading: the MCP loader answers
 * only once the worker has announced that failure, then `--settle-ms` more (for its error event to
 * reach this thread). With `--refuse-at init` it fails when the server starts it, right after serving
 * begins (`workerStartDelayMs: 0`). Used by tests/serve_late_load_test.ts; never lingers.
 *
 *   deno run --unstable-worker-options --allow-read --allow-write --allow-env --allow-net=127.0.0.1 \
 *     tests/helpers/late_load_server.ts --db <path> --refuse-at entry|init [--settle-ms <ms>]
 */

import { parseArgs } from "node:util";
import { runServer } from "../../src/cli/serve.ts";
import { githubConfigFromEnv } from "../../src/cli/product_kinds.ts";
import * as mcp from "../../src/mcp/serving.ts";
import { REFUSING_CHANNEL } from "./refusing_worker.ts";

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { db: { type: "string" }, "refuse-at": { type: "string" }, "settle-ms": { type: "string" } },
  });
  const at = values["refuse-at"];
  if (at !== "entry" && at !== "init") throw new Error(`--refuse-at must be entry or init, current value is ${at}`);
  const settleMs = Number(values["settle-ms"] ?? "0");
  // Listening before the worker exists (runServer creates it before it calls the loader).
  const refused = new Promise<void>((resolve) => {
    const channel = new BroadcastChannel(REFUSING_CHANNEL);
    channel.onmessage = () => {
      channel.close();
      resolve();
    };
  });
  const worker = new URL("./refusing_worker.ts", import.meta.url);
  worker.searchParams.set("at", at);
  const code = await runServer(
    { db: values.db ?? ":memory:", http: false, listen: "127.0.0.1:0", readOnly: false, lingerMs: 0 },
    {
      kinds: { product: { github: githubConfigFromEnv() } },
      mcp: async () => {
        if (at === "entry") {
          await refused;
          await new Promise((resolve) => setTimeout(resolve, settleMs));
        }
        return mcp;
      },
      tools: ({ control, store }) => mcp.productTools(control, store),
      networkWorker: { moduleUrl: worker.href },
      workerStartDelayMs: 0,
    },
  );
  Deno.exit(code);
}
