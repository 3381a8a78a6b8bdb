import assert from "node:assert/strict";
import { batchOf, iso } from "./answers.ts";

Deno.test("iso: equals Date#toISOString at the edges of days, months, leap years and the formatted range", () => {
  const edges = [
    0,
    1,
    999,
    86_399_999,
    86_400_000,
    Date.UTC(2000, 1, 29, 23, 59, 59, 999), // a leap day of a year divisible by 400
    Date.UTC(2100, 1, 28, 12), // 2100 is no leap year
    Date.UTC(2100, 2, 1),
    Date.UTC(2024, 11, 31, 23, 59, 59, 999),
    Date.UTC(2025, 0, 1),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999), // the last whole millisecond formatted by arithmetic
    Date.UTC(10000, 0, 1), // past it: through Date (a signed six-digit year)
    -1, // before 1970: through Date
    1.5, // a fraction: through Date (which drops it)
  ];
  for (const ms of edges) assert.equal(iso(ms), new Date(ms).toISOString(), String(ms));
});

Deno.test("iso: equals Date#toISOString for 100,000 times spread over 1970..9999", () => {
  // A fixed linear congruential sequence: reproducible, and it covers every field's range.
  let seed = 20261201;
  for (let i = 0; i < 100_000; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const ms = Math.floor((seed / 2_147_483_648) * 253_402_300_800_000);
    assert.equal(iso(ms), new Date(ms).toISOString(), String(ms));
  }
});

Deno.test("batchOf: complete only when every item is complete", () => {
  assert.equal(batchOf([{ key: "a", item_status: "complete" }]).batch_status, "complete");
  assert.equal(
    batchOf([{ key: "a", item_status: "complete" }, { key: "b", item_status: "unavailable" }]).batch_status,
    "partial",
  );
  assert.equal(batchOf([]).batch_status, "complete");
});
