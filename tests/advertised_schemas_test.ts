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
import { assertToolSchemasFresh, bundleTo } from "../scripts/build.ts";
import {
  advertised,
  ADVERTISED_TARGET,
  type AdvertisedOptions,
  type AdvertisedTool,
  precomputeToolSchemas,
  schemaKey,
  toolSchemasTrusted,
  trustToolSchemas,
  verifyAdvertised,
  warmAdvertised,
} from "../src/mcp/advertised.ts";
import { STALE_KEY, STALE_MARK, staleSchemas } from "./helpers/schemas_server.ts";
import { InMemoryTransport, type JSONRPCMessage, type McpServer } from "@modelcontextprotocol/server";
import {
  ADVERTISED_CHECK_DELAY_MS,
  ADVERTISED_RELIST_SERVERS_MAX,
  SEARCH_CURSOR_CHARS_MAX,
} from "../src/base/limits.ts";
import { type Logger, silentLogger } from "../src/base/log.ts";
import { openRuntime } from "../src/cli/runtime.ts";
import { advertiseTools, createServerFactory } from "../src/mcp/server.ts";
import { LOCAL_READ } from "../src/mcp/tools.ts";
import { productTools, toolSchemas } from "../src/mcp/serving.ts";
import { recordingLogger } from "../testing/recording_logger.ts";
import { tempDir, waitFor } from "../testing/temp.ts";
import { tasksAdapter } from "../testing/tasks_adapter.ts";
import { RawStdioServer } from "./helpers/longcall_procs.ts";
import { connectLegacyV1, denoExecPath, type StdioTarget } from "../testing/mcp_clients.ts";

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
  const a = std(advertised(counted, { tool: "t", slot: "input" }));
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
  const a = std(advertised(() => (builds++, schema), { tool: "lazy", slot: "output" }));
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
    {
      name: "a",
      inputSchema: advertised(z.object({ x: z.string() }), { tool: "a", slot: "input" }),
      outputSchema: undefined,
    },
    {
      name: "b",
      inputSchema: advertised(z.object({}), { tool: "b", slot: "input" }),
      outputSchema: advertised(z.object({ y: z.number() }), { tool: "b", slot: "output" }),
    },
  ];
  const options = { target: ADVERTISED_TARGET };
  assert.deepEqual(Object.keys(precomputeToolSchemas(tools)), [
    schemaKey({ tool: "a", slot: "input", io: "input" }, options),
    schemaKey({ tool: "b", slot: "input", io: "input" }, options),
    schemaKey({ tool: "b", slot: "output", io: "output" }, options),
  ]);
  assert.equal(
    schemaKey({ tool: "a", slot: "input", io: "input" }, options),
    'a\u0000input\u0000input\u0000{"target":"draft-2020-12"}',
  );
  warmAdvertised(tools); // converts without throwing; the memo then holds them (first test)
});

/** Tools a (input) and b (input, output built on demand), wrapped over `precomputed`. */
function sampleTools(precomputed?: AdvertisedOptions["precomputed"]) {
  let builds = 0;
  const tools: AdvertisedTool[] = [
    {
      name: "a",
      inputSchema: advertised(z.object({ x: z.string() }), { tool: "a", slot: "input", precomputed }),
      outputSchema: undefined,
    },
    {
      name: "b",
      inputSchema: advertised(z.object({}), { tool: "b", slot: "input", precomputed }),
      outputSchema: advertised(() => (builds++, z.object({ y: z.number() })), {
        tool: "b",
        slot: "output",
        precomputed,
      }),
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
  const aKey = schemaKey({ tool: "a", slot: "input", io: "input" }, { target: ADVERTISED_TARGET });
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

  assert.deepEqual(verifyAdvertised(tools), { stale: ["a"], failed: [] }, "only the schema that differs is reported");
  assert.equal(builds(), 1, "checking converts for real, building the output schema once");
  assert.deepEqual(convertAll(tools), Object.values(fresh), "the converted schema replaced the stale one");
  assert.deepEqual(verifyAdvertised(tools), { stale: [], failed: [] }, "nothing is left to check");

  // A key the set does not hold is converted as usual, and is not a use.
  const other = std(
    advertised(z.object({ q: z.string() }), {
      tool: "not-precomputed",
      slot: "input",
      precomputed: { schemas, onUse: () => uses++ },
    }),
  );
  assert.equal((other.jsonSchema.input({ target: ADVERTISED_TARGET }) as Record<string, unknown>).type, "object");
  assert.equal(uses, 3);
});

Deno.test("src/mcp/tool_schemas.json equals a fresh conversion of the product's tools (else run `deno task schemas`)", async () => {
  const { fresh } = await toolSchemasFresh();
  assert.ok(fresh, "src/mcp/tool_schemas.json is stale: run `deno task schemas`");
});

/**
 * tests/helpers/schemas_server.ts on `db` as a stdio target, its precomputed set stale or not (`settings.stale`),
 * logging at `settings.logLevel`.
 */
function schemasServerTarget(db: string, settings: { stale: boolean; logLevel: string }): StdioTarget {
  const { stale, logLevel } = settings;
  return {
    command: denoExecPath(),
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
    env: { LONGCALL_LOG: logLevel },
  };
}

/** A stdio child of tests/helpers/schemas_server.ts (debug logging), initialized over raw JSON-RPC lines. */
async function schemasServer(db: string, stale: boolean): Promise<RawStdioServer> {
  const server = new RawStdioServer(schemasServerTarget(db, { stale, logLevel: "debug" }));
  await server.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "schemas-test", version: "0" },
  });
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return server;
}

