/**
 * src/tasks/task_projection.ts: every row of the job -> task table in its module comment (built
 * from JobRow literals and handles, checked against the official ext-tasks v2 schemas), the tool
 * result a finished job produces (its text content is its structuredContent's JSON), the
 * `tasks/get` answer within MCP_RESULT_BYTES_MAX over a real SQLite store, and createTaskResult.
 */

import assert from "node:assert/strict";
import {
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  type InputRequestsV2,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import { ManualClock } from "../base/clock.ts";
import type { JobError } from "../base/errors.ts";
import { jsonBytes } from "../base/json_bound.ts";
import { JOB_RESULT_VIEW_BYTES_MAX, MCP_RESULT_BYTES_MAX, TASK_ANSWER_FIELDS_BYTES_MAX } from "../base/limits.ts";
import { JobControl } from "../jobs/control.ts";
import { defineJobPolicy, JobKindRegistry } from "../jobs/kinds.ts";
import { jobHandle } from "../jobs/projection.ts";
import type { JobRow, TerminalWrite } from "../store/job_rows.ts";
import { openStore, type Store } from "../store/store.ts";
import type { TaskInputs } from "./inputs.ts";
import {
  createTaskResult,
  detailedTask,
  EXECUTION_FAILURE_CODES,
  getTaskResult,
  isExecutionFailure,
  JSONRPC_INTERNAL_ERROR,
  terminalToolResult,
} from "./task_projection.ts";
import { jobRowOf } from "../../testing/job_row.ts";

const ID = "0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8";
const T0 = Date.UTC(2026, 0, 1);
const KIND = "test.kind";

/** A stored job row: queued, nothing reported, with `over` applied. */
function row(over: Partial<JobRow> = {}): JobRow {
  return jobRowOf({
    id: ID,
    kind: KIND,
    request: {},
    created_at: T0,
    updated_at: T0 + 2_000,
    ...over,
  });
}

const ENDED = { started_at: T0 + 1_000, completed_at: T0 + 2_000, expires_at: T0 + 9_000 };
const OPERATION_ERROR: JobError = { code: "not_found", message: "no such pull request", retryable: false };
const errorOf = (code: string): JobError => ({ code, message: `broke: ${code}`, retryable: code !== "internal" });

/**
 * The detailed task of `r` with guidance `options.pollMs` (ttl 60 s) and the job's `options.inputs`, validated
 * against the official schema.
 */
function task(r: JobRow, options: { pollMs?: number; inputs?: TaskInputs } = {}) {
  const { pollMs, inputs } = options;
  const t = detailedTask(r, jobHandle(r, { pollMs, ttlMs: 60_000 }), { inputs });
  GetTaskResultV2Schema.parse({ ...t, resultType: "complete" });
  return t as unknown as Record<string, unknown>;
}

/** The tool result inside a completed task. */
function toolResultOf(t: Record<string, unknown>) {
  return t["result"] as { content: { type: string; text: string }[]; structuredContent: Record<string, unknown> } & {
    isError?: boolean;
    resultType: string;
  };
}

// ---------------------------------------------------------------- the table, row by row

Deno.test("detailedTask: queued and running -> working, statusMessage from phase and counts, shared fields", () => {
  assert.deepEqual(task(row(), { pollMs: 1_000 }), {
    taskId: ID,
    statusMessage: `${KIND} is queued`,
    createdAt: "2026-01-01T00:00:00.000Z",
    lastUpdatedAt: "2026-01-01T00:00:02.000Z",
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
    status: "working",
  });
  const running = task(
    row({ status: "running", phase: "waiting_for_checks", completed_items: 1, total_items: 2 }),
    { pollMs: 400 },
  );
  assert.equal(running["status"], "working");
  assert.equal(running["statusMessage"], `${KIND} waiting for checks (1/2)`);
  assert.equal(running["pollIntervalMs"], 400);
});

Deno.test("detailedTask: a running job with outstanding inputs is input_required with its inputRequests", () => {
  const requests = {
    name: {
      method: "elicitation/create",
      params: {
        message: "Your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
    },
  } as unknown as InputRequestsV2;
  const inputs: TaskInputs = { requests: () => requests, respond: () => Promise.resolve() };
  const t = task(row({ status: "running" }), { pollMs: 500, inputs });
  assert.equal(t["status"], "input_required");
  assert.deepEqual(t["inputRequests"], requests);
  assert.equal(task(row({ status: "running" }), { pollMs: 500 })["status"], "working", "without inputs: working");
});

Deno.test("detailedTask: succeeded (and a partial outcome) -> completed with the tool's CallToolResult", () => {
  for (const outcome of ["succeeded", "partial"]) {
    const t = task(row({ status: "succeeded", outcome, result: { n: 1 }, ...ENDED }));
    assert.equal(t["status"], "completed", outcome);
    assert.equal("pollIntervalMs" in t, false, "no guidance once terminal");
    const result = toolResultOf(t);
    assert.deepEqual(result.structuredContent, {
      id: ID,
      kind: KIND,
      outcome,
      result: { n: 1 },
      result_truncated: false,
    });
    assert.equal(result.content[0]?.text, JSON.stringify(result.structuredContent));
    assert.equal(result.resultType, "complete");
    assert.equal("isError" in result, false);
  }
});

Deno.test("detailedTask: failed with an operation error -> completed, result isError with the typed error", () => {
  const t = task(row({ status: "failed", outcome: "failed", error: OPERATION_ERROR, ...ENDED }));
  assert.equal(t["status"], "completed");
  const result = toolResultOf(t);
  assert.equal(result.isError, true);
  assert.deepEqual(result.structuredContent, { id: ID, kind: KIND, outcome: "failed", error: OPERATION_ERROR });
  assert.equal(result.content[0]?.text, JSON.stringify(result.structuredContent));
});

Deno.test("detailedTask: failed with an execution failure code -> failed, JSON-RPC -32603 with the typed error as data", () => {
  assert.deepEqual(
    [...EXECUTION_FAILURE_CODES].sort(),
    ["internal", "interrupted", "process_lost", "storage_unavailable", "store_busy"],
  );
  for (const code of EXECUTION_FAILURE_CODES) {
    const error = errorOf(code);
    const t = task(row({ status: "failed", outcome: "failed", error, ...ENDED }));
    assert.equal(t["status"], "failed", code);
    assert.deepEqual(t["error"], { code: JSONRPC_INTERNAL_ERROR, message: error.message, data: { error } });
    assert.equal("result" in t, false);
  }
});

Deno.test("detailedTask: cancelled -> cancelled, with no result or error", () => {
  const t = task(row({ status: "cancelled", cancel_requested_at: T0, ...ENDED }));
  assert.equal(t["status"], "cancelled");
  assert.equal(t["statusMessage"], `${KIND} was cancelled`);
  assert.equal("result" in t || "error" in t, false);
});

Deno.test("isExecutionFailure: only failed rows, by code; a failed row without an error counts as internal", () => {
  assert.equal(isExecutionFailure(row({ status: "failed", error: errorOf("process_lost") })), true);
  assert.equal(isExecutionFailure(row({ status: "failed", error: OPERATION_ERROR })), false);
  assert.equal(isExecutionFailure(row({ status: "failed", error: null })), true);
  assert.equal(isExecutionFailure(row({ status: "succeeded", error: errorOf("internal") })), false);
});

// ---------------------------------------------------------------- terminalToolResult

Deno.test("terminalToolResult: at its bytes bound the result is whole; one byte past it, truncated with omitted bytes", () => {
  const bound = 1_000;
  const fits = { text: "x".repeat(bound - jsonBytes({ text: "" })) };
  assert.equal(jsonBytes(fits), bound);
  const at = terminalToolResult(row({ status: "succeeded", result: fits, ...ENDED }), bound).structuredContent;
  assert.deepEqual(at["result"], fits);
  assert.equal(at["result_truncated"], false);
  assert.equal("result_omitted_bytes" in at, false);
  const over = { text: `${fits.text}x` };
  const past = terminalToolResult(row({ status: "succeeded", result: over, ...ENDED }), bound).structuredContent;
  assert.equal(past["result_truncated"], true);
  assert.ok(jsonBytes(past["result"]) <= bound);
  assert.equal(past["result_omitted_bytes"], jsonBytes(over) - jsonBytes(past["result"]));
  assert.equal(past["outcome"], "succeeded", "a null outcome reads as succeeded");
});

// ---------------------------------------------------------------- createTaskResult

Deno.test("createTaskResult: the flat task of a job-submitting call, status per state, resultType task", () => {
  const cases: [Partial<JobRow>, string][] = [
    [{ status: "queued" }, "working"],
    [{ status: "running" }, "working"],
    [{ status: "succeeded", outcome: "succeeded", ...ENDED }, "completed"],
    [{ status: "failed", error: OPERATION_ERROR, ...ENDED }, "completed"],
    [{ status: "failed", error: errorOf("interrupted"), ...ENDED }, "failed"],
    [{ status: "cancelled", ...ENDED }, "cancelled"],
  ];
  for (const [over, status] of cases) {
    const r = row(over);
    const pollMs = r.status === "queued" || r.status === "running" ? 1_000 : undefined;
    const created = createTaskResult(r, jobHandle(r, { pollMs, ttlMs: 60_000 }));
    CreateTaskResultV2Schema.parse(created);
    assert.equal(created.status, status, r.status);
    assert.equal(created.resultType, "task");
    assert.equal(created.taskId, ID);
    assert.equal(created.ttlMs, 60_000);
    assert.equal(created.pollIntervalMs, pollMs);
    assert.equal("result" in created, false, "a created task carries no result");
  }
});

// ---------------------------------------------------------------- getTaskResult over a real store

/** A real store in a temp dir with a JobControl over it (ManualClock), removed on dispose. */
async function openControl(): Promise<{ store: Store; control: JobControl; clock: ManualClock } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "task_projection_test_" });
  const store = openStore(`${dir}/t.db`);
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

