/**
 * The `--json` document of the blocking job commands (`checks watch`, `sync`): what each prints on stdout,
 * and the one description of its envelope.
 *
 * - The job ended with a result: `{job_id, exit_code, ...result}`. The result's fields sit beside the
 *   envelope's and are exactly the result the command's MCP tool completes with (`github.wait_pull_request_checks`,
 *   `github.sync_threads`: the `result` of the completed task, src/github/result_schemas.ts).
 * - The job ended without one (failed, cancelled): `{job_id, outcome, exit_code, error?}` with `outcome`
 *   `cancelled` or `error` and `error` the stored job error (what the tool's error result holds).
 *
 * The builders are typed from the zod schemas below, so what is printed cannot leave them; the schemas are built
 * on first use (only tests/cli_json_schemas_test.ts reads them, against the documents the real commands print).
 *
 * @module
 */

import { z } from "zod";
import type { JobError } from "../base/errors.ts";
import { once } from "../base/once.ts";
import type { Covers } from "../base/validation.ts";
import type { JobRow } from "../store/job_rows.ts";
import { EXIT_CODES, type ExitCode } from "./exit.ts";

const schemas = once(() => {
  const ExitCodeJson = z.literal(EXIT_CODES);
  /** The fields printed beside a result's. */
  const ResultEnvelope = z.strictObject({ job_id: z.string(), exit_code: ExitCodeJson });
  /** A stored job error ({@linkcode JobError}), as printed. */
  const JobErrorJson = z.strictObject({
    code: z.string(),
    message: z.string(),
    retryable: z.boolean(),
    retry_after_ms: z.number().int().min(0).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  });
  /** A job that ended without a result. */
  const JobEndJson = z.strictObject({
    job_id: z.string(),
    outcome: z.enum(["cancelled", "error"]),
    exit_code: ExitCodeJson,
    error: JobErrorJson.optional(),
  });
  // Compile-time check: the printed error declares every field of a JobError (jobEndJson's return type
  // already requires every JobError to fit it).
  const covered: Covers<z.output<typeof JobErrorJson>, JobError> = true;
  void covered;
  return { ResultEnvelope, JobEndJson };
});

/** The schema of the fields printed beside a job's result (closed: a result's own fields are checked apart). */
export const jobResultEnvelopeSchema = (): ReturnType<typeof schemas>["ResultEnvelope"] => schemas().ResultEnvelope;
/** The schema of the whole document printed for a job that ended without a result. */
export const jobEndJsonSchema = (): ReturnType<typeof schemas>["JobEndJson"] => schemas().JobEndJson;

/** The fields printed beside a job's result. */
export type JobResultEnvelope = z.output<ReturnType<typeof jobResultEnvelopeSchema>>;
/** The document printed for a job that ended without a result. */
export type JobEndJson = z.output<ReturnType<typeof jobEndJsonSchema>>;

/** A result whose fields do not collide with the envelope's. */
type Unenveloped = object & { [K in keyof JobResultEnvelope]?: never };

/** The document of a job that ended with `result`: the `envelope` (job id, exit code), then the result's fields. */
export function jobResultJson<R extends Unenveloped>(envelope: JobResultEnvelope, result: R): JobResultEnvelope & R {
  return { ...envelope, ...result };
}

/** The document of a job that ended without a result (`row.status` failed or cancelled). */
export function jobEndJson(row: JobRow, exitCode: ExitCode): JobEndJson {
  return {
    job_id: row.id,
    outcome: row.status === "cancelled" ? "cancelled" : "error",
    exit_code: exitCode,
    ...(row.error === null ? {} : { error: row.error }),
  };
}
