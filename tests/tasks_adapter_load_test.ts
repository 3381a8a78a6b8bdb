/**
 * The Tasks extension's adapter is loaded by a server's first modern connection, never by a legacy one
 * (`ServerDeps.tasks`, src/mcp/server.ts): the 2025 generation has no Tasks extension. From source the
 * loader is a dynamic import (src/main.ts) that runs after the serving thread has narrowed its permissions;
 * tests/inspector_test.ts drives that path (a modern host against the shipped server, from source, with the shipped
 * flags).
 */

import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/server";
import { silentLogger } from "../src/base/log.ts";
import { openRuntime } from "../src/cli/runtime.ts";
import { createServerFactory, type TasksAdapterModule } from "../src/mcp/server.ts";
import { jobsTools } from "../src/mcp/tools.ts";
import { tasksAdapter } from "../testing/tasks_adapter.ts";
import { ADAPTER_LOAD_ERROR } from "../testing/test_server.ts";
import { tempDir } from "../testing/temp.ts";
import { RawStdioServer, stdioServer } from "./helpers/longcall_procs.ts";

type Factory = ReturnType<typeof createServerFactory>;
const ctx = (era: "legacy" | "modern") => ({ era }) as Parameters<Factory>[0];

function factoryWith(tasks: () => Promise<TasksAdapterModule>) {
  const runtime = openRuntime({
    db: ":memory:",
    kinds: { product: { github: { baseUrl: "http://127.0.0.1:1" } } },
    log: silentLogger,
    execution: "none",
  });
  const factory = createServerFactory({
    control: runtime.control,
    tools: jobsTools(runtime.control),
    log: silentLogger,
    tasks,
  });
  return { runtime, factory };
}

Deno.test("createServerFactory(): a legacy instance never loads the Tasks adapter; modern instances load it once", async () => {
  let loads = 0;
  const { runtime, factory } = factoryWith(() => (loads++, tasksAdapter()));
  try {
    const legacy = factory(ctx("legacy"));
    assert.ok(legacy instanceof McpServer, "a legacy instance is built at once, not after a load");
    assert.equal(loads, 0);
    const first = factory(ctx("modern"));
    assert.ok(first instanceof Promise, "a modern instance waits for the adapter");
    assert.ok(await first instanceof McpServer);
    assert.ok(await factory(ctx("modern")) instanceof McpServer);
    factory(ctx("legacy"));
    assert.equal(loads, 1, "loaded once, by the first modern instance");
  } finally {
    await runtime.close();
  }
});

Deno.test("createServerFactory(): an adapter that cannot load fails each modern instance with its error; legacy ones still serve", async () => {
  const failure = new Error("Module not found: adapter.ts");
  const { runtime, factory } = factoryWith(() => Promise.reject(failure));
  try {
    await assert.rejects(Promise.resolve(factory(ctx("modern"))), (err) => err === failure);
    await assert.rejects(Promise.resolve(factory(ctx("modern"))), (err) => err === failure);
    assert.ok(factory(ctx("legacy")) instanceof McpServer);
  } finally {
    await runtime.close();
  }
});

Deno.test("a server whose Tasks adapter cannot load answers modern requests with an error and logs why; legacy sessions are served", async () => {
  await using dir = await tempDir();
  await using server = new RawStdioServer(
    stdioServer(dir.path, dir.file("jobs.db"), {
      flags: ["--product", "--tasks-unloadable"],
      env: {
        LONGCALL_GITHUB_API_URL: "http://127.0.0.1:1",
        LONGCALL_LOG: "warn",
      },
    }),
  );
  // Each modern request gets an answer (no hang): the SDK's internal error, since the factory rejected.
  for (const method of ["tools/list", "server/discover"]) {
    const modern = await server.modern(method);
    assert.ok("error" in modern, `${method}: ${JSON.stringify(modern)}`);
    assert.equal((modern["error"] as { code: number }).code, -32603);
  }
  // The operator's log names the cause.
  assert.ok(server.stderr().includes(ADAPTER_LOAD_ERROR), server.stderr());
  // The 2025 generation has no Tasks extension and never loads the adapter: it is served in full.
  const init = await server.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "legacy-host", version: "1.0.0" },
  });
  assert.equal(((init["result"] as Record<string, unknown>)["serverInfo"] as { name: string }).name, "longcall");
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const tools = await server.request("tools/list");
  assert.ok((tools["result"] as { tools: unknown[] }).tools.length >= 1, JSON.stringify(tools));
});
