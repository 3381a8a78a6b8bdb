/**
 * The executor's options, their defaults (src/base/limits.ts) and their validation at
 * construction time, so a bad configuration fails before any owner row is written.
 *
 * @module
 */

import type { Clock } from "../base/clock.ts";
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
import type { Logger } from "../base/log.ts";

export interface ExecutorOptions {
  /** Real time: timestamps, leases, heartbeats. */
  clock: Clock;
  /** Time given to job handlers (default `clock`); a ScaledClock only in simulations. */
  handlerClock?: Clock;
  log: Logger;
  runningMax?: number;
  heartbeatMs?: number;
  leaseMs?: number;
  reconcileMs?: number;
  cancelPollMs?: number;
  claimPollMs?: number;
  retentionSweepMs?: number;
  shutdownGraceMs?: number;
  pid?: number;
  /**
   * When given, the executor claims only queued jobs whose id is in this set (read at every claim): a
   * one-shot command (src/cli/follow_job.ts) runs the job it submitted, never other work queued in the
   * store, which would run with the command's credentials and end `interrupted` when it exits.
   */
  onlyJobs?: ReadonlySet<string>;
  /** Called after every terminal write this executor makes or observes through reconcile. */
  onTerminal?: (id: string) => void;
  /** Called after a progress write (wakes waiting `jobs.get` calls at once). */
  onProgress?: (id: string) => void;
}

/** {@linkcode ExecutorOptions} with every default filled in and checked. */
export interface ExecutorConfig {
  readonly clock: Clock;
  readonly handlerClock: Clock;
  readonly log: Logger;
  readonly runningMax: number;
  readonly heartbeatMs: number;
  readonly leaseMs: number;
  readonly reconcileMs: number;
  readonly cancelPollMs: number;
  readonly claimPollMs: number;
  readonly retentionSweepMs: number;
  readonly shutdownGraceMs: number;
  readonly pid: number;
  readonly onlyJobs: ReadonlySet<string> | undefined;
  readonly onTerminal: ((id: string) => void) | undefined;
  readonly onProgress: ((id: string) => void) | undefined;
}

/**
 * Fills in the defaults and checks the bounds: at least one running slot, and a lease of at least
 * {@linkcode OWNER_LEASE_HEARTBEATS_MIN} heartbeats (so one late heartbeat never loses the jobs).
 */
export function executorConfig(options: ExecutorOptions): ExecutorConfig {
  const config: ExecutorConfig = {
    clock: options.clock,
    handlerClock: options.handlerClock ?? options.clock,
    log: options.log,
    runningMax: options.runningMax ?? JOB_RUNNING_MAX_DEFAULT,
    heartbeatMs: options.heartbeatMs ?? OWNER_HEARTBEAT_MS_DEFAULT,
    leaseMs: options.leaseMs ?? OWNER_LEASE_MS_DEFAULT,
    reconcileMs: options.reconcileMs ?? RECONCILE_INTERVAL_MS_DEFAULT,
    cancelPollMs: options.cancelPollMs ?? CANCEL_POLL_MS_DEFAULT,
    claimPollMs: options.claimPollMs ?? CLAIM_POLL_MS_DEFAULT,
    retentionSweepMs: options.retentionSweepMs ?? RETENTION_SWEEP_MS_DEFAULT,
    shutdownGraceMs: options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS_DEFAULT,
    pid: options.pid ?? Deno.pid,
    onlyJobs: options.onlyJobs,
    onTerminal: options.onTerminal,
    onProgress: options.onProgress,
  };
  if (config.runningMax < 1) {
    throw new RangeError(`Cannot create executor: runningMax must be >= 1, current value is ${config.runningMax}`);
  }
  if (config.leaseMs < OWNER_LEASE_HEARTBEATS_MIN * config.heartbeatMs) {
    throw new RangeError(
      `Cannot create executor: lease must be >= ${OWNER_LEASE_HEARTBEATS_MIN} x heartbeat (${
        OWNER_LEASE_HEARTBEATS_MIN * config.heartbeatMs
      } ms), current value is ${config.leaseMs} ms`,
    );
  }
  return config;
}
