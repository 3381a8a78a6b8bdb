import assert from "node:assert/strict";
import {
  boolOrNull,
  num,
  numOrNull,
  requireCount,
  requireRepository,
  requireTime,
  str,
  strings,
  strOrNull,
} from "./corpus_columns.ts";

Deno.test("requireRepository: owner/name by GitHub's rules, else a TypeError naming the value", () => {
  requireRepository("denoland/deno", "store x");
  requireRepository("a-b/c.d_e", "store x");
  for (const bad of ["denoland", "a/b/c", "a/.", "a/..", "/b", "a/", "-a/b", "a b/c", ""]) {
    assert.throws(
      () => requireRepository(bad, "store x"),
      (err: unknown) =>
        err instanceof TypeError &&
        err.message === `Cannot store x: repository must be owner/name; current value is ${JSON.stringify(bad)}`,
      bad,
    );
  }
});

Deno.test("requireCount: safe integers at or above the minimum, else a RangeError", () => {
  requireCount(0, "n", { what: "store x", min: 0 });
  requireCount(1, "n", { what: "store x", min: 1 });
  requireCount(Number.MAX_SAFE_INTEGER, "n", { what: "store x", min: 1 });
  for (const bad of [0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, Infinity]) {
    assert.throws(
      () => requireCount(bad, "n", { what: "store x", min: 1 }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message === `Cannot store x: n must be an integer >= 1; current value is ${bad}`,
      String(bad),
    );
  }
});

Deno.test("requireTime: null or non-negative integer milliseconds, else a RangeError", () => {
  requireTime(null, "at", { what: "store x" });
  requireTime(0, "at", { what: "store x" });
  requireTime(Date.UTC(2026, 0, 1), "at", { what: "store x" });
  for (const bad of [-1, 0.5, Number.NaN, Infinity]) {
    assert.throws(
      () => requireTime(bad, "at", { what: "store x" }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message === `Cannot store x: at must be epoch milliseconds; current value is ${bad}`,
      String(bad),
    );
  }
});

Deno.test("column decoders: return typed values and assert on a column of another type", () => {
  const raw = { s: "x", n: 3, z: null, b: 1, f: 0, j: '["a",2]', bad: "{}" };
  assert.equal(str(raw, "s"), "x");
  assert.equal(strOrNull(raw, "z"), null);
  assert.equal(num(raw, "n"), 3);
  assert.equal(numOrNull(raw, "z"), null);
  assert.equal(boolOrNull(raw, "b"), true);
  assert.equal(boolOrNull(raw, "f"), false);
  assert.equal(boolOrNull(raw, "z"), null);
  assert.deepEqual(strings(raw, "j"), ["a", "2"]);
  for (const read of [() => str(raw, "n"), () => strOrNull(raw, "n"), () => num(raw, "s"), () => numOrNull(raw, "s")]) {
    assert.throws(read, /corpus column/);
  }
  assert.throws(() => str(raw, "missing"), /corpus column missing is a string/);
  assert.throws(() => strings(raw, "bad"), /corpus column bad is a JSON array/);
});
