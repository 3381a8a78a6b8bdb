/**
 * LineTransport (src/mcp/stdio_framing.ts) over in-memory streams: the line splitter and its
 * answers, the line bound at and past the limit, the end-of-input drain, probeId, and messageLine (the
 * bytes of an answer line, written without serializing a recorded answer twice). The same
 * wire against a real server child: tests/stdio_framing_test.ts.
 */

import assert from "node:assert/strict";
import { type JSONRPCMessage, serializeMessage } from "@modelcontextprotocol/server";
import { ManualClock } from "../base/clock.ts";
import { MCP_MESSAGE_BYTES_MAX, STDIO_ID_PROBE_BYTES, STDIO_LINE_SCRATCH_CHARS_MAX } from "../base/limits.ts";
import { answerTextOf } from "./answer_text.ts";
import {
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_INVALID_REQUEST,
  JSONRPC_PARSE_ERROR,
  LineTransport,
  messageLine,
  probeId,
} from "./stdio_framing.ts";
import { okResult } from "./tool_kit.ts";

type Json = Record<string, unknown>;

/** A LineTransport over chunks given up front (split anywhere), with a small line bound. */
function chunkTransport(
  chunks: readonly (string | Uint8Array)[],
  lineBytesMax = 64,
  options: { requestsInFlightMax?: number } = {},
) {
  const written: Json[] = [];
  const delivered: JSONRPCMessage[] = [];
  const errors: string[] = [];
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk);
      c.close();
    },
  });
  const transport = new LineTransport({
    input,
    write: (bytes) => {
      written.push(JSON.parse(new TextDecoder().decode(bytes)) as Json);
      return Promise.resolve();
    },
  }, {
    lineBytesMax,
    ...options,
    drainAfterEofMs: 60_000,
    clock: new ManualClock(), // a delivered request is never answered here: its drain wait never ends nor leaks a timer
  });
  transport.onmessage = (m) => void delivered.push(m);
  transport.onerror = (e) => void errors.push(e.message);
  return { transport, written, delivered, errors };
}

/** A request line of exactly `bytes` bytes, newline included. */
function requestOf(id: number, bytes: number): string {
  const base = JSON.stringify({ jsonrpc: "2.0", id, method: "m", params: { p: "" } });
  const line = JSON.stringify({ jsonrpc: "2.0", id, method: "m", params: { p: "x".repeat(bytes - base.length - 1) } });
  assert.equal(new TextEncoder().encode(line).length + 1, bytes);
  return line + "\n";
}

async function run(t: ReturnType<typeof chunkTransport>): Promise<void> {
  await t.transport.start();
  await t.transport.inputEnded;
  await new Promise((resolve) => setTimeout(resolve, 0)); // answers handed over are written (microtasks)
}

Deno.test("LineTransport: io.onChunk hears each chunk as it is read, whatever it holds", async () => {
  const heard: number[] = [];
  const chunks = ['{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc"', ':"2.0","method":"b"}\n', "\n", "not json\n"];
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(new TextEncoder().encode(chunk));
      c.close();
    },
  });
  let delivered = 0;
  const transport = new LineTransport({
    input,
    write: () => Promise.resolve(),
    onChunk: () => void heard.push(delivered),
  }, { lineBytesMax: 64, drainAfterEofMs: 60_000, clock: new ManualClock() });
  transport.onmessage = () => void delivered++;
  await transport.start();
  await transport.inputEnded;
  // One call per chunk (the blank line and the invalid one too), each before that chunk's lines are handled.
  assert.deepEqual(heard, [0, 1, 2, 2]);
  assert.equal(delivered, 2);
});

Deno.test("LineTransport: a message split across reads is delivered whole; two in one read are two", async () => {
  const a = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
  const b = JSON.stringify({ jsonrpc: "2.0", method: "notifications/x" });
  const t = chunkTransport([a.slice(0, 5), a.slice(5) + "\n" + b + "\n\n   \n"], 1_000);
  await run(t);
  assert.deepEqual(t.delivered.map((m) => (m as { method: string }).method), [
    "notifications/initialized",
    "notifications/x",
  ]);
  assert.deepEqual(t.written, [], "blank lines get no answer");
});

