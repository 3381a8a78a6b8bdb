import assert from "node:assert/strict";
import { once } from "./once.ts";

Deno.test("once: builds on the first call only, and returns the same value after", () => {
  let builds = 0;
  const get = once(() => ({ n: ++builds }));
  assert.equal(builds, 0, "nothing is built before the first call");
  const first = get();
  assert.equal(builds, 1);
  assert.equal(get(), first, "the same value, not a new one");
  assert.equal(builds, 1);
});

Deno.test("once: a build that throws is retried on the next call", () => {
  let calls = 0;
  const get = once(() => {
    calls++;
    if (calls === 1) throw new Error("first build fails");
    return calls;
  });
  let threw = false;
  try {
    get();
  } catch {
    threw = true;
  }
  assert.ok(threw);
  assert.equal(get(), 2);
  assert.equal(get(), 2);
});
