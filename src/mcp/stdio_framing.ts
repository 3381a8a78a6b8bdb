/**
 * The stdio wire: newline-delimited JSON-RPC on stdin/stdout, handed to the SDK's `serveStdio`
 * through its documented `transport` option. Unlike the SDK's default transport, every line
 * that is not a valid JSON-RPC 2.0 message gets an answer instead of silence, and a line over
 * the bound is skipped (with an answer) instead of closing the session:
 *
 * | line                                            | answer                                         |
 * |-------------------------------------------------|------------------------------------------------|
 * | not JSON, or not UTF-8                          | `-32700` Parse error, id `null`                |
 * | JSON but not a request/notification/response    | `-32600` Invalid Request, its id when readable |
 * | a batch (JSON array; MCP has no batches)        | `-32600` per element id (or one with `null`)   |
 * | over {@linkcode MCP_MESSAGE_BYTES_MAX} bytes    | `-32600` Request too large, its id if readable |
 * | an invalid response (no method)                 | none (a response is never answered); logged    |
 * | blank                                           | none                                           |
 *
 * A line whose handling throws is reported (and, if a request, answered `-32603`); it never ends the input.
 * At most {@linkcode STDIO_REQUESTS_IN_FLIGHT_MAX} requests unanswered and answers unwritten are held: past that,
 * no further request is handed on (notifications and responses still are) until one is answered or written,
 * so a host pipelining requests without reading the answers fills its own pipe rather than this process's
 * memory.
 *
 * End of input: when stdin ends (EOF or a read error) `inputEnded` resolves; the requests already
 * read are still answered (for at most {@linkcode STDIO_DRAIN_AFTER_EOF_MS}), then the transport
 * closes itself (`onclose`, `closed`) as the SDK's own stdio transport does.
 *
 * @module
 */

import { type JSONRPCMessage, parseJSONRPCMessage, type Transport } from "@modelcontextprotocol/server";
import { type Clock, systemClock } from "../base/clock.ts";
import { answerTextOf, releaseAnswer } from "./answer_text.ts";
import {
  MCP_MESSAGE_BYTES_MAX,
  STDIO_DRAIN_AFTER_EOF_MS,
  STDIO_ID_PROBE_BYTES,
  STDIO_LINE_SCRATCH_CHARS_MAX,
  STDIO_READ_CHUNK_BYTES,
  STDIO_REQUESTS_IN_FLIGHT_MAX,
} from "../base/limits.ts";

/** JSON-RPC 2.0 error codes this framing answers with. */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_INTERNAL_ERROR = -32603;

type Id = string | number;

/** Reads input a chunk at a time; a `ReadableStream`'s default reader is one. */
export interface ChunkReader {
  /** The next chunk, or `done` at the end of input. */
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** Stops reading: a read still pending ends with `done`. */
  cancel(): Promise<void>;
}

/** Where the transport reads and writes (the process's stdio by default; tests may pass streams). */
export interface LineIo {
  /** Opened once, at `start()`: a `ReadableStream` (tests), or the process's stdin ({@linkcode stdinChunks}). */
  input: { getReader(): ChunkReader };
  /** Writes all of `bytes` (or throws). */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Hears every chunk the transport reads from `input` (the idle collection's activity), as it is read:
   * a callback rather than a stream stage, whose set-up would sit on the path to the first answer.
   */
  onChunk?: () => void;
}

/** Writes every byte to stdout (Deno's `write` may write fewer than asked). */
async function writeStdout(bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
}

/**
 * The process's stdin, read with `Deno.stdin.read` into one buffer of {@linkcode STDIO_READ_CHUNK_BYTES};
 * each chunk is a copy of the bytes read. Not `Deno.stdin.readable`: Deno loads its web streams only
 * when first used, and that load (4-6 ms here) would sit between serving and the first answer. `cancel`
 * closes stdin, which ends a pending read (nothing else in the process reads it).
 */
export function stdinChunks(): { getReader(): ChunkReader } {
  return {
    getReader() {
      const buffer = new Uint8Array(STDIO_READ_CHUNK_BYTES);
      let cancelled = false;
      const done: ReadableStreamReadResult<Uint8Array> = { done: true };
      return {
        async read() {
          for (;;) {
            if (cancelled) return done;
            let n: number | null;
            try {
              n = await Deno.stdin.read(buffer);
            } catch (err) {
              if (cancelled) return done; // the close below interrupted it
              throw err;
            }
            if (n === null || cancelled) return done;
            if (n > 0) return { done: false, value: buffer.slice(0, n) };
          }
        },
        cancel() {
          if (!cancelled) {
            cancelled = true;
            try {
              Deno.stdin.close();
            } catch { /* already closed */ }
          }
          return Promise.resolve();
        },
      };
    },
  };
}

/** The process's stdin and stdout. */
export function processStdio(): LineIo {
  return { input: stdinChunks(), write: writeStdout };
}

const isId = (v: unknown): v is Id => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

/** Why a parsed JSON value is not a JSON-RPC message, in one sentence. */
function invalidReason(value: unknown): string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return "a message must be a JSON object";
  }
  const m = value as Record<string, unknown>;
  if (m["jsonrpc"] !== "2.0") return `jsonrpc must be "2.0", current value is ${JSON.stringify(m["jsonrpc"])}`;
  if ("method" in m && typeof m["method"] !== "string") return "method must be a string";
  if ("params" in m && (m["params"] === null || typeof m["params"] !== "object" || Array.isArray(m["params"]))) {
    return "params must be an object";
  }
  if ("id" in m && !isId(m["id"])) return "id must be a string or a number";
  return "not a JSON-RPC 2.0 request, notification or response";
}

