/** The bench's previous-shape answer (scripts/bench/previous_shape.ts) is the concise item as it was before issue 14. */

import assert from "node:assert/strict";
import { batchOf } from "../src/base/answers.ts";
import { jobItem } from "../src/jobs/projection.ts";
import { JOB_ROW_T0, jobRowOf } from "../testing/job_row.ts";
import { previousConciseAnswer } from "../scripts/bench/previous_shape.ts";

const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("previousConciseAnswer(): a detailed answer less request and result, with the defaults said again", () => {
  const ended = jobRowOf({
    status: "succeeded",
    outcome: "succeeded",
    request: { n: 1 },
    result: { n: 1 },
    started_at: JOB_ROW_T0 + 1,
    completed_at: JOB_ROW_T0 + 2,
    expires_at: JOB_ROW_T0 + 3,
  });
  const running = jobRowOf({
    status: "running",
    started_at: JOB_ROW_T0 + 1,
    completed_items: 2,
    cancel_requested_at: 5,
  });
  const detailed = batchOf([
    { key: "a", item_status: "complete", value: jobItem(ended, { format: "detailed", pollMs: undefined }) },
    { key: "b", item_status: "complete", value: jobItem(running, { format: "detailed", pollMs: 40 }) },
    { key: "c", item_status: "unavailable", reason: "not_found", message: "No job c is visible here" },
  ]);
  const previous = previousConciseAnswer(detailed as unknown as Record<string, unknown>);
  assert.deepEqual(previous, {
    batch_status: "partial",
    items: [
      {
        key: "a",
        item_status: "complete",
        value: {
          completed_items: 0,
          id: ended.id,
          kind: "k",
          execution_state: "terminal",
          summary: "k succeeded",
          created_at: iso(JOB_ROW_T0),
          outcome: "succeeded",
          started_at: iso(JOB_ROW_T0 + 1),
          completed_at: iso(JOB_ROW_T0 + 2),
          expires_at: iso(JOB_ROW_T0 + 3),
          cancellation_requested: false,
        },
      },
      {
        key: "b",
        item_status: "complete",
        value: {
          completed_items: 2,
          id: running.id,
          kind: "k",
          execution_state: "running",
          summary: "k running (2 done) (cancellation requested)",
          created_at: iso(JOB_ROW_T0),
          retry_after_ms: 40,
          started_at: iso(JOB_ROW_T0 + 1),
          cancellation_requested: true,
        },
      },
      { key: "c", item_status: "unavailable", reason: "not_found", message: "No job c is visible here" },
    ],
  });
  // Each item is longer than the concise one of today.
  const conciseBytes = JSON.stringify(jobItem(ended, { format: "concise", pollMs: undefined })).length;
  const before = (previous["items"] as { value: unknown }[])[0]!.value;
  assert.ok(JSON.stringify(before).length > conciseBytes);
});