let owners = 0;

/** Submits a job, claims it as a new live owner and ends it with `terminal`. */
async function ended(t: { store: Store; control: JobControl; clock: ManualClock }, terminal: TerminalWrite) {
  await t.control.submit(KIND, {});
  const owner = `owner-${++owners}`;
  await t.store.rows.ownerRegister({ ownerId: owner, pid: 1, leaseMs: 60_000 }, t.clock.now());
  const claimed = await t.store.rows.jobClaimNextIfOwnerLive({ ownerId: owner, kinds: [KIND] }, t.clock.now());
  assert.ok(claimed !== undefined);
  const r = await t.store.rows.jobSetTerminalIfOwned(
    { id: claimed.id, ownerId: owner, attempt: claimed.attempt },
    terminal,
    { now: t.clock.now() },
  );
  assert.ok(r !== undefined);
  return r;
}

Deno.test("getTaskResult: a queued job's tasks/get carries the control's guidance and ttl, resultType complete", async () => {
  await using t = await openControl();
  const queued = await t.control.submit(KIND, {});
  const answer = GetTaskResultV2Schema.parse(getTaskResult(queued, t.control));
  const guidance = t.control.guidance(queued);
  assert.equal(answer.status, "working");
  assert.equal(answer.resultType, "complete");
  assert.equal(answer.pollIntervalMs, guidance.pollMs);
  assert.equal(answer.ttlMs, guidance.ttlMs);
});

