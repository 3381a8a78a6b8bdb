/**
 * Shortening JSON values to a byte budget while keeping them valid, typed JSON: long strings keep a
 * prefix (short ones, up to {@linkcode JSON_STRING_ATOMIC_CHARS_MAX}, are kept whole or left out: a cut enum
 * value or time is wrong, not short), arrays keep their first elements, objects keep every small field whole and share the
 * rest of the budget among their large ones. Used to fit answers into the response bound item
 * by item instead of failing a whole batch.
 *
 * @module
 */

import { JSON_STRING_ATOMIC_CHARS_MAX } from "./limits.ts";

const encoder = new TextEncoder();

/**
 * The UTF-8 byte length of `text` when it is over `bytesMax`, else `undefined`. A UTF-16 code unit
 * encodes to at most 3 UTF-8 bytes, so a text of at most `bytesMax / 3` units is never encoded: the
 * common case (a job's request or result checked against its bound) allocates nothing.
 */
export function utf8BytesIfOver(text: string, bytesMax: number): number | undefined {
  if (text.length * 3 <= bytesMax) return undefined;
  const bytes = encoder.encode(text).length;
  return bytes > bytesMax ? bytes : undefined;
}

/** UTF-8 bytes of `value` serialized as JSON (`undefined` counts as `null`). */
export function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value ?? null)).length;
}

/** A shortened value and how many of the original's JSON bytes were left out. */
export interface Shrunk {
  value: unknown;
  /** JSON bytes of the original minus JSON bytes of `value` (0 when it already fit). */
  omittedBytes: number;
}

/**
 * `value` shortened so that its JSON is at most `bytesMax` bytes (when `bytesMax` is below the
 * smallest form, `""`, `[]` or `{}`, that smallest form). Numbers, booleans and `null` are kept
 * or dropped whole; object keys are never renamed.
 *
 * @throws {RangeError} when `bytesMax` is not a non-negative integer.
 */
export function shrinkJson(value: unknown, bytesMax: number): Shrunk {
  if (!Number.isSafeInteger(bytesMax) || bytesMax < 0) {
    throw new RangeError(`Cannot shrink JSON: bytesMax must be a non-negative integer, current value is ${bytesMax}`);
  }
  const text = JSON.stringify(value ?? null);
  // Within the bound (the common case): no encoding, no copy.
  const original = utf8BytesIfOver(text, bytesMax);
  if (original === undefined) return { value, omittedBytes: 0 };
  const shrunk = shrink(JSON.parse(text), bytesMax);
  const result = shrunk === DROP ? smallest(value) : shrunk;
  return { value: result, omittedBytes: Math.max(0, original - jsonBytes(result)) };
}

const DROP: unique symbol = Symbol("drop");

function smallest(value: unknown): unknown {
  if (typeof value === "string") return "";
  if (Array.isArray(value)) return [];
  if (value !== null && typeof value === "object") return {};
  return null;
}

/** `value` within `max` bytes, or DROP when not even its smallest form fits. */
function shrink(value: unknown, max: number): unknown {
  const size = jsonBytes(value);
  if (size <= max) return value;
  if (typeof value === "string") {
    return max < 2 || value.length <= JSON_STRING_ATOMIC_CHARS_MAX ? DROP : stringPrefix(value, max);
  }
  if (Array.isArray(value)) return max < 2 ? DROP : arrayPrefix(value, max);
  if (value !== null && typeof value === "object") {
    return max < 2 ? DROP : objectWithin(value as Record<string, unknown>, max);
  }
  return DROP;
}

/** The longest prefix of `s` whose JSON is at most `max` bytes (never splitting a surrogate pair). */
function stringPrefix(s: string, max: number): string {
  let lo = 0, hi = Math.min(s.length, max);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBytes(s.slice(0, mid)) <= max) lo = mid;
    else hi = mid - 1;
  }
  const code = s.charCodeAt(lo - 1);
  if (lo > 0 && code >= 0xd800 && code <= 0xdbff) lo--;
  return s.slice(0, lo);
}

/** The first elements that fit whole; when not even the first fits whole, a shortened first. */
function arrayPrefix(items: unknown[], max: number): unknown[] {
  const out: unknown[] = [];
  let used = 2;
  for (const item of items) {
    const size = jsonBytes(item) + (out.length > 0 ? 1 : 0);
    if (used + size > max) break;
    out.push(item);
    used += size;
  }
  if (out.length === 0 && items.length > 0) {
    const first = shrink(items[0], max - 2);
    if (first !== DROP) out.push(first);
  }
  return out;
}

/**
 * Every field whose JSON fits its fair share stays whole; the budget left is shared equally
 * among the larger fields (water-filling), each shortened into its share. Fields that cannot
 * fit even their smallest form are dropped, largest first.
 */
function objectWithin(obj: Record<string, unknown>, max: number): Record<string, unknown> {
  const entries = Object.entries(obj).map(([key, v]) => ({
    key,
    value: v,
    keyBytes: jsonBytes(key) + 1, // "key":
    size: jsonBytes(v),
  }));
  let kept = entries;
  // Drop the largest fields while the keys and commas alone do not fit.
  const frame = (list: typeof entries) =>
    2 + list.reduce((n, e) => n + e.keyBytes + 2, 0) + Math.max(0, list.length - 1);
  while (kept.length > 0 && frame(kept) > max) {
    const largest = kept.reduce((a, b) => (b.size + b.keyBytes > a.size + a.keyBytes ? b : a));
    kept = kept.filter((e) => e !== largest);
  }
  let budget = max - 2 - Math.max(0, kept.length - 1) - kept.reduce((n, e) => n + e.keyBytes, 0);
  const bySize = [...kept].sort((a, b) => a.size - b.size);
  const share = new Map<string, number>();
  for (let i = 0; i < bySize.length; i++) {
    const e = bySize[i]!;
    const fair = Math.floor(budget / (bySize.length - i));
    const give = Math.min(e.size, fair);
    share.set(e.key, give);
    budget -= give;
  }
  const out: Record<string, unknown> = {};
  for (const e of kept) {
    const room = share.get(e.key) ?? 0;
    const v = e.size <= room ? e.value : shrink(e.value, room);
    if (v !== DROP) out[e.key] = v;
  }
  return out;
}
