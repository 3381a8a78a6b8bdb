/**
 * Cutting text to a bound without leaving a lone surrogate (which would not survive UTF-8).
 *
 * @module
 */

/** Cuts `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
export function truncateChars(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return { text: text.slice(0, end), truncated: true };
}

/** `n` and a noun, plural unless `n` is 1 ("1 poll", "0 polls", "2 polls"): regular plurals only. */
export function countOf(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}
