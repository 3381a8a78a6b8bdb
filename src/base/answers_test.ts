import assert from "node:assert/strict";
import { type BatchItem, batchOf, iso } from "./answers.ts";

type Item = BatchItem<number, "not_found">;

Deno.test("batchOf() is complete when every item is complete, and keeps the items in input order", () => {
  const items: Item[] = [{ key: "b", item_status: "complete", value: 2 }, {
    key: "a",
    item_status: "complete",
    value: 1,
  }];
  const batch = batchOf(items);
  assert.equal(batch.batch_status, "complete");
  assert.deepEqual(batch.items.map((i) => i.key), ["b", "a"]);
});

Deno.test("batchOf() is partial when one item is unavailable, and complete when empty", () => {
  const items: Item[] = [
    { key: "a", item_status: "complete", value: 1 },
    { key: "b", item_status: "unavailable", reason: "not_found" },
  ];
  assert.equal(batchOf(items).batch_status, "partial");
  assert.equal(batchOf<Item>([]).batch_status, "complete");
});

Deno.test("iso() is ISO 8601 in UTC with milliseconds", () => {
  assert.equal(iso(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), "2026-01-02T03:04:05.006Z");
  assert.equal(iso(0), "1970-01-01T00:00:00.000Z");
});

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
