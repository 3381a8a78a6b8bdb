/**
 * The stdio wire against a real server child (testing/test_server.ts) driven with raw
 * bytes: every line that is not valid JSON-RPC 2.0 gets an answer (-32700 / -32600, with its id
 * when one can be read), an over-long line is answered and skipped without closing the session
 * or interrupting running jobs, and stdout carries nothing but JSON-RPC. The process's stdin as the
 * framing reads it (`stdinChunks`: bounded chunks, each a copy; a cancel that ends a pending read) is
 * checked in a child of its own (tests/helpers/stdin_chunks_probe.ts). LineTransport over
 * in-memory streams (the line splitter, its bounds, the end-of-input drain) and probeId are
 * unit-tested beside it: src/mcp/stdio_framing_test.ts.
 */

import assert from "node:assert/strict";
import { MCP_MESSAGE_BYTES_MAX, STDIO_READ_CHUNK_BYTES } from "../src/base/limits.ts";
import { type Message, modernMeta, RawStdioServer, stdioServer } from "./helpers/longcall_procs.ts";
import { tempDir } from "../testing/temp.ts";

type Json = Record<string, unknown>;

function errorOf(m: Message): { code: number; message: string } {
  const error = m["error"] as { code: number; message: string } | undefined;
  assert.ok(error !== undefined, `expected a JSON-RPC error: ${JSON.stringify(m).slice(0, 300)}`);
  return error;
}

/** The messages the server wrote after `before`, up to and including the answer to a sync request. */
async function answersUntilSync(server: RawStdioServer, before: number): Promise<Message[]> {
  const sync = await server.request("tools/list", { _meta: modernMeta() });
  assert.ok(Array.isArray((sync["result"] as Json)["tools"]), "the session still serves requests");
  const after = server.messages.slice(before);
  assert.equal(after.at(-1), sync, "the sync answer comes last: lines are answered in order");
  return after.slice(0, -1);
}

/** A modern tools/list line of exactly `bytes` bytes (newline included), its id first or last (`options.idLast`). */
function lineOf(id: string, bytes: number, options: { idLast?: boolean } = {}): string {
  const { idLast = false } = options;
  const make = (pad: string) => {
    const params = { _meta: { ...modernMeta(), "test/pad": pad } };
    return JSON.stringify(
      idLast
        ? { method: "tools/list", params, jsonrpc: "2.0", id }
        : { jsonrpc: "2.0", id, method: "tools/list", params },
    );
  };
  const base = new TextEncoder().encode(make("")).length + 1;
  const line = make("x".repeat(bytes - base));
  assert.equal(new TextEncoder().encode(line).length + 1, bytes);
  return line;
}

Deno.test("stdio framing: malformed JSON gets -32700 with id null, and the session goes on", async () => {
  await using dir = await tempDir();
  await using server = new RawStdioServer(stdioServer(dir.path, dir.file("jobs.db")));
  const before = server.messages.length;
  await server.send("{not json");
  await server.send('{"jsonrpc":"2.0","id":"trunc","method":"tools/list"');
  await server.sendBytes(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a])); // "{\xff\xfe}" is not UTF-8
  await server.send("");
  await server.send("   ");
  const answers = await answersUntilSync(server, before);
  assert.equal(answers.length, 3, "three unparseable lines, three answers; blank lines none");
  for (const m of answers) {
    assert.equal(m["jsonrpc"], "2.0");
    assert.equal(m["id"], null);
    assert.equal(errorOf(m).code, -32700);
  }
  assert.match(errorOf(answers[2]!).message, /UTF-8/);
  server.assertStdoutPure();
});

