/**
 * src/mcp/advertised.ts: each advertised schema is converted to JSON Schema at most once per
 * target, lets every value through the SDK's validation, and answers from a precomputed set (keyed
 * exactly as scripts/tool_schemas.ts precomputes them, committed as src/mcp/tool_schemas.json),
 * which a server from source checks right after its first listing: a stale one is replaced and the
 * session told to list tools again.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/advertised_schemas_test.ts
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { toolSchemasFresh, toolSchemasText } from "../scripts/tool_schemas.ts";
import { bundleTo } from "../scripts/build.ts";
import {
  advertised,
  ADVERTISED_TARGET,
  type AdvertisedTool,
  precomputeToolSchemas,
  verifyAdvertised,
  warmAdvertised,
} from "../src/mcp/advertised.ts";
import { STALE_KEY, STALE_MARK } from "./helpers/schemas_server.ts";
import { InMemoryTransport, type JSONRPCMessage, type McpServer } from "@modelcontextprotocol/server";
import { ADVERTISED_RELIST_SERVERS_MAX } from "../src/base/limits.ts";
import { silentLogger } from "../src/base/log.ts";
import { openRuntime } from "../src/cli/runtime.ts";
import { createServerFactory } from "../src/mcp/server.ts";
import { LOCAL_READ } from "../src/mcp/tools.ts";
import { productTools, toolSchemas } from "../src/mcp/serving.ts";
import { recordingLogger } from "../testing/recording_logger.ts";
import { tempDir } from "../testing/temp.ts";

type Std = {
  validate(v: unknown): unknown;
  jsonSchema: { input(o: { target: string }): unknown; output(o: { target: string }): unknown };
};
const std = (s: z.ZodType) => s["~standard"] as unknown as Std;

Deno.test("advertised(): converts once per target, returns what zod converts, validates nothing", () => {
  const schema = z.object({ n: z.number().int().min(1) }).strict();
  let conversions = 0;
  const counted = Object.assign(Object.create(schema) as z.ZodType, {
    "~standard": {
      ...schema["~standard"],
      jsonSchema: {
        input: (o: { target: string }) => (conversions++, std(schema).jsonSchema.input(o)),
        output: (o: { target: string }) => (conversions++, std(schema).jsonSchema.output(o)),
      },
    },
  });
  const a = std(advertised(counted, "t", "input"));
  const first = a.jsonSchema.input({ target: ADVERTISED_TARGET });
  assert.deepEqual(first, std(schema).jsonSchema.input({ target: ADVERTISED_TARGET }));
  assert.equal(a.jsonSchema.input({ target: ADVERTISED_TARGET }), first, "the same conversion again");
  assert.equal(conversions, 1);
  a.jsonSchema.input({ target: "draft-07" });
  a.jsonSchema.output({ target: ADVERTISED_TARGET });
  assert.equal(conversions, 3, "another target or direction is converted on its own");
  assert.deepEqual(a.validate({ n: "not a number" }), { value: { n: "not a number" } }, "validated in the handler");
});

Deno.test("advertised(): a schema given as a builder is built on the first conversion only, never to validate", () => {
  const schema = z.object({ n: z.number() }).strict();
  let builds = 0;
  const a = std(advertised(() => (builds++, schema), "lazy", "output"));
  assert.equal(builds, 0, "wrapping builds nothing");
  assert.deepEqual(a.validate({ n: "x" }), { value: { n: "x" } });
  assert.equal(builds, 0, "validation builds nothing");
  assert.deepEqual(
    a.jsonSchema.output({ target: ADVERTISED_TARGET }),
    std(schema).jsonSchema.output({ target: ADVERTISED_TARGET }),
  );
  a.jsonSchema.output({ target: ADVERTISED_TARGET });
  a.jsonSchema.input({ target: "draft-07" });
  assert.equal(builds, 1, "built once, for every later conversion");
});

Deno.test("warmAdvertised() converts every tool's schemas, keyed as precomputeToolSchemas() keys them", () => {
  const tools = [
    { name: "a", inputSchema: advertised(z.object({ x: z.string() }), "a", "input"), outputSchema: undefined },
    {
      name: "b",
      inputSchema: advertised(z.object({}), "b", "input"),
      outputSchema: advertised(z.object({ y: z.number() }), "b", "output"),
    },
  ];
  const keys = Object.keys(precomputeToolSchemas(tools)).map((k) => k.split("\u0000").slice(0, 3).join("/"));
  assert.deepEqual(keys, ["a/input/input", "b/input/input", "b/output/output"]);
  warmAdvertised(tools); // converts without throwing; the memo then holds them (first test)
});

/** Tools a (input) and b (input, output built on demand), wrapped over `precomputed`. */
function sampleTools(precomputed?: Parameters<typeof advertised>[3]) {
  let builds = 0;
  const tools: AdvertisedTool[] = [
    {
      name: "a",
      inputSchema: advertised(z.object({ x: z.string() }), "a", "input", precomputed),
      outputSchema: undefined,
    },
    {
      name: "b",
      inputSchema: advertised(z.object({}), "b", "input", precomputed),
      outputSchema: advertised(() => (builds++, z.object({ y: z.number() })), "b", "output", precomputed),
    },
  ];
  return { tools, builds: () => builds };
}

