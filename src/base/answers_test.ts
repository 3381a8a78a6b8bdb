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
