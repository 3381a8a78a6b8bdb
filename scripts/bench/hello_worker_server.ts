/**
 * The structural floor of the idle-RSS ratio (scripts/bench/mcp.ts): the hello server of
 * scripts/bench/hello_server.ts, unchanged, plus one idle Worker that runs nothing but a message
 * listener. It is started as longcall starts its network worker (a module worker from a `blob:`
 * URL, with an explicit permission set, here none), so the difference to the hello server is the
 * extra isolate the permission model needs, and nothing of longcall's code.
 *
 *   deno run <the flags of src/cli/permissions.ts> scripts/bench/hello_worker_server.ts
 *
 * @module
 */

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { helloServer } from "./hello_server.ts";

if (import.meta.main) {
  const code = URL.createObjectURL(
    new Blob(["self.onmessage = () => {};"], { type: "text/javascript" }),
  );
  const idle = new Worker(code, {
    type: "module",
    name: "idle",
    deno: { permissions: "none" },
  } as WorkerOptions);
  idle.postMessage("start");
  serveStdio(() => {
    const mcp = helloServer();
    // The worker would keep the process alive: it ends with the connection, as the hello server does.
    mcp.server.onclose = () => idle.terminate();
    return mcp;
  });
}
