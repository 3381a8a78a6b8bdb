import assert from "node:assert/strict";
import { jsonBytes } from "../base/json_bound.ts";
import { surelyFitsJson, toolResultBytes, toolResultBytesOfText } from "./fit_answer.ts";

Deno.test("toolResultBytesOfText() equals the bytes of the serialized tool result, escapes and UTF-8 included", () => {
  const answers: Record<string, unknown>[] = [
    {},
    { a: 1 },
    { s: 'quote " backslash \\ newline \n control \u0001 é 🙂' },
    { items: Array.from({ length: 50 }, (_, i) => ({ key: `x${i}`, value: 'q"é'.repeat(i) })) },
  ];
  for (const answer of answers) {
    const wire = jsonBytes({ content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer });
    assert.equal(toolResultBytesOfText(JSON.stringify(answer)), wire, JSON.stringify(answer).slice(0, 60));
    assert.equal(toolResultBytes(answer), wire);
  }
});

Deno.test("surelyFitsJson(): true exactly while three times the UTF-8 bytes fit beside the envelope, at and past its bound", () => {
  const envelope = toolResultBytesOfText("");
  const max = 10_000;
  const room = Math.floor((max - envelope) / 3);
  // JSON.stringify of a string of quotes and backslashes: every character of the text escapes again.
  const worst = (n: number) => {
    const text = JSON.stringify('"\\'.repeat(n)).slice(0, n);
    return text.length === n ? text : text + "x".repeat(n - text.length);
  };
  assert.equal(surelyFitsJson(worst(room), max), true);
  assert.ok(toolResultBytesOfText(worst(room)) <= max, "the bound holds for the worst JSON text");
  assert.equal(surelyFitsJson(worst(room + 1), max), false, "past the bound it counts instead");
  // Non-ASCII text counts its UTF-8 bytes: 3 bytes per unit (é is 2, 🙂 is 4 for 2 units).
  const e = Math.floor(room / 2);
  assert.equal(surelyFitsJson(JSON.stringify({ s: "é".repeat(e - 8) }), max), true);
  assert.equal(surelyFitsJson(JSON.stringify({ s: "é".repeat(e) }), max), false);
  for (const answer of [{}, { a: 'q"\\\n\u0001' }, { s: "🙂".repeat(200) }, { s: "\ud800 lone" }]) {
    const text = JSON.stringify(answer);
    if (surelyFitsJson(text, max)) assert.ok(toolResultBytesOfText(text) <= max, text.slice(0, 40));
  }
  assert.equal(surelyFitsJson("{}", envelope + 5), false, "no room for even a two-byte text times three");
  assert.equal(surelyFitsJson("{}", envelope + 6), true);
});
