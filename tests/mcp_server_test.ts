/**
 * Issue 3: the MCP server as real processes driven by the official clients: the v1
 * `@modelcontextprotocol/sdk` Client (legacy host) and the v2 `@modelcontextprotocol/client`
 * in legacy and modern (2026-07-28) modes, over stdio and streamable HTTP. The server is
 * testing/test_server.ts: the product wiring with test job kinds exposed as tools.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/mcp_server_test.ts
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  IDS_PER_CALL_MAX,
  JOB_KEY_CHARS_MAX,
  JOB_WAIT_MS_MAX,
  MCP_MESSAGE_BYTES_MAX,
  POLL_INTERVAL_MS_MAX,
  POLL_INTERVAL_MS_MIN,
} from "../src/base/limits.ts";
import { openStore } from "../src/store/store.ts";
import {
  delay,
  type Message,
  modernMeta,
  RawStdioServer,
  spawnHttp,
  stdioServer,
  textJson,
} from "./helpers/longcall_procs.ts";
import {
  connectLegacyV1,
  connectV2,
  type HttpTarget,
  MODERN_PROTOCOL_VERSION,
  type StdioTarget,
  TASKS_EXTENSION_ID,
} from "../testing/mcp_clients.ts";
import { tempDir } from "../testing/temp.ts";

// ------------------------------------------------------------------ clients behind one face

type Json = Record<string, unknown>;

interface CallResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Json;
  isError?: boolean;
}

/** One connected client of any flavour: what a host does with longcall's tools. */
interface ToolClient {
  readonly label: string;
  listTools(): Promise<Json[]>;
  call(name: string, args: Json): Promise<CallResult>;
  close(): Promise<void>;
}

type Flavour = "v1-legacy" | "v2-legacy" | "v2-modern";
const FLAVOURS: readonly Flavour[] = ["v1-legacy", "v2-legacy", "v2-modern"];

async function connect(flavour: Flavour, target: StdioTarget | HttpTarget): Promise<ToolClient> {
  if (flavour === "v1-legacy") {
    const client = await connectLegacyV1(target);
    const caps = client.getServerCapabilities() as Json | undefined;
    assert.equal((caps?.["extensions"] as Json | undefined)?.[TASKS_EXTENSION_ID], undefined, "legacy: no tasks");
    return {
      label: flavour,
      listTools: async () => (await client.listTools()).tools as unknown as Json[],
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as unknown as CallResult,
      close: () => client.close(),
    };
  }
  const conn = await connectV2(target, { era: flavour === "v2-modern" ? "modern" : "legacy" });
  assert.equal(conn.client.getProtocolEra(), flavour === "v2-modern" ? "modern" : "legacy");
  // The tasks extension is advertised in server/discover only, never in a legacy initialize result.
  assert.deepEqual(
    conn.client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION_ID],
    flavour === "v2-modern" ? {} : undefined,
  );
  return {
    label: flavour,
    listTools: async () => (await conn.client.listTools()).tools as unknown as Json[],
    call: async (name, args) => (await conn.client.callTool({ name, arguments: args })) as unknown as CallResult,
    close: () => conn.close(),
  };
}

// ------------------------------------------------------------------ assertions on tool results

const JOB_ID = /^[0-9a-f]{12}-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function structured(result: CallResult, what: string): Json {
  assert.notEqual(result.isError, true, `${what} is not an error: ${JSON.stringify(result)}`);
  assert.ok(result.structuredContent !== undefined, `${what} has structuredContent`);
  // The text block carries the same JSON for clients that read only text.
  assert.deepEqual(textJson(result), result.structuredContent, `${what}: text mirrors structuredContent`);
  return result.structuredContent;
}

function toolError(result: CallResult, what: string): Json {
  assert.equal(result.isError, true, `${what} is an isError result: ${JSON.stringify(result)}`);
  const error = result.structuredContent?.["error"] as Json | undefined;
  assert.ok(error !== undefined, `${what} carries a typed error in structuredContent: ${JSON.stringify(result)}`);
  return error;
}

/** Checks the JobReference shape of a job-submitting tool's result; returns the job id. */
function assertJobReference(result: CallResult, kind: string): string {
  const ref = structured(result, `${kind} JobReference`);
  const id = ref["id"] as string;
  assert.match(id, JOB_ID);
  assert.deepEqual(Object.keys(ref).sort(), ["follow_up", "id", "kind", "message", "poll_after_ms", "ref", "status"]);
  assert.equal(ref["ref"], `job:${id}`);
  assert.equal(ref["kind"], kind);
  assert.ok(["queued", "running"].includes(ref["status"] as string), `fresh job is live: ${ref["status"]}`);
  assert.ok((ref["message"] as string).includes(id), "message names the id");
  const poll = ref["poll_after_ms"] as number;
  assert.ok(Number.isInteger(poll) && poll >= POLL_INTERVAL_MS_MIN && poll <= POLL_INTERVAL_MS_MAX, `poll ${poll}`);
  assert.deepEqual(ref["follow_up"], {
    action: { type: "poll_job", poll_job: { ids: [id], wait_ms: JOB_WAIT_MS_MAX } },
    retry_after_ms: poll,
  });
  return id;
}