Deno.test("LineTransport: a line of exactly lineBytesMax bytes is delivered; one byte more is answered -32600 with its id", async () => {
  const t = chunkTransport([requestOf(1, 64), requestOf(2, 65), requestOf(3, 64)], 64);
  await run(t);
  assert.deepEqual(t.delivered.map((m) => (m as { id: number }).id), [1, 3], "the session goes on after the skip");
  assert.equal(t.written.length, 1);
  const error = t.written[0]?.["error"] as { code: number; message: string };
  assert.equal(t.written[0]?.["id"], 2);
  assert.equal(error.code, JSONRPC_INVALID_REQUEST);
  assert.match(
    error.message,
    /^Request too large: a message line is at most 64 bytes \(newline included\); this one \(65 bytes\) was skipped$/,
  );
});

Deno.test("LineTransport: an over-long line arriving in many reads is skipped whole and its size counted", async () => {
  const line = requestOf(9, 300);
  const chunks = Array.from({ length: 30 }, (_, i) => line.slice(i * 10, i * 10 + 10));
  const t = chunkTransport(chunks, 64);
  await run(t);
  assert.deepEqual(t.delivered, []);
  assert.equal(t.written[0]?.["id"], 9, "the id read from the line's head");
  assert.match((t.written[0]?.["error"] as { message: string }).message, /this one \(300 bytes\) was skipped/);
});

Deno.test("LineTransport: an over-long line's id is read within STDIO_ID_PROBE_BYTES of either end, not one byte further", async () => {
  const padding = "x".repeat(400); // far over the 64-byte line bound
  // Head: `{"jsonrpc":"2.0","id":"<id>",` ends exactly at the probe bound, then one byte past it.
  const headPrefix = '{"jsonrpc":"2.0","id":"';
  const headAt = "h".repeat(STDIO_ID_PROBE_BYTES - headPrefix.length - 2);
  const headPast = headAt + "h";
  // Tail: `,"id":"<id>"}` starts exactly at the probe bound from the end, then one byte before it.
  const tailAt = "t".repeat(STDIO_ID_PROBE_BYTES - ',"id":"'.length - 2);
  const tailPast = tailAt + "t";
  const headLine = (id: string) => `${headPrefix}${id}","method":"m","params":{"p":"${padding}"}}\n`;
  const tailLine = (id: string) => `{"jsonrpc":"2.0","method":"m","params":{"p":"${padding}"},"id":"${id}"}\n`;
  const t = chunkTransport([headLine(headAt), headLine(headPast), tailLine(tailAt), tailLine(tailPast)], 64);
  await run(t);
  assert.deepEqual(t.delivered, []);
  assert.deepEqual(t.written.map((m) => m["id"]), [headAt, null, tailAt, null]);
  for (const m of t.written) assert.equal((m["error"] as { code: number }).code, JSONRPC_INVALID_REQUEST);
});

Deno.test("LineTransport: not JSON and not UTF-8 are -32700 with id null; not JSON-RPC is -32600 with the reason", async () => {
  const t = chunkTransport([
    "{nope\n",
    new Uint8Array([0xff, 0xfe, 0x0a]),
    '{"jsonrpc":"1.0","id":4,"method":"m"}\n',
    '{"jsonrpc":"2.0","id":5,"method":7}\n',
    '{"jsonrpc":"2.0","id":6,"method":"m","params":[1]}\n',
    "[]\n",
    '[{"jsonrpc":"2.0","id":7,"method":"m"},{"id":7},{"id":"b"}]\n',
    "null\n",
    '"m"\n',
  ], 1_000);
  await t.transport.start();
  await t.transport.closed; // nothing was delivered, so nothing is unanswered: every answer is written first
  const answers = t.written.map((w) => [w["id"], (w["error"] as { code: number; message: string }).code]);
  assert.deepEqual(answers, [
    [null, JSONRPC_PARSE_ERROR],
    [null, JSONRPC_PARSE_ERROR],
    [4, JSONRPC_INVALID_REQUEST],
    [5, JSONRPC_INVALID_REQUEST],
    [6, JSONRPC_INVALID_REQUEST],
    [null, JSONRPC_INVALID_REQUEST],
    [7, JSONRPC_INVALID_REQUEST],
    ["b", JSONRPC_INVALID_REQUEST],
    [null, JSONRPC_INVALID_REQUEST],
    [null, JSONRPC_INVALID_REQUEST],
  ]);
  const messages = t.written.map((w) => (w["error"] as { message: string }).message);
  assert.equal(messages[0], "Parse error: the line is not valid JSON");
  assert.equal(messages[1], "Parse error: the line is not valid UTF-8");
  assert.equal(messages[2], 'Invalid Request: jsonrpc must be "2.0", current value is "1.0"');
  assert.equal(messages[3], "Invalid Request: method must be a string");
  assert.equal(messages[4], "Invalid Request: params must be an object");
  assert.match(messages[5] ?? "", /batches are not supported/);
  assert.equal(messages[8], "Invalid Request: a message must be a JSON object");
  assert.equal(messages[9], "Invalid Request: a message must be a JSON object");
  assert.deepEqual(t.delivered, []);
});

