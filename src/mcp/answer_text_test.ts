import assert from "node:assert/strict";
import { ANSWER_TEXT_RECORDED_CHARS_MIN } from "../base/limits.ts";
import { answerTextOf, recordAnswerText } from "./answer_text.ts";

/** An answer shaped like a jobs.get batch, large enough to be recorded. */
function batch(n = 100): Record<string, unknown> {
  return {
    batch_status: "complete",
    items: Array.from(
      { length: n },
      (_, i) => ({ key: `k${i}`, item_status: "complete", value: { id: `k${i}`, s: "x".repeat(40) } }),
    ),
  };
}

Deno.test("answerTextOf(): the recorded text of the answer itself and of a shallow copy with the same members", () => {
  const answer = batch();
  const text = JSON.stringify(answer);
  recordAnswerText(answer, text);
  assert.equal(answerTextOf(answer), text);
  const copy = { ...answer }; // what the 2025 era's result validation hands the transport
  assert.equal(answerTextOf(copy), text);
  assert.equal(JSON.stringify(copy), text, "the text is the copy's JSON too");
});

Deno.test("answerTextOf(): undefined when a member differs, is added, is missing or moved, or nothing was recorded", () => {
  const answer = batch();
  recordAnswerText(answer, JSON.stringify(answer));
  assert.equal(answerTextOf({ ...answer, batch_status: "partial" }), undefined, "a member with another value");
  assert.equal(answerTextOf({ ...answer, wait: { ended: "deadline" } }), undefined, "an extra member");
  assert.equal(answerTextOf({ items: answer["items"] }), undefined, "a missing member");
  assert.equal(answerTextOf({ items: answer["items"], batch_status: "complete" }), undefined, "another order");
  assert.equal(answerTextOf(batch()), undefined, "an equal answer never recorded");
  assert.equal(answerTextOf({ a: 1, b: "x" }), undefined, "no object member to find it by");
});

Deno.test("recordAnswerText(): a short text or an answer without an object member is not recorded", () => {
  const small = batch(1);
  const text = JSON.stringify(small);
  assert.ok(text.length < 4_096);
  recordAnswerText(small, text);
  assert.equal(answerTextOf(small), undefined, "serializing a small answer again is cheaper than recording it");
  const flat = { s: "y".repeat(10_000) };
  recordAnswerText(flat, JSON.stringify(flat));
  assert.equal(answerTextOf(flat), undefined);
  const big = batch();
  recordAnswerText(big, JSON.stringify(big));
  assert.equal(answerTextOf(big), JSON.stringify(big), "at and above the size it is recorded");
});

Deno.test("recordAnswerText(): a text of ANSWER_TEXT_RECORDED_CHARS_MIN units is recorded, one unit shorter is not", () => {
  const of = (units: number) => {
    const answer: Record<string, unknown> = { value: { s: "" } };
    const base = JSON.stringify(answer).length;
    answer["value"] = { s: "z".repeat(units - base) };
    const text = JSON.stringify(answer);
    assert.equal(text.length, units);
    return { answer, text };
  };
  const at = of(ANSWER_TEXT_RECORDED_CHARS_MIN);
  recordAnswerText(at.answer, at.text);
  assert.equal(answerTextOf(at.answer), at.text);
  const below = of(ANSWER_TEXT_RECORDED_CHARS_MIN - 1);
  recordAnswerText(below.answer, below.text);
  assert.equal(answerTextOf(below.answer), undefined);
});