interface Batch {
  batch_status: "complete" | "partial";
  items: Array<{ key: string; item_status: string; value?: Json; reason?: string; message?: string }>;
}

/** jobs.get of `ids`, in `options.format` (default concise). */
async function jobsGet(
  c: ToolClient,
  ids: string[],
  options: { format?: "concise" | "detailed" } = {},
): Promise<Batch> {
  const { format = "concise" } = options;
  return structured(await c.call("jobs.get", { ids, response_format: format }), "jobs.get") as unknown as Batch;
}

async function jobsCancel(c: ToolClient, ids: string[]): Promise<Batch> {
  return structured(await c.call("jobs.cancel", { ids }), "jobs.cancel") as unknown as Batch;
}

/**
 * Polls jobs.get until job `wait.id`'s concise value satisfies `wait.until`, for at most `options.timeoutMs`;
 * returns that value. `wait.what` names the wait in the failure message.
 */
async function waitJob(
  c: ToolClient,
  wait: { id: string; until: (v: Json) => boolean; what: string },
  options: { timeoutMs?: number } = {},
) {
  const { id, until, what } = wait;
  const { timeoutMs = 15_000 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const item = (await jobsGet(c, [id])).items[0];
    assert.equal(item?.item_status, "complete", `job ${id} is visible: ${JSON.stringify(item)}`);
    const value = item.value as Json;
    if (until(value)) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await delay(20);
  }
}

const terminal = (v: Json) => v["execution_state"] === "terminal";
const running = (v: Json) => v["execution_state"] === "running";

const JOB_TOOLS = ["test.sleep", "test.echo", "test.fail", "test.partial", "test.hang"];

// ------------------------------------------------------------------ the shared flow per client

