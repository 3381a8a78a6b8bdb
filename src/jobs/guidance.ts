/**
 * Poll guidance derived from a job's real situation (never a fixed busy interval):
 * queue position and recent run times for queued work, the handler's next external
 * observation for running work. Published as `poll_after_ms` / `retry_after_ms` and as
 * a task's `pollIntervalMs`.
 *
 * @module
 */

import {
  CANCEL_GUIDANCE_WINDOW_MS,
  CANCEL_POLL_MS_DEFAULT,
  OVERDUE_POLL_SLACK_MS,
  OWNER_HEARTBEAT_MS_DEFAULT,
  POLL_GUIDANCE_FROM_HISTORY_MS_MAX,
  POLL_GUIDANCE_RUN_MS_DEFAULT,
  POLL_INTERVAL_MS_MAX,
  POLL_INTERVAL_MS_MIN,
} from "../base/limits.ts";
import type { JobRow } from "../store/job_rows.ts";

/** Inputs beyond the row that guidance needs. */
export interface GuidanceInputs {
  now: number;
  /** Queued jobs ahead of this one and jobs running now (queued rows only). */
  queue?: { ahead: number; running: number };
  /** Mean run time of recent jobs of this kind. */
  recentRunMs?: number | undefined;
  /** Jobs one executor runs at once. */
  runningMax: number;
  /** Real ms from a queued job's start to its first observation that can show something new (its kind's). */
  firstPollMs?: number | undefined;
}

/** Clamps to the advertised bounds. */
export function clampPollMs(ms: number): number {
  return Math.min(POLL_INTERVAL_MS_MAX, Math.max(POLL_INTERVAL_MS_MIN, Math.round(ms)));
}

/** Milliseconds until a poll is likely to show something new; undefined when terminal. */
export function pollAfterMs(row: JobRow, inputs: GuidanceInputs): number | undefined {
  if (row.status !== "queued" && row.status !== "running") return undefined;
  const typical = inputs.recentRunMs ?? POLL_GUIDANCE_RUN_MS_DEFAULT;
  if (row.status === "queued") {
    const ahead = inputs.queue?.ahead ?? 0;
    // Waves of `runningMax` jobs ahead of us, each taking about `typical`, then our own run.
    const waves = Math.floor(ahead / Math.max(1, inputs.runningMax));
    const wait = Math.min(waves * typical, POLL_GUIDANCE_FROM_HISTORY_MS_MAX);
    // A kind that knows its schedule (a watch: its first scheduled GitHub poll) says when its first
    // look can show something new; otherwise about a second after it starts.
    if (inputs.firstPollMs !== undefined) return clampPollMs(wait + inputs.firstPollMs + POLL_INTERVAL_MS_MIN);
    return clampPollMs(
      Math.min(waves * typical + Math.min(typical, POLL_GUIDANCE_RUN_MS_DEFAULT), POLL_GUIDANCE_FROM_HISTORY_MS_MAX),
    );
  }
  // A cancellation just requested ends the job within a cancel poll: look again then, not at the next
  // observation the handler had planned before it.
  if (row.cancel_requested_at !== null && inputs.now - row.cancel_requested_at < CANCEL_GUIDANCE_WINDOW_MS) {
    return clampPollMs(CANCEL_POLL_MS_DEFAULT + POLL_INTERVAL_MS_MIN);
  }
  if (row.next_poll_at !== null) {
    const untilNext = row.next_poll_at - inputs.now;
    // A next observation long overdue means the handler is stuck or its process died:
    // look again about once a heartbeat (reconciliation will settle it), not at the floor.
    if (untilNext < -OVERDUE_POLL_SLACK_MS) return clampPollMs(OWNER_HEARTBEAT_MS_DEFAULT);
    // Just after the handler's next observation, so the poll sees its effect.
    return clampPollMs(untilNext + POLL_INTERVAL_MS_MIN);
  }
  const elapsed = row.started_at === null ? 0 : inputs.now - row.started_at;
  const remaining = typical - elapsed;
  const estimate = remaining > 0 ? remaining : Math.max(POLL_GUIDANCE_RUN_MS_DEFAULT, elapsed / 4);
  return clampPollMs(Math.min(estimate, POLL_GUIDANCE_FROM_HISTORY_MS_MAX));
}

/**
 * What the follow-up projections of one job (src/jobs/projection.ts `jobHandle`: a JobReference, a
 * task) derive from its situation beyond the row: computed once per answer by
 * `JobControl.guidance` (src/jobs/control.ts), then only read.
 */
export interface JobGuidance {
  /** Milliseconds until a poll is likely to show something new; undefined once terminal. */
  pollMs: number | undefined;
  /** Whole milliseconds from creation until the job may be purged (grows while it runs, fixed once terminal). */
  ttlMs: number;
}

/** Milliseconds from a job's creation until it may be purged: its expiry once terminal, else `now` + retention. */
export function ttlMsOf(row: JobRow, now: number): number {
  const end = row.expires_at ?? now + row.retention_ms;
  return Math.max(0, Math.round(end - row.created_at));
}
