/**
 * src/mcp/output_schemas.ts: jobResultOutputs' three branches against what terminalToolResult
 * produces (whole, truncated past the bound, failed with an operation error), the kind literal,
 * and jobItemOutput() against jobItem in both views. tests/mcp_output_schemas_test.ts checks the
 * advertised JSON Schemas with Ajv as strict clients do.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { jobItem } from "../jobs/projection.ts";
import type { JobRow } from "../store/job_rows.ts";
import { terminalToolResult } from "../tasks/task_projection.ts";
import { jobItemOutput, jobResultOutputs } from "./output_schemas.ts";
import { jobRowOf } from "../../testing/job_row.ts";

const T0 = Date.UTC(2026, 0, 1);

function row(over: Partial<JobRow> = {}): JobRow {
  return jobRowOf({
    id: "0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8",
    kind: "test.kind",
    status: "succeeded",
    outcome: "succeeded",
    request: { q: 1 },
    result: { n: 3 },
    phase: "done",
    completed_items: 1,
    total_items: 2,
    created_at: T0,
    started_at: T0 + 1,
    updated_at: T0 + 2,
    completed_at: T0 + 2,
    attempt: 1,
    retention_ms: 1_000,
    expires_at: T0 + 1_002,
    ...over,
  });
}

/** Which of the branches accept `value` (by index). */
function branches(schemas: z.ZodType[], value: unknown): number[] {
  return schemas.flatMap((s, i) => s.safeParse(value).success ? [i] : []);
}

Deno.test("jobResultOutputs: a whole result, a truncated one and an operation error each match their own branch", () => {
  const schemas = jobResultOutputs("test.kind", z.object({ n: z.number().max(5) }));
  assert.equal(schemas.length, 3);
  assert.deepEqual(branches(schemas, terminalToolResult(row()).structuredContent), [0]);
  const truncated = terminalToolResult(row({ result: { n: 3, pad: "x".repeat(100) } }), 20).structuredContent;
  assert.equal(truncated["result_truncated"], true);
  assert.deepEqual(branches(schemas, truncated), [1], "a shrunk result need not satisfy resultSchema");
  const failed = terminalToolResult(row({
    status: "failed",
    outcome: "failed",
    result: null,
    error: { code: "not_found", message: "gone", retryable: false, data: { status: 404 } },
  })).structuredContent;
  assert.deepEqual(branches(schemas, failed), [2]);
});

Deno.test("jobResultOutputs: a whole result outside resultSchema, another kind, or a lying flag match no branch", () => {
  const schemas = jobResultOutputs("test.kind", z.object({ n: z.number().max(5) }));
  assert.deepEqual(branches(schemas, terminalToolResult(row({ result: { n: 6 } })).structuredContent), []);
  assert.deepEqual(branches(schemas, terminalToolResult(row({ kind: "other.kind" })).structuredContent), []);
  const whole = terminalToolResult(row()).structuredContent;
  assert.deepEqual(branches(schemas, { ...whole, result_truncated: true }), [], "truncated needs omitted bytes");
  assert.deepEqual(
    branches(jobResultOutputs("test.kind"), terminalToolResult(row({ result: "any json" })).structuredContent),
    [0],
    "the default resultSchema is any JSON value",
  );
});

Deno.test("jobItemOutput(): accepts jobItem in both views and refuses a percent past 100 or a negative count", () => {
  for (const format of ["concise", "detailed"] as const) {
    assert.equal(jobItemOutput().safeParse(jobItem(row(), { format, pollMs: undefined })).success, true, format);
  }
  const running = jobItem(
    row({ status: "running", outcome: null, completed_at: null, expires_at: null }),
    { format: "concise", pollMs: 250 },
  );
  assert.equal(jobItemOutput().safeParse(running).success, true);
  assert.equal(jobItemOutput().safeParse({ ...running, progress_percent: 100 }).success, true);
  assert.equal(jobItemOutput().safeParse({ ...running, progress_percent: 101 }).success, false);
  assert.equal(jobItemOutput().safeParse({ ...running, completed_items: -1 }).success, false);
  assert.equal(jobItemOutput().safeParse({ ...running, execution_state: "succeeded" }).success, false);
});