async function jobsFlow(t: Deno.TestContext, c: ToolClient): Promise<void> {
  let sleptId = "";

  await t.step(`${c.label}: tools/list has exact annotations and declared output schemas`, async () => {
    const tools = await c.listTools();
    assert.deepEqual(tools.map((x) => x["name"]), ["jobs.get", "jobs.cancel", ...JOB_TOOLS]);
    const byName = new Map(tools.map((x) => [x["name"] as string, x]));
    assert.deepEqual(byName.get("jobs.get")?.["annotations"], {
      title: "Read jobs",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(byName.get("jobs.cancel")?.["annotations"], {
      title: "Cancel jobs",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    for (const tool of tools) {
      const out = tool["outputSchema"] as Json | undefined;
      assert.ok(out !== undefined, `${tool["name"]} declares an outputSchema`);
      assert.equal(out["type"], "object", `${tool["name"]} outputSchema is an object schema`);
      const text = JSON.stringify(out);
      // The tool's own output and the typed error every tool may return instead.
      assert.ok(text.includes('"error"'), `${tool["name"]} outputSchema admits the typed error`);
      assert.ok(
        text.includes(tool["name"] === "jobs.get" || tool["name"] === "jobs.cancel" ? '"batch_status"' : '"follow_up"'),
        `${tool["name"]} outputSchema declares its own shape`,
      );
    }
  });

  await t.step(`${c.label}: JobReference -> jobs.get until terminal -> detailed typed result`, async () => {
    const id = assertJobReference(await c.call("test.sleep", { ms: 120, steps: 3 }), "sleep");
    sleptId = id;
    const concise = await waitJob(c, { id, until: terminal, what: "sleep to finish" });
    assert.equal(concise["outcome"], "succeeded");
    assert.equal("id" in concise, false, "a concise item's key names its job");
    assert.equal(concise["kind"], "sleep");
    assert.equal("result" in concise, false, "concise view has no result");
    assert.equal("request" in concise, false, "concise view has no request");
    assert.equal("retry_after_ms" in concise, false, "no poll guidance once terminal");
    const detailed = (await jobsGet(c, [id], { format: "detailed" })).items[0]?.value as Json;
    assert.equal(detailed["id"], id);
    assert.equal(detailed["outcome"], "succeeded");
    assert.deepEqual(detailed["request"], { ms: 120, steps: 3 });
    assert.deepEqual(detailed["result"], { slept_ms: 120 });
    assert.equal(detailed["result_truncated"], false);
    assert.equal(detailed["completed_items"], 3);
    assert.equal(detailed["total_items"], 3);
    assert.equal(detailed["progress_percent"], 100);
    assert.equal(typeof detailed["expires_at"], "string");
  });

  await t.step(`${c.label}: test.partial shows outcome partial in both views`, async () => {
    const id = assertJobReference(await c.call("test.partial", {}), "partial");
    const concise = await waitJob(c, { id, until: terminal, what: "partial to finish" });
    assert.equal(concise["outcome"], "partial");
    const detailed = (await jobsGet(c, [id], { format: "detailed" })).items[0]?.value as Json;
    assert.equal(detailed["outcome"], "partial");
    assert.deepEqual(detailed["result"], { items: [1, 2], complete: false });
  });

  await t.step(`${c.label}: test.fail records the typed error`, async () => {
    const id = assertJobReference(
      await c.call("test.fail", { code: "access_denied", message: "nope" }),
      "fail",
    );
    const v = await waitJob(c, { id, until: terminal, what: "fail to finish" });
    assert.equal(v["outcome"], "failed");
    assert.deepEqual(v["error"], { code: "access_denied", message: "nope", retryable: false });
  });

  await t.step(`${c.label}: jobs.cancel of a running test.sleep ends it cancelled`, async () => {
    const id = assertJobReference(await c.call("test.sleep", { ms: 60_000, steps: 600 }), "sleep");
    await waitJob(c, { id, until: running, what: "long sleep to run" });
    const cancel = await jobsCancel(c, [id]);
    assert.equal(cancel.batch_status, "complete");
    assert.equal(cancel.items[0]?.item_status, "complete");
    assert.equal(cancel.items[0]?.value?.["cancellation_requested"], true);
    const v = await waitJob(c, { id, until: terminal, what: "cancelled sleep to end" });
    assert.equal(v["outcome"], "cancelled");
    // Repeating a cancel is harmless.
    const again = await jobsCancel(c, [id]);
    assert.equal(again.items[0]?.value?.["outcome"], "cancelled");
  });

  await t.step(`${c.label}: cancel of a succeeded job reports terminal and changes nothing`, async () => {
    const before = (await jobsGet(c, [sleptId], { format: "detailed" })).items[0]?.value as Json;
    const cancel = await jobsCancel(c, [sleptId]);
    assert.equal(cancel.batch_status, "partial");
    const item = cancel.items[0];
    assert.equal(item?.item_status, "unavailable");
    assert.equal(item?.reason, "terminal");
    assert.equal(item?.value?.["outcome"], "succeeded");
    const after = (await jobsGet(c, [sleptId], { format: "detailed" })).items[0]?.value as Json;
    assert.deepEqual(after, before);
  });

  await t.step(`${c.label}: duplicate, unknown and invalid ids are answered in place`, async () => {
    const unknown = crypto.randomUUID();
    const ids = [sleptId, unknown, "not-a-job", sleptId, `job:${sleptId}`, ""];
    const batch = await jobsGet(c, ids);
    assert.equal(batch.batch_status, "partial");
    assert.deepEqual(batch.items.map((i) => i.key), ids);
    assert.deepEqual(batch.items.map((i) => i.item_status), [
      "complete",
      "unavailable",
      "unavailable",
      "complete",
      "complete",
      "unavailable",
    ]);
    assert.deepEqual(batch.items.map((i) => i.reason), [
      undefined,
      "not_found",
      "invalid_id",
      undefined,
      undefined,
      "invalid_id",
    ]);
    assert.deepEqual(batch.items[3]?.value, batch.items[0]?.value);
    assert.deepEqual(batch.items[4]?.value, batch.items[0]?.value);
    const cancel = await jobsCancel(c, [unknown, "nope"]);
    assert.deepEqual(cancel.items.map((i) => i.reason), ["not_found", "invalid_id"]);
  });

  await t.step(
    `${c.label}: ${IDS_PER_CALL_MAX} ids are served, ${
      IDS_PER_CALL_MAX + 1
    } are refused with a path; keys up to ${JOB_KEY_CHARS_MAX} characters`,
    async () => {
      const ids = Array.from({ length: IDS_PER_CALL_MAX }, (_, i) => i % 2 === 0 ? sleptId : crypto.randomUUID());
      const batch = await jobsGet(c, ids);
      assert.equal(batch.items.length, IDS_PER_CALL_MAX);
      assert.deepEqual(batch.items.map((i) => i.key), ids);
      assert.equal(batch.items.filter((i) => i.item_status === "complete").length, IDS_PER_CALL_MAX / 2);
      for (const tool of ["jobs.get", "jobs.cancel"]) {
        const err = toolError(await c.call(tool, { ids: [...ids, sleptId] }), `${tool} with 101 ids`);
        assert.equal(err["code"], "invalid_argument");
        assert.equal(err["path"], "$.ids");
        assert.equal(err["retryable"], false);
        assert.match(err["message"] as string, /\$\.ids/);
      }
      // A key of JOB_KEY_CHARS_MAX characters is answered in its own item; one more refuses the call.
      const longest = "k".repeat(JOB_KEY_CHARS_MAX);
      const atBound = await jobsGet(c, [longest, sleptId]);
      assert.deepEqual(atBound.items.map((i) => [i.item_status, i.reason]), [
        ["unavailable", "invalid_id"],
        ["complete", undefined],
      ]);
      for (const tool of ["jobs.get", "jobs.cancel"]) {
        const err = toolError(await c.call(tool, { ids: [sleptId, `${longest}k`] }), `${tool} with a long key`);
        assert.equal(err["code"], "invalid_argument");
        assert.equal(err["path"], "$.ids.1");
      }
    },
  );

  await t.step(`${c.label}: wrong argument types get a typed invalid_argument`, async () => {
    const cases: Array<[string, Json, string]> = [
      ["jobs.get", { ids: "abc" }, "$.ids"],
      ["jobs.get", { ids: [sleptId], response_format: "verbose" }, "$.response_format"],
      ["jobs.get", {}, "$.ids"],
      ["jobs.cancel", { ids: [7] }, "$.ids.0"],
      ["test.sleep", { ms: "soon" }, "$.ms"],
      ["test.fail", { code: 1, message: "m" }, "$.code"],
    ];
    for (const [tool, args, path] of cases) {
      const err = toolError(await c.call(tool, args), `${tool} ${JSON.stringify(args)}`);
      assert.equal(err["code"], "invalid_argument", `${tool} ${JSON.stringify(args)}`);
      assert.equal(err["path"], path, `${tool} ${JSON.stringify(args)}`);
    }
    const example = toolError(await c.call("jobs.get", { ids: 5 }), "jobs.get ids: 5")["example"] as Json;
    assert.ok(Array.isArray(example["ids"]), "the error carries a usable example");
  });

  await t.step(`${c.label}: an unknown tool is a JSON-RPC error and the server keeps serving`, async () => {
    await assert.rejects(c.call("no.such.tool", {}), (err: unknown) => {
      assert.equal((err as { code?: unknown }).code, -32602);
      assert.match(String(err), /no\.such\.tool not found/);
      return true;
    });
    assert.equal((await jobsGet(c, [sleptId])).items[0]?.item_status, "complete");
  });
}

for (const transport of ["stdio", "http"] as const) {
  Deno.test(`MCP server over ${transport}: v1 legacy, v2 legacy and v2 modern clients drive jobs end to end`, async (t) => {
    await using dir = await tempDir();
    const db = dir.file("jobs.db");
    const http = transport === "http" ? await spawnHttp(dir.path, db) : undefined;
    try {
      for (const flavour of FLAVOURS) {
        const target = http === undefined ? stdioServer(dir.path, db) : { url: http.mcpUrl };
        const c = await connect(flavour, target);
        try {
          await jobsFlow(t, c);
        } finally {
          await c.close();
        }
      }
    } finally {
      const status = await http?.close();
      if (status !== undefined) assert.equal(status.code, 0, `graceful SIGTERM exit; stderr:\n${http?.stderr()}`);
    }
  });
}

// ------------------------------------------------------------------ raw stdio: bad input, bounds, purity

function errorOf(m: Message): { code: number; message: string; data?: unknown } {
  const error = m["error"] as { code: number; message: string; data?: unknown } | undefined;
  assert.ok(error !== undefined, `expected a JSON-RPC error: ${JSON.stringify(m)}`);
  return error;
}

function resultOf(m: Message): Json {
  const result = m["result"] as Json | undefined;
  assert.ok(result !== undefined, `expected a JSON-RPC result: ${JSON.stringify(m)}`);
  return result;
}

/** A modern tools/call whose `_meta` is padded so the whole line is exactly `bytes` bytes (newline included). */
function paddedLine(id: string, bytes: number): string {
  const make = (pad: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/list",
      params: { _meta: { ...modernMeta(), "test/pad": pad } },
    });
  const base = new TextEncoder().encode(make("")).length + 1;
  assert.ok(bytes >= base);
  const line = make("x".repeat(bytes - base));
  assert.equal(new TextEncoder().encode(line).length + 1, bytes);
  return line;
}

Deno.test("stdio server: bad input gets the right error, stdout stays pure, an oversized line is skipped, shutdown keeps queued work", async (t) => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const server = new RawStdioServer(stdioServer(dir.path, db, { flags: ["--running-max", "1", "--grace-ms", "200"] }));
  let hangId = "", queuedId = "";
  try {
    await t.step("an unsupported protocol version gets -32022 and the connection stays open", async () => {
      const m = await server.request("tools/list", {
        _meta: { ...modernMeta(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
      });
      const e = errorOf(m);
      assert.equal(e.code, -32022);
      assert.deepEqual(e.data, { supported: [MODERN_PROTOCOL_VERSION], requested: "2099-01-01" });
    });

    await t.step(
      "malformed JSON gets -32700 and non-JSON-RPC lines -32600 (tests/stdio_framing_test.ts has every case); the next request is served",
      async () => {
        const before = server.messages.length;
        await server.send("{not json");
        await server.send('{"jsonrpc":"2.0","id":"trunc","method":"tools/list"');
        await server.send('{"hello":"world"}');
        await server.send("");
        const m = await server.request("tools/list", { _meta: modernMeta() });
        assert.equal((resultOf(m)["tools"] as unknown[]).length, 7);
        // Each bad line got one error answer, in order, then the answer to the valid request.
        const since = server.messages.slice(before, before + 3);
        assert.deepEqual(since.map((x) => errorOf(x).code), [-32700, -32700, -32600]);
        assert.deepEqual(since.map((x) => x.id), [null, null, null]);
        assert.deepEqual(server.messages.slice(before + 3), [m]);
      },
    );

    await t.step("modern requests missing _meta keys get -32602", async () => {
      const noCaps = await server.request("tools/list", {
        _meta: { "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION },
      });
      assert.equal(errorOf(noCaps).code, -32602);
      assert.match(errorOf(noCaps).message, /Invalid _meta envelope for protocol revision 2026-07-28/);
      const noMeta = await server.request("tools/list", {});
      assert.equal(errorOf(noMeta).code, -32602);
      assert.match(errorOf(noMeta).message, /missing the required _meta envelope/);
    });

    await t.step("unknown method -32601, unknown tool -32602, wrong argument types a typed tool error", async () => {
      assert.deepEqual(errorOf(await server.modern("no/such/method")), { code: -32601, message: "Method not found" });
      const unknownTool = errorOf(await server.modern("tools/call", { name: "nope", arguments: {} }));
      assert.equal(unknownTool.code, -32602);
      const bad = resultOf(await server.modern("tools/call", { name: "test.sleep", arguments: { ms: -1 } }));
      assert.equal(bad["isError"], true);
      const err = (bad["structuredContent"] as Json)["error"] as Json;
      assert.equal(err["code"], "invalid_argument");
      assert.equal(err["path"], "$.ms");
    });

    await t.step(`a line of exactly ${MCP_MESSAGE_BYTES_MAX} bytes is served`, async () => {
      const response = server.waitFor("at-bound reply", (m) => m.id === "at-bound");
      await server.send(paddedLine("at-bound", MCP_MESSAGE_BYTES_MAX));
      assert.equal((resultOf(await response)["tools"] as unknown[]).length, 7);
    });

    await t.step("jobs admitted before the oversized line: one running, one queued", async () => {
      const hang = resultOf(await server.modern("tools/call", { name: "test.hang", arguments: {} }));
      hangId = (hang["structuredContent"] as Json)["id"] as string;
      // Wait for the hang to hold the only execution slot, so the next job stays queued.
      for (;;) {
        const got = resultOf(await server.modern("tools/call", { name: "jobs.get", arguments: { ids: [hangId] } }));
        const v = ((got["structuredContent"] as Json)["items"] as Json[])[0]?.["value"] as Json;
        if (v["execution_state"] === "running") break;
        await delay(20);
      }
      const queued = resultOf(await server.modern("tools/call", { name: "test.sleep", arguments: { ms: 10 } }));
      queuedId = (queued["structuredContent"] as Json)["id"] as string;
      assert.equal((queued["structuredContent"] as Json)["status"], "queued");
    });

    await t.step(
      `a line of ${MCP_MESSAGE_BYTES_MAX + 1} bytes is answered -32600 and skipped; the session stays open`,
      async () => {
        const over = server.waitFor("over-bound reply", (m) => m.id === "over-bound");
        await server.send(paddedLine("over-bound", MCP_MESSAGE_BYTES_MAX + 1));
        assert.equal(errorOf(await over).code, -32600);
        const hang = resultOf(await server.modern("tools/call", { name: "jobs.get", arguments: { ids: [hangId] } }));
        const v = ((hang["structuredContent"] as Json)["items"] as Json[])[0]?.["value"] as Json;
        assert.equal(v["execution_state"], "running", "the running job was not interrupted");
      },
    );

    await t.step("every stdout line was a JSON-RPC message, and every request got exactly one response", () => {
      server.assertStdoutPure();
      const ids = server.messages.filter((m) => "id" in m && m.id !== null).map((m) => m.id);
      assert.equal(new Set(ids).size, ids.length, "no duplicate responses");
      const nulls = server.messages.filter((m) => "id" in m && m.id === null);
      assert.equal(nulls.length, 3, "id:null only for the three lines without a readable id");
    });
  } finally {
    await server.close();
  }

  await t.step(
    "a fresh server on the same database still has the queued job and runs it; the running one was interrupted",
    async () => {
      const c = await connect("v2-legacy", stdioServer(dir.path, db));
      try {
        const queued = await waitJob(c, {
          id: queuedId,
          until: terminal,
          what: "queued sleep to run on the new server",
        });
        assert.equal(queued["outcome"], "succeeded");
        const hang = (await jobsGet(c, [hangId], { format: "detailed" })).items[0]?.value as Json;
        assert.equal(hang["outcome"], "failed");
        assert.equal((hang["error"] as Json)["code"], "interrupted");
      } finally {
        await c.close();
      }
    },
  );
});

Deno.test("stdio server: end of stdin and SIGTERM shut down within the grace and record a running job as interrupted", async (t) => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const GRACE_MS = 300, MARGIN_MS = 10_000;

  async function startHang(server: RawStdioServer): Promise<string> {
    const ref = resultOf(await server.modern("tools/call", { name: "test.hang", arguments: {} }));
    const id = (ref["structuredContent"] as Json)["id"] as string;
    for (;;) {
      const got = resultOf(await server.modern("tools/call", { name: "jobs.get", arguments: { ids: [id] } }));
      const v = ((got["structuredContent"] as Json)["items"] as Json[])[0]?.["value"] as Json;
      if (v["execution_state"] === "running") return id;
      await delay(20);
    }
  }

  const ids: Record<string, string> = {};
  for (const how of ["stdin EOF", "SIGTERM"] as const) {
    await t.step(`${how} with a running test.hang`, async () => {
      const server = new RawStdioServer(stdioServer(dir.path, db, { flags: ["--grace-ms", String(GRACE_MS)] }));
      try {
        ids[how] = await startHang(server);
        const t0 = Date.now();
        if (how === "SIGTERM") server.child.kill("SIGTERM");
        else await server.endStdin();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const status = await Promise.race([
          server.exited(),
          new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), GRACE_MS + MARGIN_MS)),
        ]);
        clearTimeout(timer);
        assert.ok(status !== undefined, `exited within ${GRACE_MS} + ${MARGIN_MS} ms`);
        assert.equal(status.code, 0, `exit code; stderr:\n${server.stderr()}`);
        assert.ok(Date.now() - t0 >= GRACE_MS - 50, "the hang was given its grace before being recorded");
        server.assertStdoutPure();
      } finally {
        await server.close();
      }
    });
  }

  await t.step("a new server reads both jobs as failed with error code interrupted", async () => {
    const c = await connect("v1-legacy", stdioServer(dir.path, db));
    try {
      const batch = await jobsGet(c, [ids["stdin EOF"] ?? "", ids["SIGTERM"] ?? ""], { format: "detailed" });
      for (const item of batch.items) {
        assert.equal(item.value?.["execution_state"], "terminal");
        assert.equal(item.value?.["outcome"], "failed");
        assert.equal((item.value?.["error"] as Json)["code"], "interrupted");
      }
    } finally {
      await c.close();
    }
  });
});

Deno.test("overload: at --admitted-max the next submission is a typed overloaded error and writes no job", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const http = await spawnHttp(dir.path, db, { flags: ["--admitted-max", "2", "--grace-ms", "50"] });
  try {
    const modern = await connect("v2-modern", { url: http.mcpUrl });
    const v1 = await connect("v1-legacy", { url: http.mcpUrl });
    try {
      const a = assertJobReference(await modern.call("test.hang", {}), "hang");
      const b = assertJobReference(await v1.call("test.hang", {}), "hang");
      for (const c of [modern, v1]) {
        const err = toolError(await c.call("test.sleep", { ms: 1 }), `${c.label} third submission`);
        assert.equal(err["code"], "overloaded");
        assert.equal(err["retryable"], true);
        const retry = err["retry_after_ms"] as number;
        assert.ok(Number.isInteger(retry) && retry >= 1_000 && retry <= 60_000, `retry_after_ms ${retry}`);
      }
      // The database holds exactly the two admitted jobs.
      const store = openStore(db);
      try {
        const rows = store.rows.jobList({ limit: 100 });
        assert.deepEqual(rows.map((r) => r.id).sort(), [a, b].sort());
      } finally {
        store.close();
      }
      // And the server keeps serving reads.
      assert.equal((await jobsGet(v1, [a, b])).batch_status, "complete");
    } finally {
      await modern.close();
      await v1.close();
    }
  } finally {
    await http.close();
  }
});

