/**
 * src/jobs/projection.ts: the summary per state, the bounded result at and past its bound, the job
 * handle, the job item (concise vs detailed), the cancel item per effect, and the `jobs.get` /
 * `jobs.cancel` batches (not_found, invalid_id, already ended) over a real SQLite store driven
 * through its own row methods. Rows of the pure functions come from a local builder.
 */

import assert from "node:assert/strict";
import { iso } from "../base/answers.ts";
import { ManualClock } from "../base/clock.ts";
import { jsonBytes } from "../base/json_bound.ts";
import { JOB_RESULT_VIEW_BYTES_MAX } from "../base/limits.ts";
import type { JobRow } from "../store/job_rows.ts";
import { openStore, type Store } from "../store/store.ts";
import { JobControl } from "./control.ts";
import { defineJobPolicy, JobKindRegistry } from "./kinds.ts";
import {
  boundedResult,
  cancelItem,
  jobCancelItems,
  jobGetItems,
  jobHandle,
  jobIdsOf,
  jobItem,
  jobSummary,
} from "./projection.ts";
import { jobRowOf } from "../../testing/job_row.ts";

const ID = "0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8";
const T0 = Date.UTC(2026, 0, 1);

/** A stored job row: queued, nothing reported, with `over` applied. */
function row(over: Partial<JobRow> = {}): JobRow {
  return jobRowOf({
    id: ID,
    kind: "test.kind",
    request: { a: 1 },
    created_at: T0,
    updated_at: T0,
    ...over,
  });
}

const ENDED = { started_at: T0 + 1_000, completed_at: T0 + 5_000, updated_at: T0 + 5_000, expires_at: T0 + 9_000 };
const ERROR = { code: "not_found", message: "no such pull request", retryable: false };

// ---------------------------------------------------------------- jobSummary

Deno.test("jobSummary: one line per state (queued, running with phase/counts/message/cancel, each end)", () => {
  assert.equal(jobSummary(row()), "test.kind is queued");
  assert.equal(jobSummary(row({ status: "running" })), "test.kind running");
  assert.equal(
    jobSummary(row({ status: "running", phase: "waiting_for_checks", completed_items: 1, total_items: 3 })),
    "test.kind waiting for checks (1/3)",
  );
  assert.equal(jobSummary(row({ status: "running", completed_items: 4 })), "test.kind running (4 done)");
  assert.equal(
    jobSummary(row({ status: "running", progress_message: "2 pending", cancel_requested_at: T0 })),
    "test.kind running: 2 pending (cancellation requested)",
  );
  assert.equal(
    jobSummary(row({ status: "succeeded", outcome: "succeeded", completed_items: 3 })),
    "test.kind succeeded",
  );
  assert.equal(jobSummary(row({ status: "succeeded", outcome: null })), "test.kind succeeded");
  assert.equal(jobSummary(row({ status: "succeeded", outcome: "partial" })), "test.kind finished with outcome partial");
  assert.equal(jobSummary(row({ status: "failed", error: ERROR })), "test.kind failed: no such pull request");
  assert.equal(jobSummary(row({ status: "failed", error: null })), "test.kind failed: unknown error");
  assert.equal(jobSummary(row({ status: "cancelled" })), "test.kind was cancelled");
});

// ---------------------------------------------------------------- boundedResult

Deno.test("boundedResult: a result of exactly JOB_RESULT_VIEW_BYTES_MAX JSON bytes is kept whole (the same value)", () => {
  const result = { text: "x".repeat(JOB_RESULT_VIEW_BYTES_MAX - jsonBytes({ text: "" })) };
  assert.equal(jsonBytes(result), JOB_RESULT_VIEW_BYTES_MAX);
  const b = boundedResult(result);
  assert.equal(b.result, result, "not copied when it fits");
  assert.equal(b.truncated, false);
  assert.equal(b.omittedBytes, 0);
});

Deno.test("boundedResult: one byte past the bound is shortened to the same shape within it, omittedBytes said", () => {
  const result = { text: "x".repeat(JOB_RESULT_VIEW_BYTES_MAX - jsonBytes({ text: "" }) + 1) };
  const b = boundedResult(result);
  assert.equal(b.truncated, true);
  assert.ok(jsonBytes(b.result) <= JOB_RESULT_VIEW_BYTES_MAX);
  assert.equal(typeof (b.result as { text: unknown }).text, "string", "same shape");
  assert.equal(b.omittedBytes, jsonBytes(result) - jsonBytes(b.result));
  assert.ok(b.omittedBytes >= 1);
});