Deno.test("getTaskResult: a result of the worst escaping (every character doubles in the text copy) stays within MCP_RESULT_BYTES_MAX", async () => {
  await using t = await openControl();
  for (const ch of ['"', "\\", "\u0001"]) {
    const huge = { text: ch.repeat(MCP_RESULT_BYTES_MAX), items: Array.from({ length: 5_000 }, () => ch.repeat(20)) };
    const r = await ended(t, {
      status: "succeeded",
      outcome: "succeeded",
      resultJson: JSON.stringify(huge),
      error: null,
    });
    const answer = getTaskResult(r, t.control);
    GetTaskResultV2Schema.parse(answer);
    assert.ok(jsonBytes(answer) <= MCP_RESULT_BYTES_MAX, `${JSON.stringify(ch)}: ${jsonBytes(answer)} bytes`);
    assert.equal(answer.status, "completed");
    const structured = toolResultOf(answer as unknown as Record<string, unknown>).structuredContent;
    assert.equal(structured["result_truncated"], true);
    assert.ok(jsonBytes(structured["result"]) <= JOB_RESULT_VIEW_BYTES_MAX);
    assert.equal(structured["result_omitted_bytes"], jsonBytes(huge) - jsonBytes(structured["result"]));
    const text = toolResultOf(answer as unknown as Record<string, unknown>).content[0]?.text;
    assert.equal(text, JSON.stringify(structured), "the text copy is the structuredContent's JSON");
    // The text copy at most doubles the result's JSON when escaped again, so the answer is at most
    // 3 x JOB_RESULT_VIEW_BYTES_MAX plus the task's own fields: the result keeps the whole view budget.
    assert.ok(jsonBytes(structured["result"]) > JOB_RESULT_VIEW_BYTES_MAX - 1_024, "the whole budget was kept");
  }
});

