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
