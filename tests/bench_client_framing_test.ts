/**
 * The bench's account of its own client's framing: scripts/bench/client_framing.ts, with the official SDK's
 * ReadBuffer and the machine's real `node` (scripts/bench/node_newline_search.mjs).
 */

import assert from "node:assert/strict";
import { denoSearchMs, nodeSearchMs, readBufferMs, readsOf, searchedBytes } from "../scripts/bench/client_framing.ts";
import { tempDir } from "../testing/temp.ts";

/** One JSON-RPC result line of about `bytes` bytes (its newline last). */
function lineOf(bytes: number): Uint8Array {
  const head = `{"jsonrpc":"2.0","id":1,"result":{"text":"`;
  const tail = `"}}\n`;
  return new TextEncoder().encode(head + "x".repeat(bytes - head.length - tail.length) + tail);
}

const options = { readBytesMax: 1_000, samples: 3 };

Deno.test("readsOf: cuts a line into reads of at most the bound, the last one shorter; a bound under 1 is refused", () => {
  const line = lineOf(2_500);
  assert.deepEqual(readsOf(line, 1_000).map((read) => read.length), [1_000, 1_000, 500]);
  assert.deepEqual(readsOf(line, 2_500).map((read) => read.length), [2_500]);
  assert.deepEqual(readsOf(line, 2_499).map((read) => read.length), [2_499, 1]);
  assert.throws(() => readsOf(line, 0), RangeError);
  assert.throws(() => readsOf(line, 1.5), RangeError);
});

Deno.test("searchedBytes: each read's search covers every byte read so far", () => {
  const line = lineOf(2_500);
  assert.equal(searchedBytes(readsOf(line, 1_000)), 1_000 + 2_000 + 2_500);
  assert.equal(searchedBytes(readsOf(line, 2_500)), 2_500);
});

Deno.test("readBufferMs: times the SDK's framing of one message; a line of two messages or of none is refused", () => {
  const ms = readBufferMs(lineOf(2_500), options);
  assert.ok(ms > 0 && Number.isFinite(ms), String(ms));
  const two = new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n`);
  assert.throws(() => readBufferMs(two, options), /framed as 2 messages/);
  const none = lineOf(2_500).subarray(0, 2_499);
  assert.throws(() => readBufferMs(none, options), /framed as 0 messages/);
});

Deno.test("denoSearchMs: times the searches of a line; a newline before the line's end is refused", () => {
  const ms = denoSearchMs(lineOf(2_500), options);
  assert.ok(ms > 0 && Number.isFinite(ms), String(ms));
  const early = lineOf(2_500);
  early[10] = 0x0a;
  assert.throws(() => denoSearchMs(early, options), /newline found at 10/);
});

Deno.test("nodeSearchMs: the same searches in the real node; no node is reported, a bad line fails the run", async () => {
  await using temp = await tempDir("longcall-client-framing-");
  const dir = temp.path;
  const ms = await nodeSearchMs(lineOf(2_500), { ...options, dir, node: "node" });
  assert.ok(typeof ms === "number" && ms >= 0 && Number.isFinite(ms), String(ms));
  assert.deepEqual(await nodeSearchMs(lineOf(2_500), { ...options, dir, node: "longcall-no-such-node" }), {
    skipped: "no longcall-no-such-node on PATH",
  });
  const early = lineOf(2_500);
  early[10] = 0x0a;
  await assert.rejects(nodeSearchMs(early, { ...options, dir, node: "node" }), /node_newline_search\.mjs failed/);
});
