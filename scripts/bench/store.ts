/**
 * Job store benchmark (issue 2, section 9): raw SQLite write transactions, job lifecycle
 * throughput, cancel observation latency in-process and cross-process, reconciliation
 * latency after kill -9, WAL size after 50,000 jobs and RSS of a loaded process.
 *
 * Standalone: `deno run --allow-read --allow-write --allow-env --allow-run scripts/bench/store.ts`
 * (the same module is spawned as a child, with `--child MODE`, for the multi-process parts).
 *
 * This module runs the measurements and builds the section (rows, goals, notes); the parts are in
 * store/: harness.ts (section shape, timing, percentiles and medians, cell formatting, the bench
 * directory), job_harness.ts (the kinds, control and executor the benchmark drives), children.ts
 * (the child processes, both sides), and one module per measurement: lifecycle.ts ((a), (b) and
 * the WAL, alternated), cancel_latency.ts, reconcile_after_kill.ts, rss_loaded.ts.
 *
 * @module
 */

import {
  CANCEL_POLL_MS_DEFAULT,
  JOB_ADMITTED_MAX_DEFAULT,
  JOB_RUNNING_MAX_DEFAULT,
  OWNER_HEARTBEAT_MS_DEFAULT,
  OWNER_LEASE_MS_DEFAULT,
  RECONCILE_INTERVAL_MS_DEFAULT,
} from "../../src/base/limits.ts";
import { openStore } from "../../src/store/store.ts";
import {
  CANCEL_SAMPLES_LOCAL,
  CANCEL_SAMPLES_REMOTE,
  cancelLatencyLocal,
  cancelLatencyRemote,
} from "./store/cancel_latency.ts";
import { runChild } from "./store/children.ts";
import { benchDir, type BenchSection, fmt, mb, percentile } from "./store/harness.ts";
import {
  LIFECYCLE_JOBS,
  LIFECYCLE_ROUNDS,
  LIFECYCLE_WARMUP,
  measureLifecycle,
  WAL_SAMPLE_JOBS,
} from "./store/lifecycle.ts";
import { reconcileAfterKill } from "./store/reconcile_after_kill.ts";
import { RETAINED_JOBS, rssLoaded } from "./store/rss_loaded.ts";

export type { BenchSection };

const WAL_GROWTH_GOAL = 1.25;
const LIFECYCLE_GOAL = 12_000;
const RATIO_GOAL = 0.8;
const CANCEL_LOCAL_GOAL_MS = 20;
const CANCEL_REMOTE_GOAL_MS = 300;
const RSS_GOAL_BYTES = 100 * 1024 * 1024;

