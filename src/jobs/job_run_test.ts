/**
 * The pure parts of src/jobs/job_run.ts: how a handler's return or throw becomes the job's end,
 * the result bound at and past JOB_RESULT_BYTES_MAX, and which store faults a terminal write
 * retries. tests/jobs_test.ts and tests/storage_faults_test.ts run whole jobs through the executor.
 */

import assert from "node:assert/strict";
import { ManualClock } from "../base/clock.ts";
import { AppError } from "../base/errors.ts";
import { JOB_RESULT_BYTES_MAX, TERMINAL_WRITE_RETRY_MS } from "../base/limits.ts";
import { recordingLogger } from "../../testing/recording_logger.ts";
import { openTempStore, tempDir } from "../../testing/temp.ts";
import { JobAbort } from "./job_abort.ts";
import {
  finishRun,
  isTransientStoreFault,
  type JobRunHost,
  type RunningJob,
  succeededTerminal,
  thrownEnd,
} from "./job_run.ts";

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

Deno.test("finishRun: a terminal write refused as store_busy is retried on the host's clock, not before its pause", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("jobs.db"));
  const clock = new ManualClock();
  const attempts: number[] = [];
  const ended: string[] = [];
  const warnings: string[] = [];
  const log = recordingLogger(warnings);
  let leaseHeld = true;
  const host: JobRunHost = {
    rows: store.rows,
    clock,
    handlerClock: clock,
    log,
    onTerminal: (id) => void ended.push(id),
    onProgress: undefined,
    writeTerminal: () => {
      attempts.push(clock.now());
      if (attempts.length === 1) return Promise.reject(new AppError("store_busy", "database is locked"));
      return Promise.resolve(true);
    },
    ownsLease: () => leaseHeld,
    interrupted: () => {},
  };
  const job: RunningJob = {
    row: { id: "j1", kind: "k", request: "{}", attempt: 1, phase: null },
    ownerId: "o1",
    controller: new AbortController(),
    done: Promise.resolve(),
  };
  const start = clock.now();
  const finished = finishRun(host, { job, terminal: succeededTerminal({}, { ok: true }) });
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assert.deepEqual(attempts, [start], "one attempt, then a pause that only the clock can end");
  assert.deepEqual(warnings, ["database unavailable; retrying a job's terminal write"]);
  clock.advance(TERMINAL_WRITE_RETRY_MS / 2 - 1); // the pause is at least half the retry interval
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assert.equal(attempts.length, 1, "no retry before half the interval");
  clock.advance(TERMINAL_WRITE_RETRY_MS / 2 + 1); // past the longest pause: the retry follows with no real time
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assert.equal(attempts.length, 2);
  await finished;
  assert.deepEqual(ended, ["j1"]);
  leaseHeld = false; // past the lease a failed write is not retried: the job is reconciliation's
  attempts.length = 0;
  await assert.rejects(finishRun(host, { job, terminal: succeededTerminal({}, 1) }), (err) => err instanceof AppError);
  assert.equal(attempts.length, 1);
});
