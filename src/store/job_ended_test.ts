/**
 * The reads through jobs_ended (src/store/job_ended.ts) and the retention sweep that shares the index
 * (src/store/job_maintenance.ts), over a migrated in-memory database with fixture rows: recent runs at and past their
 * sample and scan bounds, the kinds walk, the expired range of every kind, and plans that read the index only.
 */
import assert from "node:assert/strict";
import { newJobId } from "../base/ids.ts";
import { JOB_RECENT_ENDED_SCAN_MAX, JOB_RECENT_RUNS_SAMPLE } from "../base/limits.ts";
import { openDatabase } from "./db.ts";
import { ENDED_KINDS_SQL, RECENT_ENDED_DEEP_SQL, RECENT_ENDED_SQL, recentRuns } from "./job_ended.ts";
import { DELETE_EXPIRED_SQL, JobMaintenance } from "./job_maintenance.ts";
import { Connection } from "./tx.ts";

const NOW = Date.UTC(2026, 0, 1);
const RETENTION_MS = 86_400_000;

interface Ended {
  kind: string;
  /** Run time in ms. */
  ms: number;
  end: number;
  status?: "succeeded" | "failed" | "cancelled";
  retentionMs?: number;
}

function withConnection(fn: (conn: Connection, ended: (e: Ended) => string) => Promise<void> | void) {
  return async () => {
    const conn = new Connection(openDatabase(":memory:"));
    const insert = conn.db.prepare(
      `INSERT INTO jobs (id, kind, status, outcome, request, created_at, started_at, updated_at, completed_at,
         owner_id, attempt, retention_ms, expires_at)
       VALUES (?, ?, ?, ?, 'null', ?, ?, ?, ?, 'owner', 1, ?, ?)`,
    );
    const ended = (e: Ended) => {
      const id = newJobId(e.end - e.ms);
      const status = e.status ?? "succeeded";
      const retention = e.retentionMs ?? RETENTION_MS;
      insert.run(id, e.kind, status, status, e.end - e.ms, e.end - e.ms, e.end, e.end, retention, e.end + retention);
      return id;
    };
    try {
      await fn(conn, ended);
    } finally {
      conn.close();
    }
  };
}

Deno.test(
  "recentRuns: the newest succeeded runs of the kind, newest first, at most JOB_RECENT_RUNS_SAMPLE (at and past it)",
  withConnection((conn, ended) => {
    assert.deepEqual(recentRuns(conn, "a"), [], "no ended job");
    for (let i = 0; i < JOB_RECENT_RUNS_SAMPLE; i++) ended({ kind: "a", ms: 100 + i, end: NOW + i });
    ended({ kind: "b", ms: 9_999, end: NOW + 1_000 }); // another kind, newer: not in a's runs
    const runs = recentRuns(conn, "a");
    assert.equal(runs.length, JOB_RECENT_RUNS_SAMPLE);
    assert.deepEqual(runs[0], { at: NOW + JOB_RECENT_RUNS_SAMPLE - 1, ms: 100 + JOB_RECENT_RUNS_SAMPLE - 1 });
    assert.deepEqual(runs.at(-1), { at: NOW, ms: 100 });
    ended({ kind: "a", ms: 7, end: NOW + 500 });
    const past = recentRuns(conn, "a");
    assert.equal(past.length, JOB_RECENT_RUNS_SAMPLE, "one past the sample: still the sample");
    assert.deepEqual(past[0], { at: NOW + 500, ms: 7 });
    assert.equal(past.some((r) => r.at === NOW), false, "the oldest left the sample");
  }),
);

Deno.test(
  "recentRuns: failed and cancelled jobs and runs that ended at or before endedAfter do not count",
  withConnection((conn, ended) => {
    ended({ kind: "a", ms: 1_000, end: NOW - 10 });
    ended({ kind: "a", ms: 2_000, end: NOW });
    ended({ kind: "a", ms: 3_000, end: NOW + 10, status: "failed" });
    ended({ kind: "a", ms: 4_000, end: NOW + 20, status: "cancelled" });
    assert.deepEqual(recentRuns(conn, "a").map((r) => r.ms), [2_000, 1_000]);
    assert.deepEqual(
      recentRuns(conn, "a", { endedAfter: NOW - 10 }).map((r) => r.ms),
      [2_000],
      "ended exactly at the edge: out",
    );
    assert.deepEqual(
      recentRuns(conn, "a", { endedAfter: NOW - 11 }).map((r) => r.ms),
      [2_000, 1_000],
      "one ms inside: in",
    );
  }),
);