Deno.test("--read-only lists only tools whose readOnlyHint is true", async () => {
  await using dir = await tempDir();
  const c = await connect("v2-legacy", stdioServer(dir.path, dir.file("jobs.db"), { flags: ["--read-only"] }));
  try {
    const tools = await c.listTools();
    assert.deepEqual(tools.map((x) => x["name"]), ["jobs.get"]);
    assert.ok(tools.every((x) => (x["annotations"] as Json)["readOnlyHint"] === true));
    await assert.rejects(
      c.call("test.sleep", { ms: 1 }),
      (err: unknown) => (err as { code?: unknown }).code === -32602,
    );
  } finally {
    await c.close();
  }
});

Deno.test("--read-only: tasks/get reads another server's task, tasks/cancel is refused and the job keeps running", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const writer = new RawStdioServer(stdioServer(dir.path, db, { flags: ["--grace-ms", "100"] }));
  const reader = new RawStdioServer(stdioServer(dir.path, db, { flags: ["--read-only"] }));
  try {
    const created = resultOf(
      await writer.modern("tools/call", { name: "test.hang", arguments: {} }, { declareTasks: true }),
    );
    assert.equal(created["resultType"], "task");
    const taskId = created["taskId"] as string;
    const read = resultOf(await reader.modern("tasks/get", { taskId }, { declareTasks: true }));
    assert.equal(read["taskId"], taskId);
    const refused = errorOf(await reader.modern("tasks/cancel", { taskId }, { declareTasks: true }));
    assert.equal(refused.code, -32602);
    assert.match(refused.message, /read-only \(longcall serve --read-only\) and cancels nothing/);
    // Unknown ids are still answered as unknown, before the read-only refusal.
    const unknown = errorOf(
      await reader.modern("tasks/cancel", { taskId: crypto.randomUUID() }, { declareTasks: true }),
    );
    assert.equal(unknown.message, "Failed to retrieve task: Task not found");
    const after = resultOf(await writer.modern("tasks/get", { taskId }, { declareTasks: true }));
    assert.equal(after["status"], "working", "the refused cancel changed nothing");
    const store = openStore(db);
    try {
      assert.equal(store.rows.jobGet(taskId)?.cancel_requested_at, null);
    } finally {
      store.close();
    }
    resultOf(await writer.modern("tasks/cancel", { taskId }, { declareTasks: true }));
  } finally {
    await reader.close();
    await writer.close();
  }
});

