/**
 * src/cli/status_line.ts: the text progress bar (the StatusLine itself writes stderr and is seen
 * in the blocking commands' process tests).
 */

import assert from "node:assert/strict";
import { bar } from "./status_line.ts";

Deno.test("bar: filled in proportion (rounded), at 0 and at the total, and width respected", () => {
  assert.equal(bar(0, 4, { width: 8 }), "[--------]");
  assert.equal(bar(1, 4, { width: 8 }), "[##------]");
  assert.equal(bar(1, 3, { width: 8 }), "[###-----]", "8/3 = 2.67 rounds to 3");
  assert.equal(bar(4, 4, { width: 8 }), "[########]");
  assert.equal(bar(2, 4).length, 26, "default width 24 plus brackets");
});

Deno.test("bar: a total of zero (or less) shows an empty bar, not NaN", () => {
  assert.equal(bar(0, 0, { width: 4 }), "[----]");
  assert.equal(bar(3, -1, { width: 4 }), "[----]");
});

Deno.test("bar: done past the total (or negative) is a full (or empty) bar, never a RangeError", () => {
  assert.equal(bar(5, 4, { width: 8 }), "[########]");
  assert.equal(bar(-1, 4, { width: 8 }), "[--------]");
});
