import assert from "node:assert/strict";
import {
  CANCEL_GUIDANCE_WINDOW_MS,
  CANCEL_POLL_MS_DEFAULT,
  OWNER_HEARTBEAT_MS_DEFAULT,
  POLL_GUIDANCE_FROM_HISTORY_MS_MAX,
  POLL_INTERVAL_MS_MAX,
  POLL_INTERVAL_MS_MIN,
} from "../base/limits.ts";
import { clampPollMs, pollAfterMs } from "./guidance.ts";
import type { JobRow } from "../store/job_rows.ts";
import { jobRowOf } from "../../testing/job_row.ts";

const NOW = Date.UTC(2026, 0, 1);

function row(over: Partial<JobRow>): JobRow {
  return jobRowOf({
    id: "0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8",
    status: "running",
    created_at: NOW - 10_000,
    started_at: NOW - 5_000,
    updated_at: NOW,
    owner_id: "o",
    attempt: 1,
    retention_ms: 1000,
    ...over,
  });
}

Deno.test("clampPollMs() keeps guidance within the advertised bounds, at and past each end", () => {
  assert.equal(clampPollMs(POLL_INTERVAL_MS_MIN), POLL_INTERVAL_MS_MIN);
  assert.equal(clampPollMs(POLL_INTERVAL_MS_MIN - 1), POLL_INTERVAL_MS_MIN);
  assert.equal(clampPollMs(POLL_INTERVAL_MS_MAX), POLL_INTERVAL_MS_MAX);
  assert.equal(clampPollMs(POLL_INTERVAL_MS_MAX + 1), POLL_INTERVAL_MS_MAX);
});

Deno.test("pollAfterMs() follows the handler's next observation, just after it", () => {
  assert.equal(
    pollAfterMs(row({ next_poll_at: NOW + 7_000 }), { now: NOW, runningMax: 4 }),
    7_000 + POLL_INTERVAL_MS_MIN,
  );
  assert.equal(
    pollAfterMs(row({ next_poll_at: NOW + 10 * 60_000 }), { now: NOW, runningMax: 4 }),
    POLL_INTERVAL_MS_MAX,
  );
});

Deno.test("pollAfterMs() of a running job whose cancellation was just requested: the cancel poll, until the window ends", () => {
  const planned = { next_poll_at: NOW + 50_000 }; // the watch's next GitHub poll, before the cancel
  const soon = CANCEL_POLL_MS_DEFAULT + POLL_INTERVAL_MS_MIN;
  assert.equal(pollAfterMs(row({ ...planned, cancel_requested_at: NOW }), { now: NOW, runningMax: 4 }), soon);
  assert.equal(
    pollAfterMs(row({ ...planned, cancel_requested_at: NOW - CANCEL_GUIDANCE_WINDOW_MS + 1 }), {
      now: NOW,
      runningMax: 4,
    }),
    soon,
    "at the window's last millisecond",
  );
  assert.equal(
    pollAfterMs(row({ ...planned, cancel_requested_at: NOW - CANCEL_GUIDANCE_WINDOW_MS }), { now: NOW, runningMax: 4 }),
    50_000 + POLL_INTERVAL_MS_MIN,
    "past it (a handler ignoring its abort): the usual guidance",
  );
  assert.equal(pollAfterMs(row(planned), { now: NOW, runningMax: 4 }), 50_000 + POLL_INTERVAL_MS_MIN, "no cancel");
});

Deno.test("pollAfterMs() answers about a heartbeat, not the floor, when the next observation is overdue", () => {
  assert.equal(
    pollAfterMs(row({ next_poll_at: NOW - 60_000 }), { now: NOW, runningMax: 4 }),
    OWNER_HEARTBEAT_MS_DEFAULT,
  );
  // Slightly late (a poll in progress) is not overdue.
  assert.equal(pollAfterMs(row({ next_poll_at: NOW - 100 }), { now: NOW, runningMax: 4 }), POLL_INTERVAL_MS_MIN);
});

Deno.test("pollAfterMs() caps history-based guidance and is undefined once terminal", () => {
  const long = pollAfterMs(row({}), { now: NOW, runningMax: 4, recentRunMs: 10 * 60_000 });
  assert.equal(long, POLL_GUIDANCE_FROM_HISTORY_MS_MAX);
  const queued = pollAfterMs(row({ status: "queued", started_at: null }), {
    now: NOW,
    runningMax: 4,
    recentRunMs: 60_000,
    queue: { ahead: 40, running: 4 },
  });
  assert.equal(queued, POLL_GUIDANCE_FROM_HISTORY_MS_MAX);
  assert.equal(pollAfterMs(row({ status: "succeeded" }), { now: NOW, runningMax: 4 }), undefined);
});

Deno.test("pollAfterMs() of a queued job whose kind knows its first poll: the queue wait plus that poll, not the floor", () => {
  const queued = row({ status: "queued", started_at: null });
  // Nothing ahead: the first poll (plus the slack that lets a poll see its effect).
  assert.equal(
    pollAfterMs(queued, { now: NOW, runningMax: 4, firstPollMs: 10_000, queue: { ahead: 0, running: 0 } }),
    10_000 + POLL_INTERVAL_MS_MIN,
  );
  // Two waves ahead at 2 s each.
  assert.equal(
    pollAfterMs(queued, {
      now: NOW,
      runningMax: 1,
      recentRunMs: 2_000,
      firstPollMs: 10_000,
      queue: { ahead: 2, running: 1 },
    }),
    4_000 + 10_000 + POLL_INTERVAL_MS_MIN,
  );
  // Bounded like all guidance.
  assert.equal(pollAfterMs(queued, { now: NOW, runningMax: 4, firstPollMs: 10 * 60_000 }), POLL_INTERVAL_MS_MAX);
  // Without it: about a second, as before.
  assert.equal(pollAfterMs(queued, { now: NOW, runningMax: 4, queue: { ahead: 0, running: 0 } }), 1_000);
});