Deno.test("LineTransport: a line whose handling throws is reported, its request answered -32603; later lines still delivered", async () => {
  const t = chunkTransport([
    '{"jsonrpc":"2.0","id":1,"method":"boom"}\n',
    '{"jsonrpc":"2.0","method":"notifications/boom"}\n',
    '{"jsonrpc":"2.0","id":2,"method":"m"}\n',
  ], 1_000);
  t.transport.onmessage = (m) => {
    if ((m as { method?: string }).method?.endsWith("boom")) throw new TypeError("handler broke");
    t.delivered.push(m);
  };
  await run(t);
  assert.deepEqual(t.delivered.map((m) => (m as { id?: unknown }).id), [2], "the line after the failures is delivered");
  assert.deepEqual(t.written, [{
    jsonrpc: "2.0",
    id: 1,
    error: { code: JSONRPC_INTERNAL_ERROR, message: "Internal error: the request could not be handled" },
  }], "the failed request is answered; the failed notification is not");
  assert.equal(t.errors.filter((e) => e === "a line failed: handler broke").length, 2, t.errors.join("; "));
  // Should the server answer the request it threw on after all, that second answer is not written.
  await t.transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(t.written.length, 1, "request 1 is answered once");
});

Deno.test("LineTransport: an invalid response is reported, never answered; a partial last line is reported and dropped", async () => {
  const t = chunkTransport(['{"jsonrpc":"2.0","id":true,"result":{}}\n', '{"jsonrpc":"2.0","id":1,"meth'], 1_000);
  await run(t);
  assert.deepEqual(t.written, []);
  assert.ok(t.errors.some((e) => e.startsWith("dropped an invalid response")), t.errors.join("; "));
  assert.ok(t.errors.includes("stdin ended inside a line; the partial line was dropped"), t.errors.join("; "));
});

Deno.test("LineTransport: past requestsInFlightMax unanswered requests no more input is read until one is answered", async () => {
  const request = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "m" }) + "\n";
  // All in one chunk: the bound holds between the lines of a chunk too.
  const t = chunkTransport([[1, 2, 3, 4, 5].map(request).join("") + '{"jsonrpc":"2.0","method":"n"}\n'], 1_000, {
    requestsInFlightMax: 3,
  });
  await t.transport.start();
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
  const ids = () => t.delivered.map((m) => (m as { id?: unknown }).id ?? "n");
  await turn();
  assert.deepEqual(ids(), [1, 2, 3], "three in flight: the fourth waits");
  await t.transport.send({ jsonrpc: "2.0", id: 2, result: {} });
  await turn();
  assert.deepEqual(ids(), [1, 2, 3, 4], "one answered: one more read");
  await t.transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  await t.transport.send({ jsonrpc: "2.0", id: 3, result: {} });
  await turn();
  assert.deepEqual(ids(), [1, 2, 3, 4, 5, "n"], "room again: the rest, the notification too");
  await t.transport.close();
});

Deno.test("LineTransport: at the in-flight bound a notification still passes (a cancel frees its request's slot)", async () => {
  const request = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "m" }) + "\n";
  const cancel = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } }) + "\n";
  const t = chunkTransport([request(1) + request(2) + request(3) + cancel + request(4)], 1_000, {
    requestsInFlightMax: 3,
  });
  await t.transport.start();
  await new Promise((resolve) => setTimeout(resolve, 0));
  const seen = t.delivered.map((m) => (m as { id?: unknown; method?: string }).id ?? (m as { method?: string }).method);
  assert.deepEqual(seen, [1, 2, 3, "notifications/cancelled", 4], "the cancel passed, and made room for 4");
  await t.transport.close();
});

