/**
 * The seam for job kinds that ask for input mid-flight. Used only by the conformance fixture
 * (tests/helpers/conformance_fixture_server.ts); no product tool asks for input, so the product
 * server never sets it and never reports `input_required`. The job and store layers know nothing
 * of it: a fixture kind waits in a phase of its own choosing, and the fixture's implementation of
 * this interface tells the adapter what that job is waiting for.
 *
 * @module
 */

import type { InputRequestsV2 } from "@modelcontextprotocol/ext-tasks/core/v2";
import type { JobRow } from "../store/job_rows.ts";

/** Input a running job waits for, and the route for the answers (`tasks/update` `inputResponses`). */
export interface TaskInputs {
  /** The keyed requests a job is waiting for now, or undefined (or empty) when it waits for nothing. */
  requests(row: JobRow): InputRequestsV2 | undefined;
  /**
   * Delivers answers. Keys that are not outstanding are ignored. Resolves once {@linkcode requests}
   * reflects them, so a `tasks/get` right after the acknowledgement sees the answered keys gone.
   */
  respond(row: JobRow, responses: Record<string, unknown>): Promise<void>;
}

/** The outstanding requests of a non-terminal job, or undefined when there are none. */
export function outstandingInput(row: JobRow, inputs: TaskInputs | undefined): InputRequestsV2 | undefined {
  if (inputs === undefined || (row.status !== "queued" && row.status !== "running")) return undefined;
  const requests = inputs.requests(row);
  return requests === undefined || Object.keys(requests).length === 0 ? undefined : requests;
}