const convertAll = (tools: readonly AdvertisedTool[]) =>
  tools.flatMap((t) => [
    std(t.inputSchema).jsonSchema.input({ target: ADVERTISED_TARGET }) as Record<string, unknown>,
    ...(t.outputSchema === undefined
      ? []
      : [std(t.outputSchema).jsonSchema.output({ target: ADVERTISED_TARGET }) as Record<string, unknown>]),
  ]);

Deno.test("advertised(): precomputed schemas answer without building or converting; verifyAdvertised() replaces what differs", () => {
  const fresh = precomputeToolSchemas(sampleTools().tools);
  const aKey = Object.keys(fresh).find((k) => k.startsWith("a\u0000")) as string;
  const schemas = { ...fresh, [aKey]: { ...fresh[aKey], "x-stale": true } };
  let uses = 0;
  const { tools, builds } = sampleTools({ schemas, onUse: () => uses++ });
  const first = convertAll(tools);
  assert.equal(first[0]?.["x-stale"], true, "a's stale precomputed schema is what is answered first");
  assert.deepEqual(first.slice(1), Object.values(fresh).slice(1));
  assert.equal(builds(), 0, "an output schema answered from the set is never built");
  assert.equal(uses, 3, "one use per key answered from the set");
  convertAll(tools);
  assert.equal(uses, 3, "answered from the memo afterwards");

  assert.deepEqual(verifyAdvertised(tools), ["a"], "only the schema that differs is reported");
  assert.equal(builds(), 1, "checking converts for real, building the output schema once");
  assert.deepEqual(convertAll(tools), Object.values(fresh), "the converted schema replaced the stale one");
  assert.deepEqual(verifyAdvertised(tools), [], "nothing is left to check");

  // A key the set does not hold is converted as usual, and is not a use.
  const other = std(
    advertised(z.object({ q: z.string() }), "not-precomputed", "input", { schemas, onUse: () => uses++ }),
  );
  assert.equal((other.jsonSchema.input({ target: ADVERTISED_TARGET }) as Record<string, unknown>).type, "object");
  assert.equal(uses, 3);
});

Deno.test("src/mcp/tool_schemas.json equals a fresh conversion of the product's tools (else run `deno task schemas`)", async () => {
  const { fresh } = await toolSchemasFresh();
  assert.ok(fresh, "src/mcp/tool_schemas.json is stale: run `deno task schemas`");
});

