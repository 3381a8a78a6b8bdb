import assert from "node:assert/strict";
import {
  GITHUB_ETAG_BODY_BYTES_MAX,
  GITHUB_ETAG_MEMORY_BYTES_MAX,
  GITHUB_ETAG_MEMORY_ENTRIES_MAX,
} from "../base/limits.ts";
import { MemoryEtagCache } from "./etag_cache.ts";

Deno.test("MemoryEtagCache: get returns what put stored, a copy per call; an unknown URL is undefined", () => {
  const cache = new MemoryEtagCache();
  assert.equal(cache.get("https://api.github.com/a"), undefined);
  cache.put("https://api.github.com/a", { etag: 'W/"1"', body: "[1]" });
  const entry = cache.get("https://api.github.com/a");
  assert.deepEqual(entry, { etag: 'W/"1"', body: "[1]" });
  if (entry !== undefined) entry.body = "changed by the caller";
  assert.deepEqual(cache.get("https://api.github.com/a"), { etag: 'W/"1"', body: "[1]" });
});

Deno.test("MemoryEtagCache: holds entriesMax entries; one more evicts the least recently used", () => {
  const cache = new MemoryEtagCache({ entriesMax: 3 });
  cache.put("a", { etag: "1", body: "a" });
  cache.put("b", { etag: "1", body: "b" });
  cache.put("c", { etag: "1", body: "c" });
  assert.equal(cache.size, 3, "at the bound nothing is evicted");
  cache.get("a"); // a is now the most recently used
  cache.put("d", { etag: "1", body: "d" });
  assert.equal(cache.size, 3);
  assert.equal(cache.get("b"), undefined, "b was the least recently used");
  assert.ok(cache.get("a") !== undefined && cache.get("c") !== undefined && cache.get("d") !== undefined);
});

Deno.test("MemoryEtagCache: holds bytesMax body bytes (UTF-8); a byte more evicts the oldest", () => {
  const cache = new MemoryEtagCache({ bytesMax: 10 });
  cache.put("a", { etag: "1", body: "éé" }); // 4 bytes in UTF-8, 2 characters
  cache.put("b", { etag: "1", body: "123456" }); // 6 bytes
  assert.equal(cache.bytes, 10, "at the bound nothing is evicted");
  assert.equal(cache.size, 2);
  cache.put("c", { etag: "1", body: "x" });
  assert.equal(cache.get("a"), undefined, "the oldest went to make room");
  assert.equal(cache.bytes, 7);
  assert.equal(cache.size, 2);
});

Deno.test("MemoryEtagCache: a body of bodyBytesMax bytes is kept, one byte more is not (and drops the old entry)", () => {
  const cache = new MemoryEtagCache({ bodyBytesMax: 4 });
  assert.equal(cache.put("a", { etag: "1", body: "1234" }), true, "kept");
  assert.deepEqual(cache.get("a"), { etag: "1", body: "1234" });
  assert.equal(
    cache.put("a", { etag: "2", body: "12345" }),
    false,
    "not kept: the requester counts it too_large_to_cache",
  );
  assert.equal(cache.get("a"), undefined, "a stale validator is never kept beside a body it does not match");
  assert.equal(cache.size, 0);
  assert.equal(cache.bytes, 0);
});

Deno.test("MemoryEtagCache: a body larger than bytesMax is not cached and evicts nothing else", () => {
  const cache = new MemoryEtagCache({ bytesMax: 4, bodyBytesMax: 100 });
  cache.put("a", { etag: "1", body: "12" });
  assert.equal(cache.put("b", { etag: "1", body: "12345" }), false);
  assert.equal(cache.get("b"), undefined);
  assert.deepEqual(cache.get("a"), { etag: "1", body: "12" });
});

Deno.test("MemoryEtagCache: a put for a cached URL replaces it and counts its bytes once", () => {
  const cache = new MemoryEtagCache();
  cache.put("a", { etag: "1", body: "1234" });
  cache.put("a", { etag: "2", body: "12" });
  assert.deepEqual(cache.get("a"), { etag: "2", body: "12" });
  assert.equal(cache.size, 1);
  assert.equal(cache.bytes, 2);
});

Deno.test("MemoryEtagCache: by default entries, body bytes and total bytes are bounded by the limits' constants", () => {
  const entries = new MemoryEtagCache();
  for (let i = 0; i < GITHUB_ETAG_MEMORY_ENTRIES_MAX; i++) entries.put(`u${i}`, { etag: "1", body: "" });
  assert.equal(entries.size, GITHUB_ETAG_MEMORY_ENTRIES_MAX);
  entries.put("one more", { etag: "1", body: "" });
  assert.equal(entries.size, GITHUB_ETAG_MEMORY_ENTRIES_MAX);
  assert.equal(entries.get("u0"), undefined, "the oldest entry went");

  const bodies = new MemoryEtagCache();
  const largest = "x".repeat(GITHUB_ETAG_BODY_BYTES_MAX);
  bodies.put("largest", { etag: "1", body: largest });
  assert.ok(bodies.get("largest") !== undefined, "a body of GITHUB_ETAG_BODY_BYTES_MAX is kept");
  bodies.put("too large", { etag: "1", body: `${largest}x` });
  assert.equal(bodies.get("too large"), undefined, "one byte more is not");

  const bytes = new MemoryEtagCache();
  const fills = GITHUB_ETAG_MEMORY_BYTES_MAX / GITHUB_ETAG_BODY_BYTES_MAX;
  assert.ok(Number.isInteger(fills) && fills < GITHUB_ETAG_MEMORY_ENTRIES_MAX);
  for (let i = 0; i < fills; i++) bytes.put(`b${i}`, { etag: "1", body: largest });
  assert.equal(bytes.bytes, GITHUB_ETAG_MEMORY_BYTES_MAX, "at GITHUB_ETAG_MEMORY_BYTES_MAX nothing is evicted");
  assert.equal(bytes.size, fills);
  bytes.put("one byte more", { etag: "1", body: "x" });
  assert.equal(bytes.get("b0"), undefined, "a byte past the bound evicts the oldest");
  assert.equal(bytes.bytes, GITHUB_ETAG_MEMORY_BYTES_MAX - GITHUB_ETAG_BODY_BYTES_MAX + 1);
});

Deno.test("MemoryEtagCache: a bound below 1 or not an integer is a RangeError naming it", () => {
  assert.throws(
    () => new MemoryEtagCache({ entriesMax: 0 }),
    /Cannot bound the ETag cache entries: current value is 0/,
  );
  assert.throws(
    () => new MemoryEtagCache({ bytesMax: 1.5 }),
    /Cannot bound the ETag cache bytes: current value is 1.5/,
  );
  assert.throws(() => new MemoryEtagCache({ bodyBytesMax: -1 }), RangeError);
});
