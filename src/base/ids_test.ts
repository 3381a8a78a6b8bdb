import assert from "node:assert/strict";
import { isJobId, newJobId } from "./ids.ts";

Deno.test("newJobId() ids sort by creation time and keep a random UUID v4 (122 random bits)", () => {
  const a = newJobId(1_700_000_000_000);
  const b = newJobId(1_700_000_000_001);
  assert.ok(a < b, `${a} should sort before ${b}`);
  assert.match(a, /^018bcfe56800-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const same = new Set(Array.from({ length: 1000 }, () => newJobId(1)));
  assert.equal(same.size, 1000, "ids made in the same millisecond differ by their random part");
});

Deno.test("newJobId() refuses a time that does not fit the 48-bit prefix", () => {
  assert.throws(() => newJobId(-1), RangeError);
  assert.throws(() => newJobId(2 ** 48), RangeError);
  assert.throws(() => newJobId(1.5), RangeError);
  assert.ok(isJobId(newJobId(2 ** 48 - 1)));
});

Deno.test("isJobId() accepts new ids and plain UUID v4 ids of older databases, nothing else", () => {
  assert.ok(isJobId(newJobId()));
  assert.ok(isJobId(crypto.randomUUID()));
  assert.equal(isJobId("job:" + crypto.randomUUID()), false);
  assert.equal(isJobId(newJobId().toUpperCase()), false);
  assert.equal(isJobId(newJobId() + "0"), false);
  assert.equal(isJobId("0b9c3d4e-5f60-1a71-8b92-a3b4c5d6e7f8"), false, "not version 4");
  assert.equal(isJobId(""), false);
});
