/**
 * Store throughput: (a) raw single-row write transactions and (b) the job lifecycle (admit, claim,
 * no-op, succeed) run alternately for a few rounds, so a busy machine slows both sides of each ratio
 * alike; WAL bytes written per job (fresh and with every job retained) and the WAL's size.
 *
 * @module
 */

import { StatementSync } from "node:sqlite";
import { AppError } from "../../../src/base/errors.ts";
import { newJobId } from "../../../src/base/ids.ts";
import { JOB_ADMITTED_MAX_DEFAULT, STORE_WAL_AUTOCHECKPOINT_PAGES } from "../../../src/base/limits.ts";
import { walBytesOfPages, walSizeBytes } from "../../../src/store/db.ts";
import { openStore, type Store, storeConnection } from "../../../src/store/store.ts";
import { loadAverage } from "../load.ts";
import { median, waitUntil, yieldTurn } from "./harness.ts";
import { type JobHarness, jobHarness } from "./job_harness.ts";

/**
 * (a)'s transactions per round (after its own warm-up): a whole number of its checkpoints (one per
 * STORE_WAL_AUTOCHECKPOINT_PAGES commits), so every round pays the same share of them.
 */
export const RAW_TX_PER_ROUND = 10_000;
/** (a)'s transactions in the run that times its commits ({@linkcode rawCheckpointShare}). */
const RAW_TX_TIMED = 50_000;
export const LIFECYCLE_JOBS = 50_000;
export const LIFECYCLE_WARMUP = 2_000;
/**
 * (a) and (b) run alternately this many times, (b) with its share of LIFECYCLE_JOBS; the table shows
 * the medians. Within one run, single rounds of (c) were seen to differ by a third (0.68 to 0.91) as
 * the machine's load moved: a median of many short rounds, not of three long ones.
 */
export const LIFECYCLE_ROUNDS = 10;
/** Jobs per WAL-bytes sample: few enough that no checkpoint runs inside the sample. */
export const WAL_SAMPLE_JOBS = 300;
/** Jobs of the pass that times every SQLite call of (b) ({@linkcode sqliteTime}). */
export const SQLITE_TIMED_JOBS = 10_000;
/** Checkpoints timed, each of a WAL the lifecycle grew to STORE_WAL_AUTOCHECKPOINT_PAGES pages. */
export const CHECKPOINT_SAMPLES = 10;
/** Most jobs run to grow one such WAL (about 600 do it here) before the bench gives up. */
const CHECKPOINT_SAMPLE_JOBS_MAX = 20_000;

/** (a): prepared BEGIN IMMEDIATE / one-row UPDATE / COMMIT on the store's own connection, in tx/s (after a warm-up). */
export function rawTransactions(store: Store, count: number): number {
  const db = storeConnection(store).db;
  db.exec("CREATE TABLE bench_counter (id INTEGER PRIMARY KEY, v INTEGER NOT NULL) STRICT");
  db.exec("INSERT INTO bench_counter VALUES (1, 0)");
  const begin = db.prepare("BEGIN IMMEDIATE");
  const update = db.prepare("UPDATE bench_counter SET v = v + 1 WHERE id = 1");
  const commit = db.prepare("COMMIT");
  for (let i = 0; i < 2_000; i++) {
    begin.run();
    update.run();
    commit.run();
  }
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    begin.run();
    update.run();
    commit.run();
  }
  return count / ((performance.now() - t0) / 1000);
}

/** The harness driving the lifecycle and the store it runs on. */
interface Driven {
  h: JobHarness;
  store: Store;
}

/** What {@link lifecycle} does beside running the jobs. */
interface LifecycleOptions {
  /** Called after a wave, at most every 100 ms. */
  onSample?: () => void;
  /** Adds up the time of this harness's own admission counts. */
  harnessCount?: { ms: number };
}

/**
 * Submits `count` no-op jobs and waits until all are terminal. Submissions arrive as from
 * many concurrent clients: whenever admission has room, a wave fills it (the submissions of one
 * turn share an admission transaction), while the executor claims and completes jobs in the same
 * process. `options.harnessCount`, when given, adds up the time of this harness's own admission counts.
 */
