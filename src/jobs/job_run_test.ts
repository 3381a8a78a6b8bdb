/**
 * The pure parts of src/jobs/job_run.ts: how a handler's return or throw becomes the job's end,
 * the result bound at and past JOB_RESULT_BYTES_MAX, and which store faults a terminal write
 * retries. tests/jobs_test.ts and tests/storage_faults_test.ts run whole jobs through the executor.
 */

import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import { JOB_RESULT_BYTES_MAX } from "../base/limits.ts";
import { JobAbort } from "./job_abort.ts";
import { isTransientStoreFault, succeededTerminal, thrownEnd } from "./job_run.ts";

Deno.test("succeededTerminal: stores the result as JSON (undefined as null) with the kind's outcome word or `succeeded`", () => {
  assert.deepEqual(succeededTerminal({}, { n: 1 }), {
    status: "succeeded",
    outcome: "succeeded",
    resultJson: '{"n":1}',
    error: null,
  });
  assert.equal(succeededTerminal({}, undefined).resultJson, "null");
  const kind = { outcome: (r: unknown) => ((r as { green: boolean }).green ? "passed" : "red") };
  assert.equal(succeededTerminal(kind, { green: false }).outcome, "red");
  assert.equal(succeededTerminal(kind, { green: true }).outcome, "passed");
});

Deno.test("succeededTerminal: a result of exactly JOB_RESULT_BYTES_MAX bytes is stored; one byte more is an AppError internal", () => {
  const at = "x".repeat(JOB_RESULT_BYTES_MAX - 2); // the JSON string adds two quotes
  assert.equal(succeededTerminal({}, at).resultJson?.length, JOB_RESULT_BYTES_MAX);
  assert.throws(
    () => succeededTerminal({}, at + "x"),
    (err: unknown) =>
      err instanceof AppError && err.code === "internal" &&
      err.message.includes(`${JOB_RESULT_BYTES_MAX + 1} bytes is over the ${JOB_RESULT_BYTES_MAX}-byte limit`),
  );
  const multiByte = "é".repeat(JOB_RESULT_BYTES_MAX / 2); // 2 bytes each in UTF-8: over by the quotes
  assert.throws(() => succeededTerminal({}, multiByte), AppError, "the bound counts bytes, not characters");
});

Deno.test("thrownEnd: a throw with no JobAbort is a failure carrying the job error", () => {
  const plain = thrownEnd(new AppError("not_found", "no such repository"), new AbortController().signal);
  assert.equal(plain.type, "terminal");
  assert.ok(plain.type === "terminal");
  assert.equal(plain.terminal.status, "failed");
  assert.equal(plain.terminal.outcome, "failed");
  assert.equal(plain.terminal.error?.code, "not_found");
  const other = new AbortController();
  other.abort(new Error("the handler's own abort"));
  const foreign = thrownEnd(new Error("aborted"), other.signal);
  assert.ok(foreign.type === "terminal" && foreign.terminal.status === "failed", "only a JobAbort reason counts");
});

Deno.test("thrownEnd: an abort for cancel is cancelled, for shutdown interrupted, for a lost lease released", () => {
  const abortedBy = (cause: "cancel" | "shutdown" | "lease_lost") => {
    const c = new AbortController();
    c.abort(new JobAbort(cause));
    return thrownEnd(new Error("whatever the handler threw"), c.signal);
  };
  assert.deepEqual(abortedBy("cancel"), {
    type: "terminal",
    terminal: { status: "cancelled", outcome: "cancelled", resultJson: null, error: null },
  });
  assert.deepEqual(abortedBy("shutdown"), { type: "interrupted" });
  assert.deepEqual(abortedBy("lease_lost"), { type: "released" });
});

Deno.test("isTransientStoreFault: store_busy and storage_unavailable are retried; other codes and plain errors are not", () => {
  assert.equal(isTransientStoreFault(new AppError("store_busy", "locked")), true);
  assert.equal(isTransientStoreFault(new AppError("storage_unavailable", "disk full")), true);
  assert.equal(isTransientStoreFault(new AppError("internal", "bug")), false);
  assert.equal(isTransientStoreFault(new Error("database is locked")), false);
});
