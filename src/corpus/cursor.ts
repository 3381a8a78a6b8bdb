/**
 * Opaque search cursors: base64url of a small JSON object holding the keyset position (score,
 * id), a fingerprint of the query and filters it belongs to, and a checksum. Any edit, a cursor
 * from another query, or garbage is rejected with `invalid_argument`. The checksum detects
 * tampering and mix-ups, not forgery; a cursor grants nothing beyond a position in a result list.
 *
 * @module
 */

import { SEARCH_CURSOR_CHARS_MAX } from "../base/limits.ts";
import type { SearchPosition } from "../store/thread_search_rows.ts";
import { invalidArgument } from "./refs.ts";

const VERSION = 1;

interface CursorBody {
  v: number;
  f: string;
  s: number;
  i: number;
}

/** A 53-bit string hash (cyrb53), as 14 hex digits. Not cryptographic. */
export function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function checksum(body: CursorBody): string {
  return hash53(`${body.v}|${body.f}|${body.s}|${body.i}`);
}

/** Encodes the position after the last row of a page for the query with `fingerprint`. */
export function encodeSearchCursor(fingerprint: string, position: SearchPosition): string {
  const body: CursorBody = { v: VERSION, f: fingerprint, s: position.score, i: position.id };
  return toBase64Url(JSON.stringify({ ...body, c: checksum(body) }));
}

/**
 * Decodes a cursor issued for the query with `fingerprint`.
 *
 * @throws {AppError} `invalid_argument` (path `$.cursor`) for a malformed, edited or foreign cursor.
 */
export function decodeSearchCursor(cursor: unknown, fingerprint: string): SearchPosition {
  const fail = (why: string): never =>
    invalidArgument("$.cursor", {
      message:
        `Cannot read cursor: ${why}; pass next_cursor from the previous answer unchanged, with the same query and filters`,
      example: null,
    });
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > SEARCH_CURSOR_CHARS_MAX) {
    return fail("it is not a cursor issued by corpus.search_threads");
  }
  const json = fromBase64Url(cursor);
  if (json === undefined) return fail("it is not a cursor issued by corpus.search_threads");
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return fail("it is not a cursor issued by corpus.search_threads");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return fail("it is not a cursor issued by corpus.search_threads");
  }
  const { v, f, s, i, c } = parsed as Record<string, unknown>;
  if (
    v !== VERSION || typeof f !== "string" || typeof s !== "number" || !Number.isFinite(s) ||
    typeof i !== "number" || !Number.isSafeInteger(i) || i < 1 || typeof c !== "string"
  ) {
    return fail("it is not a cursor issued by corpus.search_threads");
  }
  if (c !== checksum({ v, f, s, i })) return fail("it was modified");
  if (f !== fingerprint) return fail("it belongs to a different query or filters");
  return { score: s, id: i };
}
