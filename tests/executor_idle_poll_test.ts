/**
 * An idle executor's claim poll slows down (src/jobs/executor.ts `claimPollDelayMs`): a server left open all day
 * does not query an empty queue ten times a second, and still finds what another process queues, while a local
 * submission is claimed at once whatever the pace. Its cancel poll is armed only while a job runs, and still stops
 * a job another process cancels.
 *
 * @module
 */

import assert from "node:assert/strict";
import { systemClock } from "../src/base/clock.ts";
import { CLAIM_POLL_IDLE_BACKOFF_MAX } from "../src/base/limits.ts";
import { JobControl } from "../src/jobs/control.ts";
import { claimPollDelayMs } from "../src/jobs/executor.ts";
import { testRegistry } from "../testing/test_kinds.ts";
import { openHarness, openTempStore, tempDir, waitFor } from "../testing/temp.ts";

Deno.test("claimPollDelayMs(): the base pace, doubling per empty poll, capped at CLAIM_POLL_IDLE_BACKOFF_MAX x the base", () => {
  assert.equal(claimPollDelayMs(100, 0), 100);
  assert.equal(claimPollDelayMs(100, 1), 200);
  assert.equal(claimPollDelayMs(100, 3), 800);
  assert.equal(claimPollDelayMs(100, 4), 100 * CLAIM_POLL_IDLE_BACKOFF_MAX, "the cap: 1,600 would pass it");
  assert.equal(claimPollDelayMs(100, 1_000_000), 100 * CLAIM_POLL_IDLE_BACKOFF_MAX, "a day idle stays at the cap");
  for (const bad of [-1, 1.5]) {
    assert.throws(
      () => claimPollDelayMs(100, bad),
      (e) => e instanceof RangeError && /^Cannot pace the claim poll: .*current value is/.test(e.message),
    );
  }
});

Deno.test("Executor: an idle claim poll slows to its cap; a local submission is still claimed at once, and resets it", async () => {
  await using dir = await tempDir();
  const claimPollMs = 5; // capped at 50 ms
  await using h = await openHarness(dir.file("a.db"), {
    executor: { claimPollMs, heartbeatMs: 1_000, leaseMs: 60_000 },
  });
  // Count the executor's claim queries (it claims through these rows).
  const rows = h.store.rows;
  const claim = rows.jobClaimBatchIfOwnerLive.bind(rows);
  const at: number[] = [];
  rows.jobClaimBatchIfOwnerLive = (...args) => {
    at.push(performance.now());
    return claim(...args);
  };
  await waitFor("ten idle polls", () => at.length >= 10, { timeoutMs: 5_000 });
  const gaps = at.slice(1).map((t, i) => t - (at[i] as number));
  // The first gaps double from 5 ms; the last ones sit at the 50-ms cap (timers fire late, never early).
  const cap = claimPollMs * CLAIM_POLL_IDLE_BACKOFF_MAX;
  assert.ok(gaps.slice(-3).every((g) => g >= cap - 1), `idle gaps end at the cap: ${gaps.map(Math.round)}`);
  // Without the backoff ten polls take 50 ms; with it, at least 5 + 10 + 20 + 40 + 5 x 50 ms.
  assert.ok(at.at(-1)! - at[0]! >= 5 + 10 + 20 + 40 + 4 * cap, `ten polls took ${Math.round(at.at(-1)! - at[0]!)} ms`);

  // A local submission does not wait for the slow poll: it wakes the executor.
  const before = at.length;
  const job = await h.control.submit("echo", { a: 1 });
  const done = await waitFor("the local job", () => {
    const row = h.store.rows.jobGet(job.id);
    return row?.status === "succeeded" ? row : undefined;
  });
  assert.deepEqual(done.result, { a: 1 });
  assert.ok(at.length > before, "claimed by a wake, not by waiting out the cap");
  // ...and the poll is brisk again: the next empty polls start over from the base pace.
  const from = at.length;
  await waitFor("three more polls", () => at.length >= from + 3, { timeoutMs: 5_000 });
  const tail = at.slice(from - 1);
  const after = tail.map((t, i) => i === 0 ? 0 : t - (tail[i - 1] as number)).slice(1);
  assert.ok(
    (after[0] ?? Infinity) < cap,
    `the first poll after work comes sooner than the cap: ${after.map(Math.round)}`,
  );
});

