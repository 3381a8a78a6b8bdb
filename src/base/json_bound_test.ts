import assert from "node:assert/strict";
import { JSON_STRING_ATOMIC_CHARS_MAX } from "./limits.ts";
import { jsonBytes, shrinkJson, utf8BytesIfOver } from "./json_bound.ts";

Deno.test("jsonBytes() counts UTF-8 bytes of the JSON form; undefined counts as null", () => {
  assert.equal(jsonBytes("a"), 3);
  assert.equal(jsonBytes("é"), 4, "two bytes of UTF-8 plus the quotes");
  assert.equal(jsonBytes(undefined), 4);
  assert.equal(jsonBytes(null), 4);
  assert.equal(jsonBytes({ a: [1, 2] }), '{"a":[1,2]}'.length);
});

Deno.test("shrinkJson() keeps a value whose JSON is exactly bytesMax, and shortens it one byte below", () => {
  const value = { title: "x".repeat(100), n: 7 };
  const size = jsonBytes(value);
  assert.deepEqual(shrinkJson(value, size), { value, omittedBytes: 0 });
  const cut = shrinkJson(value, size - 1);
  assert.ok(jsonBytes(cut.value) <= size - 1, JSON.stringify(cut));
  assert.equal(cut.omittedBytes, size - jsonBytes(cut.value));
  assert.equal((cut.value as { n: number }).n, 7, "the small field stays whole");
  assert.ok((cut.value as { title: string }).title.startsWith("x".repeat(90)));
});

Deno.test("shrinkJson() keeps a long string's prefix within the budget and never splits a surrogate pair", () => {
  const long = "abcdef".repeat(20);
  assert.deepEqual(shrinkJson(long, 5), { value: "abc", omittedBytes: long.length - 3 });
  const emoji = "😀".repeat(40); // each is a surrogate pair (2 UTF-16 units), 4 bytes of UTF-8
  assert.equal(shrinkJson(emoji, 2 + 4 + 3).value, "😀");
  assert.equal(shrinkJson(emoji, 2 + 3).value, "", "a half pair is never kept");
});

Deno.test("shrinkJson() never cuts a string of up to JSON_STRING_ATOMIC_CHARS_MAX units: whole or left out", () => {
  const atomic = "x".repeat(JSON_STRING_ATOMIC_CHARS_MAX);
  const over = "x".repeat(JSON_STRING_ATOMIC_CHARS_MAX + 1);
  const item = { outcome: "timed_out", started_at: "2026-01-01T00:00:00.000Z", text: atomic };
  const out = shrinkJson(item, jsonBytes(item) - 1).value as Record<string, string>;
  for (const [k, v] of Object.entries(out)) assert.equal(v, item[k as keyof typeof item], `${k} is whole`);
  assert.ok(Object.keys(out).length < 3, "one was left out instead");
  assert.deepEqual(shrinkJson([atomic], 10).value, [], "at the bound: left out");
  assert.deepEqual(shrinkJson([over], 10).value, ["x".repeat(6)], "past it: a prefix");
});

Deno.test("shrinkJson() keeps the first array elements that fit whole, or a shortened first", () => {
  assert.deepEqual(shrinkJson([1, 2, 3, 4], 5).value, [1, 2]);
  assert.deepEqual(shrinkJson(["a".repeat(200)], 10).value, ["a".repeat(6)]);
  assert.deepEqual(shrinkJson([1, 2], 2).value, []);
});

Deno.test("shrinkJson() below the smallest form answers that form; numbers and null are dropped whole", () => {
  assert.deepEqual(shrinkJson("abc", 1), { value: "", omittedBytes: 3 });
  assert.deepEqual(shrinkJson("abcdef", 5), { value: "", omittedBytes: 6 }, "a short string is not cut");
  assert.deepEqual(shrinkJson([1], 0).value, []);
  assert.deepEqual(shrinkJson({ a: 1 }, 1).value, {});
  assert.deepEqual(shrinkJson(12345, 3), { value: null, omittedBytes: 1 });
  assert.deepEqual(shrinkJson({ a: 1, b: "x".repeat(100) }, 8).value, { a: 1 }, "the large field is dropped first");
});

Deno.test("shrinkJson() shares an object's budget: small fields whole, large ones share what is left", () => {
  const value = { id: 1, a: "a".repeat(100), b: "b".repeat(100) };
  const { value: out } = shrinkJson(value, 120) as { value: { id: number; a: string; b: string } };
  assert.equal(out.id, 1);
  assert.ok(Math.abs(out.a.length - out.b.length) <= 1, `${out.a.length} vs ${out.b.length}`);
  assert.ok(jsonBytes(out) <= 120);
  assert.deepEqual(Object.keys(out), ["id", "a", "b"], "keys are kept in order, never renamed");
});

Deno.test("shrinkJson() refuses a bytesMax that is not a non-negative integer", () => {
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => shrinkJson("x", bad),
      (err: unknown) =>
        err instanceof RangeError && err.message.includes("Cannot shrink JSON") &&
        err.message.includes(`current value is ${bad}`),
    );
  }
  assert.deepEqual(shrinkJson("", 2), { value: "", omittedBytes: 0 }, "0 and up are accepted");
});

Deno.test("utf8BytesIfOver(): undefined at the bound, the byte count past it, for 1-, 3- and 4-byte characters", () => {
  assert.equal(utf8BytesIfOver("a".repeat(30), 30), undefined, "ASCII at the bound (encoded: 30 > 30/3 units)");
  assert.equal(utf8BytesIfOver("a".repeat(31), 30), 31);
  assert.equal(utf8BytesIfOver("€".repeat(10), 30), undefined, "3-byte characters at the bound (fast path)");
  assert.equal(utf8BytesIfOver("€".repeat(11), 30), 33);
  assert.equal(utf8BytesIfOver("😀".repeat(7), 28), undefined, "4-byte characters (2 units each) at the bound");
  assert.equal(utf8BytesIfOver("😀".repeat(8), 28), 32);
  assert.equal(utf8BytesIfOver("", 0), undefined);
  assert.equal(utf8BytesIfOver("a", 0), 1);
});