Deno.test("LineTransport: answers a host does not read count against requestsInFlightMax until written", async () => {
  const request = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "m" }) + "\n";
  const writes: (() => void)[] = [];
  const delivered: unknown[] = [];
  const transport = new LineTransport({
    input: new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode([1, 2, 3, 4].map(request).join("")));
        c.close();
      },
    }),
    // stdout full: each write finishes only when the test says so.
    write: () => new Promise<void>((resolve) => writes.push(resolve)),
  }, { requestsInFlightMax: 2, drainAfterEofMs: 60_000, clock: new ManualClock() });
  transport.onmessage = (m) => {
    delivered.push((m as { id?: unknown }).id);
    void transport.send({ jsonrpc: "2.0", id: (m as { id: number }).id, result: {} });
  };
  await transport.start();
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
  await turn();
  assert.deepEqual(delivered, [1, 2], "answered at once, but two answers wait for stdout");
  writes.shift()?.();
  await turn();
  assert.deepEqual(delivered, [1, 2, 3], "one written: one more read");
  while (writes.length > 0) {
    writes.shift()?.();
    await turn();
  }
  assert.deepEqual(delivered, [1, 2, 3, 4]);
  await transport.closed;
});

Deno.test("LineTransport: requestsInFlightMax 1 is accepted; 0 and 1.5 are refused with RangeError", () => {
  const io = { input: new ReadableStream<Uint8Array>(), write: () => Promise.resolve() };
  new LineTransport(io, { requestsInFlightMax: 1 });
  for (const bad of [0, 1.5]) {
    assert.throws(() => new LineTransport(io, { requestsInFlightMax: bad }), RangeError, String(bad));
  }
});

Deno.test("LineTransport: lineBytesMax 2 is accepted; 1 and 1.5 are refused with RangeError", () => {
  const io = { input: new ReadableStream<Uint8Array>(), write: () => Promise.resolve() };
  new LineTransport(io, { lineBytesMax: 2 });
  for (const bad of [1, 1.5]) {
    assert.throws(
      () => new LineTransport(io, { lineBytesMax: bad }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message === `Cannot frame stdio: lineBytesMax must be an integer >= 2, current value is ${bad}`,
    );
  }
});

Deno.test("LineTransport: start() twice throws; send() after close rejects; close() is idempotent", async () => {
  const t = chunkTransport([], 64);
  let closes = 0;
  t.transport.onclose = () => closes++;
  await t.transport.start();
  assert.throws(() => void t.transport.start(), /already started/);
  await t.transport.closed;
  await t.transport.close();
  assert.equal(closes, 1);
  await assert.rejects(t.transport.send({ jsonrpc: "2.0", id: 1, result: {} }), /LineTransport is closed/);
});

Deno.test("probeId() reads an id only where it is certainly top-level", () => {
  assert.equal(probeId('{"jsonrpc":"2.0","id":12,"method":"x","params":{', ""), 12);
  assert.equal(probeId('{"id":"a\\"b","method"', ""), 'a"b');
  assert.equal(probeId('{"method":"x","params":{"id":3', ""), null);
  assert.equal(probeId("", 'x"}},"jsonrpc":"2.0","id":"last"}'), "last");
  assert.equal(probeId("", ',"id":4} '), 4);
  assert.equal(probeId("", ',"id":4},"more":1}'), null);
  assert.equal(probeId("", 'xx,\\"id\\":5}"}'), null);
});

/**
 * A LineTransport over in-memory streams: `lines`, then the end of the input; the drain bound
 * (`options.drainAfterEofMs`) on `options.clock`.
 */
function memoryTransport(lines: string[], options: { drainAfterEofMs: number; clock: ManualClock }) {
  const { drainAfterEofMs, clock } = options;
  const written: string[] = [];
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(lines.map((l) => l + "\n").join("")));
      c.close();
    },
  });
  const transport = new LineTransport({
    input,
    write: (bytes) => {
      written.push(new TextDecoder().decode(bytes));
      return Promise.resolve();
    },
  }, { lineBytesMax: MCP_MESSAGE_BYTES_MAX, drainAfterEofMs, clock });
  let closed = false;
  transport.onclose = () => closed = true;
  return { transport, written, isClosed: () => closed };
}

