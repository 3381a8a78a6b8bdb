import assert from "node:assert/strict";
import type { InputRequestsV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import type { JobRow } from "../store/job_rows.ts";
import { outstandingInput, type TaskInputs } from "./inputs.ts";

const REQUESTS = { name: { method: "elicitation/create", params: {} } } as unknown as InputRequestsV2;

function inputsOf(requests: InputRequestsV2 | undefined): TaskInputs & { asked: number } {
  const inputs = {
    asked: 0,
    requests: () => {
      inputs.asked++;
      return requests;
    },
    respond: () => Promise.resolve(),
  };
  return inputs;
}

const row = (status: JobRow["status"]) => ({ status }) as JobRow;

Deno.test("outstandingInput() answers a queued or running job's requests", () => {
  for (const status of ["queued", "running"] as const) {
    assert.equal(outstandingInput(row(status), inputsOf(REQUESTS)), REQUESTS, status);
  }
});

Deno.test("outstandingInput() is undefined without inputs, for empty or no requests, and never asks for a terminal job", () => {
  assert.equal(outstandingInput(row("running"), undefined), undefined);
  assert.equal(outstandingInput(row("running"), inputsOf({} as InputRequestsV2)), undefined, "empty is none");
  assert.equal(outstandingInput(row("running"), inputsOf(undefined)), undefined);
  for (const status of ["succeeded", "failed", "cancelled"] as const) {
    const inputs = inputsOf(REQUESTS);
    assert.equal(outstandingInput(row(status), inputs), undefined, status);
    assert.equal(inputs.asked, 0, `a ${status} job's inputs are not even read`);
  }
});
