/**
 * The pure parts of src/jobs/wait.ts not covered by tests/job_wait_test.ts (which tests JobWaits'
 * deadlines, bound, shared probe, notify and close with ManualClocks, and JobControl.wait and
 * jobs.get wait_ms over real databases and processes): the constructor's bound, a failing probe
 * or check, and isSettled. Time is a ManualClock: nothing here sleeps.
 */

import assert from "node:assert/strict";
import { ManualClock } from "../base/clock.ts";
import type { JobRow } from "../store/job_rows.ts";
import { isSettled, JobWaits } from "./wait.ts";

/** Lets timers of 0 ms and every queued microtask run. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("JobWaits: waitersMax 0 is accepted (every parked wait answers waiters_full); -1 and 1.5 are refused", async () => {
  const none = new JobWaits({
    probe: () => "s",
    clock: new ManualClock(),
    probeClock: new ManualClock(),
    waitersMax: 0,
  });
  assert.equal(none.waitersMax, 0);
  assert.equal(await none.wait(1_000, () => undefined), "waiters_full");
  assert.equal(await none.wait(1_000, () => "terminal"), "terminal", "a first check that answers needs no slot");
  for (const bad of [-1, 1.5]) {
    assert.throws(
      () => new JobWaits({ probe: () => "s", clock: new ManualClock(), waitersMax: bad }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message === `Cannot create job waits: waitersMax must be an integer >= 0, current value is ${bad}`,
    );
  }
});

Deno.test("JobWaits.wait: the message of a refused ms names the value", async () => {
  const waits = new JobWaits({ probe: () => "s", clock: new ManualClock() });
  await assert.rejects(
    waits.wait(-1, () => undefined),
    /^RangeError: Cannot wait: ms must be an integer >= 0, current value is -1$/,
  );
});

Deno.test("JobWaits: a probe that throws is skipped; the next period probes again and the deadline still ends the wait", async () => {
  const clock = new ManualClock();
  const probeClock = new ManualClock();
  let calls = 0;
  let failing = false;
  const waits = new JobWaits({
    probe: () => {
      calls++;
      if (failing) throw new Error("database is locked");
      return "same";
    },
    clock,
    probeClock,
    probeMs: 100,
  });
  let done: string | undefined;
  void waits.wait(1_000, () => undefined).then((r) => done = r);
  await tick();
  failing = true;
  probeClock.advance(100);
  await tick();
  assert.equal(waits.probes, 0, "a failed probe is not counted");
  failing = false;
  probeClock.advance(100);
  await tick();
  assert.equal(waits.probes, 1, "the loop kept going after the failure");
  assert.equal(calls, 3);
  assert.equal(done, undefined);
  clock.advance(1_000);
  await tick();
  assert.equal(done, "deadline");
});

Deno.test("JobWaits: a check that throws on a re-check ends the wait as changed (the caller's read reports it)", async () => {
  let throwing = false;
  const waits = new JobWaits({ probe: () => "s", clock: new ManualClock(), probeClock: new ManualClock() });
  const w = waits.wait(1_000, () => {
    if (throwing) throw new Error("row gone bad");
    return undefined;
  });
  await tick();
  throwing = true;
  waits.notify();
  assert.equal(await w, "changed");
  assert.equal(waits.waiting, 0);
});

Deno.test("JobWaits.wait: a signal aborted while parked ends it as cancelled and frees the slot", async () => {
  const clock = new ManualClock();
  const waits = new JobWaits({ probe: () => "s", clock, probeClock: new ManualClock(), waitersMax: 1 });
  const controller = new AbortController();
  const w = waits.wait(1_000, () => undefined, controller.signal);
  await tick();
  assert.equal(waits.waiting, 1);
  assert.equal(clock.pendingSleeps, 1, "the deadline is parked on the injected clock");
  controller.abort();
  assert.equal(await w, "cancelled");
  assert.equal(waits.waiting, 0);
  assert.equal(clock.pendingSleeps, 0, "the deadline sleep was released");
});

Deno.test("isSettled() is true for an absent row and every state past running, false for queued and running", () => {
  const row = (status: JobRow["status"]) => ({ status }) as JobRow;
  assert.equal(isSettled(undefined), true);
  for (const s of ["succeeded", "failed", "cancelled"] as const) assert.equal(isSettled(row(s)), true, s);
  for (const s of ["queued", "running"] as const) assert.equal(isSettled(row(s)), false, s);
});