type Listed = { name: string; inputSchema: Record<string, unknown> }[];
const listTools = async (server: RawStdioServer) =>
  ((await server.request("tools/list")).result as { tools: Listed }).tools;
const LIST_CHANGED = "notifications/tools/list_changed";
const jobsGetInput = (tools: Listed) => tools.find((t) => t.name === "jobs.get")?.inputSchema;

Deno.test("serve from source: a stale precomputed schema is answered once, then replaced, and the session is told tools/list_changed", async () => {
  await using dir = await tempDir("longcall-stale-schemas-");
  const server = await schemasServer(dir.file("x.db"), true);
  try {
    const listed = performance.now();
    const first = await listTools(server);
    assert.equal(jobsGetInput(first)?.[STALE_MARK], true, "the first listing answers from the precomputed set");
    await server.waitFor("tools/list_changed", (m) => m.method === LIST_CHANGED);
    // The check's timer was set once the server had read the listing, so after `listed` (the same machine's clock).
    const after = performance.now() - listed;
    assert.ok(after >= ADVERTISED_CHECK_DELAY_MS, `told ${after.toFixed(0)} ms after the listing was asked for`);
    const second = await listTools(server);
    assert.equal(jobsGetInput(second)?.[STALE_MARK], undefined, "the listing after the notice is the converted one");
    const { [STALE_MARK]: _mark, ...converted } = jobsGetInput(first) as Record<string, unknown>;
    assert.deepEqual(jobsGetInput(second), converted, "which is the committed schema without the edit");
  } finally {
    await server.endStdin();
    await server.exited();
  }
  assert.equal(server.messages.filter((m) => m.method === LIST_CHANGED).length, 1, "told once");
  assert.match(server.stderr(), /tool_schemas\.json is stale \(run `deno task schemas`\)/);
  assert.match(server.stderr(), /"tools":\["jobs\.get"\],"sessions":1/);
});

Deno.test("serve from source: fresh precomputed schemas are checked after the first listing and nobody is told anything", async () => {
  await using dir = await tempDir("longcall-fresh-schemas-");
  const server = await schemasServer(dir.file("x.db"), false);
  try {
    assert.equal(Object.keys(jobsGetInput(await listTools(server)) ?? {}).includes(STALE_MARK), false);
    await waitFor(
      "the check's debug line",
      () => /the precomputed tool schemas equal their conversion/.test(server.stderr()),
    );
  } finally {
    await server.endStdin();
    await server.exited();
  }
  assert.match(server.stderr(), /the precomputed tool schemas equal their conversion/);
  assert.deepEqual(server.messages.filter((m) => m.method === LIST_CHANGED), [], "no tools/list_changed");
  assert.doesNotMatch(server.stderr(), /is stale/);
});

