import assert from "node:assert/strict";
import { IdleCollector, type IdleCollectorOptions, scheduleIdleCollection } from "./idle_collect.ts";
import { IDLE_COLLECT_AFTER_MS, IDLE_COLLECT_HEAP_GROWTH_BYTES_MIN } from "./limits.ts";

/** A collector over a heap figure the test sets, on a time the test moves; counts its collections. */
function setup(overrides: Partial<IdleCollectorOptions> = {}) {
  const state = { now: 0, heap: 20 * 1024 * 1024, collections: 0, logged: [] as number[] };
  const collector = new IdleCollector({
    collect: () => {
      state.collections++;
      state.heap = 4 * 1024 * 1024;
    },
    heapBytes: () => state.heap,
    now: () => state.now,
    onCollected: (c) => state.logged.push(c.heapBefore - c.heapAfter),
    ...overrides,
  });
  return { state, collector };
}

Deno.test("IdleCollector.look() collects once quiet for afterMs, not a millisecond before", () => {
  const { state, collector } = setup();
  state.now = IDLE_COLLECT_AFTER_MS - 1;
  assert.deepEqual(collector.look(), { outcome: "active", nextInMs: 1 });
  assert.equal(state.collections, 0);
  state.now = IDLE_COLLECT_AFTER_MS;
  assert.deepEqual(collector.look(), { outcome: "collected", nextInMs: null });
  assert.equal(state.collections, 1);
  assert.deepEqual(state.logged, [16 * 1024 * 1024]);
});

Deno.test("IdleCollector.touch() starts the quiet time again", () => {
  const { state, collector } = setup();
  state.now = 1_500;
  collector.touch();
  state.now = IDLE_COLLECT_AFTER_MS + 100;
  assert.deepEqual(collector.look(), { outcome: "active", nextInMs: 1_400 });
  state.now = 1_500 + IDLE_COLLECT_AFTER_MS;
  assert.equal(collector.look().outcome, "collected");
});

Deno.test("IdleCollector.look() collects again only after the heap grew by the minimum since the last collection", () => {
  const { state, collector } = setup();
  state.now = IDLE_COLLECT_AFTER_MS;
  assert.equal(collector.look().outcome, "collected");
  const after = state.heap;
  collector.touch();
  state.heap = after + IDLE_COLLECT_HEAP_GROWTH_BYTES_MIN - 1;
  state.now += IDLE_COLLECT_AFTER_MS;
  assert.deepEqual(collector.look(), { outcome: "grew_little", nextInMs: null });
  assert.equal(state.collections, 1);
  collector.touch();
  state.heap = after + IDLE_COLLECT_HEAP_GROWTH_BYTES_MIN;
  state.now += IDLE_COLLECT_AFTER_MS;
  assert.equal(collector.look().outcome, "collected");
  assert.equal(state.collections, 2);
});

Deno.test("new IdleCollector() refuses a quiet time below 1 ms and a negative growth", () => {
  assert.throws(() => setup({ afterMs: 0 }), /afterMs must be an integer >= 1, current value is 0/);
  assert.throws(() => setup({ afterMs: 1.5 }), /current value is 1.5/);
  assert.throws(() => setup({ growthBytesMin: -1 }), /growthBytesMin must be an integer >= 0, current value is -1/);
  assert.equal(setup({ afterMs: 1, growthBytesMin: 0 }).collector.afterMs, 1);
});

/** Timers the test fires by hand. */
function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 0;
  return {
    pending,
    timers: {
      set: (fn: () => void, ms: number) => {
        pending.set(++next, { fn, ms });
        return next;
      },
      clear: (handle: unknown) => pending.delete(handle as number),
    },
    /** Fires the one pending timer. */
    fire() {
      assert.equal(pending.size, 1, "exactly one timer is pending");
      const [id, timer] = [...pending][0]!;
      pending.delete(id);
      timer.fn();
    },
  };
}

Deno.test("scheduleIdleCollection() looks after the quiet time, then stays unarmed until the next touch", () => {
  const { state, collector } = setup();
  const t = manualTimers();
  const schedule = scheduleIdleCollection(collector, t.timers);
  assert.deepEqual([...t.pending.values()].map((p) => p.ms), [IDLE_COLLECT_AFTER_MS], "armed at the start");
  state.now = 500;
  t.fire();
  assert.deepEqual([...t.pending.values()].map((p) => p.ms), [IDLE_COLLECT_AFTER_MS - 500], "re-armed for the rest");
  state.now = IDLE_COLLECT_AFTER_MS;
  t.fire();
  assert.equal(state.collections, 1);
  assert.equal(t.pending.size, 0, "after a collection nothing is pending");
  schedule.touch();
  schedule.touch();
  assert.equal(t.pending.size, 1, "activity arms one timer, however often it comes");
  state.now += IDLE_COLLECT_AFTER_MS;
  t.fire();
  assert.equal(t.pending.size, 0, "nothing grew: nothing collected, nothing pending");
  assert.equal(state.collections, 1);
});

Deno.test("scheduleIdleCollection(): stop() cancels the pending look, and a stopped schedule arms nothing", () => {
  const { state, collector } = setup();
  const t = manualTimers();
  const schedule = scheduleIdleCollection(collector, t.timers);
  assert.equal(t.pending.size, 1);
  schedule.stop();
  assert.equal(t.pending.size, 0);
  schedule.touch();
  assert.equal(t.pending.size, 0);
  assert.equal(state.collections, 0);
});