/** A stdio child of tests/helpers/schemas_server.ts spoken to in raw JSON-RPC lines. */
async function schemasServer(db: string, stale: boolean) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      new URL("./helpers/schemas_server.ts", import.meta.url).pathname,
      "--db",
      db,
      ...(stale ? ["--stale"] : []),
    ],
    env: { LONGCALL_LOG: "debug" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const messages: Record<string, unknown>[] = [];
  let stderr = "";
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  const pump = (async () => {
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        messages.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
        wake();
      }
    }
  })();
  const errPump = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr += chunk;
      wake();
    }
  })();
  const until = async (what: string, done: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`no ${what} within 10 s; stderr: ${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  const send = (m: Record<string, unknown>) => writer.write(new TextEncoder().encode(`${JSON.stringify(m)}\n`));
  const answer = async (id: number) => {
    await until(`answer ${id}`, () => messages.some((m) => m.id === id));
    return messages.find((m) => m.id === id) as { result: Record<string, unknown> };
  };
  const listTools = async (id: number) => {
    await send({ jsonrpc: "2.0", id, method: "tools/list", params: {} });
    return (await answer(id)).result.tools as { name: string; inputSchema: Record<string, unknown> }[];
  };
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "schemas-test", version: "0" } },
  });
  await answer(1);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    messages,
    stderr: () => stderr,
    until,
    send,
    answer,
    listTools,
    async close() {
      await writer.close();
      await child.status;
      await pump;
      await errPump;
    },
  };
}

const LIST_CHANGED = "notifications/tools/list_changed";
const jobsGetInput = (tools: { name: string; inputSchema: Record<string, unknown> }[]) =>
  tools.find((t) => t.name === "jobs.get")?.inputSchema;

Deno.test("serve from source: a stale precomputed schema is answered once, then replaced, and the session is told tools/list_changed", async () => {
  await using dir = await tempDir("longcall-stale-schemas-");
  const server = await schemasServer(dir.file("x.db"), true);
  try {
    const first = await server.listTools(2);
    assert.equal(jobsGetInput(first)?.[STALE_MARK], true, "the first listing answers from the precomputed set");
    await server.until("tools/list_changed", () => server.messages.some((m) => m.method === LIST_CHANGED));
    assert.match(server.stderr(), /tool_schemas\.json is stale \(run `deno task schemas`\)/);
    assert.match(server.stderr(), /"tools":\["jobs\.get"\]/);
    const second = await server.listTools(3);
    assert.equal(jobsGetInput(second)?.[STALE_MARK], undefined, "the listing after the notice is the converted one");
    const { [STALE_MARK]: _mark, ...converted } = jobsGetInput(first) as Record<string, unknown>;
    assert.deepEqual(jobsGetInput(second), converted, "which is the committed schema without the edit");
    assert.equal(server.messages.filter((m) => m.method === LIST_CHANGED).length, 1, "told once");
  } finally {
    await server.close();
  }
});

Deno.test("serve from source: fresh precomputed schemas are checked after the first listing and nobody is told anything", async () => {
  await using dir = await tempDir("longcall-fresh-schemas-");
  const server = await schemasServer(dir.file("x.db"), false);
  try {
    assert.deepEqual(
      Object.keys(jobsGetInput(await server.listTools(2)) ?? {}).includes(STALE_MARK),
      false,
    );
    await server.until("the check's log line", () => /tool schemas equal their conversion/.test(server.stderr()));
    await server.send({ jsonrpc: "2.0", id: 3, method: "ping" });
    await server.answer(3);
    assert.deepEqual(server.messages.filter((m) => m.method === LIST_CHANGED), [], "no tools/list_changed");
    assert.doesNotMatch(server.stderr(), /is stale/);
  } finally {
    await server.close();
  }
});

Deno.test("a stale or missing schemas file is reported by toolSchemasFresh(), and bundleTo() refuses it", async () => {
  await using dir = await tempDir("longcall-schemas-file-");
  const { text } = await toolSchemasFresh();
  await Deno.writeTextFile(dir.file("fresh.json"), text);
  assert.equal((await toolSchemasFresh(dir.file("fresh.json"))).fresh, true);
  const stale = JSON.parse(text) as Record<string, Record<string, unknown>>;
  stale[STALE_KEY] = { ...stale[STALE_KEY], [STALE_MARK]: true };
  await Deno.writeTextFile(dir.file("stale.json"), toolSchemasText(stale));
  assert.equal((await toolSchemasFresh(dir.file("stale.json"))).fresh, false);
  assert.equal((await toolSchemasFresh(dir.file("missing.json"))).fresh, false);
  await assert.rejects(
    bundleTo(dir.file("longcall.js"), { schemasFile: dir.file("stale.json") }),
    /Cannot bundle: .*stale\.json is stale \(a tool's schema changed\); run `deno task schemas`/,
  );
  await assert.rejects(Deno.stat(dir.file("longcall.js")), Deno.errors.NotFound, "nothing was bundled");
});

/** A factory over the product's tools whose precomputed jobs.get input schema is stale, and what it warns. */
function staleFactory() {
  const runtime = openRuntime({
    db: ":memory:",
    kinds: { product: { github: { baseUrl: "http://127.0.0.1:1" } } },
    log: silentLogger,
    execution: "none",
  });
  const warnings: string[] = [];
  const committed = toolSchemas;
  const factory = createServerFactory({
    control: runtime.control,
    tools: productTools(runtime.control, runtime.store),
    log: recordingLogger(warnings),
    toolSchemas: { ...committed, [STALE_KEY]: { ...committed[STALE_KEY], [STALE_MARK]: true } },
  });
  return { runtime, factory, warnings };
}

/** `count` legacy instances of `factory`, each connected to the SDK's in-memory transport; what each receives. */
async function connectedInstances(factory: ReturnType<typeof createServerFactory>, count: number) {
  const received: JSONRPCMessage[][] = [];
  const clients: InMemoryTransport[] = [];
  for (let i = 0; i < count; i++) {
    const [client, server] = InMemoryTransport.createLinkedPair();
    const inbox: JSONRPCMessage[] = [];
    client.onmessage = (m) => void inbox.push(m);
    await client.start();
    await (await factory({ era: "legacy" } as Parameters<typeof factory>[0]) as McpServer).connect(server);
    received.push(inbox);
    clients.push(client);
  }
  return { received, clients };
}

async function listOn(client: InMemoryTransport, inbox: JSONRPCMessage[]) {
  await client.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
  });
  await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await client.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
  while (!inbox.some((m) => "id" in m && m.id === 2)) await new Promise((resolve) => setTimeout(resolve, 5));
}

for (const count of [ADVERTISED_RELIST_SERVERS_MAX, ADVERTISED_RELIST_SERVERS_MAX + 1]) {
  Deno.test(`a stale precomputed schema reaches the newest ${ADVERTISED_RELIST_SERVERS_MAX} of ${count} instances built before the check`, async () => {
    const { runtime, factory, warnings } = staleFactory();
    const { received, clients } = await connectedInstances(factory, count);
    try {
      const last = clients.length - 1;
      await listOn(clients[last]!, received[last]!);
      const told = () => received.map((inbox) => inbox.some((m) => "method" in m && m.method === LIST_CHANGED));
      while (told().filter(Boolean).length < ADVERTISED_RELIST_SERVERS_MAX) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.deepEqual(
        told(),
        received.map((_, i) => i >= count - ADVERTISED_RELIST_SERVERS_MAX),
        "the oldest beyond the bound is not kept",
      );
      assert.equal(warnings.filter((w) => /tool_schemas\.json is stale/.test(w)).length, 1);
    } finally {
      for (const c of clients) await c.close();
      await runtime.close();
    }
  });
}

Deno.test("a precomputed schema that cannot be converted to check it stays advertised, and the failure is logged", async () => {
  const runtime = openRuntime({
    db: ":memory:",
    kinds: { product: { github: { baseUrl: "http://127.0.0.1:1" } } },
    log: silentLogger,
    execution: "none",
  });
  const errors: string[] = [];
  const log = { ...silentLogger, error: (message: string) => void errors.push(message) };
  const key = `broken\u0000output\u0000output\u0000${JSON.stringify({ target: ADVERTISED_TARGET })}`;
  const factory = createServerFactory({
    control: runtime.control,
    tools: [{
      name: "broken",
      description: "A tool whose output schema cannot be built",
      inputSchema: z.object({}),
      outputSchema: () => {
        throw new Error("cannot build this schema");
      },
      annotations: { title: "Broken", ...LOCAL_READ },
      call: () => Promise.resolve({ content: [] }),
    }],
    log,
    toolSchemas: { [key]: { type: "object", "x-precomputed": true } },
  });
  const { received, clients } = await connectedInstances(factory, 1);
  try {
    await listOn(clients[0]!, received[0]!);
    const answer = received[0]!.find((m) => "id" in m && m.id === 2) as unknown as {
      result: { tools: { outputSchema: unknown }[] };
    };
    assert.deepEqual(answer.result.tools[0]?.outputSchema, { type: "object", "x-precomputed": true });
    while (errors.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.match(errors[0] ?? "", /could not check the precomputed tool schemas; they stay advertised/);
    assert.equal(received[0]!.some((m) => "method" in m && m.method === LIST_CHANGED), false);
  } finally {
    await clients[0]!.close();
    await runtime.close();
  }
});