Deno.test("Executor: an idle executor still claims what another process queues, within the capped pace", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  await using h = await openHarness(path, { executor: { claimPollMs: 5, heartbeatMs: 1_000, leaseMs: 60_000 } });
  using other = openTempStore(path);
  const control = new JobControl(other.rows, testRegistry(), { clock: systemClock });
  // Idle until its poll is at the cap (six empty polls: 5, 10, 20, 40, 50 ms), then a job from another
  // connection, which no wake reaches.
  const rows = h.store.rows;
  const claim = rows.jobClaimBatchIfOwnerLive.bind(rows);
  let polls = 0;
  rows.jobClaimBatchIfOwnerLive = (...args) => {
    polls++;
    return claim(...args);
  };
  await waitFor("six idle polls", () => polls >= 6, { timeoutMs: 5_000 });
  const remote = await control.submit("echo", { b: 2 });
  const done = await waitFor("the other process's job", () => {
    const row = h.store.rows.jobGet(remote.id);
    return row?.status === "succeeded" ? row : undefined;
  }, { timeoutMs: 5_000 });
  assert.equal(done.owner_id, h.executor!.ownerId);
});

Deno.test("Executor: the cancel poll queries only while a job runs, and still stops one another process cancels", async () => {
  await using dir = await tempDir();
  const path = dir.file("a.db");
  // The claim poll (capped at 50 ms when idle) is the clock this test reads idle time by: between two of its
  // polls, ten or so cancel periods of 5 ms pass.
  await using h = await openHarness(path, {
    executor: { cancelPollMs: 5, claimPollMs: 5, heartbeatMs: 1_000, leaseMs: 60_000 },
  });
  const rows = h.store.rows;
  const list = rows.jobListCancelRequested.bind(rows);
  const claim = rows.jobClaimBatchIfOwnerLive.bind(rows);
  let queries = 0;
  let claims = 0;
  rows.jobListCancelRequested = (...args) => {
    queries++;
    return list(...args);
  };
  rows.jobClaimBatchIfOwnerLive = (...args) => {
    claims++;
    return claim(...args);
  };
  const idle = async (what: string) => {
    const from = claims;
    await waitFor(what, () => claims >= from + 6, { timeoutMs: 5_000 });
  };
  await idle("six idle claim polls before any job");
  assert.equal(queries, 0, "no cancel query before a job ran");
  assert.equal(h.executor!.cancelPollArmed, false, "no cancel timer either: an idle executor does not wake for it");

  const sleeper = await h.control.submit("sleep", { ms: 60_000 });
  await waitFor("the job runs", () => h.store.rows.jobGet(sleeper.id)?.status === "running");
  await waitFor("cancel polls while it runs", () => queries >= 3, { timeoutMs: 5_000 });
  assert.equal(h.executor!.cancelPollArmed, true);
  // Cancelled by another connection, which no in-process fast path links to this executor: the poll stops it.
  using other = openTempStore(path);
  const control = new JobControl(other.rows, testRegistry(), { clock: systemClock });
  await control.cancel(sleeper.id, null);
  const ended = await waitFor("the job ends cancelled", () => {
    const row = h.store.rows.jobGet(sleeper.id);
    return row?.status === "cancelled" ? row : undefined;
  }, { timeoutMs: 5_000 });
  assert.equal(ended.outcome, "cancelled");
  await waitFor("its run is over", () => h.executor!.runningIds().length === 0);
  const after = queries;
  await idle("six idle claim polls after it");
  assert.ok(queries - after <= 1, `at most a poll already armed when the run ended: ${queries - after}`);
  assert.equal(h.executor!.cancelPollArmed, false, "not armed again once nothing runs");
});
