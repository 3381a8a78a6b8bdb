import assert from "node:assert/strict";
import { countOf, truncateChars } from "./text.ts";

Deno.test("truncateChars: cuts at the bound without splitting a surrogate pair", () => {
  assert.deepEqual(truncateChars("abc", 3), { text: "abc", truncated: false });
  assert.deepEqual(truncateChars("abcd", 3), { text: "abc", truncated: true });
  assert.deepEqual(truncateChars("ab🙂", 3), { text: "ab", truncated: true });
});

Deno.test("truncateChars: at the bound nothing is cut; one past it cuts exactly one unit", () => {
  const text = "x".repeat(10);
  assert.deepEqual(truncateChars(text, 10), { text, truncated: false });
  assert.deepEqual(truncateChars(`${text}y`, 10), { text, truncated: true });
  assert.deepEqual(truncateChars("", 0), { text: "", truncated: false });
  assert.deepEqual(truncateChars("a", 0), { text: "", truncated: true });
  assert.deepEqual(truncateChars("🙂", 2), { text: "🙂", truncated: false }, "a whole pair at the bound stays");
  assert.deepEqual(truncateChars("a🙂b", 3), { text: "a🙂", truncated: true }, "a pair ending at the bound stays");
});

Deno.test("countOf: singular at exactly 1, plural at 0, 2 and beyond", () => {
  assert.equal(countOf(0, "poll"), "0 polls");
  assert.equal(countOf(1, "poll"), "1 poll");
  assert.equal(countOf(2, "poll"), "2 polls");
  assert.equal(countOf(1_000, "transition"), "1000 transitions");
});
