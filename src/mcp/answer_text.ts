/**
 * The JSON text a tool result already carries for its structured answer, so the stdio transport can
 * write the answer's bytes without serializing the answer a second time. `okResult`
 * (src/mcp/tool_kit.ts) serializes each answer once for its text content and records large ones here;
 * the stdio framing (src/mcp/stdio_framing.ts) asks for the text of the `structuredContent` it is about
 * to write. The SDK hands the transport either that same object (2026-07-28 era) or its own shallow
 * copy (the 2025 era's result validation rebuilds the top-level record with the same values), so an
 * answer is found by its first object-valued member and accepted only when every member is the very
 * value it had: then `JSON.stringify(structuredContent)` is exactly the recorded text. Answers are never
 * changed after `okResult` (the projections are pure and the SDK only copies). Once the line is made,
 * {@linkcode releaseAnswer} empties the result `okResult` returned, which the SDK's result validation would
 * otherwise keep reachable past the next minor collection (see there).
 *
 * @module
 */

interface Recorded {
  answer: Readonly<Record<string, unknown>>;
  text: string;
  /** The tool result carrying the answer, emptied once its line is written ({@linkcode releaseAnswer}). */
  result: { content: unknown[]; structuredContent?: unknown } | undefined;
}

import { ANSWER_TEXT_RECORDED_CHARS_MIN } from "../base/limits.ts";

/** By the answer's first object-valued member (kept by the SDK's shallow copy); weak, so never a leak. */
const recorded = new WeakMap<object, Recorded>();

function firstObjectMember(answer: Readonly<Record<string, unknown>>): object | undefined {
  for (const key in answer) {
    const value = answer[key];
    if (value !== null && typeof value === "object") return value;
  }
  return undefined;
}

/**
 * Records `text` (`JSON.stringify(answer)`) as the JSON of `answer`, carried by the tool result
 * `options.result`.
 */
export function recordAnswerText(
  answer: Readonly<Record<string, unknown>>,
  text: string,
  options: { result?: { content: unknown[]; structuredContent?: unknown } } = {},
): void {
  const { result } = options;
  if (text.length < ANSWER_TEXT_RECORDED_CHARS_MIN) return;
  const key = firstObjectMember(answer);
  if (key === undefined) return;
  // An answer object returned again before the first one's line was written (or members shared with one):
  // a line cannot tell which result it came from, so neither result is ever emptied.
  recorded.set(key, { answer, text, result: recorded.has(key) ? undefined : result });
}

/**
 * After the line of `structured` (as {@linkcode answerTextOf} found it) is written: forgets it and empties
 * the tool result `okResult` returned for it, which the SDK no longer reads (it validated the result into
 * its own copy, and that copy is what was written). The SDK's wire validation of a tools/call result (a zod
 * refinement and transform) leaves its input reachable until a minor collection has run, so the original
 * result would otherwise keep the answer and its text alive into the old generation.
 */
export function releaseAnswer(structured: Readonly<Record<string, unknown>>): void {
  const key = firstObjectMember(structured);
  const entry = key === undefined ? undefined : recorded.get(key);
  if (entry === undefined || key === undefined) return;
  recorded.delete(key);
  if (entry.result !== undefined) {
    entry.result.content = [];
    delete entry.result.structuredContent;
  }
}

/**
 * The recorded JSON text of `structured` (the answer itself or a shallow copy with the same members in
 * the same order), or undefined when none is recorded or any member differs.
 */
export function answerTextOf(structured: Readonly<Record<string, unknown>>): string | undefined {
  const key = firstObjectMember(structured);
  const entry = key === undefined ? undefined : recorded.get(key);
  if (entry === undefined) return undefined;
  if (entry.answer === structured) return entry.text;
  const keys = Object.keys(structured);
  const original = Object.keys(entry.answer);
  if (keys.length !== original.length) return undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (k !== original[i] || structured[k] !== entry.answer[k]) return undefined;
  }
  return entry.text;
}
