import assert from "node:assert/strict";
import { jsonBytes } from "../base/json_bound.ts";
import { toolResultBytes, toolResultBytesOfText } from "./fit_answer.ts";

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