Deno.test("boundedResult: an explicit bytesMax applies; an absent result and a top-level null are kept as they are", () => {
  const b = boundedResult(["aaaa", "bbbb", "cccc"], 10);
  assert.equal(b.truncated, true);
  assert.ok(jsonBytes(b.result) <= 10);
  assert.ok(Array.isArray(b.result));
  assert.deepEqual(boundedResult(undefined), { result: undefined, truncated: false, omittedBytes: 0 });
  // A top-level null is already the smallest form: kept whole even under a bound of 0.
  assert.deepEqual(boundedResult(null, 0), { result: null, truncated: false, omittedBytes: 0 });
});

// ---------------------------------------------------------------- jobHandle

Deno.test("jobHandle: id, kind, status, summary, the given guidance and ISO times", () => {
  const r = row({ status: "running", updated_at: T0 + 1_234 });
  assert.deepEqual(jobHandle(r, { pollMs: 750, ttlMs: 90_000 }), {
    id: ID,
    kind: "test.kind",
    status: "running",
    summary: "test.kind running",
    pollMs: 750,
    ttlMs: 90_000,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:01.234Z",
  });
  assert.equal(jobHandle(row({ status: "cancelled" }), { pollMs: undefined, ttlMs: 1 }).pollMs, undefined);
});

// ---------------------------------------------------------------- jobItem

Deno.test("jobItem concise: a queued job shows only what is set; its guidance is retry_after_ms", () => {
  assert.deepEqual(jobItem(row(), { format: "concise", pollMs: 1_000 }), {
    kind: "test.kind",
    execution_state: "queued",
    summary: "test.kind is queued",
    retry_after_ms: 1_000,
    created_at: iso(T0),
  });
  assert.equal("retry_after_ms" in jobItem(row(), { format: "concise", pollMs: undefined }), false);
});

Deno.test("jobItem: a count is shown once anything was counted or a total is known; cancellation once requested", () => {
  for (const format of ["concise", "detailed"] as const) {
    const item = (over: Partial<JobRow>) => jobItem(row({ status: "running", ...over }), { format, pollMs: 1 });
    assert.equal("completed_items" in item({}), false, format);
    assert.equal(item({ completed_items: 2 }).completed_items, 2, format);
    assert.equal(item({ total_items: 4 }).completed_items, 0, `${format}: 0 of a known total`);
    assert.equal("cancellation_requested" in item({}), false, format);
    assert.equal(item({ cancel_requested_at: T0 }).cancellation_requested, true, format);
  }
});

Deno.test("jobItem: the id, start and expiry are the detailed view's; the concise item's key names its job", () => {
  const ended = row({ status: "succeeded", outcome: "succeeded", ...ENDED });
  const concise = jobItem(ended, { format: "concise", pollMs: undefined });
  for (const key of ["id", "started_at", "expires_at"]) assert.equal(key in concise, false, key);
  assert.equal(concise.completed_at, iso(ENDED.completed_at));
  const detailed = jobItem(ended, { format: "detailed", pollMs: undefined });
  assert.equal(detailed.id, ID);
  assert.equal(Object.keys(detailed)[0], "id", "the id leads a detailed item");
  assert.equal(detailed.started_at, iso(ENDED.started_at));
  assert.equal(detailed.expires_at, iso(ENDED.expires_at));
});

Deno.test("jobItem: progress_percent from the counts (rounded, at most 100), none for a total of zero", () => {
  const running = (completed: number, total: number | null) =>
    jobItem(row({ status: "running", completed_items: completed, total_items: total }), {
      format: "concise",
      pollMs: 500,
    });
  assert.equal(running(1, 3).progress_percent, 33);
  assert.equal(running(2, 3).progress_percent, 67);
  assert.equal(running(3, 3).progress_percent, 100);
  assert.equal(running(5, 3).progress_percent, 100, "never over 100");
  assert.equal(running(0, 0).total_items, 0);
  assert.equal("progress_percent" in running(0, 0), false);
  assert.equal("total_items" in running(2, null), false);
});

Deno.test("jobItem: an ended job is terminal with its outcome, times, expiry and error; a running one has no outcome", () => {
  const failed = jobItem(row({ status: "failed", outcome: "failed", error: ERROR, ...ENDED }), {
    format: "detailed",
    pollMs: undefined,
  });
  assert.equal(failed.execution_state, "terminal");
  assert.equal(failed.outcome, "failed");
  assert.deepEqual(failed.error, ERROR);
  assert.equal(failed.started_at, iso(ENDED.started_at));
  assert.equal(failed.completed_at, iso(ENDED.completed_at));
  assert.equal(failed.expires_at, iso(ENDED.expires_at));
  const running = jobItem(
    row({ status: "running", outcome: "partial", phase: "p", cancel_requested_at: T0 }),
    { format: "concise", pollMs: 1 },
  );
  assert.equal(running.execution_state, "running");
  assert.equal("outcome" in running, false, "an outcome is shown only once the job ended");
  assert.equal(running.phase, "p");
  assert.equal(running.cancellation_requested, true);
});

