/** Where a stdio round trip's time goes, from the server's side (scripts/bench/line_split.ts). */

import assert from "node:assert/strict";
import { splitRoundTrips, tailParts } from "../scripts/bench/line_split.ts";

/** A server line from its `[readAt, writeAt, writtenAt]`. */
const line = ([readAt, writeAt, writtenAt]: [number, number, number]) => ({ readAt, writeAt, writtenAt });

Deno.test("splitRoundTrips: each call gets the one line read during it, in three parts that sum to the call", () => {
  const lines = [line([1_012, 1_013, 1_014]), line([1_000.5, 1_001, 1_003])]; // any order
  const { splits, unmatched } = splitRoundTrips([{ startAt: 1_000, ms: 4 }, { startAt: 1_010, ms: 5 }], lines);
  assert.equal(unmatched, 0);
  assert.deepEqual(splits, [
    { ms: 4, handle: 0.5, write: 2, rest: 1.5 },
    { ms: 5, handle: 1, write: 1, rest: 3 },
  ]);
});

Deno.test("splitRoundTrips: a call with no line read during it, or with two, is unmatched; its edges count", () => {
  const lines = [line([100, 101, 102]), line([102, 103, 104]), line([120, 121, 122])];
  const { splits, unmatched } = splitRoundTrips([
    { startAt: 99, ms: 4 }, // two lines read inside: cannot tell
    { startAt: 110, ms: 5 }, // none
    { startAt: 120, ms: 3 }, // read exactly at its start
    { startAt: 117, ms: 3 }, // read exactly at its end
  ], lines);
  assert.equal(unmatched, 2);
  assert.deepEqual(splits, [{ ms: 3, handle: 1, write: 1, rest: 1 }, { ms: 3, handle: 1, write: 1, rest: 1 }]);
});

Deno.test("tailParts: the median of each part over the round trips above the cut only", () => {
  const split = ([ms, handle, write]: [number, number, number]) => ({ ms, handle, write, rest: ms - handle - write });
  const splits = [split([1, 0.5, 0.1]), split([2, 0.5, 0.1]), split([10, 1, 8]), split([12, 2, 6]), split([20, 3, 1])];
  assert.deepEqual(tailParts(splits, 2), { count: 3, ms: 12, handle: 2, write: 6, rest: 4 });
  assert.deepEqual(tailParts(splits, 12), { count: 1, ms: 20, handle: 3, write: 1, rest: 16 });
  assert.throws(() => tailParts(splits, 20), /Cannot split a tail: no round trip above 20 ms/);
});