async function lifecycle(driven: Driven, count: number, options: LifecycleOptions = {}): Promise<number> {
  const { h, store } = driven;
  const { onSample, harnessCount } = options;
  const start = h.terminal();
  const t0 = performance.now();
  let submitted = 0;
  let lastSample = t0;
  while (submitted < count) {
    const countStart = performance.now();
    const admitted = store.rows.jobCountAdmitted();
    if (harnessCount !== undefined) harnessCount.ms += performance.now() - countStart;
    const room = Math.min(JOB_ADMITTED_MAX_DEFAULT - admitted, count - submitted);
    if (room <= 0) {
      await yieldTurn(); // let the executor drain
      continue;
    }
    const wave: Promise<void>[] = [];
    for (let i = 0; i < room; i++) {
      wave.push(
        h.control.submit("noop", null).then(() => void submitted++, (err) => {
          if (!(err instanceof AppError) || (err.code !== "overloaded" && err.code !== "store_busy")) throw err;
        }),
      );
    }
    await Promise.all(wave);
    if (onSample !== undefined && performance.now() - lastSample > 100) {
      lastSample = performance.now();
      onSample();
    }
  }
  await waitUntil("lifecycle jobs", () => h.terminal() - start >= count, { timeoutMs: 120_000, everyMs: 0 });
  return count / ((performance.now() - t0) / 1000);
}

/**
 * WAL bytes written per job: the WAL is truncated and left unchekpointed while a few hundred
 * jobs run (well under the connection's own checkpoint interval), then its size is divided by the
 * job count. Random primary keys would dirty a random index page per insert, so this grew with
 * the number of retained jobs; with time-ordered ids it should not.
 */
async function walBytesPerJob(h: JobHarness, store: Store): Promise<number> {
  const db = storeConnection(store).db;
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.exec("PRAGMA wal_autocheckpoint = 0");
  try {
    await lifecycle({ h, store }, WAL_SAMPLE_JOBS);
    return walSizeBytes(store.path) / WAL_SAMPLE_JOBS;
  } finally {
    db.exec(`PRAGMA wal_autocheckpoint = ${STORE_WAL_AUTOCHECKPOINT_PAGES}`);
  }
}

/**
 * The pause of the thread whose commit finds the WAL at the threshold: the lifecycle grows a WAL (automatic
 * checkpoints off) to STORE_WAL_AUTOCHECKPOINT_PAGES pages, then the checkpoint SQLite would have run there
 * (PASSIVE, as automatic ones are) is timed; {@linkcode CHECKPOINT_SAMPLES} times. Ascending ms.
 */
async function checkpointPauses(h: JobHarness, store: Store): Promise<number[]> {
  const db = storeConnection(store).db;
  const pauses: number[] = [];
  try {
    for (let i = 0; i < CHECKPOINT_SAMPLES; i++) {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.exec("PRAGMA wal_autocheckpoint = 0");
      // Each job adds about 7 KB of WAL (the WAL bytes row): a few hundred jobs reach the threshold.
      for (let jobs = 0; walSizeBytes(store.path) < walBytesOfPages(STORE_WAL_AUTOCHECKPOINT_PAGES); jobs += 20) {
        if (jobs >= CHECKPOINT_SAMPLE_JOBS_MAX) {
          throw new Error(`bench: ${jobs} jobs did not grow the WAL to ${STORE_WAL_AUTOCHECKPOINT_PAGES} pages`);
        }
        await lifecycle({ h, store }, 20);
      }
      const t0 = performance.now();
      db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      pauses.push(performance.now() - t0);
    }
  } finally {
    db.exec(`PRAGMA wal_autocheckpoint = ${STORE_WAL_AUTOCHECKPOINT_PAGES}`);
  }
  return pauses.sort((x, y) => x - y);
}

/** Calls of node:sqlite's StatementSync that {@linkcode sqliteTime} times (the job store uses no other). */
const TIMED_STATEMENT_CALLS = ["run", "get", "all"] as const;
/**
 * A COMMIT slower than this checkpointed (in {@linkcode sqliteTime}): a plain one takes tens of microseconds
 * here, a checkpoint tens of milliseconds. A commit the scheduler held up that long would be counted too, so the
 * count is printed beside the one the WAL's growth predicts.
 */
