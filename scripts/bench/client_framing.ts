/**
 * What the bench's own client spends framing one answer line, apart from the server: the official SDK's
 * `ReadBuffer` (the framing of its stdio client transport) fed the line in the reads a pipe gives it, and the
 * part of that which is `Buffer.indexOf("\n")` over the bytes it searches. Both run in this process, so in
 * Deno's `node:buffer`; {@linkcode nodeSearchMs} times the same search in Node (scripts/bench/node_newline_search.mjs),
 * where every Node-based host frames its lines.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { fileURLToPath } from "node:url";
import { ReadBuffer } from "@modelcontextprotocol/client";
import { median } from "./store/harness.ts";
import { nodeJson } from "./node_run.ts";

const NODE_NEWLINE_SEARCH = fileURLToPath(new URL("./node_newline_search.mjs", import.meta.url));

/** How a line reaches the client, and how many timed framings after as many warm-up ones. */
export interface FramingOptions {
  /** The most one read gives: a pipe's capacity. */
  readBytesMax: number;
  samples: number;
}

/** `line` cut as reads of at most `readBytesMax` bytes deliver it. */
export function readsOf(line: Uint8Array, readBytesMax: number): Uint8Array[] {
  if (!Number.isInteger(readBytesMax) || readBytesMax < 1) {
    throw new RangeError(
      `Cannot cut a line into reads: readBytesMax must be a positive integer, current value is ${readBytesMax}`,
    );
  }
  const reads: Uint8Array[] = [];
  for (let at = 0; at < line.length; at += readBytesMax) reads.push(line.subarray(at, at + readBytesMax));
  return reads;
}

/**
 * The bytes the SDK's ReadBuffer searches for the newline while `line` arrives in `reads`: after each read it
 * searches its whole buffer from the start, so each read's search covers every byte read so far.
 */
export function searchedBytes(reads: readonly Uint8Array[]): number {
  let buffered = 0;
  let searched = 0;
  for (const read of reads) {
    buffered += read.length;
    searched += buffered;
  }
  return searched;
}

/** Median ms of `run` over `samples` calls, after as many unmeasured ones. */
function medianMs(samples: number, run: () => void): number {
  for (let i = 0; i < samples; i++) run();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  return median(times);
}

/**
 * Median ms for the SDK's ReadBuffer to frame `line` (one JSON-RPC message and its newline) arriving in reads of
 * at most `readBytesMax`: append each read, ask for a message after each, as its stdio transport does. Throws if
 * the line is not exactly one message.
 */
export function readBufferMs(line: Uint8Array, options: FramingOptions): number {
  const reads = readsOf(line, options.readBytesMax).map((read) => Buffer.from(read));
  return medianMs(options.samples, () => {
    const buffer = new ReadBuffer();
    let messages = 0;
    for (const read of reads) {
      buffer.append(read);
      while (buffer.readMessage() !== null) messages++;
    }
    if (messages !== 1) throw new Error(`bench: the line framed as ${messages} messages`);
  });
}

/** What the ReadBuffer has buffered when it searches: `line` up to the end of each of its `reads`. */
function prefixesOf(line: Uint8Array, readBytesMax: number): Buffer[] {
  const prefixes: Buffer[] = [];
  let end = 0;
  for (const read of readsOf(line, readBytesMax)) {
    end += read.length;
    prefixes.push(Buffer.from(line.buffer, line.byteOffset, end));
  }
  return prefixes;
}

/** Median ms of the ReadBuffer's own newline searches for `line` (as {@linkcode searchedBytes} counts them). */
export function denoSearchMs(line: Uint8Array, options: FramingOptions): number {
  const prefixes = prefixesOf(line, options.readBytesMax);
  return medianMs(options.samples, () => {
    let found = -1;
    for (const prefix of prefixes) found = prefix.indexOf("\n");
    if (found !== line.length - 1) throw new Error(`bench: newline found at ${found}, not at the line's end`);
  });
}

/** The same searches in Node (`options.node`, the command run), or why they were not measured. */
export async function nodeSearchMs(
  line: Uint8Array,
  options: FramingOptions & { dir: string; node: string },
): Promise<number | { skipped: string }> {
  const { dir, node, readBytesMax, samples } = options;
  const path = `${dir}/newline-search.line`;
  await Deno.writeFile(path, line);
  const out = await nodeJson<{ medianMs: number }>(node, {
    script: NODE_NEWLINE_SEARCH,
    args: [path, String(readBytesMax), String(samples)],
  });
  return "skipped" in out ? out : out.medianMs;
}