/** Lets every queued microtask and 0-ms timer run (no time passes on the injected clock). */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("LineTransport: after the end of input it waits for an unanswered request and closes once it is answered", async () => {
  const clock = new ManualClock();
  const request = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  const { transport, written, isClosed } = memoryTransport([request], { drainAfterEofMs: 60_000, clock });
  const delivered: number[] = [];
  transport.onmessage = (m) => void delivered.push((m as { id: number }).id);
  await transport.start();
  await transport.inputEnded;
  await tick();
  assert.equal(isClosed(), false, "input ended, but a request is still unanswered");
  assert.equal(clock.pendingSleeps, 1, "the drain bound is running");
  clock.advance(60_000 - 1);
  await tick();
  assert.equal(isClosed(), false, "1 ms before the drain bound it still waits");
  await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  await transport.closed;
  assert.deepEqual(delivered, [1]);
  assert.deepEqual(written.map((w) => JSON.parse(w).id), [1], "the answer is written before the close");
  assert.equal(clock.pendingSleeps, 0, "the drain bound was released");
});

Deno.test("LineTransport: a request never answered is waited for exactly the drain bound, then the transport closes", async () => {
  const clock = new ManualClock();
  const request = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  const { transport, written, isClosed } = memoryTransport([request], { drainAfterEofMs: 100, clock });
  let delivered = 0;
  transport.onmessage = () => delivered++;
  await transport.start();
  await transport.inputEnded;
  await tick();
  assert.equal(clock.pendingSleeps, 1, "the drain bound is running");
  clock.advance(99);
  await tick();
  assert.equal(isClosed(), false, "not a millisecond before the bound");
  clock.advance(1);
  await transport.closed;
  assert.equal(delivered, 1);
  assert.deepEqual(written, []);
  await assert.rejects(transport.send({ jsonrpc: "2.0", id: 1, result: {} }), /closed/);
});

Deno.test("LineTransport: a request the client cancelled is not waited for at the end of input", async () => {
  // The SDK never answers a cancelled request. With time frozen and a drain bound of 60 s, closing at
  // all proves the transport forgot it on notifications/cancelled (no drain wait was even started).
  const clock = new ManualClock();
  const request = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "jobs.get" } });
  const cancel = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } });
  const { transport, written, isClosed } = memoryTransport([request, cancel], { drainAfterEofMs: 60_000, clock });
  const seen: string[] = [];
  transport.onmessage = (m) => void seen.push((m as { method: string }).method);
  await transport.start();
  await transport.inputEnded;
  await tick();
  assert.equal(isClosed(), true, "closed without waiting for the cancelled request");
  assert.equal(clock.pendingSleeps, 0, "no drain wait was started");
  assert.deepEqual(seen, ["tools/call", "notifications/cancelled"], "both still reach the server");
  assert.deepEqual(written, []);
});

/** What the SDK's framing writes for `message`: its JSON and a newline, encoded at once. */
const sdkLine = (message: unknown) => new TextEncoder().encode(serializeMessage(message as JSONRPCMessage));

/** A jobs.get-like tool result made by okResult (its answer's JSON recorded), in a response. */
function batchResponse(extra: Record<string, unknown> = {}) {
  const items = Array.from({ length: 100 }, (_, i) => ({
    key: `k${i}`,
    item_status: "complete",
    value: {
      kind: "k",
      summary: `q" b\\ n\n c\u0001 é 🙂 \ud800 ${i}`,
      completed_items: i + 1,
    },
  }));
  const result = okResult({ batch_status: "complete", items });
  return { result: { ...result, ...extra }, jsonrpc: "2.0", id: 42 };
}

Deno.test("messageLine(): a recorded answer is written as its text, byte for byte what serializing the message gives", () => {
  const response = batchResponse();
  assert.ok(answerTextOf(response.result.structuredContent as Record<string, unknown>) !== undefined, "recorded");
  assert.deepEqual(messageLine(response as unknown as JSONRPCMessage), sdkLine(response));
  // The 2025 era's result validation hands over a shallow copy of the result and of its structuredContent.
  const copied = {
    ...response,
    result: { ...response.result, structuredContent: { ...response.result.structuredContent } },
  };
  assert.deepEqual(messageLine(copied as unknown as JSONRPCMessage), sdkLine(copied));
  // Members around the structuredContent (the 2026 era's _meta, before and after it) keep their places.
  const meta = { "io.modelcontextprotocol/serverInfo": { name: "longcall", version: "1" } };
  const before = { ...response, result: { _meta: meta, ...response.result } };
  const after = batchResponse({ _meta: meta });
  for (const m of [before, after]) assert.deepEqual(messageLine(m as unknown as JSONRPCMessage), sdkLine(m));
});

