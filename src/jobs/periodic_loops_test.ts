/**
 * PeriodicLoops (src/jobs/periodic_loops.ts): re-armed only after an attempt finishes, a failed
 * attempt logged and retried, nothing re-armed once not live, clear() cancels armed timers. Periods
 * are 1 ms of real time; "not armed" is read from `armed`, never proved by waiting, and Deno's op
 * sanitizer (opt-in since Deno 2.9, so each test turns it on) fails a test that leaves a timer behind.
 */

import assert from "node:assert/strict";
import { createLogger } from "../base/log.ts";
import { type LoopTimers, PeriodicLoops } from "./periodic_loops.ts";

/** Deno.test with the op and resource sanitizers on: a timer left armed fails the test. */
function sanitizedTest(name: string, fn: () => void | Promise<void>): void {
  Deno.test({ name, sanitizeOps: true, sanitizeResources: true, fn });
}

sanitizedTest(
  "PeriodicLoops.every: while an attempt runs no timer is armed; it is re-armed once the attempt ends",
  async () => {
    const loops = new PeriodicLoops(createLogger("silent"), () => true);
    const started = Promise.withResolvers<void>();
    const finish = Promise.withResolvers<void>();
    const again = Promise.withResolvers<void>();
    let calls = 0;
    loops.every(1, async () => {
      calls++;
      if (calls === 1) {
        started.resolve();
        await finish.promise;
      } else again.resolve();
    });
    assert.equal(loops.armed, 1);
    await started.promise;
    assert.equal(loops.armed, 0, "a slow attempt holds its loop: no catch-up attempt is queued");
    finish.resolve();
    await again.promise;
    assert.equal(calls, 2);
    loops.clear();
    assert.equal(loops.armed, 0);
  },
);

sanitizedTest("PeriodicLoops.every: a failed attempt is logged and the loop runs again", async () => {
  const lines: string[] = [];
  const loops = new PeriodicLoops(createLogger("warn", { scope: "test", write: (l) => lines.push(l) }), () => true);
  const second = Promise.withResolvers<void>();
  let calls = 0;
  loops.every(1, () => {
    calls++;
    if (calls === 1) return Promise.reject(new Error("database is locked"));
    second.resolve();
    return Promise.resolve();
  });
  await second.promise;
  loops.clear();
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? "", /background attempt failed; retrying.*database is locked/);
});

/** Timers a test fires by hand: each armed one is kept with the delay it asked for. */
function manualTimers() {
  const armed: { ms: number; fn: () => void; cancelled: boolean }[] = [];
  const timers: LoopTimers = {
    set: (fn, ms) => {
      const t = { ms, fn, cancelled: false };
      armed.push(t);
      return { cancel: () => void (t.cancelled = true) };
    },
  };
  /** Fires the only live timer and waits for its attempt and re-arm (one macrotask turn drains them). */
  const fire = async () => {
    const live = armed.filter((t) => !t.cancelled);
    assert.equal(live.length, 1, "one loop, one timer");
    live[0]!.cancelled = true;
    live[0]!.fn();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { timers, delays: () => armed.map((t) => t.ms), fire };
}

sanitizedTest(
  "PeriodicLoops.every with retryMs: after an attempt that threw the next comes retryMs later, then periods again",
  async () => {
    const { timers, delays, fire } = manualTimers();
    const loops = new PeriodicLoops(createLogger("silent"), () => true, { timers });
    const outcomes = [false, false, true, true];
    loops.every(2_000, () => outcomes.shift() ? Promise.resolve() : Promise.reject(new Error("disk I/O error")), {
      retryMs: 250,
    });
    for (let i = 0; i < 4; i++) await fire();
    assert.deepEqual(delays(), [2_000, 250, 250, 2_000, 2_000]);
    loops.clear();
  },
);

sanitizedTest("PeriodicLoops.every without retryMs: a failed attempt waits a whole period", async () => {
  const { timers, delays, fire } = manualTimers();
  const loops = new PeriodicLoops(createLogger("silent"), () => true, { timers });
  loops.every(2_000, () => Promise.reject(new Error("disk I/O error")));
  await fire();
  assert.deepEqual(delays(), [2_000, 2_000]);
  loops.clear();
});

sanitizedTest(
  "PeriodicLoops.every: once live() is false the loop is not re-armed, and a loop added then is not armed",
  async () => {
    let live = true;
    const loops = new PeriodicLoops(createLogger("silent"), () => live);
    const ran = Promise.withResolvers<void>();
    loops.every(1, () => {
      live = false;
      ran.resolve();
      return Promise.resolve();
    });
    await ran.promise;
    // One macrotask turn drains every microtask, so the attempt's continuation (the re-arm check) has run.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(loops.armed, 0);
    loops.every(1, () => Promise.resolve());
    assert.equal(loops.armed, 0);
  },
);

sanitizedTest("PeriodicLoops.clear: an attempt in flight finishes, and its loop is not armed again", async () => {
  const loops = new PeriodicLoops(createLogger("silent"), () => true);
  const started = Promise.withResolvers<void>();
  const finish = Promise.withResolvers<void>();
  const ended = Promise.withResolvers<void>();
  loops.every(1, async () => {
    started.resolve();
    await finish.promise;
    ended.resolve();
  });
  await started.promise;
  loops.clear();
  finish.resolve();
  await ended.promise;
  // One macrotask turn drains every microtask, so the attempt's continuation (the re-arm check) has run.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(loops.armed, 0, "cleared while its attempt ran: not re-armed");
});

sanitizedTest("PeriodicLoops.clear: cancels every armed loop", () => {
  const loops = new PeriodicLoops(createLogger("silent"), () => true);
  loops.every(60_000, () => Promise.resolve());
  loops.every(60_000, () => Promise.resolve());
  assert.equal(loops.armed, 2);
  loops.clear();
  assert.equal(loops.armed, 0); // and the op sanitizer sees no pending timer
});

sanitizedTest(
  "PeriodicLoops.onDemand: armed only by arm() while active, once however often asked, not again once inactive or cleared",
  async () => {
    const loops = new PeriodicLoops(createLogger("silent"), () => true);
    let active = false;
    let calls = 0;
    let ran = Promise.withResolvers<void>();
    const poll = loops.onDemand(1, () => {
      calls++;
      ran.resolve();
      return Promise.resolve();
    }, { active: () => active });
    assert.equal(poll.armed, false, "nothing until asked");
    poll.arm();
    assert.equal(poll.armed, false, "asked while inactive: not armed");
    active = true;
    poll.arm();
    poll.arm();
    assert.equal(loops.armed, 1, "asked twice, armed once");
    await ran.promise;
    ran = Promise.withResolvers<void>();
    await ran.promise;
    assert.ok(calls >= 2, "re-armed after its attempt while active");
    active = false;
    // The attempt in flight (if any) sees the loop inactive and does not re-arm it; the one armed now runs once.
    ran = Promise.withResolvers<void>();
    if (poll.armed) await ran.promise;
    assert.equal(poll.armed, false, "inactive: not armed again");
    active = true;
    poll.arm();
    assert.equal(poll.armed, true, "asked again once active");
    loops.clear();
    assert.equal(poll.armed, false);
    poll.arm();
    assert.equal(poll.armed, false, "a cleared loop is not armed again");
  },
);
