import assert from "node:assert/strict";
import { jsonBytes } from "../base/json_bound.ts";
import { surelyFits, toolResultBytes, toolResultBytesOfText } from "./fit_answer.ts";

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

Deno.test("surelyFits(): true only where the counted bytes fit, at and past its bound", () => {
  const envelope = toolResultBytesOfText("");
  const max = 10_000;
  const at = Math.floor((max - envelope) / 3);
  const worst = (n: number) => '"\\'.repeat(n).slice(0, n); // every character escapes
  assert.equal(surelyFits(worst(at), max), true);
  assert.ok(toolResultBytesOfText(worst(at)) <= max, "the bound holds for the worst printable text");
  assert.equal(surelyFits(worst(at + 1), max), false, "past the bound it counts instead");
  // Characters whose escape or encoding is longer are never judged by the bound.
  for (const s of ["é", "🙂", "\n", "\u0001", "\u007f"]) assert.equal(surelyFits(s, max), false, JSON.stringify(s));
  for (const text of ["", "{}", JSON.stringify({ a: 'q"\\' }), worst(at)]) {
    if (surelyFits(text, max)) assert.ok(toolResultBytesOfText(text) <= max, text.slice(0, 40));
  }
});
