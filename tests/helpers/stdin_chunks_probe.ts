/**
 * Reads this process's stdin through `stdinChunks` (src/mcp/stdio_framing.ts) and prints one JSON
 * line of what it saw. Spawned by tests/stdio_framing_test.ts.
 *
 * - `all`: reads to the end of input, keeping every chunk until the end (a chunk that shared the
 *   read buffer would be overwritten by later reads), and prints the chunk sizes and the bytes' sum.
 * - `cancel`: reads the first chunk, starts another read, cancels while it is pending, and prints
 *   both results; the process then ends on its own, with no `Deno.exit`, so a read left pending
 *   would keep it alive.
 *
 * @module
 */

import { stdinChunks } from "../../src/mcp/stdio_framing.ts";

const reader = stdinChunks().getReader();
if (Deno.args[0] === "all") {
  const chunks: Uint8Array[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  let sum = 0, bytes = 0;
  for (const chunk of chunks) {
    for (const b of chunk) sum = (sum * 31 + b) >>> 0;
    bytes += chunk.length;
  }
  console.log(JSON.stringify({ sizes: chunks.map((c) => c.length), bytes, sum }));
} else {
  const first = await reader.read();
  const pending = reader.read();
  await reader.cancel();
  const cancelled = await pending;
  const after = await reader.read();
  console.log(JSON.stringify({
    first: first.done ? null : new TextDecoder().decode(first.value),
    pending_done: cancelled.done,
    after_done: after.done,
  }));
}
