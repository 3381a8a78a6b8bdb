/**
 * Fitting a list answer into the response bound item by item: when a tool's answer (its
 * structuredContent plus the same JSON as text) is over {@linkcode MCP_RESULT_BYTES_MAX}, the
 * largest entries of its `items` list are shortened (water-filling: small entries stay whole,
 * the large ones share what is left) and flagged `truncated: true` with `omitted_bytes`, instead
 * of failing the whole call. Batch entries (`item_status`) are shortened in their `value`;
 * other entries (search hits) in themselves.
 *
 * @module
 */

import { jsonBytes, shrinkJson } from "../base/json_bound.ts";
import { MCP_RESULT_BYTES_MAX } from "../base/limits.ts";

/** Wire bytes of a tool result carrying `structured` as structuredContent and as text. */
export function toolResultBytes(structured: Record<string, unknown>): number {
  return toolResultBytesOfText(JSON.stringify(structured));
}

const encoder = new TextEncoder();

/**
 * {@linkcode toolResultBytes} from the structured answer's JSON text, which the tool result carries
 * anyway: the same bytes as serializing `{content: [{type: "text", text}], structuredContent}`,
 * without serializing the answer two more times (the hot path of every tool call).
 */
export function toolResultBytesOfText(text: string): number {
  return ENVELOPE_BYTES + encoder.encode(JSON.stringify(text)).length - 2 + encoder.encode(text).length;
}

const ENVELOPE_BYTES = '{"content":[{"type":"text","text":"","structuredContent":}]}'.length;

/** Scratch for {@linkcode surelyFitsJson}: a text whose UTF-8 is longer cannot surely fit (one per module). */
let fitScratch: Uint8Array | undefined;

/**
 * Whether a tool result carrying `text` (JSON text, as content and as structuredContent) surely fits
 * `bytesMax` without counting its escaped copy, for a text made by `JSON.stringify` (the structured
 * answer's JSON, as `okResult` has it), in one native copy: such a text has no control character and no lone
 * surrogate (JSON.stringify escapes both), so escaping it again only doubles `"` and `\`, and its
 * escaped copy is at most twice its UTF-8 bytes. The envelope plus three times those bytes bounds
 * {@linkcode toolResultBytesOfText}; the UTF-8 bytes are counted by encoding into a scratch buffer just
 * large enough for a text that fits (a 100-id `jobs.get` answer: about 1 us instead of 25 us).
 */
export function surelyFitsJson(text: string, bytesMax = MCP_RESULT_BYTES_MAX): boolean {
  const room = Math.floor((bytesMax - ENVELOPE_BYTES) / 3);
  if (room < 0) return false;
  // Every UTF-16 unit is at least one UTF-8 byte: a longer text cannot fit in `room`.
  if (text.length > room) return false;
  if (fitScratch === undefined || fitScratch.length < room) fitScratch = new Uint8Array(room);
  const { read } = encoder.encodeInto(text, fitScratch.subarray(0, room));
  return read === text.length;
}

/** Bytes reserved per entry for the flags `,"truncated":true,"omitted_bytes":N`. */
const FLAG_BYTES = 48;
/** Attempts at a tighter budget when escaping makes the text copy larger than estimated. */
const FIT_ATTEMPTS_MAX = 8;

type Entry = Record<string, unknown>;

const isRecord = (v: unknown): v is Entry => v !== null && typeof v === "object" && !Array.isArray(v);

/** The largest per-entry size such that the entries' sizes, capped at it, sum to at most `budget`. */
function waterLevel(sizes: readonly number[], budget: number): number {
  const sorted = [...sizes].sort((a, b) => a - b);
  let left = budget;
  for (let i = 0; i < sorted.length; i++) {
    const fair = Math.floor(left / (sorted.length - i));
    if (sorted[i]! > fair) return Math.max(0, fair);
    left -= sorted[i]!;
  }
  return Number.MAX_SAFE_INTEGER;
}

/**
 * `structured` with its `items` shortened so the tool result fits `bytesMax`, or `undefined`
 * when it has no `items` list or cannot be made to fit (the caller then fails the call).
 */
export function fitItems(structured: Record<string, unknown>, bytesMax = MCP_RESULT_BYTES_MAX): Entry | undefined {
  const items = structured["items"];
  if (!Array.isArray(items) || !items.every(isRecord)) return undefined;
  const batch = items.every((e) => "item_status" in e);
  const partOf = (e: Entry): unknown => batch ? e["value"] : e;
  const sizes = items.map((e) => partOf(e) === undefined ? 0 : jsonBytes(partOf(e)));
  const structBytes = jsonBytes(structured);
  const fixed = structBytes - sizes.reduce((a, b) => a + b, 0);
  // The text copy escapes quotes: estimate the wire/struct ratio from the answer as it is.
  const ratio = toolResultBytes(structured) / structBytes;
  let budget = Math.floor(bytesMax / ratio) - fixed - FLAG_BYTES * items.length;
  for (let attempt = 0; attempt < FIT_ATTEMPTS_MAX; attempt++) {
    const cap = waterLevel(sizes, Math.max(0, budget));
    const fitted = {
      ...structured,
      items: items.map((e, i) => {
        if (sizes[i]! <= cap || partOf(e) === undefined) return e;
        const { value, omittedBytes } = shrinkJson(partOf(e), cap);
        return batch
          ? { ...e, value, truncated: true, omitted_bytes: omittedBytes }
          : { ...(value as Entry), truncated: true, omitted_bytes: omittedBytes };
      }),
    };
    const bytes = toolResultBytes(fitted);
    if (bytes <= bytesMax) return fitted;
    if (budget <= 0) return undefined;
    budget = Math.floor(budget * (bytesMax / bytes) * 0.97) - 64;
  }
  return undefined;
}