Deno.test("messageLine(): an answer changed after okResult, or a string equal to the token, is serialized in full", () => {
  const response = batchResponse();
  const changed = {
    ...response,
    result: {
      ...response.result,
      structuredContent: { ...response.result.structuredContent, batch_status: "partial" },
    },
  };
  assert.equal(answerTextOf(changed.result.structuredContent), undefined);
  assert.deepEqual(messageLine(changed as unknown as JSONRPCMessage), sdkLine(changed));
  const token = "\u0000longcall:structuredContent\u0000";
  const colliding = batchResponse({ _meta: { note: token } });
  assert.deepEqual(messageLine(colliding as unknown as JSONRPCMessage), sdkLine(colliding));
  const plain = { jsonrpc: "2.0", id: "x", result: { tools: [{ name: token }] } };
  assert.deepEqual(messageLine(plain as unknown as JSONRPCMessage), sdkLine(plain));
});

Deno.test(`messageLine(): lines at and past STDIO_LINE_SCRATCH_CHARS_MAX (${STDIO_LINE_SCRATCH_CHARS_MAX} units) are the SDK's bytes`, () => {
  const base = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { s: "" } }).length + 1; // with the newline
  for (const chars of [STDIO_LINE_SCRATCH_CHARS_MAX, STDIO_LINE_SCRATCH_CHARS_MAX + 1]) {
    const message = { jsonrpc: "2.0", id: 1, result: { s: "é".repeat(chars - base) } };
    assert.equal(serializeMessage(message as unknown as JSONRPCMessage).length, chars);
    assert.deepEqual(messageLine(message as unknown as JSONRPCMessage), sdkLine(message));
  }
  // A short line after a long one: the reused scratch never leaks bytes of the previous line.
  const short = { jsonrpc: "2.0", id: 2, result: {} };
  assert.deepEqual(messageLine(short as unknown as JSONRPCMessage), sdkLine(short));
});

Deno.test("messageLine(): once its line is made, okResult's own result is emptied and its answer forgotten", () => {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, item_status: "complete", value: { n: i } }));
  const result = okResult({ batch_status: "complete", items });
  const structured = result.structuredContent as Record<string, unknown>;
  // What the SDK writes: its validated copy of the result (the 2025 era), not okResult's object.
  const response = {
    result: { content: [...result.content], structuredContent: { ...structured } },
    jsonrpc: "2.0",
    id: 7,
  };
  const expected = sdkLine(response);
  assert.deepEqual(messageLine(response as unknown as JSONRPCMessage), expected);
  assert.deepEqual(result.content, [], "the original result no longer holds the text");
  assert.equal("structuredContent" in result, false, "nor the answer");
  assert.equal(answerTextOf(structured), undefined, "the answer is forgotten");
  assert.deepEqual(
    messageLine(response as unknown as JSONRPCMessage),
    expected,
    "written again, it is serialized whole",
  );
});

Deno.test("messageLine(): a message that only shares an answer's members in another form releases nothing", () => {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, item_status: "complete", value: { n: i } }));
  const result = okResult({ batch_status: "complete", items });
  const other = {
    jsonrpc: "2.0",
    id: 8,
    result: { content: [], structuredContent: { items, batch_status: "complete" } },
  };
  assert.deepEqual(messageLine(other as unknown as JSONRPCMessage), sdkLine(other));
  assert.equal(result.content.length, 1, "the recorded result is untouched");
  assert.ok(answerTextOf(result.structuredContent as Record<string, unknown>) !== undefined, "and still recorded");
});

Deno.test("messageLine(): an answer returned twice before its first line is written empties neither result", () => {
  const items = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, item_status: "complete", value: { n: i } }));
  const answer = { batch_status: "complete", items };
  const first = okResult(answer);
  const second = okResult(answer); // e.g. a tool answering two concurrent calls with one cached answer
  const response = { result: { ...first, structuredContent: { ...answer } }, jsonrpc: "2.0", id: 9 };
  assert.deepEqual(messageLine(response as unknown as JSONRPCMessage), sdkLine(response));
  assert.equal(first.content.length, 1);
  assert.equal(second.content.length, 1, "the second result, not written yet, keeps its content");
  assert.equal(second.structuredContent, answer);
});