// ------------------------------------------------------------------ HTTP: rebinding, bounds, bearer, scoping

/**
 * One HTTP/1.1 request over a raw socket (fetch would replace the Host header): `body` to 127.0.0.1:`to.port`
 * with the Host header `to.host`, and `options.headers` besides.
 */
async function rawHttp(
  to: { port: number; host: string },
  body: string,
  options: { headers?: Record<string, string> } = {},
) {
  const { port, host } = to;
  const { headers = {} } = options;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const bytes = new TextEncoder().encode(body);
  const head = [
    "POST /mcp HTTP/1.1",
    `Host: ${host}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `MCP-Protocol-Version: ${MODERN_PROTOCOL_VERSION}`,
    "Connection: close",
    `Content-Length: ${bytes.length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ].join("\r\n");
  await conn.write(new TextEncoder().encode(head));
  await conn.write(bytes);
  const text = await new Response(conn.readable).text();
  const status = Number(text.split(" ")[1]);
  return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
}

/** A modern JSON-RPC request line of `method` with `params` (its id `options.id`, default 1). */
function modernBody(method: string, params: Json = {}, options: { id?: number | string } = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id: options.id ?? 1, method, params: { ...params, _meta: modernMeta() } });
}

/** POSTs `body` to `url` as a modern tools/list, with `options.headers` added or overriding. */
async function post(url: URL, body: string, options: { headers?: Record<string, string> } = {}): Promise<Response> {
  const { headers = {} } = options;
  return await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
      "mcp-method": "tools/list",
      ...headers,
    },
    body,
  });
}