/** Runs every store measurement on a temp database. */
export async function benchStore(): Promise<BenchSection> {
  const { path: dir, where } = await benchDir();
  const notes: string[] = [];
  try {
    // (a) and (b) alternately, so a busy machine slows both sides of each ratio alike; + WAL size
    const {
      rounds,
      raw,
      lifecycleRate,
      ratio,
      walPerJobFresh,
      walPerJobRetained,
      walGrowth,
      walAfter,
      walMax,
      retainedAtEnd,
    } = await measureLifecycle(dir);

    // cancel latency
    const cancelStore = openStore(`${dir}/cancel.db`);
    let local: number[];
    let remote: number[];
    try {
      local = await cancelLatencyLocal(cancelStore);
      remote = await cancelLatencyRemote(cancelStore, dir);
    } finally {
      cancelStore.close();
    }

    // reconciliation after kill -9, with the default heartbeat, lease and reconcile period
    const reconStore = openStore(`${dir}/reconcile.db`);
    let reconcileMs: number;
    try {
      reconcileMs = await reconcileAfterKill(reconStore, dir);
    } finally {
      reconStore.close();
    }
    const reconcileGoal = OWNER_LEASE_MS_DEFAULT + OWNER_HEARTBEAT_MS_DEFAULT + 1_000;

    const { rss, baseline } = await rssLoaded(dir);

    notes.push(
      `Database files in the ${where}; synchronous=NORMAL, WAL. (a) is a prepared BEGIN IMMEDIATE / one-row UPDATE / COMMIT loop on the store's own connection.`,
      `(a) and (b) ran alternately, ${LIFECYCLE_ROUNDS} rounds of ${
        fmt(LIFECYCLE_JOBS / LIFECYCLE_ROUNDS)
      } jobs each; the table shows medians (the ratio is the median of each round's own ratio). Rounds: ${
        rounds.map((r) => `${fmt(r.raw)} tx/s, ${fmt(r.rate)} jobs/s (load ${r.load})`).join("; ")
      }.`,
      `WAL bytes per job: the WAL truncated, then ${WAL_SAMPLE_JOBS} jobs with automatic checkpoints off, the WAL's size divided by ${WAL_SAMPLE_JOBS}; once after the warm-up and once after every round.`,
      `(b) submits ${
        fmt(LIFECYCLE_JOBS)
      } no-op jobs through JobControl.submit (waves fill the default admission bound of ${JOB_ADMITTED_MAX_DEFAULT}, as many concurrent clients would; submissions made in the same turn share one admission transaction, each admitted on its own) while an Executor with the default running bound (${JOB_RUNNING_MAX_DEFAULT}) claims and completes them in the same process; jobs/s from the first submission to the last terminal write, after ${
        fmt(LIFECYCLE_WARMUP)
      } warm-up jobs. The executor claims every free slot in one transaction and batches terminal writes that are ready together, so a job costs well under one commit here; (c) still uses the issue's 3 commits per job.`,
      "Hot-path work for (b) (the same wave producer with 20,000 jobs, same machine, two runs each): before, 3.00 commits per job and 1,600-1,800 jobs/s (2,800-3,100 jobs per CPU-second); after batching claims and terminal writes, 1.50 commits per job and 3,500-3,900 jobs/s (3,800-4,400 jobs per CPU-second). Group commit of admissions then took it to about 4,200 jobs/s. A CPU profile of that run puts about 85% of the time in SQLite statements (claim UPDATE 16%, terminal UPDATE 15%, admission INSERT 9% and count 7%, BEGIN/COMMIT 20%) and 12% in turning rows into objects: the per-job UPDATEs of the claim and the terminal write (each touching the row and its indexes), not JavaScript overhead, bound the rate on this machine. The machine is shared (2 CPUs), so absolute figures vary by up to 2x between runs; compare ratios.",
      "Lifecycle SQL since (issue 14, CPU time of alternated runs, so a busy machine cannot fake them): the guard triggers' IN lists of three constants were rebuilt as a temporary b-tree on every row a trigger fired for (every claim, terminal write and retention delete); written with = and OR (m005) the lifecycle statements ran 1.24-1.30x faster, within noise of no trigger at all. A claim's json_each list of kinds built another temporary table per claimed job (now bound inline), and the terminal write's SQL was rebuilt and re-hashed for the statement cache per job: together 3 x raw tx CPU / job CPU went from 0.50-0.58 to 0.73-0.78. What is left per job is the row and index writes themselves (a table row, the primary-key index and jobs_active at admission; jobs_active twice at the claim; jobs_active, jobs_expiry and jobs_recent_succeeded at the end, about 2 WAL pages per job against 1 per raw transaction); dropping jobs_recent_succeeded would gain about 1.08x and a 4x larger autocheckpoint about 1.05x (SQL-level CPU time), so both stay.",
      "Then (issue 14, measured with alternated runs and, where a busy machine drowned CPU time, callgrind's instruction counts): the executor freed a finished job's slot only when its run's promise chain settled, several turns after the terminal write landed, so the next batch of ends counted those jobs as running and refilled nothing, and every other batch of claims took a transaction of its own (0.38 write transactions per job, now 0.27: one per batch of four ends together with the four claims refilling their slots; WAL bytes per job 8,432 -> 7,279). A commit here costs about 7.5 us CPU per WAL page it writes (one-row-per-page transactions writing 1, 2, 4, 8 and 16 pages took 17-19, 25-26, 38-41, 71-78 and 121-132 us), so fewer, fuller commits are most of that gain. The claim now reads the next queued job and takes it by rowid in a second statement, fenced by the owner's live lease as before (UPDATE ... WHERE id = (SELECT ...) RETURNING filled a temporary table per claimed job and searched the primary key twice): 6% fewer user-space instructions per job. Tried and not kept: jobs as a WITHOUT ROWID table (0.89x: every index entry carries the 49-character id), jobs_active keyed (created_at, status) (the same WAL pages per transaction in this lifecycle), reserving a row's final size at admission so the claim and the end rewrite it in place (16% fewer WAL frames, CPU within noise), one UPDATE claiming the whole batch (0.69x), a terminal statement without the progress columns, terminal writes by rowid, the owner's lease checked once per transaction (each within 1% of instructions). m006's insert trigger costs 4.6% of the lifecycle's SQL instructions (3.6% its primary-key probe, 1% running any trigger); nothing cheaper still refuses INSERT OR REPLACE over an existing id (REPLACE overrides every conflict clause and its implicit delete fires no trigger), so it stays.",
      `In-process cancel latency: from JobControl.cancel() to the handler's abort listener (cancel poll disabled, so only the abortLocal fast path counts), ${CANCEL_SAMPLES_LOCAL} samples. Cross-process: another process's executor (default ${CANCEL_POLL_MS_DEFAULT} ms cancel poll) until the job reads cancelled in this process, ${CANCEL_SAMPLES_REMOTE} samples at random poll phases.`,
      `Reconciliation: a survivor process with the defaults (heartbeat ${OWNER_HEARTBEAT_MS_DEFAULT} ms, lease ${OWNER_LEASE_MS_DEFAULT} ms, reconcile every ${RECONCILE_INTERVAL_MS_DEFAULT} ms) records the victim's job process_lost; the time counts from SIGKILL, one sample.`,
      `RSS: a fresh process opening a database with ${
        fmt(RETAINED_JOBS)
      } retained terminal jobs and ${JOB_ADMITTED_MAX_DEFAULT} admitted (4 running in its executor, the rest queued), after listing and reading every job; an idle deno process that only opened the store measured ${
        mb(baseline)
      }.`,
    );
    return {
      title: "Job store",
      rows: [
        { metric: "(a) raw single-row BEGIN IMMEDIATE update transactions", value: `${fmt(raw)} tx/s` },
        {
          metric: "(b) job lifecycle create -> claim -> no-op -> succeeded, one process",
          value: `${fmt(lifecycleRate)} jobs/s`,
          goal: `>= ${fmt(LIFECYCLE_GOAL)} jobs/s`,
          met: lifecycleRate >= LIFECYCLE_GOAL,
        },
        {
          metric: "(c) ratio b x 3 / a",
          value: ratio.toFixed(2),
          goal: `>= ${RATIO_GOAL}`,
          met: ratio >= RATIO_GOAL,
        },
        {
          metric: "cancel observation in-process p50 / p99",
          value: `${percentile(local, 0.5).toFixed(2)} / ${percentile(local, 0.99).toFixed(2)} ms`,
          goal: `p99 <= ${CANCEL_LOCAL_GOAL_MS} ms`,
          met: percentile(local, 0.99) <= CANCEL_LOCAL_GOAL_MS,
        },
        {
          metric: "cancel observation cross-process p50 / p99",
          value: `${percentile(remote, 0.5).toFixed(0)} / ${percentile(remote, 0.99).toFixed(0)} ms`,
          goal: `p99 <= ${CANCEL_REMOTE_GOAL_MS} ms`,
          met: percentile(remote, 0.99) <= CANCEL_REMOTE_GOAL_MS,
        },
        {
          metric: "reconciliation after kill -9 (defaults)",
          value: `${(reconcileMs / 1000).toFixed(2)} s`,
          goal: `<= ${(reconcileGoal / 1000).toFixed(0)} s (lease + heartbeat + 1 s)`,
          met: reconcileMs <= reconcileGoal,
        },
        {
          metric: `WAL bytes written per job: with ${fmt(LIFECYCLE_WARMUP)} retained jobs / with ${
            fmt(retainedAtEnd)
          } (ratio)`,
          value: `${fmt(walPerJobFresh)} / ${fmt(walPerJobRetained)} B (${walGrowth.toFixed(2)}x)`,
          goal: `must not grow with retained jobs (<= ${WAL_GROWTH_GOAL}x)`,
          met: walGrowth <= WAL_GROWTH_GOAL,
        },
        {
          metric: `WAL size after ${fmt(LIFECYCLE_JOBS + LIFECYCLE_WARMUP)} jobs (largest seen during the run)`,
          value: `${mb(walAfter)} (${mb(walMax)})`,
        },
        {
          metric: `RSS with ${fmt(RETAINED_JOBS)} retained and ${JOB_ADMITTED_MAX_DEFAULT} admitted jobs`,
          value: mb(rss),
          goal: `<= ${mb(RSS_GOAL_BYTES)}`,
          met: rss <= RSS_GOAL_BYTES,
        },
      ],
      notes,
    };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--child");
  if (i >= 0) {
    await runChild(Deno.args[i + 1] ?? "", Deno.args[i + 2] ?? "");
    Deno.exit(0);
  }
  console.log(JSON.stringify(await benchStore(), null, 2));
}
