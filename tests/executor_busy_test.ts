/**
 * A database locked by another process for longer than the store's own busy retries:
 * a finished job's result is kept and written once the lock clears, and the process
 * does not crash.
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { STORE_BUSY_BACKOFF_MS_MAX, STORE_BUSY_RETRIES_MAX, STORE_BUSY_TIMEOUT_MS } from "../src/base/limits.ts";
import { recordingLogger } from "../testing/recording_logger.ts";
import { openHarness, tempDir, waitFor, waitForStatus } from "../testing/temp.ts";

Deno.test("Executor keeps a finished result through a lock longer than the store's retries, then writes it", async () => {
  await using dir = await tempDir();
  const path = dir.file("jobs.db");
  // A lease longer than the lock: the owner must stay alive through it (a lock longer than
  // the lease would rightly cost the job its owner, and the job would end process_lost).
  const warnings: string[] = [];
  await using h = await openHarness(path, {
    executor: {
      cancelPollMs: 60_000,
      reconcileMs: 60_000,
      heartbeatMs: 2_000,
      leaseMs: 60_000,
      log: recordingLogger(warnings),
    },
  });
  const job = await h.control.submit("stubborn", { ms: 300 }); // reports no progress: only the terminal write waits
  await waitForStatus(h.store, job.id, { status: ["running"] });
  // Another connection (as another process would) holds the write lock past the store's
  // whole async retry budget while the handler finishes.
  const other = new DatabaseSync(path);
  other.exec("BEGIN IMMEDIATE");
  // The lock is held until the executor says its terminal write outlasted every store retry (it
  // keeps the result and retries on its own), not for a guessed time.
  await waitFor(
    "the executor to give up a terminal write under the lock and keep the result",
    () => warnings.includes("database unavailable; retrying a job's terminal write"),
    // Every retry can wait its full backoff plus SQLite's busy timeout; allow well past that.
    {
      timeoutMs: Math.round(STORE_BUSY_RETRIES_MAX * (STORE_BUSY_BACKOFF_MS_MAX + STORE_BUSY_TIMEOUT_MS) * 3) + 10_000,
    },
  );
  assert.equal(h.store.rows.jobGet(job.id)?.status, "running", "nothing could be written under the lock");
  other.exec("COMMIT");
  other.close();
  const row = await waitForStatus(h.store, job.id, { status: ["succeeded", "failed", "cancelled"], timeoutMs: 10_000 });
  assert.equal(row.status, "succeeded");
  assert.deepEqual(row.result, { stubborn: true });
});
