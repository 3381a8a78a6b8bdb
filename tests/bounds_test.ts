/**
 * Bounds that had no test at and past their limit: tool result size, the bounded result
 * view, the stored result size, progress messages, sync repositories, and the checks kept
 * in a watch result.
 */

import { syncSpec } from "../src/github/sync_spec.ts";
import { parseJobInput } from "../src/jobs/spec.ts";
import assert from "node:assert/strict";
import { AppError } from "../src/base/errors.ts";
import {
  JOB_INSERT_BATCH_MAX,
  JOB_PROGRESS_MESSAGE_CHARS_MAX,
  JOB_RESULT_BYTES_MAX,
  JOB_RESULT_VIEW_BYTES_MAX,
  MCP_RESULT_BYTES_MAX,
  SYNC_REPOSITORIES_MAX,
  WATCH_CHECKS_MAX,
} from "../src/base/limits.ts";
import { SYNC_KIND } from "../src/github/sync_kind.ts";
import { WATCH_KIND, type WatchResult } from "../src/github/watch_kind.ts";
import { defineJobKind } from "../src/jobs/kinds.ts";
import { boundedResult } from "../src/jobs/projection.ts";
import { okResult } from "../src/mcp/tool_kit.ts";
import { toolResultBytes } from "../src/mcp/fit_answer.ts";
import { openGitHubHarness, runJob } from "../testing/github_jobs.ts";
import { type FakeCheck, SCENARIO_PULL } from "../testing/fake_github.ts";
import { openHarness, tempDir, waitForStatus } from "../testing/temp.ts";

/** A JSON object of exactly `bytes` bytes: {"s":"xxx..."}. */
function objectOfBytes(bytes: number): Record<string, unknown> {
  return { s: "x".repeat(bytes - '{"s":""}'.length) };
}

/**
 * A JSON object whose whole tool result (structuredContent plus the same JSON as text) is exactly
 * `bytes` bytes. Each "x" counts twice; one control character (6 + 7 bytes escaped) fixes the parity.
 */
function objectOfWireBytes(bytes: number): Record<string, unknown> {
  for (const lead of ["", "\u0001"]) {
    const base = toolResultBytes({ s: lead });
    if ((bytes - base) % 2 === 0) return { s: lead + "x".repeat((bytes - base) / 2) };
  }
  throw new Error("unreachable: the two leads differ in parity");
}

Deno.test("okResult() sends a result of exactly MCP_RESULT_BYTES_MAX and refuses one byte more", () => {
  const at = okResult(objectOfWireBytes(MCP_RESULT_BYTES_MAX));
  assert.equal(at.isError, undefined);
  assert.equal(new TextEncoder().encode(JSON.stringify(at)).length, MCP_RESULT_BYTES_MAX);
  const past = okResult(objectOfWireBytes(MCP_RESULT_BYTES_MAX + 1));
  assert.equal(past.isError, true);
  assert.equal((past.structuredContent?.error as { code: string }).code, "internal");
});

Deno.test("boundedResult() keeps a result of exactly JOB_RESULT_VIEW_BYTES_MAX and shortens one byte more", () => {
  const at = boundedResult(objectOfBytes(JOB_RESULT_VIEW_BYTES_MAX));
  assert.equal(at.truncated, false);
  assert.equal(at.omittedBytes, 0);
  assert.deepEqual(at.result, objectOfBytes(JOB_RESULT_VIEW_BYTES_MAX));
  const past = boundedResult(objectOfBytes(JOB_RESULT_VIEW_BYTES_MAX + 1));
  assert.equal(past.truncated, true);
  const shortened = (past.result as { s: string }).s;
  assert.ok(shortened.startsWith("xxx"), "the same shape, a prefix of the string");
  assert.ok(new TextEncoder().encode(JSON.stringify(past.result)).length <= JOB_RESULT_VIEW_BYTES_MAX);
  assert.equal(past.omittedBytes, JOB_RESULT_VIEW_BYTES_MAX + 1 - JSON.stringify(past.result).length);
});

Deno.test("Executor stores a result of exactly JOB_RESULT_BYTES_MAX and fails a job whose result is one byte more", async () => {
  await using dir = await tempDir();
  const sized = defineJobKind<number, Record<string, unknown>>({
    kind: "sized",
    run: (ctx) => Promise.resolve(objectOfBytes(ctx.request)),
  });
  await using h = await openHarness(dir.file("jobs.db"), { extraKinds: [sized] });
  const at = await h.control.submit("sized", JOB_RESULT_BYTES_MAX);
  const past = await h.control.submit("sized", JOB_RESULT_BYTES_MAX + 1);
  const atRow = await waitForStatus(h.store, at.id, { status: ["succeeded", "failed"], timeoutMs: 20_000 });
  const pastRow = await waitForStatus(h.store, past.id, { status: ["succeeded", "failed"], timeoutMs: 20_000 });
  assert.equal(atRow.status, "succeeded");
  assert.equal(JSON.stringify(atRow.result).length, JOB_RESULT_BYTES_MAX);
  assert.equal(pastRow.status, "failed");
  assert.equal(pastRow.error?.code, "internal");
  assert.match(pastRow.error?.message ?? "", new RegExp(`over the ${JOB_RESULT_BYTES_MAX}-byte limit`));
});