Deno.test("getTaskResult: the worst case, a result of backslashes or quotes at and past JOB_RESULT_VIEW_BYTES_MAX, is within the asserted bound", async () => {
  await using t = await openControl();
  const bound = 3 * JOB_RESULT_VIEW_BYTES_MAX + TASK_ANSWER_FIELDS_BYTES_MAX;
  assert.ok(bound <= MCP_RESULT_BYTES_MAX, "task_projection.ts asserts this when it loads");
  for (const ch of ["\\", '"']) {
    // A JSON string of n such characters is 2n + 2 bytes, and every one of them doubles again in
    // the text copy's escaping: the most a result within the view bound can grow.
    const n = (JOB_RESULT_VIEW_BYTES_MAX - 2) / 2;
    for (const [length, truncated] of [[n, false], [n + 1, true]] as const) {
      const result = ch.repeat(length);
      assert.equal(jsonBytes(result), 2 * length + 2);
      const r = await ended(t, {
        status: "succeeded",
        outcome: "succeeded",
        resultJson: JSON.stringify(result),
        error: null,
      });
      const answer = getTaskResult(r, t.control);
      GetTaskResultV2Schema.parse(answer);
      const structured = toolResultOf(answer as unknown as Record<string, unknown>).structuredContent;
      assert.equal(structured["result_truncated"], truncated, `${length} x ${JSON.stringify(ch)}`);
      const resultBytes = jsonBytes(structured["result"]);
      assert.ok(resultBytes <= JOB_RESULT_VIEW_BYTES_MAX);
      if (!truncated) assert.equal(structured["result"], result, "at the bound the result is whole");
      const bytes = jsonBytes(answer);
      assert.ok(bytes <= bound, `${bytes} bytes, over ${bound}`);
      assert.ok(
        bytes - 3 * resultBytes <= TASK_ANSWER_FIELDS_BYTES_MAX,
        `fields take ${bytes - 3 * resultBytes} bytes`,
      );
      // It is the worst case: the text copy's escaping doubled the result (3 copies' worth).
      assert.ok(bytes > 3 * resultBytes, `${bytes} bytes for a ${resultBytes}-byte result`);
    }
  }
});

Deno.test("getTaskResult: an execution failure read from the store is a failed task; an operation error a completed one", async () => {
  await using t = await openControl();
  const lost = await ended(t, {
    status: "failed",
    outcome: "failed",
    resultJson: null,
    error: errorOf("process_lost"),
  });
  const failed = GetTaskResultV2Schema.parse(getTaskResult(lost, t.control));
  assert.equal(failed.status, "failed");
  assert.equal("pollIntervalMs" in failed, false);
  const op = await ended(t, { status: "failed", outcome: "failed", resultJson: null, error: OPERATION_ERROR });
  const completed = getTaskResult(op, t.control) as unknown as Record<string, unknown>;
  assert.equal(completed["status"], "completed");
  assert.equal(toolResultOf(completed).isError, true);
});