export const CHECKPOINTING_COMMIT_MS_MIN = 2;
/** Characters of a statement's SQL that name it in the breakdown. */
const STATEMENT_LABEL_CHARS = 48;

/** What {@linkcode sqliteTime} measured, over {@linkcode SQLITE_TIMED_JOBS} jobs. */
export interface SqliteTime {
  /** Share of (b)'s time inside SQLite statement calls. */
  share: number;
  /** Jobs per second of SQLite time: (b) were everything outside SQLite free. */
  ceiling: number;
  /** Commits that checkpointed, and their share of (b)'s time. */
  checkpoints: number;
  checkpointShare: number;
  /** Microseconds per job by statement (the start of its SQL), largest first (the harness's counts included). */
  byStatement: { sql: string; usPerJob: number }[];
}

/** What {@linkcode timedStatements} measured while its work ran. */
interface StatementTimes {
  wallMs: number;
  /** Inside statement calls, in all. */
  ms: number;
  /** Inside statement calls, by statement (its SQL). */
  byStatement: Map<string, number>;
  /** Commits that checkpointed ({@linkcode CHECKPOINTING_COMMIT_MS_MIN}) and the time inside them. */
  checkpoints: number;
  checkpointMs: number;
}

/** Runs `work` with every node:sqlite statement call timed (StatementSync's prototype patched, then restored). */
async function timedStatements(work: () => unknown): Promise<StatementTimes> {
  const proto = StatementSync.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = TIMED_STATEMENT_CALLS.map((name) => [name, proto[name]!] as const);
  const times: StatementTimes = { wallMs: 0, ms: 0, byStatement: new Map(), checkpoints: 0, checkpointMs: 0 };
  for (const [name, original] of originals) {
    proto[name] = function (this: StatementSync, ...args: unknown[]) {
      const t0 = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const spent = performance.now() - t0;
        times.ms += spent;
        times.byStatement.set(this.sourceSQL, (times.byStatement.get(this.sourceSQL) ?? 0) + spent);
        if (spent >= CHECKPOINTING_COMMIT_MS_MIN && this.sourceSQL === "COMMIT") {
          times.checkpoints++;
          times.checkpointMs += spent;
        }
      }
    };
  }
  try {
    const t0 = performance.now();
    await work();
    times.wallMs = performance.now() - t0;
  } finally {
    for (const [name, original] of originals) proto[name] = original;
  }
  return times;
}

/**
 * (b) once more, {@linkcode SQLITE_TIMED_JOBS} jobs, with every statement call timed (node:sqlite's `run`, `get`
 * and `all`, BEGIN and COMMIT with its checkpoints included; this harness's own admission counts left out):
 * the share of (b)'s time spent inside SQLite, the rate (b) would reach were all else free (JavaScript,
 * promises, the event loop), and the commits that checkpointed.
 */
async function sqliteTime(h: JobHarness, store: Store): Promise<SqliteTime> {
  const harnessCount = { ms: 0 };
  const t = await timedStatements(() => lifecycle({ h, store }, SQLITE_TIMED_JOBS, { harnessCount }));
  const storeMs = t.ms - harnessCount.ms;
  return {
    share: storeMs / t.wallMs,
    ceiling: SQLITE_TIMED_JOBS / (storeMs / 1000),
    checkpoints: t.checkpoints,
    checkpointShare: t.checkpointMs / t.wallMs,
    byStatement: [...t.byStatement].map(([sql, spent]) => ({
      sql: sql.replace(/\s+/g, " ").slice(0, STATEMENT_LABEL_CHARS),
      usPerJob: spent * 1000 / SQLITE_TIMED_JOBS,
    })).sort((x, y) => y.usPerJob - x.usPerJob),
  };
}

/** (a) once more, on a fresh store in `dir`, with its commits timed: the share of its time in commits that checkpointed. */
async function rawCheckpointShare(dir: string): Promise<number> {
  const store = openStore(`${dir}/raw-timed.db`);
  try {
    const t = await timedStatements(() => rawTransactions(store, RAW_TX_TIMED));
    return t.checkpointMs / t.wallMs;
  } finally {
    store.close();
  }
}

/** Refused submissions timed by {@linkcode refusedAdmissions}. */
export const REFUSED_SAMPLES = 20;

