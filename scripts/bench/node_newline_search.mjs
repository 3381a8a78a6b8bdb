// Node's side of scripts/bench/client_framing.ts: the newline searches the MCP SDK's ReadBuffer makes while one
// line arrives in reads of at most READ_BYTES_MAX bytes (after each read it searches its whole buffer with
// Buffer.indexOf("\n")), timed in Node, where Node-based hosts frame their lines. Prints one JSON object:
//   { medianMs: <median ms of one line's searches over SAMPLES, after as many unmeasured> }
//
//   node scripts/bench/node_newline_search.mjs LINE_FILE READ_BYTES_MAX SAMPLES
//
// Plain JavaScript with Node's own modules only (Node 20 runs it as it is). Exits 1 with a one-line reason if
// the file's only newline is not its last byte.

import { readFileSync } from "node:fs";

const [path, readBytesMax, samples] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const line = readFileSync(path);
// What the ReadBuffer holds at each search: the line up to the end of each read.
const buffers = [];
for (let end = 0; end < line.length;) {
  end = Math.min(end + readBytesMax, line.length);
  buffers.push(line.subarray(0, end));
}
const search = () => {
  let found = -1;
  for (const buffer of buffers) found = buffer.indexOf("\n");
  return found;
};
if (search() !== line.length - 1) {
  process.stderr.write(`node_newline_search: ${path} is not one line ending in its only newline\n`);
  process.exit(1);
}
for (let i = 0; i < samples; i++) search();
const times = [];
for (let i = 0; i < samples; i++) {
  const start = performance.now();
  search();
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
const mid = times.length >> 1;
const medianMs = times.length % 2 === 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
process.stdout.write(`${JSON.stringify({ medianMs })}\n`);
