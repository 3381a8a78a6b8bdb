/**
 * One trip down and up per call (issue 13 step 3): a job tool's submit computes the admitted job's
 * poll guidance once, whichever answer (task or JobReference) it gives, and both answers carry the
 * same guidance; `jobs.get` and `tasks/get` compute it once per item. Guidance computations are
 * counted through a real kind's `firstPollAfterMs` (read once per guidance of a queued job) and
 * through `JobControl.guidance` calls.
 *
 * @module
 */

import assert from "node:assert/strict";
import { CreateTaskResultV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import { z } from "zod";
import { ManualClock } from "../src/base/clock.ts";
import { POLL_INTERVAL_MS_MIN } from "../src/base/limits.ts";
import { ttlMsOf } from "../src/jobs/guidance.ts";
import { defineJobKind } from "../src/jobs/kinds.ts";
import { jobGetItems, jobHandle } from "../src/jobs/projection.ts";
import type { JobReference } from "../src/mcp/job_reference.ts";
import { jobTool } from "../src/mcp/tools.ts";
import type { JobRow } from "../src/store/job_rows.ts";
import { getTaskResult } from "../src/tasks/task_projection.ts";
import { openHarness, tempDir, waitFor } from "../testing/temp.ts";

const FIRST_POLL_MS = 2_000;

/** A kind that says when its first look can show something new, and counts how often it is asked. */
function countedKind() {
  const asked = { n: 0 };
  const kind = defineJobKind<null, unknown>({
    kind: "counted",
    run: () => Promise.resolve({ ok: true }),
    firstPollAfterMs: () => {
      asked.n++;
      return FIRST_POLL_MS;
    },
  });
  return { kind, asked };
}

const annotations = {
  title: "",
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

Deno.test("jobTool.call: one guidance computation per submit, for the JobReference and for the task alike", async () => {
  await using dir = await tempDir();
  const { kind, asked } = countedKind();
  // No executor: the jobs stay queued, so each guidance reads the kind's first poll time.
  await using h = await openHarness(dir.file("jobs.db"), {
    extraKinds: [kind],
    executor: false,
    clock: new ManualClock(0),
  });
  let guidanceCalls = 0;
  const guidance = h.control.guidance.bind(h.control);
  h.control.guidance = (row: JobRow) => {
    guidanceCalls++;
    return guidance(row);
  };
  const tool = jobTool(h.control, {
    name: "counted",
    kind: "counted",
    description: "",
    inputSchema: z.object({}).strict(),
    annotations,
  });

  const plain = await tool.call({}, { authority: null, tasksDeclared: false }) as { structuredContent: JobReference };
  assert.equal(asked.n, 1, "the JobReference answer computed the guidance once");
  assert.equal(guidanceCalls, 1);
  const ref = plain.structuredContent;
  assert.equal(ref.poll_after_ms, FIRST_POLL_MS + POLL_INTERVAL_MS_MIN);
  assert.equal(ref.follow_up.retry_after_ms, ref.poll_after_ms);

  const declared = await tool.call({}, { authority: null, tasksDeclared: true }) as Record<string, unknown>;
  assert.equal(asked.n, 2, "the task answer (which carries a JobReference too) computed the guidance once");
  assert.equal(guidanceCalls, 2);
  const task = CreateTaskResultV2Schema.parse(declared);
  const carried = declared["structuredContent"] as JobReference;
  assert.equal(task.status, "working");
  assert.equal(task.taskId, carried.id);
  assert.equal(task.pollIntervalMs, carried.poll_after_ms, "task and JobReference show the one guidance");
  assert.equal(task.ttlMs, ttlMsOf(h.store.rows.jobGet(carried.id)!, h.clock.now()), "the ttl at this instant");

  // A rejected submission computes nothing.
  const bad = await tool.call({ extra: 1 }, { authority: null, tasksDeclared: false }) as { isError?: boolean };
  assert.equal(bad.isError, true);
  assert.equal(asked.n, 2);
});

Deno.test("JobControl.submit: admission alone never computes guidance; admitted() computes it once", async () => {
  await using dir = await tempDir();
  const { kind, asked } = countedKind();
  await using h = await openHarness(dir.file("jobs.db"), {
    extraKinds: [kind],
    executor: false,
    clock: new ManualClock(0),
  });
  const job = await h.control.submit("counted", {});
  assert.equal(asked.n, 0, "admission read no queue position and asked the kind nothing");
  assert.deepEqual(Object.keys(job), Object.keys(h.store.rows.jobGet(job.id)!), "the bare row, shaped as stored");
  const admitted = h.control.admitted(job);
  assert.equal(admitted.row, job);
  assert.equal(asked.n, 1, "computed once");
  assert.deepEqual(admitted.guidance, h.control.guidance(h.store.rows.jobGet(job.id)!));
});

Deno.test("jobGetItems: one guidance computation per queued item, none for an unknown or invalid key", async () => {
  await using dir = await tempDir();
  const { kind, asked } = countedKind();
  await using h = await openHarness(dir.file("jobs.db"), {
    extraKinds: [kind],
    executor: false,
    clock: new ManualClock(0),
  });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await h.control.submit("counted", {})).id);
  const items = jobGetItems(h.control, [...ids, "not-an-id", "00000000-0000-4000-8000-000000000000"], {
    authority: null,
    format: "concise",
  });
  assert.equal(asked.n, ids.length);
  assert.deepEqual(items.map((i) => i.item_status), [...ids.map(() => "complete"), "unavailable", "unavailable"]);
  for (const item of items.slice(0, 5)) assert.equal(item.retry_after_ms, item.value?.retry_after_ms);
});

