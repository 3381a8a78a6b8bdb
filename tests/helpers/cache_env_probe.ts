/**
 * Connects the official v2 client (legacy era) over stdio to the shipped server, run with `--cached-only`, and
 * prints how many tools it lists. tests/mcp_clients_test.ts runs it in an environment whose HOME holds no Deno
 * cache and whose DENO_DIR points at the real one: the server finds its modules only if the client helpers pass
 * DENO_DIR on (the SDK's transports give a child only HOME, LOGNAME, PATH, SHELL, TERM and USER).
 *
 *   deno run --cached-only --allow-read --allow-write=DIR --allow-env --allow-run=DENO tests/helpers/cache_env_probe.ts DIR/jobs.db
 */
import { connectV2, denoExecPath } from "../../testing/mcp_clients.ts";
import { shippedServeArgs } from "./longcall_procs.ts";

const db = Deno.args[0];
if (db === undefined) throw new Error("usage: cache_env_probe.ts DB");
const [run, ...rest] = shippedServeArgs("127.0.0.1:1", db, { timeRate: 1 });
const args = [run as string, "--cached-only", ...rest];
const env = { LONGCALL_GITHUB_API_URL: "http://127.0.0.1:1", LONGCALL_LOG: "error" };
await using conn = await connectV2({ command: denoExecPath(), args, env, stderr: "inherit" }, {
  era: "legacy",
  connectTimeoutMs: 30_000,
});
const { tools } = await conn.client.listTools();
console.log(JSON.stringify({ tools: tools.length }));