/**
 * Refused submissions (`overloaded`), each one admission transaction: the admission count, then the retry guidance
 * read from the retained jobs' recent runs; with every job of the run retained. Ascending ms.
 */
async function refusedAdmissions(store: Store): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < REFUSED_SAMPLES; i++) {
    const now = Date.now();
    const t0 = performance.now();
    const refused = await store.rows.jobInsertIfAdmitted({
      id: newJobId(now),
      kind: "noop",
      requestJson: "null",
      retentionMs: 60_000,
      authority: null,
      now,
      admittedMax: 0,
    }).then(() => false, (err: unknown) => err instanceof AppError && err.code === "overloaded");
    samples.push(performance.now() - t0);
    if (!refused) throw new Error("bench: a submission past an admission bound of 0 was not refused as overloaded");
  }
  return samples.sort((x, y) => x - y);
}

/** Every job row in the store (retained terminal jobs included). */
function countJobs(store: Store): number {
  return (storeConnection(store).db.prepare("SELECT count(*) AS n FROM jobs").get() as { n: number }).n;
}

/** One round of the alternation: (a) in tx/s, (b) in jobs/s, and the load average after it. */
export interface LifecycleRound {
  raw: number;
  rate: number;
  load: string;
}

/** What {@linkcode measureLifecycle} measured; `raw`, `lifecycleRate` and `ratio` are medians over the rounds. */
export interface LifecycleResult {
  rounds: LifecycleRound[];
  raw: number;
  lifecycleRate: number;
  ratio: number;
  walPerJobFresh: number;
  walPerJobRetained: number;
  walGrowth: number;
  walAfter: number;
  walMax: number;
  retainedAtEnd: number;
  /** Ascending ms: see {@linkcode checkpointPauses}. */
  checkpointPauses: number[];
  /** Ascending ms: see {@linkcode refusedAdmissions}. */
  refused: number[];
  sqlite: SqliteTime;
  /** See {@linkcode rawCheckpointShare}. */
  rawCheckpointShare: number;
}

/** (a) and (b) alternately in `dir` ({@linkcode LIFECYCLE_ROUNDS} rounds after a warm-up), and the WAL measurements. */
export async function measureLifecycle(dir: string): Promise<LifecycleResult> {
  const store = openStore(`${dir}/lifecycle.db`);
  const rounds: LifecycleRound[] = [];
  let walMax = 0;
  let walAfter: number;
  let walPerJobFresh: number;
  let walPerJobRetained: number;
  let retainedAtEnd: number;
  let pauses: number[];
  let refused: number[];
  let sqlite: SqliteTime;
  let rawShare: number;
  try {
    const h = jobHarness(store);
    await h.executor.start();
    await lifecycle({ h, store }, LIFECYCLE_WARMUP);
    walPerJobFresh = await walBytesPerJob(h, store);
    for (let round = 0; round < LIFECYCLE_ROUNDS; round++) {
      const rawStore = openStore(`${dir}/raw-${round}.db`);
      const raw = rawTransactions(rawStore, RAW_TX_PER_ROUND);
      rawStore.close();
      const rate = await lifecycle({ h, store }, Math.round(LIFECYCLE_JOBS / LIFECYCLE_ROUNDS), {
        onSample: () => {
          walMax = Math.max(walMax, walSizeBytes(store.path));
        },
      });
      rounds.push({ raw, rate, load: await loadAverage() });
    }
    walAfter = walSizeBytes(store.path);
    walMax = Math.max(walMax, walAfter);
    walPerJobRetained = await walBytesPerJob(h, store);
    retainedAtEnd = countJobs(store);
    refused = await refusedAdmissions(store); // with retainedAtEnd jobs
    pauses = await checkpointPauses(h, store);
    sqlite = await sqliteTime(h, store);
    rawShare = await rawCheckpointShare(dir);
    await h.executor.stop();
  } finally {
    store.close();
  }
  const raw = median(rounds.map((r) => r.raw));
  const lifecycleRate = median(rounds.map((r) => r.rate));
  const ratio = median(rounds.map((r) => r.rate * 3 / r.raw));
  const walGrowth = walPerJobRetained / walPerJobFresh;
  return {
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
    checkpointPauses: pauses,
    refused,
    sqlite,
    rawCheckpointShare: rawShare,
  };
}