Deno.test("stdio framing: invalid requests get -32600 with their id when it can be read", async () => {
  await using dir = await tempDir();
  await using server = new RawStdioServer(stdioServer(dir.path, dir.file("jobs.db")));
  const before = server.messages.length;
  const cases: [string, string | number | null, RegExp][] = [
    ['{"jsonrpc":"1.0","id":1,"method":"tools/list"}', 1, /jsonrpc must be "2\.0"/],
    ['{"jsonrpc":"2.0","id":"m","method":42}', "m", /method must be a string/],
    ['{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"x"}', 3, /params must be an object/],
    ['{"jsonrpc":"2.0","id":{"no":1},"method":"tools/list"}', null, /id must be a string or a number/],
    ['{"hello":"world"}', null, /jsonrpc must be "2\.0"/],
    ["42", null, /must be a JSON object/],
    // Lines of JSON values that are not objects: each is answered and the session goes on (a `null`
    // line once ended it: reading its id threw and ended the input).
    ["null", null, /must be a JSON object/],
    ["true", null, /must be a JSON object/],
    ['"ping"', null, /must be a JSON object/],
    ["[]", null, /batches are not supported/],
  ];
  for (const [line] of cases) await server.send(line);
  const answers = await answersUntilSync(server, before);
  assert.equal(answers.length, cases.length, JSON.stringify(answers));
  for (const [i, [line, id, message]] of cases.entries()) {
    const m = answers[i]!;
    assert.equal(m["id"], id, line);
    assert.equal(errorOf(m).code, -32600, line);
    assert.match(errorOf(m).message, message, line);
  }
  server.assertStdoutPure();
});

Deno.test("stdio framing: a batch array gets -32600 for each request id in it", async () => {
  await using dir = await tempDir();
  await using server = new RawStdioServer(stdioServer(dir.path, dir.file("jobs.db")));
  const before = server.messages.length;
  await server.send(JSON.stringify([
    { jsonrpc: "2.0", id: "b1", method: "tools/list", params: { _meta: modernMeta() } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: modernMeta() } },
  ]));
  const answers = await answersUntilSync(server, before);
  assert.deepEqual(answers.map((m) => m["id"]), ["b1", 7]);
  for (const m of answers) assert.equal(errorOf(m).code, -32600);
});

Deno.test("stdio framing: an invalid response is never answered", async () => {
  await using dir = await tempDir();
  await using server = new RawStdioServer(stdioServer(dir.path, dir.file("jobs.db")));
  const before = server.messages.length;
  await server.send('{"jsonrpc":"2.0","id":true,"result":{}}');
  await server.send('{"jsonrpc":"2.0","id":5,"error":"not an object"}');
  assert.deepEqual(await answersUntilSync(server, before), []);
});

Deno.test(`stdio framing: a line of ${MCP_MESSAGE_BYTES_MAX} bytes is served; one byte more is answered and skipped while a job keeps running`, async () => {
  await using dir = await tempDir();
  await using server = new RawStdioServer(stdioServer(dir.path, dir.file("jobs.db")));
  const started = await server.modern("tools/call", { name: "test.sleep", arguments: { ms: 60_000, steps: 600 } });
  const jobId = ((started["result"] as Json)["structuredContent"] as Json)["id"] as string;
  const stateOf = async () => {
    const got = await server.modern("tools/call", { name: "jobs.get", arguments: { ids: [jobId] } });
    const item = (((got["result"] as Json)["structuredContent"] as Json)["items"] as Json[])[0]!;
    return item["value"] as Json;
  };
  for (let i = 0; (await stateOf())["execution_state"] !== "running"; i++) {
    assert.ok(i < 500, "the job starts");
    await new Promise((r) => setTimeout(r, 20));
  }

  const at = server.waitFor("at-bound reply", (m) => m.id === "at-bound");
  await server.send(lineOf("at-bound", MCP_MESSAGE_BYTES_MAX));
  assert.ok(Array.isArray(((await at)["result"] as Json)["tools"]));

  for (const [id, idLast] of [["over-first", false], ["over-last", true]] as const) {
    const over = server.waitFor(`${id} reply`, (m) => m.id === id);
    await server.send(lineOf(id, MCP_MESSAGE_BYTES_MAX + 1, { idLast }));
    const e = errorOf(await over);
    assert.equal(e.code, -32600);
    assert.match(
      e.message,
      new RegExp(`at most ${MCP_MESSAGE_BYTES_MAX} bytes .*\\(${MCP_MESSAGE_BYTES_MAX + 1} bytes\\) was skipped`),
    );
  }
  // Far over the bound, and split across many writes: still one answer, no id readable in the middle.
  const before = server.messages.length;
  const huge = new TextEncoder().encode(`{"pad":"${"y".repeat(3 * MCP_MESSAGE_BYTES_MAX)}"}\n`);
  for (let i = 0; i < huge.length; i += 65_536) await server.sendBytes(huge.subarray(i, i + 65_536));
  const answers = await answersUntilSync(server, before);
  assert.equal(answers.length, 1);
  assert.equal(answers[0]?.["id"], null);
  assert.equal(errorOf(answers[0]!).code, -32600);

  const state = await stateOf();
  assert.equal(state["execution_state"], "running", "the running job was not interrupted");
  assert.equal(state["error"], undefined);
  await server.modern("tools/call", { name: "jobs.cancel", arguments: { ids: [jobId] } });
  server.assertStdoutPure();
});

