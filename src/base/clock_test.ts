import assert from "node:assert/strict";
import { ManualClock, realMsPer, ScaledClock, systemClock } from "./clock.ts";
import { SIMULATE_TIME_RATE_MAX } from "./limits.ts";

/** Lets every queued microtask and 0-ms timer run. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function track(p: Promise<void>): { settled: "no" | "resolved" | "rejected"; reason?: unknown } {
  const state: { settled: "no" | "resolved" | "rejected"; reason?: unknown } = { settled: "no" };
  p.then(() => state.settled = "resolved", (reason) => {
    state.settled = "rejected";
    state.reason = reason;
  });
  return state;
}

Deno.test("ManualClock.advance() wakes a sleeper exactly at its deadline, not a millisecond before", async () => {
  const clock = new ManualClock(1_000);
  assert.equal(clock.now(), 1_000);
  const s = track(clock.sleep(500));
  assert.equal(clock.pendingSleeps, 1);
  clock.advance(499);
  await tick();
  assert.equal(s.settled, "no", "1 ms before the deadline");
  assert.equal(clock.pendingSleeps, 1);
  clock.advance(1);
  await tick();
  assert.equal(s.settled, "resolved");
  assert.equal(clock.pendingSleeps, 0);
  assert.equal(clock.now(), 1_500);
});

Deno.test("ManualClock.advance() wakes only the sleepers whose deadline passed; a negative sleep is due at once", async () => {
  const clock = new ManualClock(0);
  const early = track(clock.sleep(10));
  const late = track(clock.sleep(1_000));
  const negative = track(clock.sleep(-5));
  clock.advance(0);
  await tick();
  assert.equal(negative.settled, "resolved", "a negative ms counts as 0");
  clock.advance(10);
  await tick();
  assert.equal(early.settled, "resolved");
  assert.equal(late.settled, "no");
  assert.equal(clock.pendingSleeps, 1);
});

Deno.test("ManualClock.sleep() rejects with the signal's reason when aborted, and at once when already aborted", async () => {
  const clock = new ManualClock(0);
  const controller = new AbortController();
  const s = track(clock.sleep(1_000, controller.signal));
  controller.abort(new Error("stop"));
  await tick();
  assert.equal(s.settled, "rejected");
  assert.equal((s.reason as Error).message, "stop");
  assert.equal(clock.pendingSleeps, 0, "an aborted sleeper is forgotten");
  await assert.rejects(clock.sleep(1, controller.signal), /stop/);
});

Deno.test("ManualClock with autoAdvance jumps time forward on every sleep, in order", async () => {
  const clock = new ManualClock(0, { autoAdvance: true });
  await clock.sleep(30 * 60_000);
  assert.equal(clock.now(), 30 * 60_000);
  await clock.sleep(-1);
  assert.equal(clock.now(), 30 * 60_000, "a negative sleep does not move time back");
  assert.equal(clock.pendingSleeps, 0);
  const controller = new AbortController();
  controller.abort(new Error("gone"));
  await assert.rejects(clock.sleep(5, controller.signal), /gone/);
  assert.equal(clock.now(), 30 * 60_000, "an aborted sleep does not move time");
});

Deno.test("ManualClock defaults to 2026-01-01T00:00:00Z", () => {
  assert.equal(new ManualClock().now(), Date.UTC(2026, 0, 1));
});

Deno.test("systemClock.sleep() rejects with the signal's reason, already aborted or aborted while sleeping", async () => {
  const before = Date.now();
  assert.ok(Math.abs(systemClock.now() - before) < 1_000);
  const aborted = new AbortController();
  aborted.abort(new Error("early"));
  await assert.rejects(systemClock.sleep(60_000, aborted.signal), /early/);
  const later = new AbortController();
  const s = systemClock.sleep(60_000, later.signal);
  later.abort(new Error("late"));
  await assert.rejects(s, /late/);
  await systemClock.sleep(0); // resolves (a negative or zero ms is an immediate timer)
  await systemClock.sleep(-1);
});

Deno.test(`ScaledClock accepts rates 1 and ${SIMULATE_TIME_RATE_MAX} and refuses 0.99 and one more`, () => {
  assert.equal(new ScaledClock(1).rate, 1);
  assert.equal(new ScaledClock(SIMULATE_TIME_RATE_MAX).rate, SIMULATE_TIME_RATE_MAX);
  for (const bad of [0.99, SIMULATE_TIME_RATE_MAX + 1, Number.NaN]) {
    assert.throws(
      () => new ScaledClock(bad),
      (err: unknown) =>
        err instanceof RangeError && err.message ===
          `Cannot create a scaled clock: rate must be 1..${SIMULATE_TIME_RATE_MAX}, current value is ${bad}`,
    );
  }
});

Deno.test("ScaledClock runs rate times faster from its start and sleeps ms / rate of real time", async () => {
  const start = Date.UTC(2026, 0, 1);
  const clock = new ScaledClock(1000, start);
  const t0 = clock.now();
  assert.ok(t0 >= start && t0 < start + 1_000 * 1000);
  await clock.sleep(10_000); // 10 s simulated: 10 ms of real time
  assert.ok(clock.now() >= t0 + 9_000, `${clock.now() - t0} simulated ms passed`);
  const controller = new AbortController();
  controller.abort(new Error("cut"));
  await assert.rejects(clock.sleep(1_000, controller.signal), /cut/);
});

Deno.test("realMsPer() is 1/rate for a ScaledClock and 1 otherwise", () => {
  assert.equal(realMsPer(new ScaledClock(10)), 0.1);
  assert.equal(realMsPer(systemClock), 1);
  assert.equal(realMsPer(new ManualClock()), 1);
});