Deno.test(
  "recentRuns: looks among at most JOB_RECENT_ENDED_SCAN_MAX of the kind's newest ended jobs (at and past the bound)",
  async () => {
    for (const failedAfter of [JOB_RECENT_ENDED_SCAN_MAX - 1, JOB_RECENT_ENDED_SCAN_MAX]) {
      await withConnection((conn, ended) => {
        ended({ kind: "a", ms: 1_234, end: NOW });
        for (let i = 1; i <= failedAfter; i++) ended({ kind: "a", ms: 5, end: NOW + i, status: "failed" });
        assert.deepEqual(
          recentRuns(conn, "a").map((r) => r.ms),
          failedAfter < JOB_RECENT_ENDED_SCAN_MAX ? [1_234] : [],
          `the succeeded run behind ${failedAfter} failed ones`,
        );
      })();
    }
  },
);

Deno.test(
  "recentRuns: a first read that reaches runs ended before endedAfter is not read deeper (rows past it ended earlier)",
  withConnection((conn, ended) => {
    // Expiry order is end order while retention is equal; here an older server kept jobs longer, so a run that
    // ended inside the window sorts behind JOB_RECENT_RUNS_SAMPLE ones that ended before it.
    for (let i = 0; i < JOB_RECENT_RUNS_SAMPLE; i++) {
      ended({ kind: "a", ms: 5, end: NOW - 60_000 + i, retentionMs: 10 * RETENTION_MS });
    }
    ended({ kind: "a", ms: 777, end: NOW, retentionMs: RETENTION_MS });
    assert.deepEqual(
      recentRuns(conn, "a", { endedAfter: NOW - 1_000 }),
      [],
      "the first read's oldest row is outside: no deeper read",
    );
    ended({ kind: "a", ms: 9, end: NOW - 1, status: "failed", retentionMs: 10 * RETENTION_MS });
    assert.deepEqual(
      recentRuns(conn, "a", { endedAfter: NOW - 1_000_000 }).map((r) => r.ms),
      Array(JOB_RECENT_RUNS_SAMPLE).fill(5),
      "a failed row in a first read that is all inside the window: read deeper (the first read held one 5 ms run less)",
    );
  }),
);

Deno.test(
  "jobDeleteExpired: deletes the expired range of every kind, in kind order, at most the batch",
  withConnection(async (conn, ended) => {
    const maintenance = new JobMaintenance(conn);
    const kinds = ["a", "b", "c"];
    const expired = new Set<string>();
    const kept = new Set<string>();
    for (const kind of kinds) {
      for (let i = 0; i < 3; i++) expired.add(ended({ kind, ms: 1, end: NOW + i, retentionMs: 1_000 }));
      kept.add(ended({ kind, ms: 1, end: NOW + 5_000, retentionMs: 1_000 }));
    }
    const ids = () => new Set((conn.db.prepare("SELECT id FROM jobs").all() as { id: string }[]).map((r) => r.id));
    assert.equal(await maintenance.jobDeleteExpired(NOW + 999, 100), 0, "nothing expired yet");
    assert.equal(await maintenance.jobDeleteExpired(NOW + 1_002, 4), 4, "the batch bound");
    assert.equal(await maintenance.jobDeleteExpired(NOW + 1_002, 100), 5, "the rest, across kinds");
    assert.deepEqual(ids(), kept);
    assert.equal(await maintenance.jobDeleteExpired(NOW + 1_002, 100), 0);
  }),
);

Deno.test(
  "jobs_ended: the kinds walk, the recent runs and the sweep read the index, never the whole table",
  withConnection((conn) => {
    const statements: [string, (string | number)[]][] = [
      [ENDED_KINDS_SQL, [10]],
      [RECENT_ENDED_SQL, ["a"]],
      [RECENT_ENDED_DEEP_SQL, ["a"]],
      [DELETE_EXPIRED_SQL, [NOW, 10]],
    ];
    for (const [sql, args] of statements) {
      const plan = (conn.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[])
        .map((r) => r.detail);
      const reads = plan.filter((d) => /^(SCAN|SEARCH) (jobs|j)\b/.test(d));
      assert.ok(reads.length > 0, plan.join(" | "));
      for (const d of reads) {
        assert.match(d, /USING (COVERING )?INDEX jobs_ended|USING INTEGER PRIMARY KEY \(rowid=\?\)/, plan.join(" | "));
      }
      // The sweep's expired range and the recent runs are seeks of a kind's range, not a walk of the whole index.
      if (sql !== ENDED_KINDS_SQL) {
        assert.ok(
          reads.some((d) => /SEARCH (jobs|j) USING (COVERING )?INDEX jobs_ended \(kind=\?/.test(d)),
          plan.join(" | "),
        );
      }
    }
  }),
);
