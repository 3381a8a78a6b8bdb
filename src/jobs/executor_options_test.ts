/**
 * executorConfig (src/jobs/executor_options.ts): defaults from src/base/limits.ts, and the bounds
 * checked at construction (running slots, lease against heartbeat) at and past their limits.
 */

import assert from "node:assert/strict";
import { ManualClock } from "../base/clock.ts";
import {
  CANCEL_POLL_MS_DEFAULT,
  CLAIM_POLL_MS_DEFAULT,
  JOB_RUNNING_MAX_DEFAULT,
  OWNER_HEARTBEAT_MS_DEFAULT,
  OWNER_LEASE_HEARTBEATS_MIN,
  OWNER_LEASE_MS_DEFAULT,
  RECONCILE_INTERVAL_MS_DEFAULT,
  RETENTION_SWEEP_MS_DEFAULT,
  SHUTDOWN_GRACE_MS_DEFAULT,
} from "../base/limits.ts";
import { silentLogger } from "../base/log.ts";
import { executorConfig } from "./executor_options.ts";

Deno.test("executorConfig: fills every default from limits.ts; the handler clock defaults to the clock, the pid to Deno.pid", () => {
  const clock = new ManualClock();
  const c = executorConfig({ clock, log: silentLogger });
  assert.equal(c.handlerClock, clock);
  assert.equal(c.pid, Deno.pid);
  assert.deepEqual(
    [
      c.runningMax,
      c.heartbeatMs,
      c.leaseMs,
      c.reconcileMs,
      c.cancelPollMs,
      c.claimPollMs,
      c.retentionSweepMs,
      c.shutdownGraceMs,
    ],
    [
      JOB_RUNNING_MAX_DEFAULT,
      OWNER_HEARTBEAT_MS_DEFAULT,
      OWNER_LEASE_MS_DEFAULT,
      RECONCILE_INTERVAL_MS_DEFAULT,
      CANCEL_POLL_MS_DEFAULT,
      CLAIM_POLL_MS_DEFAULT,
      RETENTION_SWEEP_MS_DEFAULT,
      SHUTDOWN_GRACE_MS_DEFAULT,
    ],
  );
  assert.ok(OWNER_LEASE_MS_DEFAULT >= OWNER_LEASE_HEARTBEATS_MIN * OWNER_HEARTBEAT_MS_DEFAULT, "the defaults pass");
});

Deno.test("executorConfig: given values win over the defaults", () => {
  const clock = new ManualClock();
  const handlerClock = new ManualClock(0);
  const onTerminal = () => {};
  const c = executorConfig({ clock, handlerClock, log: silentLogger, runningMax: 2, pid: 7, onTerminal });
  assert.equal(c.handlerClock, handlerClock);
  assert.equal(c.runningMax, 2);
  assert.equal(c.pid, 7);
  assert.equal(c.onTerminal, onTerminal);
  assert.equal(c.onProgress, undefined);
});

Deno.test("executorConfig: runningMax 1 is accepted; 0 is refused with a RangeError naming the value", () => {
  const clock = new ManualClock();
  assert.equal(executorConfig({ clock, log: silentLogger, runningMax: 1 }).runningMax, 1);
  assert.throws(
    () => executorConfig({ clock, log: silentLogger, runningMax: 0 }),
    (err: unknown) => err instanceof RangeError && /runningMax must be >= 1, current value is 0/.test(err.message),
  );
});

Deno.test("executorConfig: a lease of exactly OWNER_LEASE_HEARTBEATS_MIN heartbeats is accepted; 1 ms less is refused", () => {
  const clock = new ManualClock();
  const heartbeatMs = 100;
  const leaseMs = OWNER_LEASE_HEARTBEATS_MIN * heartbeatMs;
  assert.equal(executorConfig({ clock, log: silentLogger, heartbeatMs, leaseMs }).leaseMs, leaseMs);
  assert.throws(
    () => executorConfig({ clock, log: silentLogger, heartbeatMs, leaseMs: leaseMs - 1 }),
    (err: unknown) =>
      err instanceof RangeError &&
      err.message ===
        `Cannot create executor: lease must be >= ${OWNER_LEASE_HEARTBEATS_MIN} x heartbeat (${leaseMs} ms), current value is ${
          leaseMs - 1
        } ms`,
  );
});