Deno.test("jobItem concise vs detailed: only detailed carries request and (for a success) the bounded result", () => {
  const done = row({ status: "succeeded", outcome: "succeeded", result: { n: 1 }, ...ENDED });
  const concise = jobItem(done, { format: "concise", pollMs: undefined });
  for (const key of ["request", "result", "result_truncated", "result_omitted_bytes"]) {
    assert.equal(key in concise, false, key);
  }
  const detailed = jobItem(done, { format: "detailed", pollMs: undefined });
  assert.deepEqual(detailed.request, { a: 1 });
  assert.deepEqual(detailed.result, { n: 1 });
  assert.equal(detailed.result_truncated, false);
  assert.equal("result_omitted_bytes" in detailed, false);
  const failed = jobItem(row({ status: "failed", error: ERROR, ...ENDED }), { format: "detailed", pollMs: undefined });
  assert.deepEqual(failed.request, { a: 1 });
  assert.equal("result" in failed, false, "no result for a job that did not succeed");
});

Deno.test("jobItem detailed: a result past JOB_RESULT_VIEW_BYTES_MAX is truncated with result_omitted_bytes", () => {
  const big = { text: "y".repeat(JOB_RESULT_VIEW_BYTES_MAX) };
  const item = jobItem(
    row({ status: "succeeded", outcome: "succeeded", result: big, ...ENDED }),
    { format: "detailed", pollMs: undefined },
  );
  assert.equal(item.result_truncated, true);
  assert.ok(jsonBytes(item.result) <= JOB_RESULT_VIEW_BYTES_MAX);
  assert.equal(item.result_omitted_bytes, jsonBytes(big) - jsonBytes(item.result));
});

// ---------------------------------------------------------------- cancelItem, jobIdsOf

Deno.test("cancelItem: not_found and already_ended are unavailable (the latter with the job); others complete", () => {
  const pollMs = (r: JobRow) => r.status === "running" ? 600 : undefined;
  assert.deepEqual(cancelItem(ID, { effect: "not_found" }, { pollMs }), {
    key: ID,
    item_status: "unavailable",
    reason: "not_found",
    message: `No job ${ID} is visible here`,
  });
  const ended = row({ status: "succeeded", outcome: "succeeded", ...ENDED });
  const already = cancelItem(ID, { effect: "already_ended", row: ended }, { pollMs });
  assert.equal(already.item_status, "unavailable");
  assert.equal(already.reason, "terminal");
  assert.equal(already.message, `Job ${ID} already succeeded; nothing to cancel`);
  assert.deepEqual(already.value, jobItem(ended, { format: "concise", pollMs: undefined }));
  const requested = row({ status: "running", cancel_requested_at: T0 });
  for (const effect of ["requested", "already_requested"] as const) {
    const item = cancelItem(ID, { effect, row: requested }, { pollMs });
    assert.equal(item.item_status, "complete", effect);
    assert.deepEqual(item.value, jobItem(requested, { format: "concise", pollMs: 600 }));
  }
  const cancelled = row({ status: "cancelled", ...ENDED });
  for (const effect of ["cancelled", "already_cancelled"] as const) {
    assert.equal(cancelItem(ID, { effect, row: cancelled }, { pollMs }).item_status, "complete", effect);
  }
});

Deno.test("jobIdsOf: distinct valid ids, job: references unwrapped, invalid keys left out", () => {
  assert.deepEqual(jobIdsOf([ID, `job:${ID}`, "nope", "job:", "", ID.toUpperCase()]), [ID]);
  assert.deepEqual(jobIdsOf([]), []);
});

// ---------------------------------------------------------------- batches over a real store

const KIND = "test.kind";