/**
 * Whether `bytes` hold a JSON-RPC request (an object with a method and an id), read only while the in-flight bound
 * is reached; anything else (a notification, a response, a line that will be answered as invalid) is not held.
 */
function isRequestLine(bytes: Uint8Array): boolean {
  let value: unknown;
  try {
    value = JSON.parse(requestProbeDecoder.decode(bytes));
  } catch {
    return false;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  return typeof m["method"] === "string" && isId(m["id"]);
}

const requestProbeDecoder = new TextDecoder();

/** Whether an invalid message looks like a response (which is never answered). */
function looksLikeResponse(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  return !("method" in m) && ("result" in m || "error" in m);
}

const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]/;
const TAIL_ID = /[{,]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * The id of an over-long line, read only where it is certainly a top-level member: first in the
 * object (optionally after `"jsonrpc":"2.0"`) or last before the closing brace (where the SDK's
 * clients put it). Anything else is `null`.
 */
export function probeId(head: string, tail: string): Id | null {
  const m = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  if (m?.[1] === undefined) return null;
  try {
    const id = JSON.parse(m[1]) as unknown;
    return isId(id) ? id : null;
  } catch {
    return null;
  }
}

/** The bounds and the clock of a {@link LineTransport}; each has a default. */
export interface LineTransportOptions {
  /** The longest line, in bytes, newline included (default {@linkcode MCP_MESSAGE_BYTES_MAX}; at least 2). */
  lineBytesMax?: number;
  /**
   * How long the requests read before the end of input may take to be answered (default
   * {@linkcode STDIO_DRAIN_AFTER_EOF_MS}).
   */
  drainAfterEofMs?: number;
  /** Time of the drain bound (default the system clock; tests inject a ManualClock). */
  clock?: Clock;
  /**
   * Requests delivered and not answered yet, plus lines sent and not yet written, past which no more input is
   * read until one is answered or written (default {@linkcode STDIO_REQUESTS_IN_FLIGHT_MAX}; at least 1).
   */
  requestsInFlightMax?: number;
}

/**
 * A newline-delimited JSON-RPC transport that answers what it cannot deliver (see the module
 * documentation). `options.lineBytesMax` counts the newline.
 */
export class LineTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;
  /** Resolves once stdin has ended (EOF or a read error); the transport then closes itself. */
  readonly inputEnded: Promise<void>;
  /** Resolves once the transport is closed (end of input, `close()`, or a failed write). */
  readonly closed: Promise<void>;

  readonly #io: LineIo;
  readonly #lineBytesMax: number;
  readonly #inputEnded = Promise.withResolvers<void>();
  readonly #closed = Promise.withResolvers<void>();
  #reader: ChunkReader | undefined;
  #isClosed = false;
  #writes: Promise<void> = Promise.resolve();
  /** Ids of requests handed to the server and not answered yet (answered before closing at EOF). */
  readonly #unanswered = new Set<Id>();
  #drained: (() => void) | undefined;
  readonly #requestsInFlightMax: number;
  /** Lines handed to `send` whose write has not finished (a host not reading stdout holds them here). */
  #unwritten = 0;
  /** Resolved when a request is answered while the input waits for room ({@linkcode LineTransportOptions.requestsInFlightMax}). */
  #roomMade: (() => void) | undefined;
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });

  readonly #drainAfterEofMs: number;
  /** Time of the drain bound (real time; tests inject a ManualClock). */
  readonly #clock: Clock;

  constructor(io: LineIo = processStdio(), options: LineTransportOptions = {}) {
    const {
      lineBytesMax = MCP_MESSAGE_BYTES_MAX,
      drainAfterEofMs = STDIO_DRAIN_AFTER_EOF_MS,
      clock = systemClock,
      requestsInFlightMax = STDIO_REQUESTS_IN_FLIGHT_MAX,
    } = options;
    if (!Number.isSafeInteger(requestsInFlightMax) || requestsInFlightMax < 1) {
      throw new RangeError(
        `Cannot frame stdio: requestsInFlightMax must be an integer >= 1, current value is ${requestsInFlightMax}`,
      );
    }
    this.#requestsInFlightMax = requestsInFlightMax;
    if (!Number.isSafeInteger(lineBytesMax) || lineBytesMax < 2) {
      throw new RangeError(
        `Cannot frame stdio: lineBytesMax must be an integer >= 2, current value is ${lineBytesMax}`,
      );
    }
    this.#io = io;
    this.#lineBytesMax = lineBytesMax;
    this.#drainAfterEofMs = drainAfterEofMs;
    this.#clock = clock;
    this.inputEnded = this.#inputEnded.promise;
    this.closed = this.#closed.promise;
  }

  start(): Promise<void> {
    if (this.#reader !== undefined) throw new TypeError("Cannot start LineTransport: it is already started");
    this.#reader = this.#io.input.getReader();
    void this.#pump(this.#reader);
    return Promise.resolve();
  }

  async #pump(reader: ChunkReader): Promise<void> {
    const contentMax = this.#lineBytesMax - 1; // the newline is part of the bound
    let parts: Uint8Array[] = [];
    let length = 0;
    // Skipping an over-long line: its first and last bytes are kept to find its id.
    let skipping = false, skipped = 0;
    let head: Uint8Array = new Uint8Array(0), tail: Uint8Array = new Uint8Array(0);
    const keepTail = (bytes: Uint8Array) => {
      const joined = concat([tail, bytes]);
      tail = joined.subarray(Math.max(0, joined.length - STDIO_ID_PROBE_BYTES));
    };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (!done) this.#io.onChunk?.();
        if (done || this.#isClosed) break;
        let chunk = value;
        while (chunk.length > 0) {
          const nl = chunk.indexOf(0x0a);
          const piece = nl < 0 ? chunk : chunk.subarray(0, nl);
          chunk = nl < 0 ? new Uint8Array(0) : chunk.subarray(nl + 1);
          if (skipping) {
            skipped += piece.length;
            keepTail(piece);
          } else if (length + piece.length > contentMax) {
            const all = concat([...parts, piece]);
            skipping = true;
            skipped = all.length;
            head = all.slice(0, STDIO_ID_PROBE_BYTES);
            tail = all.slice(Math.max(0, all.length - STDIO_ID_PROBE_BYTES));
            parts = [];
            length = 0;
          } else {
            parts.push(piece);
            length += piece.length;
          }
          if (nl < 0) break;
          // A newline ends the line.
          if (skipping) {
            this.#answerOversized(skipped + 1, { head, tail });
            skipping = false;
            skipped = 0;
          } else {
            const line = concat(parts);
            parts = [];
            length = 0;
            // Hand on no further request while the server holds as many as it may. Notifications and responses
            // still pass (a notifications/cancelled is what frees a slot); so does a line that is no request.
            while (
              this.#unanswered.size + this.#unwritten >= this.#requestsInFlightMax && !this.#isClosed &&
              isRequestLine(line)
            ) {
              await new Promise<void>((resolve) => this.#roomMade = resolve);
            }
            if (this.#isClosed) break;
            this.#handleLineIsolated(line);
          }
        }
      }
      if (length > 0 || skipping) this.#report(new Error("stdin ended inside a line; the partial line was dropped"));
    } catch (err) {
      if (!this.#isClosed) this.#report(err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.#inputEnded.resolve();
      void this.#drainThenClose();
    }
  }

  /** After the end of input: the requests already read get their answers (bounded), then close. */
  async #drainThenClose(): Promise<void> {
    if (this.#unanswered.size > 0 && !this.#isClosed) {
      const timer = new AbortController();
      await Promise.race([
        new Promise<void>((resolve) => this.#drained = resolve),
        this.#clock.sleep(this.#drainAfterEofMs, timer.signal).catch(() => {}),
      ]);
      timer.abort();
    }
    await this.#writes; // answers already handed over are written before the close
    await this.close();
  }

  /**
   * One line, whatever it holds: a line that throws (a defect here, or in the SDK's synchronous handling)
   * is reported and, when it was a request, answered with an internal error; it never ends the input,
   * which would end the session for every later line.
   */
  #handleLineIsolated(bytes: Uint8Array): void {
    try {
      this.#handleLine(bytes);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.#report(new Error(`a line failed: ${error.message}`, { cause: error }));
      const id = this.#lineRequestId;
      if (id !== undefined && this.#unanswered.has(id)) {
        this.#answer(id, { code: JSONRPC_INTERNAL_ERROR, message: "Internal error: the request could not be handled" });
        // Should the server answer it after all (it threw after taking the request), that answer is not sent.
        this.#answeredForServer.add(id);
      }
    } finally {
      this.#lineRequestId = undefined;
    }
  }

  /** The id of the request the line being handled holds, once known (for {@linkcode #handleLineIsolated}). */
  #lineRequestId: Id | undefined;
  /** Requests {@linkcode #handleLineIsolated} answered itself (the server threw): a later answer of the server's is
   * dropped, so no request is answered twice. Holds only such rare ids, each until that answer comes. */
  readonly #answeredForServer = new Set<Id>();

  #handleLine(bytes: Uint8Array): void {
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      this.#answer(null, { code: JSONRPC_PARSE_ERROR, message: "Parse error: the line is not valid UTF-8" });
      return;
    }
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#answer(null, { code: JSONRPC_PARSE_ERROR, message: "Parse error: the line is not valid JSON" });
      return;
    }
    if (Array.isArray(value)) {
      const ids = value.map((e) => (e !== null && typeof e === "object" ? (e as { id?: unknown }).id : undefined))
        .filter(isId);
      const message = "Invalid Request: JSON-RPC batches are not supported; send one message per line";
      if (ids.length === 0) this.#answer(null, { code: JSONRPC_INVALID_REQUEST, message });
      for (const id of new Set(ids)) this.#answer(id, { code: JSONRPC_INVALID_REQUEST, message });
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      const reason = invalidReason(value);
      if (looksLikeResponse(value)) {
        this.#report(new Error(`dropped an invalid response: ${reason}`));
        return;
      }
      const id = value !== null && typeof value === "object" ? (value as { id?: unknown }).id : undefined;
      this.#answer(isId(id) ? id : null, { code: JSONRPC_INVALID_REQUEST, message: `Invalid Request: ${reason}` });
      return;
    }
    // A request (method and id): answered before the transport closes at the end of input.
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (typeof method === "string" && isId(id)) {
      this.#unanswered.add(id);
      this.#lineRequestId = id;
    }
    // The SDK sends no answer to a request the client cancelled: forget it, or the set would grow for
    // the whole session and the end of input would always wait the full drain time.
    if (method === "notifications/cancelled") {
      const cancelled = (message as { params?: { requestId?: unknown } }).params?.requestId;
      if (isId(cancelled) && this.#unanswered.delete(cancelled)) {
        if (this.#unanswered.size === 0) this.#drained?.();
        this.#makeRoom();
      }
    }
    this.onmessage?.(message);
  }

  /** Answers a skipped line of `bytes` bytes, its id looked for in its kept first and last bytes (`ends`). */
  #answerOversized(bytes: number, ends: { head: Uint8Array; tail: Uint8Array }): void {
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    const id = probeId(text(ends.head), text(ends.tail));
    this.#answer(id, {
      code: JSONRPC_INVALID_REQUEST,
      message: `Request too large: a message line is at most ${this.#lineBytesMax} bytes (newline included); ` +
        `this one (${bytes} bytes) was skipped`,
    });
  }

  /** Answers `id` (null when unreadable) with the JSON-RPC `error`, and reports it. */
  #answer(id: Id | null, error: { code: number; message: string }): void {
    const { code, message } = error;
    this.#report(new Error(`answered ${code}: ${message}`));
    // A JSON-RPC error with id null is valid on the wire but not in the SDK's message type.
    const answer = { jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage;
    this.send(answer).catch((err) => this.#report(err instanceof Error ? err : new Error(String(err))));
  }

  #report(error: Error): void {
    try {
      this.onerror?.(error);
    } catch { /* reporting only */ }
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#isClosed) return Promise.reject(new Error("LineTransport is closed"));
    const answered = (message as { id?: unknown; method?: unknown }).method === undefined
      ? (message as { id?: unknown }).id
      : undefined;
    if (isId(answered) && !this.#unanswered.has(answered) && this.#answeredForServer.delete(answered)) {
      return Promise.resolve();
    }
    if (isId(answered) && this.#unanswered.delete(answered)) {
      if (this.#unanswered.size === 0) this.#drained?.();
      this.#makeRoom();
    }
    const bytes = messageLine(message);
    this.#unwritten++;
    const write = this.#writes.then(() => this.#io.write(bytes)).finally(() => {
      this.#unwritten--;
      this.#makeRoom();
    });
    this.#writes = write.catch((err) => {
      // stdout is gone: nothing more can be answered.
      this.#report(err instanceof Error ? err : new Error(String(err)));
      void this.close();
    });
    return write;
  }

  /** Lets input waiting for room (see {@linkcode LineTransportOptions.requestsInFlightMax}) look again. */
  #makeRoom(): void {
    const resolve = this.#roomMade;
    this.#roomMade = undefined;
    resolve?.();
  }

  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#makeRoom();
    try {
      await this.#reader?.cancel();
    } catch { /* already released */ }
    this.#closed.resolve();
    this.onclose?.();
  }
}

