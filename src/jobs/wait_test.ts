/**
 * The pure parts of src/jobs/wait.ts: JobWaits' deadlines, bound, shared probe, notify and close,
 * the constructor's bound, a failing probe or check, materialKey with a local policy, and
 * isSettled. Time is a ManualClock: nothing here sleeps. tests/job_wait_test.ts keeps the watch's
 * material key (a github/ policy) and JobControl.wait and jobs.get wait_ms over real databases and
 * processes.
 */

import assert from "node:assert/strict";
import { ManualClock } from "../base/clock.ts";
import { JOB_WAIT_MS_MAX, JOB_WAIT_PROBE_MS, JOB_WAITERS_MAX } from "../base/limits.ts";
import type { JobRow } from "../store/job_rows.ts";
import { defineJobPolicy, JobKindRegistry } from "./kinds.ts";
import { isSettled, JobWaits, materialKey } from "./wait.ts";

/** Lets timers of 0 ms and every queued microtask run. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(p: Promise<T>): { readonly settled: boolean; readonly value: T | undefined; promise: Promise<T> } {
  const state = { settled: false, value: undefined as T | undefined, promise: p };
  p.then((v) => {
    state.settled = true;
    state.value = v;
  }, () => state.settled = true);
  return state;
}

const never = () => undefined;

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
  const w = waits.wait(1_000, () => undefined, { signal: controller.signal });
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

// ---------------------------------------------------------------- JobWaits (moved from tests/job_wait_test.ts)

Deno.test("JobWaits.wait: ends with deadline exactly at wait_ms on the injected clock, not a millisecond before", async () => {
  const clock = new ManualClock();
  const waits = new JobWaits({ probe: () => "same", clock, probeClock: new ManualClock() });
  const w = track(waits.wait(JOB_WAIT_MS_MAX, never));
  await tick();
  clock.advance(JOB_WAIT_MS_MAX - 1);
  await tick();
  assert.equal(w.settled, false, "still waiting 1 ms before wait_ms");
  assert.equal(waits.waiting, 1);
  clock.advance(1);
  assert.equal(await w.promise, "deadline");
  assert.equal(waits.waiting, 0);
});

Deno.test("JobWaits.wait: a first check that already reports terminal answers at once; ms 0 answers deadline at once", async () => {
  const waits = new JobWaits({ probe: () => "s", clock: new ManualClock(), probeClock: new ManualClock() });
  assert.equal(await waits.wait(1_000, () => "terminal"), "terminal");
  assert.equal(await waits.wait(0, never), "deadline");
  assert.equal(waits.waiting, 0);
});

Deno.test("JobWaits.wait: negative and non-integer ms are refused with RangeError", async () => {
  const waits = new JobWaits({ probe: () => "s", clock: new ManualClock() });
  await assert.rejects(waits.wait(-1, never), RangeError);
  await assert.rejects(waits.wait(1.5, never), RangeError);
});

Deno.test("JobWaits.wait: at JOB_WAITERS_MAX waiters the next answers waiters_full at once; a freed slot waits again", async () => {
  const clock = new ManualClock();
  const waits = new JobWaits({ probe: () => "same", clock, probeClock: new ManualClock() });
  const aborts = Array.from({ length: JOB_WAITERS_MAX }, () => new AbortController());
  const parked = aborts.map((a) => track(waits.wait(10_000, never, { signal: a.signal })));
  await tick();
  assert.equal(waits.waiting, JOB_WAITERS_MAX, "every waiter up to the bound is parked");
  assert.ok(parked.every((p) => !p.settled));
  assert.equal(await waits.wait(10_000, never), "waiters_full");
  aborts[0]?.abort();
  assert.equal(await parked[0]?.promise, "cancelled");
  const again = track(waits.wait(10_000, never));
  await tick();
  assert.equal(again.settled, false, "the freed slot is taken by a new waiter");
  assert.equal(waits.waiting, JOB_WAITERS_MAX);
  waits.close();
  assert.equal(await again.promise, "shutdown");
  for (const p of parked.slice(1)) assert.equal(await p.promise, "shutdown");
});

Deno.test("JobWaits: many waiters share one probe per period; a moved stamp wakes each to re-check", async () => {
  const probeClock = new ManualClock();
  let stamp = 0, probeCalls = 0;
  const waits = new JobWaits({
    probe: () => {
      probeCalls++;
      return String(stamp);
    },
    clock: new ManualClock(),
    probeClock,
  });
  let checks = 0;
  let changed = false;
  const check = () => {
    checks++;
    return changed ? "changed" as const : undefined;
  };
  const parked = Array.from({ length: 20 }, () => track(waits.wait(JOB_WAIT_MS_MAX, check)));
  await tick();
  assert.equal(probeCalls, 20, "one stamp per call when it starts");
  assert.equal(checks, 20, "one first read per call");
  for (let i = 0; i < 5; i++) {
    probeClock.advance(JOB_WAIT_PROBE_MS);
    await tick();
  }
  assert.equal(waits.probes, 5, "one shared probe per period, not one per waiter");
  assert.equal(probeCalls, 25);
  assert.equal(checks, 20, "an unchanged stamp re-reads nothing");
  stamp++;
  changed = true;
  probeClock.advance(JOB_WAIT_PROBE_MS);
  for (const p of parked) assert.equal(await p.promise, "changed");
  assert.equal(waits.probes, 6);
  assert.equal(checks, 40, "a moved stamp: each waiter re-reads once");
  // Nobody waits: the loop stopped, time passing probes nothing.
  probeClock.advance(JOB_WAIT_PROBE_MS * 10);
  await tick();
  assert.equal(waits.probes, 6);
});

Deno.test("JobWaits.notify: an in-process event wakes waiters without waiting for the probe", async () => {
  let changed = false;
  const waits = new JobWaits({ probe: () => "same", clock: new ManualClock(), probeClock: new ManualClock() });
  const w = track(waits.wait(JOB_WAIT_MS_MAX, () => changed ? "changed" : undefined));
  await tick();
  waits.notify();
  await tick();
  assert.equal(w.settled, false, "a notify without a change keeps waiting");
  changed = true;
  waits.notify();
  assert.equal(await w.promise, "changed");
  assert.equal(waits.probes, 0);
});

Deno.test("JobWaits.close: ends every waiter with shutdown; later waits answer shutdown at once", async () => {
  const waits = new JobWaits({ probe: () => "s", clock: new ManualClock(), probeClock: new ManualClock() });
  const a = waits.wait(JOB_WAIT_MS_MAX, never), b = waits.wait(JOB_WAIT_MS_MAX, never);
  await tick();
  waits.close();
  assert.deepEqual(await Promise.all([a, b]), ["shutdown", "shutdown"]);
  assert.equal(await waits.wait(JOB_WAIT_MS_MAX, never), "shutdown");
  const aborted = new JobWaits({ probe: () => "s", clock: new ManualClock() });
  assert.equal(await aborted.wait(JOB_WAIT_MS_MAX, never, { signal: AbortSignal.abort() }), "cancelled");
});

Deno.test("materialKey: without the kind's materialProgress a progress message is not material; with it, its part is", () => {
  const row = {
    kind: "plain",
    status: "running",
    outcome: null,
    phase: "working",
    cancel_requested_at: null,
    completed_items: 0,
    total_items: null,
    error: null,
    progress_message: "tick 1",
  } as unknown as JobRow;
  const registry = new JobKindRegistry([
    defineJobPolicy({ kind: "plain" }),
    defineJobPolicy({ kind: "signed", materialProgress: (m: string | null) => m?.split(";")[1] }),
  ]);
  const key = materialKey(row, registry);
  assert.equal(materialKey({ ...row, progress_message: "tick 2" }, registry), key, "no policy: the message is noise");
  assert.equal(materialKey({ ...row, kind: "unknown" }, registry), key, "an unknown kind: no material part");
  assert.notEqual(materialKey({ ...row, error: { code: "x", message: "m", retryable: false } }, registry), key);
  const signed = { ...row, kind: "signed", progress_message: "poll 1;sig A" };
  const signedKey = materialKey(signed, registry);
  assert.equal(materialKey({ ...signed, progress_message: "poll 2;sig A" }, registry), signedKey);
  assert.notEqual(materialKey({ ...signed, progress_message: "poll 2;sig B" }, registry), signedKey);
});
