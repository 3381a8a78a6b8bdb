/**
 * ProgressThrottle (src/jobs/progress_throttle.ts) over a recording write function and ManualClocks:
 * the throttle, phase changes written at once, field bounds, poll guidance moved from the handler's
 * clock to real time, and what a failed write keeps. Nothing here sleeps; "not written yet" is the
 * recorded writes plus the clock's pending sleeps.
 */

import assert from "node:assert/strict";
import { ManualClock } from "../base/clock.ts";
import { JOB_PROGRESS_MESSAGE_CHARS_MAX, JOB_PROGRESS_WRITE_MS_MIN } from "../base/limits.ts";
import type { ProgressWrite } from "../store/job_rows.ts";
import { ProgressThrottle } from "./progress_throttle.ts";

/** Lets queued microtasks and 0 ms timers run. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A write function that records each write; `failing` makes the next writes reject. */
function recorder() {
  const writes: ProgressWrite[] = [];
  const state = { failing: false };
  const write = (p: ProgressWrite) => {
    writes.push({ ...p });
    return state.failing ? Promise.reject(new Error("disk full")) : Promise.resolve();
  };
  return { writes, state, write };
}

Deno.test("ProgressThrottle: the first report is written at once; later ones wait out JOB_PROGRESS_WRITE_MS_MIN, merged into one write", async () => {
  const clock = new ManualClock();
  const { writes, write } = recorder();
  const t = new ProgressThrottle({ write, clock, handlerClock: clock, phase: null });
  t.report({ message: "a", completedItems: 1 });
  await tick();
  assert.deepEqual(writes, [{ message: "a", completedItems: 1 }]);
  t.report({ message: "b" });
  t.report({ completedItems: 2 });
  await tick();
  assert.equal(writes.length, 1, "within the throttle nothing more is written");
  assert.equal(clock.pendingSleeps, 1, "one throttled write is armed, not one per report");
  clock.advance(JOB_PROGRESS_WRITE_MS_MIN - 1);
  await tick();
  assert.equal(writes.length, 1, "1 ms before the throttle ends nothing is written");
  clock.advance(1);
  await tick();
  assert.deepEqual(writes[1], { message: "b", completedItems: 2 });
  clock.advance(JOB_PROGRESS_WRITE_MS_MIN);
  t.report({ message: "c" });
  await tick();
  assert.deepEqual(writes[2], { message: "c" }, "past the throttle a report is written at once");
});

Deno.test("ProgressThrottle: a phase change is written at once; the same phase again is throttled", async () => {
  const clock = new ManualClock();
  const { writes, write } = recorder();
  const t = new ProgressThrottle({ write, clock, handlerClock: clock, phase: "waiting" });
  t.report({ message: "first" });
  await tick();
  t.report({ phase: "running" });
  await tick();
  assert.deepEqual(writes, [{ message: "first" }, { phase: "running" }]);
  t.report({ phase: "running", message: "again" });
  await tick();
  assert.equal(writes.length, 2, "an unchanged phase waits for the throttle");
  await t.flush();
  assert.deepEqual(writes[2], { phase: "running", message: "again" });
});

Deno.test("ProgressThrottle: the claimed phase counts as the last phase written", async () => {
  const clock = new ManualClock();
  const { writes, write } = recorder();
  const t = new ProgressThrottle({ write, clock, handlerClock: clock, phase: "running" });
  t.report({ message: "m" });
  await tick();
  t.report({ phase: "running" });
  await tick();
  assert.equal(writes.length, 1, "the phase stored at claim time is not a change");
});

Deno.test("ProgressThrottle: messages are cut at JOB_PROGRESS_MESSAGE_CHARS_MAX and counts floored at 0", async () => {
  const clock = new ManualClock();
  const { writes, write } = recorder();
  const t = new ProgressThrottle({ write, clock, handlerClock: clock, phase: null });
  t.report({
    message: "x".repeat(JOB_PROGRESS_MESSAGE_CHARS_MAX + 1),
    completedItems: 2.9,
    totalItems: -3,
  });
  await t.flush();
  assert.equal(writes[0]?.message, "x".repeat(JOB_PROGRESS_MESSAGE_CHARS_MAX));
  assert.equal(writes[0]?.completedItems, 2);
  assert.equal(writes[0]?.totalItems, 0);
  t.report({ message: "y".repeat(JOB_PROGRESS_MESSAGE_CHARS_MAX) });
  await t.flush();
  assert.equal(writes[1]?.message?.length, JOB_PROGRESS_MESSAGE_CHARS_MAX, "a message at the bound is kept whole");
});

Deno.test("ProgressThrottle: nextPollAt in the handler's clock is stored as the same delay in real time", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const handlerClock = new ManualClock(Date.UTC(2030, 5, 1));
  const { writes, write } = recorder();
  const t = new ProgressThrottle({ write, clock, handlerClock, phase: null });
  t.report({ nextPollAt: handlerClock.now() + 1_500.4 });
  await t.flush();
  assert.equal(writes[0]?.nextPollAt, Date.UTC(2026, 0, 1) + 1_500);
});

Deno.test("ProgressThrottle: flush() writes what is pending at once and disarms the throttled write", async () => {
  const clock = new ManualClock();
  const { writes, write } = recorder();
  const t = new ProgressThrottle({ write, clock, handlerClock: clock, phase: null });
  t.report({ completedItems: 1 });
  t.report({ completedItems: 2 });
  assert.equal(clock.pendingSleeps, 1);
  await t.flush();
  assert.deepEqual(writes, [{ completedItems: 1 }, { completedItems: 2 }]);
  assert.equal(clock.pendingSleeps, 0, "the throttled write was disarmed");
  await t.flush();
  assert.equal(writes.length, 2, "nothing pending: flush writes nothing");
  assert.equal(t.unwritten(), undefined);
});

Deno.test("ProgressThrottle: a failed write keeps its fields for the next write; unwritten() gives them without nextPollAt", async () => {
  const clock = new ManualClock();
  const { writes, state, write } = recorder();
  const t = new ProgressThrottle({ write, clock, handlerClock: clock, phase: null });
  state.failing = true;
  t.report({ phase: "a", message: "m1", completedItems: 1, nextPollAt: clock.now() + 10 });
  await t.flush();
  assert.deepEqual(t.unwritten(), { phase: "a", message: "m1", completedItems: 1 });
  state.failing = false;
  t.report({ message: "m2" });
  await t.flush();
  assert.deepEqual(writes.at(-1), { phase: "a", message: "m2", completedItems: 1, nextPollAt: clock.now() + 10 });
  assert.equal(t.unwritten(), undefined, "once written nothing is kept");
});

Deno.test("ProgressThrottle: a failed older write never restores a value a newer report replaced", async () => {
  const clock = new ManualClock();
  let release: (() => void) | undefined;
  const writes: ProgressWrite[] = [];
  let calls = 0;
  const t = new ProgressThrottle({
    write: (p) => {
      writes.push({ ...p });
      calls++;
      // The first write fails only after a newer report came in.
      if (calls === 1) return new Promise((_, reject) => release = () => reject(new Error("busy")));
      return Promise.resolve();
    },
    clock,
    handlerClock: clock,
    phase: null,
  });
  t.report({ message: "old", completedItems: 1 });
  await tick();
  assert.equal(calls, 1);
  t.report({ message: "new" }); // throttled: pending, not written
  release?.();
  await tick();
  const done = t.flush();
  await done;
  assert.deepEqual(writes[1], { message: "new", completedItems: 1 }, "the old message is not put back");
});
