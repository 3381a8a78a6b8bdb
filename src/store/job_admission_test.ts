import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import { newJobId } from "../base/ids.ts";
import {
  JOB_RECENT_RUNS_SAMPLE,
  OVERLOAD_GUIDANCE_KINDS_MAX,
  OVERLOAD_RECENT_RUNS_WINDOW_MS,
  OVERLOAD_RETRY_MS_MAX,
  OVERLOAD_RETRY_MS_MIN,
} from "../base/limits.ts";
import { openDatabase } from "./db.ts";
import { JobAdmission } from "./job_admission.ts";
import { Connection } from "./tx.ts";

const NOW = Date.UTC(2026, 0, 1);

/** Job admission over a migrated in-memory database, and a way to store a finished run (a fixture row). */
async function withAdmission(
  fn: (admission: JobAdmission, ran: (run: Run) => void, conn: Connection) => Promise<void> | void,
): Promise<void> {
  const conn = new Connection(openDatabase(":memory:"));
  const insert = conn.db.prepare(
    `INSERT INTO jobs (id, kind, status, outcome, request, created_at, started_at, updated_at, completed_at,
       owner_id, attempt, retention_ms, expires_at)
     VALUES (?, ?, ?, ?, 'null', ?, ?, ?, ?, 'owner', 1, 86400000, ?)`,
  );
  const ran = (r: Run) => {
    const started = r.end - r.ms;
    const status = r.status ?? "succeeded";
    insert.run(newJobId(started), r.kind, status, status, started, started, r.end, r.end, r.end + 86_400_000);
  };
  try {
    await fn(new JobAdmission(conn), ran, conn);
  } finally {
    conn.close();
  }
}

interface Run {
  kind: string;
  ms: number;
  end: number;
  status?: "succeeded" | "failed" | "cancelled";
}

/** The retry hint a refused submission gets now (admission bound 0: every submission is refused). */
async function hint(admission: JobAdmission): Promise<number> {
  const err = await admission.jobInsertIfAdmitted({
    id: newJobId(NOW),
    kind: "any",
    requestJson: "{}",
    retentionMs: 60_000,
    authority: null,
    now: NOW,
    admittedMax: 0,
  }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof AppError && err.code === "overloaded", String(err));
  return err.retryAfterMs as number;
}

Deno.test("overload guidance: the newest JOB_RECENT_RUNS_SAMPLE succeeded runs across kinds, at and past the sample", async () => {
  await withAdmission(async (admission, ran) => {
    assert.equal(await hint(admission), OVERLOAD_RETRY_MS_MIN, "no recent run: the minimum");
    // Kinds interleave in time; the sample is the newest runs whatever their kind.
    for (let i = 0; i < JOB_RECENT_RUNS_SAMPLE; i++) {
      ran({ kind: i % 2 === 0 ? "a" : "b", ms: i === 0 ? 5_000 : 1_000, end: NOW - 60_000 + i });
    }
    assert.equal(await hint(admission), (5_000 + (JOB_RECENT_RUNS_SAMPLE - 1) * 1_000) / JOB_RECENT_RUNS_SAMPLE);
    // One newer run pushes the oldest (5_000 ms) out of the sample.
    ran({ kind: "c", ms: 1_000, end: NOW - 1_000 });
    assert.equal(await hint(admission), 1_000);
  });
});

Deno.test("overload guidance: failed and cancelled runs, and runs older than the window, do not count", async () => {
  await withAdmission(async (admission, ran) => {
    ran({ kind: "a", ms: 3_000, end: NOW - 1_000 });
    ran({ kind: "a", ms: 50_000, end: NOW - 500, status: "failed" });
    ran({ kind: "b", ms: 50_000, end: NOW - 400, status: "cancelled" });
    // At the window's edge (completed exactly OVERLOAD_RECENT_RUNS_WINDOW_MS ago) a run is already out.
    ran({ kind: "b", ms: 50_000, end: NOW - OVERLOAD_RECENT_RUNS_WINDOW_MS });
    assert.equal(await hint(admission), 3_000);
    ran({ kind: "b", ms: 5_000, end: NOW - OVERLOAD_RECENT_RUNS_WINDOW_MS + 1 });
    assert.equal(await hint(admission), 4_000, "one ms inside the window it counts");
  });
});

Deno.test("overload guidance: bounded to [OVERLOAD_RETRY_MS_MIN, OVERLOAD_RETRY_MS_MAX]", async () => {
  await withAdmission(async (admission, ran) => {
    ran({ kind: "a", ms: 10, end: NOW - 1_000 });
    assert.equal(await hint(admission), OVERLOAD_RETRY_MS_MIN);
    ran({ kind: "a", ms: 10 * OVERLOAD_RETRY_MS_MAX, end: NOW - 500 });
    assert.equal(await hint(admission), OVERLOAD_RETRY_MS_MAX);
  });
});

Deno.test("overload guidance: reads at most OVERLOAD_GUIDANCE_KINDS_MAX kinds (at the bound and past it)", async () => {
  const kindName = (i: number) => `k${String(i).padStart(3, "0")}`; // sorted as numbered
  for (const kinds of [OVERLOAD_GUIDANCE_KINDS_MAX, OVERLOAD_GUIDANCE_KINDS_MAX + 1]) {
    await withAdmission(async (admission, ran) => {
      // Every kind ran 1_000 ms; the last kind (in kind order) also has the newest run, of 21_000 ms.
      for (let i = 0; i < kinds; i++) ran({ kind: kindName(i), ms: 1_000, end: NOW - 100_000 + i });
      ran({ kind: kindName(kinds - 1), ms: 21_000, end: NOW - 1 });
      const withLongRun = (21_000 + (JOB_RECENT_RUNS_SAMPLE - 1) * 1_000) / JOB_RECENT_RUNS_SAMPLE;
      assert.equal(
        await hint(admission),
        kinds === OVERLOAD_GUIDANCE_KINDS_MAX ? withLongRun : 1_000,
        `${kinds} kinds: the last one is read only within the bound`,
      );
    });
  }
});