Deno.test("stdio framing: requests written just before the end of stdin are still answered, then the server exits 0", async () => {
  await using dir = await tempDir();
  const server = new RawStdioServer(stdioServer(dir.path, dir.file("jobs.db")));
  const ids = ["e1", "e2", "e3"];
  await server.send(
    ids.map((id) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: modernMeta() } })).join(
      "\n",
    ),
  );
  await server.endStdin();
  const status = await server.exited();
  assert.equal(status.code, 0);
  assert.deepEqual(server.messages.map((m) => m.id), ids);
});

/** How long a stdin probe may take before it is killed (it takes well under a second). */
const STDIN_PROBE_TIMEOUT_MS = 20_000;

/** Runs tests/helpers/stdin_chunks_probe.ts in `mode`; `feed` writes its stdin (and may leave it open). */
async function stdinProbe(
  mode: "all" | "cancel",
  feed: (stdin: WritableStreamDefaultWriter<Uint8Array>) => Promise<void>,
): Promise<Json> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", new URL("./helpers/stdin_chunks_probe.ts", import.meta.url).pathname, mode],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    // A probe stuck on a read that cancel did not end is killed here, and fails below.
    signal: AbortSignal.timeout(STDIN_PROBE_TIMEOUT_MS),
  }).spawn();
  const stdin = child.stdin.getWriter();
  await feed(stdin);
  const out = await child.output();
  await stdin.close().catch(() => {}); // cancel mode: left open until the child has ended on its own
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `the probe failed: ${stderr}`);
  return JSON.parse(new TextDecoder().decode(out.stdout)) as Json;
}

Deno.test(`stdio framing: stdin is read in chunks of at most STDIO_READ_CHUNK_BYTES (${STDIO_READ_CHUNK_BYTES}), each its own copy`, async () => {
  // Three reads' worth and one byte more, as one write: at least four chunks, none over the bound.
  const input = new Uint8Array(3 * STDIO_READ_CHUNK_BYTES + 1).map((_, i) => (i * 7 + (i >> 13)) & 0xff);
  let sum = 0;
  for (const b of input) sum = (sum * 31 + b) >>> 0;
  const seen = await stdinProbe("all", async (stdin) => {
    await stdin.write(input);
    await stdin.close();
  });
  const sizes = seen["sizes"] as number[];
  assert.ok(sizes.length >= 4, `expected at least 4 chunks, got ${sizes.join(", ")}`);
  assert.ok(sizes.every((n) => n > 0 && n <= STDIO_READ_CHUNK_BYTES), `chunk sizes ${sizes.join(", ")}`);
  assert.equal(seen["bytes"], input.length);
  assert.equal(seen["sum"], sum, "the chunks kept until the end hold the bytes read, in order");
});

Deno.test("stdio framing: cancelling the stdin reader ends a pending read, and the process exits on its own", async () => {
  const seen = await stdinProbe("cancel", (stdin) => stdin.write(new TextEncoder().encode("first\n")));
  assert.deepEqual(seen, { first: "first\n", pending_done: true, after_done: true });
});