Deno.test("getTaskResult: one guidance computation per tasks/get answer", async () => {
  await using dir = await tempDir();
  const { kind, asked } = countedKind();
  await using h = await openHarness(dir.file("jobs.db"), {
    extraKinds: [kind],
    executor: false,
    clock: new ManualClock(0),
  });
  const job = await h.control.submit("counted", {});
  const row = h.store.rows.jobGet(job.id)!;
  const answer = getTaskResult(row, h.control);
  assert.equal(asked.n, 1);
  assert.equal(answer.status, "working");
  assert.equal(answer.pollIntervalMs, FIRST_POLL_MS + POLL_INTERVAL_MS_MIN);
  assert.deepEqual(
    { ttlMs: answer.ttlMs, statusMessage: answer.statusMessage },
    {
      ttlMs: jobHandle(row, h.control.guidance(job)).ttlMs,
      statusMessage: jobHandle(row, h.control.guidance(job)).summary,
    },
  );
});

Deno.test("JobRows.jobGetMany: rows equal jobGet's column for column (all); concise drops only the payloads", async () => {
  await using dir = await tempDir();
  const { kind } = countedKind();
  const failing = defineJobKind<null, unknown>({
    kind: "failing",
    run: () => Promise.reject(new Error("boom")),
  });
  await using h = await openHarness(dir.file("jobs.db"), { extraKinds: [kind, failing] });
  const done = await h.control.submit("counted", { x: 1 });
  const failed = await h.control.submit("failing", {});
  await waitFor("both jobs ended", () => h.terminal.includes(done.id) && h.terminal.includes(failed.id));
  await h.executor!.stop();
  const queued = await h.control.submit("counted", { y: 2 }, { authority: "token-a" });
  const ids = [done.id, failed.id, queued.id];
  const all = h.store.rows.jobGetMany(ids, "all");
  const concise = h.store.rows.jobGetMany(ids, "concise");
  for (const id of ids) {
    const one = h.store.rows.jobGet(id)!;
    assert.deepEqual({ ...all.get(id) }, { ...one }, id);
    const expected = { ...one, result: null, request: one.status === "queued" ? one.request : null };
    assert.deepEqual({ ...concise.get(id) }, expected, id);
  }
  assert.equal(all.get(done.id)?.status, "succeeded");
  assert.deepEqual(all.get(done.id)?.result, { ok: true });
  assert.equal(all.get(failed.id)?.error?.code, "internal");
  assert.equal(concise.get(queued.id)?.authority, "token-a");
});