/** A real store in a temp dir with a JobControl over it (ManualClock), removed on dispose. */
async function openControl(): Promise<{ store: Store; control: JobControl; clock: ManualClock } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "projection_test_" });
  const store = openStore(`${dir}/p.db`);
  const clock = new ManualClock();
  const control = new JobControl(store.rows, new JobKindRegistry([defineJobPolicy({ kind: KIND })]), { clock });
  return {
    store,
    control,
    clock,
    async [Symbol.asyncDispose]() {
      store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Claims the oldest queued job of `t.store` as a live owner and ends it with `result`, at `t.clock`'s time. */
async function succeed(t: { store: Store; clock: ManualClock }, result: unknown): Promise<JobRow> {
  const { store, clock } = t;
  await store.rows.ownerRegister({ ownerId: "owner-1", pid: 1, leaseMs: 60_000 }, clock.now());
  const claimed = await store.rows.jobClaimNextIfOwnerLive({ ownerId: "owner-1", kinds: [KIND] }, clock.now());
  assert.ok(claimed !== undefined);
  const ended = await store.rows.jobSetTerminalIfOwned(
    { id: claimed.id, ownerId: "owner-1", attempt: claimed.attempt },
    {
      status: "succeeded",
      outcome: "succeeded",
      resultJson: JSON.stringify(result),
      error: null,
    },
    { now: clock.now() },
  );
  assert.ok(ended !== undefined);
  return ended;
}

Deno.test("jobGetItems: one item per key in input order: complete (with guidance), not_found, invalid_id", async () => {
  await using t = await openControl();
  const queued = await t.control.submit(KIND, { q: 1 });
  const other = "1c9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8";
  const items = jobGetItems(t.control, [queued.id, "nope", other, `job:${queued.id}`], {
    authority: null,
    format: "concise",
  });
  assert.equal(items.length, 4);
  const pollMs = t.control.guidance(queued).pollMs;
  assert.ok(pollMs !== undefined);
  assert.deepEqual(items[0], {
    key: queued.id,
    item_status: "complete",
    value: jobItem(queued, { format: "concise", pollMs }),
    retry_after_ms: pollMs,
  });
  assert.deepEqual(items[1], {
    key: "nope",
    item_status: "unavailable",
    reason: "invalid_id",
    message: "Not a job id",
  });
  assert.deepEqual(items[2], {
    key: other,
    item_status: "unavailable",
    reason: "not_found",
    message: `No job ${other} is visible here`,
  });
  assert.equal(items[3]?.key, `job:${queued.id}`, "the key is echoed as given");
  assert.equal(items[3]?.item_status, "complete");
});

Deno.test("jobGetItems: another authority's job is not_found; detailed shows request and result, no guidance once ended", async () => {
  await using t = await openControl();
  const mine = await t.control.submit(KIND, { q: 1 }, { authority: "token-a" });
  const [hidden] = jobGetItems(t.control, [mine.id], { authority: "token-b", format: "concise" });
  assert.equal(hidden?.item_status, "unavailable");
  assert.equal(hidden?.reason, "not_found");
  const ended = await succeed(t, { answer: 42 });
  const [item] = jobGetItems(t.control, [ended.id], { authority: "token-a", format: "detailed" });
  assert.equal(item?.item_status, "complete");
  assert.equal("retry_after_ms" in (item ?? {}), false, "a terminal job has no guidance");
  assert.deepEqual(item?.value?.request, { q: 1 });
  assert.deepEqual(item?.value?.result, { answer: 42 });
  assert.equal(item?.value?.execution_state, "terminal");
});

Deno.test("jobCancelItems: queued -> cancelled; already ended -> terminal with the job; unknown and invalid ids", async () => {
  await using t = await openControl();
  const done = await t.control.submit(KIND, {});
  await succeed(t, null);
  const queued = await t.control.submit(KIND, {});
  const unknown = "1c9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8";
  const items = await jobCancelItems(t.control, [`job:${queued.id}`, done.id, unknown, "bad"], { authority: null });
  assert.equal(items.length, 4);
  assert.equal(items[0]?.key, `job:${queued.id}`);
  assert.equal(items[0]?.item_status, "complete");
  assert.equal(items[0]?.value?.summary, `${KIND} was cancelled`);
  assert.equal(items[1]?.item_status, "unavailable");
  assert.equal(items[1]?.reason, "terminal");
  assert.equal(items[1]?.message, `Job ${done.id} already succeeded; nothing to cancel`);
  assert.equal(items[1]?.value?.outcome, "succeeded");
  assert.deepEqual(items[2], {
    key: unknown,
    item_status: "unavailable",
    reason: "not_found",
    message: `No job ${unknown} is visible here`,
  });
  assert.deepEqual(items[3], { key: "bad", item_status: "unavailable", reason: "invalid_id", message: "Not a job id" });
  assert.equal(t.control.get(queued.id)?.status, "cancelled", "the cancel was persisted");
});
