import assert from "node:assert/strict";
import { Semaphore } from "./semaphore.ts";

Deno.test("Semaphore: at most `permits` holders; a release hands the permit to the oldest waiter", async () => {
  const s = new Semaphore(2);
  const r1 = await s.acquire();
  const r2 = await s.acquire();
  assert.equal(s.held, 2);
  const order: string[] = [];
  const third = s.acquire().then((r) => (order.push("third"), r));
  const fourth = s.acquire().then((r) => (order.push("fourth"), r));
  await Promise.resolve();
  assert.deepEqual(order, [], "no third holder past the bound");
  r1();
  const r3 = await third;
  assert.deepEqual(order, ["third"]);
  assert.equal(s.held, 2, "the permit moved to the waiter, never back to the pool");
  r2();
  const r4 = await fourth;
  assert.deepEqual(order, ["third", "fourth"]);
  r3();
  r4();
  assert.equal(s.held, 0);
});

Deno.test("Semaphore: releasing twice frees one permit only", async () => {
  const s = new Semaphore(1);
  const r = await s.acquire();
  r();
  r();
  assert.equal(s.held, 0);
  const again = await s.acquire();
  assert.equal(s.held, 1);
  again();
});

Deno.test("Semaphore.acquire: an aborted wait rejects with the reason and leaves no waiter behind", async () => {
  const s = new Semaphore(1);
  const held = await s.acquire();
  const controller = new AbortController();
  const waiting = s.acquire(controller.signal);
  controller.abort(new Error("gave up"));
  await assert.rejects(waiting, /gave up/);
  held();
  assert.equal(s.held, 0, "the aborted waiter did not take the released permit");
  await assert.rejects(s.acquire(AbortSignal.abort(new Error("already"))), /already/);
  assert.equal(s.held, 0);
});

Deno.test("Semaphore: refuses a permit count below 1 or not an integer", () => {
  assert.throws(() => new Semaphore(0), RangeError);
  assert.throws(() => new Semaphore(1.5), RangeError);
});