/** Stands for a result's structuredContent while the rest of its message is serialized. */
const STRUCTURED_TOKEN = "\u0000longcall:structuredContent\u0000";
/** Its JSON: the closing quote follows a digit, so inside an escaped string (where every quote follows a
 * backslash) it never matches; it matches only a string equal to the token. */
const STRUCTURED_TOKEN_JSON = JSON.stringify(STRUCTURED_TOKEN);
const lineEncoder = new TextEncoder();
/** Reused by every line: encoded into synchronously, then copied out at the line's exact length. */
let lineScratch = new Uint8Array(0);

/**
 * The bytes of `serializeMessage(message)` (the SDK's framing: the JSON and a newline), encoded
 * without first joining them into one string. A tool result whose structuredContent has its JSON
 * recorded (src/mcp/answer_text.ts: `okResult` made it for the text content) gets that text in place
 * of a second serialization of the answer; the rest of the message is serialized as usual around a
 * token standing for it, so the bytes are the same.
 */
export function messageLine(message: JSONRPCMessage): Uint8Array {
  const structured = structuredOf(message);
  const splice = structured === undefined ? undefined : splicedParts(message, structured);
  // Only a spliced answer (one found with exactly its recorded members) is released once its line is made.
  const spliced = splice === undefined ? undefined : structured;
  const parts = splice ?? [JSON.stringify(message)];
  parts.push("\n");
  let chars = 0;
  for (const part of parts) chars += part.length;
  let line: Uint8Array;
  if (chars > STDIO_LINE_SCRATCH_CHARS_MAX) line = lineEncoder.encode(parts.join(""));
  else {
    // At most three UTF-8 bytes per UTF-16 unit.
    if (lineScratch.length < chars * 3) lineScratch = new Uint8Array(chars * 3);
    let length = 0;
    for (const part of parts) length += lineEncoder.encodeInto(part, lineScratch.subarray(length)).written;
    line = lineScratch.slice(0, length);
  }
  if (spliced !== undefined) releaseAnswer(spliced);
  return line;
}

