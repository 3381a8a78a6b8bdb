/**
 * The like-for-like baseline of the idle-RSS ratio (scripts/bench/mcp.ts): the hello server of
 * scripts/bench/hello_server.ts, collecting its garbage once quiet exactly as longcall's isolates do
 * (src/base/idle_collect.ts, the same quiet time and growth threshold; every tool call is activity).
 * The ratio compares longcall with the plain hello server, which keeps the heap its calls
 * grew; this one shows how much of longcall's lead over that comes from the collection alone.
 *
 *   deno run <the flags of src/cli/permissions.ts> scripts/bench/hello_collect_server.ts
 *
 * @module
 */

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { idleCollection } from "../../src/base/idle_collect.ts";
import { silentLogger } from "../../src/base/log.ts";
import { helloServer } from "./hello_server.ts";

if (import.meta.main) {
  const idle = idleCollection(silentLogger);
  if (idle === null) throw new Error("hello_collect_server: run it with the launch line's --v8-flags (--expose-gc)");
  serveStdio(() => helloServer(() => idle.touch()));
}