Deno.test("HTTP server: DNS-rebinding checks, body bound, bearer auth and per-token scoping", async (t) => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const TOKEN_A = "token-a-" + crypto.randomUUID(), TOKEN_B = "token-b-" + crypto.randomUUID();
  const a = await spawnHttp(dir.path, db, { env: { LONGCALL_HTTP_TOKEN: TOKEN_A } });
  const b = await spawnHttp(dir.path, db, { env: { LONGCALL_HTTP_TOKEN: TOKEN_B } });
  const authA = { authorization: `Bearer ${TOKEN_A}` };
  try {
    await t.step("a bad Host header is rejected; the loopback Host is served", async () => {
      const body = modernBody("tools/list");
      const bad = await rawHttp({ port: a.port, host: "evil.example" }, body, { headers: authA });
      assert.equal(bad.status, 403);
      assert.match(bad.body, /Invalid Host/);
      const badWithPort = await rawHttp({ port: a.port, host: `attacker.test:${a.port}` }, body, { headers: authA });
      assert.equal(badWithPort.status, 403);
      const good = await rawHttp({ port: a.port, host: `127.0.0.1:${a.port}` }, body, {
        headers: { ...authA, "Mcp-Method": "tools/list" },
      });
      assert.equal(good.status, 200, good.body);
      assert.ok(Array.isArray((JSON.parse(good.body).result as Json)["tools"]));
    });

    await t.step("a foreign Origin is rejected; a loopback Origin is served", async () => {
      const bad = await post(a.mcpUrl, modernBody("tools/list"), {
        headers: { ...authA, origin: "http://evil.example" },
      });
      assert.equal(bad.status, 403);
      assert.match(await bad.text(), /Invalid Origin/);
      const good = await post(a.mcpUrl, modernBody("tools/list"), {
        headers: { ...authA, origin: `http://localhost:${a.port}` },
      });
      assert.equal(good.status, 200);
      await good.body?.cancel();
    });

    await t.step(`a body of ${MCP_MESSAGE_BYTES_MAX} bytes is served, one byte more gets 413`, async () => {
      const line = paddedLine("b", MCP_MESSAGE_BYTES_MAX + 1); // the HTTP body has no newline
      assert.equal(new TextEncoder().encode(line).length, MCP_MESSAGE_BYTES_MAX);
      const at = await post(a.mcpUrl, line, { headers: authA });
      assert.equal(at.status, 200);
      assert.ok(Array.isArray(((await at.json()).result as Json)["tools"]));
      const over = await post(a.mcpUrl, paddedLine("b", MCP_MESSAGE_BYTES_MAX + 2), { headers: authA });
      assert.equal(over.status, 413);
      assert.equal(((await over.json()).error as Json)["code"], -32000);
    });

    await t.step(
      "HTTP protocol errors: missing _meta -32602, unsupported version -32022, bad JSON -32700",
      async () => {
        const noMeta = await post(
          a.mcpUrl,
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
          { headers: authA },
        );
        assert.equal(noMeta.status, 400);
        const noMetaError = (await noMeta.json()).error as Json;
        assert.equal(noMetaError["code"], -32602);
        assert.deepEqual(noMetaError["data"], { envelope: { missing: ["_meta"] } });
        const v2099 = await post(
          a.mcpUrl,
          JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/list",
            params: { _meta: { ...modernMeta(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
          }),
          { headers: { ...authA, "mcp-protocol-version": "2099-01-01" } },
        );
        const vError = (await v2099.json()).error as Json;
        assert.equal(vError["code"], -32022);
        assert.deepEqual(vError["data"], { supported: [MODERN_PROTOCOL_VERSION], requested: "2099-01-01" });
        const badJson = await post(a.mcpUrl, "{not json", { headers: authA });
        assert.equal(badJson.status, 400);
        assert.equal(((await badJson.json()).error as Json)["code"], -32700);
        const unknown = await post(a.mcpUrl, modernBody("no/such/method"), {
          headers: {
            ...authA,
            "mcp-method": "no/such/method",
          },
        });
        assert.equal(((await unknown.json()).error as Json)["code"], -32601);
      },
    );

    await t.step("a missing or wrong bearer token gets 401 with a challenge", async () => {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN_B}` }, { authorization: TOKEN_A }]) {
        const res = await post(a.mcpUrl, modernBody("tools/list"), { headers });
        assert.equal(res.status, 401, JSON.stringify(headers));
        assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="longcall"');
        assert.equal(((await res.json()).error as Json)["code"], -32001);
      }
      await assert.rejects(connect("v2-modern", { url: a.mcpUrl }));
    });

    await t.step("a job created with token A is invisible to token B (jobs.get, jobs.cancel, tasks/get)", async () => {
      const viaA = await connect("v2-modern", { url: a.mcpUrl, bearerToken: TOKEN_A });
      const viaB = await connectV2({ url: b.mcpUrl, bearerToken: TOKEN_B }, { era: "modern" });
      const v1B = await connect("v1-legacy", { url: b.mcpUrl, bearerToken: TOKEN_B });
      try {
        const id = assertJobReference(await viaA.call("test.sleep", { ms: 30_000, steps: 300 }), "sleep");
        const seenByA = (await jobsGet(viaA, [id])).items[0];
        assert.equal(seenByA?.item_status, "complete");
        for (const c of [v1B]) {
          assert.equal((await jobsGet(c, [id])).items[0]?.reason, "not_found");
          assert.equal((await jobsCancel(c, [id])).items[0]?.reason, "not_found");
        }
        const task = await viaB.rawRequest("tasks/get", { taskId: id }, { declareTasks: true });
        assert.equal(task.kind, "error");
        assert.equal(task.kind === "error" ? task.error.code : 0, -32602);
        const cancelTask = await viaB.rawRequest("tasks/cancel", { taskId: id }, { declareTasks: true });
        assert.equal(cancelTask.kind === "error" ? cancelTask.error.code : 0, -32602);
        // B's attempts changed nothing: the job still runs for A, with no cancellation requested.
        const still = (await jobsGet(viaA, [id])).items[0]?.value as Json;
        assert.equal("cancellation_requested" in still, false);
        assert.notEqual(still["execution_state"], "terminal");
        // The local authority (stdio, whoever can read the database) sees every job.
        const local = await connect("v2-legacy", stdioServer(dir.path, db));
        try {
          assert.equal((await jobsGet(local, [id])).items[0]?.item_status, "complete");
        } finally {
          await local.close();
        }
        assert.equal((await jobsCancel(viaA, [id])).items[0]?.item_status, "complete");
        assert.equal((await waitJob(viaA, { id, until: terminal, what: "A's cancel" }))["outcome"], "cancelled");
      } finally {
        await viaA.close();
        await viaB.close();
        await v1B.close();
      }
    });
  } finally {
    await a.close();
    await b.close();
  }
});