/** A result message's structuredContent, if it is an object. */
function structuredOf(message: JSONRPCMessage): Record<string, unknown> | undefined {
  const result = (message as { result?: unknown }).result;
  if (result === null || typeof result !== "object") return undefined;
  const structured = (result as { structuredContent?: unknown }).structuredContent;
  if (structured === null || typeof structured !== "object" || Array.isArray(structured)) return undefined;
  return structured as Record<string, unknown>;
}

/** The message's JSON in three parts around its structuredContent's recorded text, if it has one. */
function splicedParts(message: JSONRPCMessage, structured: Record<string, unknown>): string[] | undefined {
  const result = (message as { result: Record<string, unknown> }).result;
  const text = answerTextOf(structured);
  if (text === undefined) return undefined;
  // Spreading keeps every key where it was; only the structuredContent's value is replaced.
  const envelope = JSON.stringify({ ...message, result: { ...result, structuredContent: STRUCTURED_TOKEN } });
  const at = envelope.indexOf(STRUCTURED_TOKEN_JSON);
  if (at < 0 || envelope.indexOf(STRUCTURED_TOKEN_JSON, at + 1) >= 0) return undefined;
  return [envelope.slice(0, at), text, envelope.slice(at + STRUCTURED_TOKEN_JSON.length)];
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
