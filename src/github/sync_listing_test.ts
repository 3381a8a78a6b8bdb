import assert from "node:assert/strict";
import { ThreadVersions } from "./sync_listing.ts";

interface Thread {
  number: number;
  updated_at: string;
  title?: string;
}

Deno.test("ThreadVersions.merge: a thread is new once, then newer, same or older by updated_at", () => {
  const seen = new ThreadVersions<Thread>();
  assert.equal(seen.merge({ number: 1, updated_at: "2026-01-01T00:00:00Z", title: "v1" }), "new");
  assert.equal(seen.merge({ number: 1, updated_at: "2026-01-01T00:00:00Z", title: "same instant" }), "same");
  assert.equal(seen.merge({ number: 1, updated_at: "2025-12-31T23:59:59Z", title: "older" }), "older");
  assert.equal(seen.merge({ number: 1, updated_at: "2026-01-01T00:00:01Z", title: "v2" }), "newer");
  assert.equal(seen.size, 1);
  assert.deepEqual(seen.newestFirst().map((t) => t.title), ["v2"], "only a newer version replaces the one held");
  assert.ok(seen.has(1));
  assert.ok(!seen.has(2));
});

Deno.test("ThreadVersions.merge: the same instant in another notation is the same version", () => {
  const seen = new ThreadVersions<Thread>();
  seen.merge({ number: 3, updated_at: "2026-01-01T01:00:00Z" });
  assert.equal(seen.merge({ number: 3, updated_at: "2026-01-01T02:00:00+01:00" }), "same");
});

Deno.test("ThreadVersions.newestUpdatedAt: the newest instant held as ISO 8601, undefined when empty", () => {
  const seen = new ThreadVersions<Thread>();
  assert.equal(seen.newestUpdatedAt(), undefined);
  seen.merge({ number: 1, updated_at: "2026-01-02T00:00:00Z" });
  seen.merge({ number: 2, updated_at: "2026-01-03T00:00:00+02:00" });
  seen.merge({ number: 3, updated_at: "2026-01-01T00:00:00Z" });
  assert.equal(seen.newestUpdatedAt(), "2026-01-02T22:00:00.000Z");
});

Deno.test("ThreadVersions.newestFirst: newest updated_at first, ties by the higher number", () => {
  const seen = new ThreadVersions<Thread>();
  seen.merge({ number: 1, updated_at: "2026-01-01T00:00:00Z" });
  seen.merge({ number: 2, updated_at: "2026-01-02T00:00:00Z" });
  seen.merge({ number: 3, updated_at: "2026-01-01T00:00:00Z" });
  seen.merge({ number: 4, updated_at: "2025-01-01T00:00:00Z" });
  assert.deepEqual(seen.newestFirst().map((t) => t.number), [2, 3, 1, 4]);
});