Deno.test("a stale or missing schemas file is reported by toolSchemasFresh(), and bundleTo() refuses it", async () => {
  await using dir = await tempDir("longcall-schemas-file-");
  const { text } = await toolSchemasFresh();
  await Deno.writeTextFile(dir.file("fresh.json"), text);
  assert.equal((await toolSchemasFresh(dir.file("fresh.json"))).fresh, true);
  const stale = staleSchemas(JSON.parse(text));
  await Deno.writeTextFile(dir.file("stale.json"), toolSchemasText(stale));
  assert.equal((await toolSchemasFresh(dir.file("stale.json"))).fresh, false);
  assert.equal((await toolSchemasFresh(dir.file("missing.json"))).fresh, false);
  await assert.rejects(
    bundleTo(dir.file("longcall.js"), { schemasFile: dir.file("stale.json") }),
    /Cannot bundle: .*stale\.json is stale or missing \(a tool's schema changed\); run `deno task schemas`/,
  );
  await assert.rejects(Deno.stat(dir.file("longcall.js")), Deno.errors.NotFound, "nothing was bundled");
  // `deno task compile` runs the same refusal first (its binaries trust the file too).
  await assert.rejects(
    assertToolSchemasFresh("compile", dir.file("missing.json")),
    /Cannot compile: .*missing\.json is stale or missing/,
  );
  await assertToolSchemasFresh("compile", dir.file("fresh.json"));
});

/**
 * A factory over the product's tools whose precomputed jobs.get input schema is stale, and what it warns
 * (to `log` when given).
 */
function staleFactory(log?: Logger) {
  const runtime = controlRuntime();
  const warnings: string[] = [];
  const committed = toolSchemas;
  const factory = createServerFactory({
    tasks: tasksAdapter,
    control: runtime.control,
    tools: productTools(runtime.control, runtime.store),
    log: log ?? recordingLogger(warnings),
    toolSchemas: { ...committed, [STALE_KEY]: { ...committed[STALE_KEY], [STALE_MARK]: true } },
    schemaCheckDelayMs: 0,
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
  await waitFor("the tools/list answer", () => inbox.some((m) => "id" in m && m.id === 2));
}

/** A runtime that only admits (the product's policies, no execution): a factory's control side. */
function controlRuntime() {
  return openRuntime({
    db: ":memory:",
    kinds: { product: { github: { baseUrl: "http://127.0.0.1:1" } } },
    log: silentLogger,
    execution: "none",
  });
}

for (const count of [ADVERTISED_RELIST_SERVERS_MAX, ADVERTISED_RELIST_SERVERS_MAX + 1]) {
  Deno.test(`a stale precomputed schema reaches the newest ${ADVERTISED_RELIST_SERVERS_MAX} of ${count} instances built before the check`, async () => {
    const { runtime, factory, warnings } = staleFactory();
    const { received, clients } = await connectedInstances(factory, count);
    try {
      const last = clients.length - 1;
      await listOn(clients[last]!, received[last]!);
      const told = () => received.map((inbox) => inbox.some((m) => "method" in m && m.method === LIST_CHANGED));
      await waitFor("the notices", () => told().filter(Boolean).length >= ADVERTISED_RELIST_SERVERS_MAX);
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

Deno.test("a tools/list_changed that cannot be sent is logged as a warning, and the other sessions are still told", async () => {
  const unsent: Array<Record<string, unknown> | undefined> = [];
  const warnings: string[] = [];
  const log: Logger = {
    ...silentLogger,
    warn: (message, fields) => {
      warnings.push(message);
      if (message === "could not send tools/list_changed") unsent.push(fields);
    },
    child: () => log,
  };
  const { runtime, factory } = staleFactory(log);
  // The first session's client cannot take the notice: its message handler throws, so the SDK's in-memory
  // transport's send (which delivers synchronously) rejects while the instance is still connected.
  const [refusing, refusingServer] = InMemoryTransport.createLinkedPair();
  refusing.onmessage = (m) => {
    if ("method" in m && m.method === LIST_CHANGED) throw new Error("this client cannot take the notice");
  };
  await refusing.start();
  const refusingInstance = await factory({ era: "legacy" } as Parameters<typeof factory>[0]) as McpServer;
  await refusingInstance.connect(refusingServer);
  const { received, clients } = await connectedInstances(factory, 1);
  try {
    await listOn(clients[0]!, received[0]!);
    await waitFor("could-not-send warning", () => unsent.length > 0);
    assert.equal(unsent.length, 1, "one session's notice failed");
    assert.match(String(unsent[0]?.error), /this client cannot take the notice/);
    assert.ok(refusingInstance.isConnected(), "it failed while the instance was connected");
    assert.ok(received[0]!.some((m) => "method" in m && m.method === LIST_CHANGED), "the other session was told");
    assert.equal(warnings.filter((w) => /tool_schemas\.json is stale/.test(w)).length, 1);
  } finally {
    await refusing.close();
    for (const c of clients) await c.close();
    await runtime.close();
  }
});

/** A tool of `name` whose output schema is `output` (built on demand, as the product's are). */
function sampleTool(name: string, output: () => z.ZodType) {
  return {
    name,
    description: `The ${name} tool`,
    inputSchema: z.object({}),
    outputSchema: output,
    annotations: { title: name, ...LOCAL_READ },
    call: () => Promise.resolve({ content: [] }),
  };
}

Deno.test("the check goes on past a schema that cannot be converted: the stale one before it is replaced and told, the failure logged", async () => {
  const runtime = controlRuntime();
  const errors: { message: string; fields: unknown }[] = [];
  const warnings: string[] = [];
  const log = {
    ...silentLogger,
    warn: (message: string) => void warnings.push(message),
    error: (message: string, fields?: unknown) => void errors.push({ message, fields }),
  };
  const options = { target: ADVERTISED_TARGET };
  const factory = createServerFactory({
    tasks: tasksAdapter,
    control: runtime.control,
    tools: [
      sampleTool("stale", () => z.object({ n: z.number() })),
      sampleTool("broken", () => {
        throw new Error("cannot build this schema");
      }),
    ],
    log,
    toolSchemas: {
      [schemaKey({ tool: "stale", slot: "output", io: "output" }, options)]: { type: "object", "x-precomputed": true },
      [schemaKey({ tool: "broken", slot: "output", io: "output" }, options)]: { type: "object", "x-precomputed": true },
    },
    schemaCheckDelayMs: 0,
  });
  const { received, clients } = await connectedInstances(factory, 1);
  try {
    await listOn(clients[0]!, received[0]!);
    const outputs = () =>
      (received[0]!.filter((m) => "id" in m && m.id === 2).at(-1) as unknown as {
        result: { tools: { name: string; outputSchema: Record<string, unknown> }[] };
      }).result.tools.map((t) => [t.name, t.outputSchema["x-precomputed"] ?? false]);
    assert.deepEqual(outputs(), [["stale", true], ["broken", true]], "the first listing answers from the set");
    await waitFor("tools/list_changed", () => received[0]!.some((m) => "method" in m && m.method === LIST_CHANGED));
    assert.deepEqual(errors.map((e) => e.message), [
      "could not convert these tools' schemas to check them; they stay as precomputed",
    ]);
    assert.match(JSON.stringify(errors[0]?.fields), /"tool":"broken".*cannot build this schema/);
    assert.match(warnings[0] ?? "", /tool_schemas\.json is stale/);
    await clients[0]!.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    await waitFor("the second listing", () => received[0]!.filter((m) => "id" in m && m.id === 2).length >= 2);
    assert.deepEqual(outputs(), [["stale", false], ["broken", true]], "the stale one replaced, the broken one kept");
  } finally {
    await clients[0]!.close();
    await runtime.close();
  }
});

Deno.test(`schemaCheckDelayMs is taken from 0 to ${ADVERTISED_CHECK_DELAY_MS} and refused past either end`, async () => {
  const runtime = controlRuntime();
  try {
    const make = (schemaCheckDelayMs: number) =>
      createServerFactory({
        tasks: tasksAdapter,
        control: runtime.control,
        tools: [sampleTool("t", () => z.object({ n: z.number() }))],
        log: silentLogger,
        schemaCheckDelayMs,
      });
    for (const ok of [0, ADVERTISED_CHECK_DELAY_MS]) assert.equal(typeof make(ok), "function", `${ok} is taken`);
    for (const bad of [-1, ADVERTISED_CHECK_DELAY_MS + 1, 0.5, NaN]) {
      assert.throws(
        () => make(bad),
        new RangeError(
          `Cannot create the server factory: schemaCheckDelayMs must be an integer from 0 to ${ADVERTISED_CHECK_DELAY_MS}, ` +
            `current value is ${bad}`,
        ),
      );
    }
  } finally {
    await runtime.close();
  }
});

Deno.test("a trusted set is never checked: a stale schema in it stays, and nobody is told (as the bundle trusts its set)", async () => {
  const runtime = controlRuntime();
  const warnings: string[] = [];
  const debug: string[] = [];
  let builds = 0;
  const options = { target: ADVERTISED_TARGET };
  const set = {
    [schemaKey({ tool: "t", slot: "output", io: "output" }, options)]: { type: "object", "x-precomputed": true },
  };
  assert.equal(toolSchemasTrusted(set), false);
  trustToolSchemas(set);
  assert.equal(toolSchemasTrusted(set), true);
  assert.equal(toolSchemasTrusted({ ...set }), false, "trust is given to that very set, not to its contents");
  const factory = createServerFactory({
    tasks: tasksAdapter,
    control: runtime.control,
    tools: [sampleTool("t", () => (builds++, z.object({ n: z.number() })))],
    log: {
      ...recordingLogger(warnings),
      debug: (message: string) => void debug.push(message),
    },
    toolSchemas: set,
  });
  const { received, clients } = await connectedInstances(factory, 1);
  try {
    await listOn(clients[0]!, received[0]!);
    // A check is scheduled, and logged, while the listing is answered: none was.
    assert.deepEqual(debug, [], "no check scheduled");
    assert.equal(builds, 0, "the output schema was never built");
    assert.deepEqual(warnings, []);
    assert.equal(received[0]!.some((m) => "method" in m && m.method === LIST_CHANGED), false);
  } finally {
    await clients[0]!.close();
    await runtime.close();
  }
});

Deno.test("deno task schemas --check exits 1 on a stale file and 0 on a fresh one, writing nothing", async () => {
  await using dir = await tempDir("longcall-schemas-check-");
  const { text } = await toolSchemasFresh();
  const stale = staleSchemas(JSON.parse(text));
  await Deno.writeTextFile(dir.file("stale.json"), toolSchemasText(stale));
  await Deno.writeTextFile(dir.file("fresh.json"), text);
  const script = new URL("../scripts/tool_schemas.ts", import.meta.url).pathname;
  for (
    const [file, code, said] of [["stale.json", 1, /is stale: run `deno task schemas`/], [
      "fresh.json",
      0,
      /up to date/,
    ]] as const
  ) {
    const out = await new Deno.Command(denoExecPath(), {
      args: ["run", "--no-prompt", "--allow-read", script, "--check", "--file", dir.file(file)],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, code, new TextDecoder().decode(out.stderr));
    assert.match(new TextDecoder().decode(out.stderr), said);
    assert.equal(new TextDecoder().decode(out.stdout), "", "nothing on stdout");
  }
  assert.equal(await Deno.readTextFile(dir.file("stale.json")), toolSchemasText(stale), "--check writes nothing");
});

Deno.test("deno task schemas rewrites a stale file to a fresh conversion, and leaves a fresh one as it is", async () => {
  await using dir = await tempDir("longcall-schemas-write-");
  const { text } = await toolSchemasFresh();
  const stale = staleSchemas(JSON.parse(text));
  const file = dir.file("tool_schemas.json");
  await Deno.writeTextFile(file, toolSchemasText(stale));
  const script = new URL("../scripts/tool_schemas.ts", import.meta.url).pathname;
  const write = () =>
    new Deno.Command(denoExecPath(), {
      args: ["run", "--no-prompt", "--allow-read", `--allow-write=${file}`, script, "--file", file],
      stdout: "piped",
      stderr: "piped",
    }).output();
  const first = await write();
  assert.equal(first.code, 0, new TextDecoder().decode(first.stderr));
  assert.match(new TextDecoder().decode(first.stderr), /^wrote /);
  assert.equal(await Deno.readTextFile(file), text, "the file now equals a fresh conversion");
  const { mtime } = await Deno.stat(file);
  const second = await write();
  assert.equal(second.code, 0);
  assert.match(new TextDecoder().decode(second.stderr), /up to date/);
  assert.deepEqual((await Deno.stat(file)).mtime, mtime, "a fresh file is not written again");
});

Deno.test("a set that answers for none of a factory's tools is not used: they are converted as usual and nothing is checked", async () => {
  const runtime = controlRuntime();
  const debug: string[] = [];
  const options = { target: ADVERTISED_TARGET };
  const run = async (set: Record<string, Record<string, unknown>>) => {
    const factory = createServerFactory({
      tasks: tasksAdapter,
      control: runtime.control,
      tools: [sampleTool("mine", () => z.object({ n: z.number() }))],
      log: { ...silentLogger, debug: (message: string) => void debug.push(message) },
      toolSchemas: set,
      schemaCheckDelayMs: 0,
    });
    const { received, clients } = await connectedInstances(factory, 1);
    try {
      await listOn(clients[0]!, received[0]!);
      const listed = received[0]!.find((m) => "id" in m && m.id === 2) as unknown as {
        result: { tools: { outputSchema: Record<string, unknown> }[] };
      };
      return listed.result.tools[0]?.outputSchema;
    } finally {
      await clients[0]!.close();
    }
  };
  try {
    const foreign = {
      [schemaKey({ tool: "someone-else", slot: "output", io: "output" }, options)]: { "x-precomputed": true },
    };
    const converted = await run(foreign);
    assert.equal(converted?.["x-precomputed"], undefined, "converted, not taken from a set about other tools");
    // A check is scheduled, and logged, while the listing is answered.
    assert.deepEqual(debug, [], "and never checked");
    // The same tool with a fresh entry for it (the server's own conversion): answered from the set, then checked.
    const fresh = precomputeToolSchemas(advertiseTools([sampleTool("mine", () => z.object({ n: z.number() }))]));
    assert.deepEqual(await run(fresh), converted);
    await waitFor("the check", () => debug.length >= 2);
    assert.deepEqual(debug, [
      "answered from the precomputed tool schemas; checking them against their conversion later",
      "the precomputed tool schemas equal their conversion",
    ]);
  } finally {
    await runtime.close();
  }
});

Deno.test("the official v1 client refreshes its tools on the stale set's tools/list_changed and gets the converted schemas", async () => {
  await using dir = await tempDir("longcall-stale-v1-");
  const refreshed = Promise.withResolvers<{ name: string; inputSchema: Record<string, unknown> }[]>();
  const client = await connectLegacyV1({
    ...schemasServerTarget(dir.file("x.db"), { stale: true, logLevel: "error" }),
    stderr: "ignore",
  }, {
    listChanged: {
      tools: {
        autoRefresh: true,
        debounceMs: 0,
        onChanged: (error, tools) => {
          if (error !== null) refreshed.reject(error);
          else refreshed.resolve((tools ?? []) as { name: string; inputSchema: Record<string, unknown> }[]);
        },
      },
    },
  });
  try {
    // connectLegacyV1 listed the tools once (from the stale set); the notice then makes the SDK list again.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tools = await Promise.race([
      refreshed.promise,
      new Promise<never>((_, reject) => timer = setTimeout(() => reject(new Error("no refresh within 10 s")), 10_000)),
    ]).finally(() => clearTimeout(timer));
    const jobsGet = tools.find((t) => t.name === "jobs.get");
    assert.ok(jobsGet !== undefined, "the refreshed list has jobs.get");
    assert.equal(jobsGet.inputSchema[STALE_MARK], undefined, "and its converted schema, not the stale one");
  } finally {
    await client.close();
  }
});

Deno.test("the advertised corpus.search_threads schema bounds its cursor (Ajv, as a host validates arguments)", async () => {
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  const schema = toolSchemas[
    schemaKey({ tool: "corpus.search_threads", slot: "input", io: "input" }, { target: ADVERTISED_TARGET })
  ];
  assert.ok(schema !== undefined);
  const validate = new Ajv2020({ strict: true }).compile(schema);
  assert.equal(validate({ query: "flaky", cursor: "c".repeat(SEARCH_CURSOR_CHARS_MAX) }), true);
  assert.equal(validate({ query: "flaky", cursor: "c".repeat(SEARCH_CURSOR_CHARS_MAX + 1) }), false);
});
