/**
 * A server (runServer over stdio) whose network worker fails. With `--refuse-at entry` its entry throws
 * while the MCP layer is still loading: the MCP loader answers only once the worker has announced that
 * failure, then `--settle-ms` more (for its error event to reach this thread). With `--refuse-at init` it
 * enters and throws on its first message, the `init` that starts it once the server serves. The worker is
 * tests/helpers/refusing_worker.ts, or with `--from-memory` a throwing script embedded as the bundle embeds
 * its worker (started from a `blob:` URL; it refuses at its entry, without announcing it). Used by
 * tests/serve_late_load_test.ts; never lingers.
 *
 *   deno run --unstable-worker-options --allow-read --allow-write --allow-env --allow-net=127.0.0.1 \
 *     tests/helpers/late_load_server.ts --db <path> (--refuse-at entry|init [--settle-ms <ms>] | --from-memory)
 */

import { parseArgs } from "node:util";
import { runServer } from "../../src/cli/serve.ts";
import { githubConfigFromEnv } from "../../src/cli/product_kinds.ts";
import { embedWorkerScript } from "../../src/cli/worker_script.ts";
import * as mcp from "../../src/mcp/serving.ts";
import { tasksAdapter } from "../../testing/tasks_adapter.ts";
import { REFUSING_CHANNEL } from "./refusing_worker.ts";

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      db: { type: "string" },
      "refuse-at": { type: "string" },
      "settle-ms": { type: "string" },
      "from-memory": { type: "boolean" },
    },
  });
  const fromMemory = values["from-memory"] === true;
  const at = values["refuse-at"];
  if (!fromMemory && at !== "entry" && at !== "init" && at !== "later") {
    throw new Error(`--refuse-at must be entry, init or later, current value is ${at}`);
  }
  if (fromMemory) embedWorkerScript('throw new Error("this embedded worker refuses to start");');
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
  if (at !== undefined) worker.searchParams.set("at", at);
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
      tasks: tasksAdapter,
      networkWorker: { moduleUrl: worker.href },
    },
  );
  Deno.exit(code);
}
