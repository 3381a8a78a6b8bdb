import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/server";
import { silentLogger } from "../base/log.ts";
import type { LineIo } from "./stdio_framing.ts";
import { observedStdio, serveOnStdio } from "./transports.ts";

/** An io reading `lines` (then the end of input) and keeping what is written, with every event in `events`. */
function memoryIo(lines: readonly string[], events: string[]): LineIo & { written: string[] } {
  const written: string[] = [];
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const line of lines) c.enqueue(new TextEncoder().encode(line + "\n"));
      c.close();
    },
  });
  return {
    input,
    written,
    onChunk: () => void events.push("io chunk"),
    write: (bytes) => {
      events.push("io write");
      written.push(new TextDecoder().decode(bytes));
      return Promise.resolve();
    },
  };
}

Deno.test("observedStdio: without onActivity it is the io itself", () => {
  const io = memoryIo([], []);
  assert.equal(observedStdio(io, undefined), io);
});

Deno.test("observedStdio: onActivity hears each chunk after the io's own onChunk, and each write before it", async () => {
  const events: string[] = [];
  const io = memoryIo([], events);
  const observed = observedStdio(io, () => void events.push("activity"));
  observed.onChunk?.();
  await observed.write(new TextEncoder().encode("x\n"));
  assert.deepEqual(events, ["io chunk", "activity", "activity", "io write"]);
  assert.deepEqual(io.written, ["x\n"]);

  const bare: LineIo = { input: io.input, write: () => Promise.resolve() };
  const heard: string[] = [];
  observedStdio(bare, () => void heard.push("activity")).onChunk?.();
  assert.deepEqual(heard, ["activity"], "an io without onChunk: onActivity alone");
});

Deno.test("serveOnStdio: options.io is what is served, read and written through the activity observer", async () => {
  const events: string[] = [];
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
  };
  const io = memoryIo([JSON.stringify(initialize)], events);
  const serving = serveOnStdio(() => new McpServer({ name: "t", version: "0.0.0" }), {
    log: silentLogger,
    onActivity: () => void events.push("activity"),
    io,
  });
  await serving.closed;
  assert.equal(io.written.length, 1, "the initialize answer went to the given io");
  const answer = JSON.parse(io.written[0] ?? "") as { id: number; result: { serverInfo: { name: string } } };
  assert.equal(answer.id, 1);
  assert.equal(answer.result.serverInfo.name, "t");
  assert.deepEqual(events, ["io chunk", "activity", "activity", "io write"]);
  await serving.close();
});
