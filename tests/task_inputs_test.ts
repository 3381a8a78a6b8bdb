/**
 * The `TaskInputs` seam (src/tasks/inputs.ts), used only by the conformance fixture: how a job
 * waiting for input appears as an `input_required` task, and how answers reach it. Runs the
 * fixture's own kinds and `InputDesk` on a real store with a real executor.
 *
 *   deno test --allow-read --allow-write tests/task_inputs_test.ts
 *
 * @module
 */

import assert from "node:assert/strict";
import { CreateTaskResultV2Schema, GetTaskResultV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import type { JobRow } from "../src/store/job_rows.ts";
import { jobHandle } from "../src/jobs/projection.ts";
import { createTaskResult, getTaskResult } from "../src/tasks/task_projection.ts";
import { AWAITING_INPUT, fixtureKinds, InputDesk } from "./helpers/conformance_fixture_server.ts";
import { type Harness, openHarness, tempDir, waitFor } from "../testing/temp.ts";

const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

async function awaitingInput(h: Harness, id: string): Promise<JobRow> {
  return await waitFor(`job ${id} awaiting input`, () => {
    const row = h.control.get(id);
    return row?.phase === AWAITING_INPUT ? row : undefined;
  });
}

Deno.test("getTaskResult(): a job waiting for input is working without TaskInputs, input_required with the fixture's desk", async () => {
  await using dir = await tempDir();
  const desk = new InputDesk();
  await using h = await openHarness(dir.file("jobs.db"), { extraKinds: fixtureKinds(desk) });
  const submitted = await h.control.submit("confirm_delete", { filename: "a.txt" });
  const row = await awaitingInput(h, submitted.id);

  // The product never passes TaskInputs: the same row is just working.
  const plain = GetTaskResultV2Schema.parse(getTaskResult(row, h.control));
  assert.equal(plain.status, "working");
  assert.equal("inputRequests" in plain, false);

  const asked = GetTaskResultV2Schema.parse(getTaskResult(row, h.control, { inputs: desk }));
  assert.equal(asked.status, "input_required");
  assert.ok(asked.status === "input_required");
  assert.deepEqual(Object.keys(asked.inputRequests), ["confirm"]);
  assert.equal(asked.inputRequests.confirm?.method, "elicitation/create");
  // A CreateTaskResult never carries inputRequests, even for a job that waits.
  const created = CreateTaskResultV2Schema.parse(createTaskResult(row, jobHandle(row, h.control.guidance(row))));
  assert.equal(created.status, "working");
  assert.equal("inputRequests" in created, false);

  await desk.respond(row, { "unknown-key": { ignored: true } });
  assert.equal(GetTaskResultV2Schema.parse(getTaskResult(row, h.control, { inputs: desk })).status, "input_required");
  await desk.respond(row, { confirm: accept({ confirm: true }) });
  const done = await waitFor("confirm_delete terminal", () => {
    const r = h.control.get(submitted.id);
    return r?.status === "succeeded" ? r : undefined;
  });
  const completed = GetTaskResultV2Schema.parse(getTaskResult(done, h.control, { inputs: desk }));
  assert.equal(completed.status, "completed");
  assert.deepEqual(done.result, { filename: "a.txt", deleted: true });
});

Deno.test("InputDesk.respond(): a partial answer removes only its key before it resolves", async () => {
  await using dir = await tempDir();
  const desk = new InputDesk();
  await using h = await openHarness(dir.file("jobs.db"), { extraKinds: fixtureKinds(desk) });
  const submitted = await h.control.submit("multi_input", {});
  const row = await awaitingInput(h, submitted.id);
  assert.deepEqual(Object.keys(desk.requests(row) ?? {}).sort(), ["confirm", "name"]);

  await desk.respond(row, { name: accept({ name: "partial-1" }) });
  const after = GetTaskResultV2Schema.parse(
    getTaskResult(h.control.get(submitted.id) as JobRow, h.control, { inputs: desk }),
  );
  assert.ok(after.status === "input_required", `status ${after.status}`);
  assert.deepEqual(Object.keys(after.inputRequests), ["confirm"]);

  await desk.respond(row, { confirm: accept({ confirm: true }) });
  const done = await waitFor("multi_input terminal", () => {
    const r = h.control.get(submitted.id);
    return r?.status === "succeeded" ? r : undefined;
  });
  assert.deepEqual(done.result, { name: "partial-1", confirmed: true });
});

Deno.test("InputDesk: cancelling a job that waits for input ends it cancelled and forgets its questions", async () => {
  await using dir = await tempDir();
  const desk = new InputDesk();
  await using h = await openHarness(dir.file("jobs.db"), { extraKinds: fixtureKinds(desk) });
  const submitted = await h.control.submit("confirm_delete", { filename: "b.txt" });
  const row = await awaitingInput(h, submitted.id);
  await h.control.cancel(submitted.id);
  const done = await waitFor("cancelled", () => {
    const r = h.control.get(submitted.id);
    return r?.status === "cancelled" ? r : undefined;
  });
  assert.equal(desk.requests(row), undefined);
  assert.equal(GetTaskResultV2Schema.parse(getTaskResult(done, h.control, { inputs: desk })).status, "cancelled");
});