Deno.test("progress messages are cut at JOB_PROGRESS_MESSAGE_CHARS_MAX characters", async () => {
  await using dir = await tempDir();
  const chatty = defineJobKind<number, null>({
    kind: "chatty",
    async run(ctx) {
      ctx.report({ phase: "talking", message: "m".repeat(ctx.request) });
      await ctx.clock.sleep(60_000, ctx.signal);
      return null;
    },
  });
  await using h = await openHarness(dir.file("jobs.db"), { extraKinds: [chatty] });
  for (const length of [JOB_PROGRESS_MESSAGE_CHARS_MAX, JOB_PROGRESS_MESSAGE_CHARS_MAX + 1]) {
    const job = await h.control.submit("chatty", length);
    await waitForStatus(h.store, job.id, { status: ["running"] });
    const deadline = Date.now() + 5_000;
    while (h.store.rows.jobGet(job.id)?.progress_message === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(h.store.rows.jobGet(job.id)?.progress_message?.length, JOB_PROGRESS_MESSAGE_CHARS_MAX);
    await h.control.cancel(job.id);
  }
});

Deno.test("github.sync_threads accepts SYNC_REPOSITORIES_MAX repositories and refuses one more", () => {
  // Validated once, at the boundary, by the kind's spec (the MCP tool and `longcall sync` parse with it).
  const repos = (n: number) => Array.from({ length: n }, (_, i) => `octo/repo-${i}`);
  assert.equal(
    parseJobInput(syncSpec, { repositories: repos(SYNC_REPOSITORIES_MAX) }).repositories.length,
    SYNC_REPOSITORIES_MAX,
  );
  assert.throws(
    () => parseJobInput(syncSpec, { repositories: repos(SYNC_REPOSITORIES_MAX + 1) }),
    (err: unknown) => err instanceof AppError && err.code === "invalid_argument" && err.data?.path === "$.repositories",
  );
  assert.equal(syncSpec.kind, SYNC_KIND);
});

for (const count of [WATCH_CHECKS_MAX, WATCH_CHECKS_MAX + 1]) {
  Deno.test(`a watch result lists at most WATCH_CHECKS_MAX checks (${count} registered)`, async () => {
    const checks: FakeCheck[] = Array.from({ length: count }, (_, i) => ({
      name: `check-${String(i).padStart(3, "0")}`,
      status: "completed",
      conclusion: "success",
    }));
    await using h = await openGitHubHarness({ scenario: [{ atMs: 0, checks }] });
    const { result } = await runJob<WatchResult>(h, {
      kind: WATCH_KIND,
      input: {
        owner: SCENARIO_PULL.owner,
        repo: SCENARIO_PULL.repo,
        number: SCENARIO_PULL.number,
      },
    });
    assert.equal(result.outcome, "succeeded");
    assert.equal(result.summary.total, count, "the summary counts every check");
    assert.equal(result.checks.length, WATCH_CHECKS_MAX);
    assert.equal(result.checks_truncated, count > WATCH_CHECKS_MAX);
  });
}

Deno.test("concurrent submissions past JOB_INSERT_BATCH_MAX are split into several transactions, all admitted in order", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("jobs.db"), { executor: false, control: { admittedMax: 10_000 } });
  const count = JOB_INSERT_BATCH_MAX * 2 + 1;
  const rows = await Promise.all(Array.from({ length: count }, (_, i) => h.control.submit("echo", { i })));
  assert.equal(rows.length, count);
  assert.equal(h.store.rows.jobCountAdmitted(), count);
  // FIFO order follows submission order across batches.
  const listed = h.store.rows.jobList({ status: "queued", limit: count }).reverse();
  assert.deepEqual(listed.map((r) => (r.request as { i: number }).i), Array.from({ length: count }, (_, i) => i));
});

Deno.test("a group commit still refuses exactly the submissions past the admission bound", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("jobs.db"), { executor: false, control: { admittedMax: 5 } });
  const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => h.control.submit("echo", { i })));
  assert.deepEqual(outcomes.map((o) => o.status), [
    ...Array(5).fill("fulfilled"),
    ...Array(3).fill("rejected"),
  ]);
  for (const o of outcomes.slice(5)) {
    assert.ok(o.status === "rejected" && o.reason instanceof AppError && o.reason.code === "overloaded");
  }
  assert.equal(h.store.rows.jobCountAdmitted(), 5);
});
