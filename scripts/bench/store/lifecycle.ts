/**
 * Store throughput: (a) raw single-row write transactions and (b) the job lifecycle (admit, claim,
 * no-op, succeed) run alternately for a few rounds, so a busy machine slows both sides of each ratio
 * alike; WAL bytes written per job (fresh and with every job retained) and the WAL's size.
 *
 * @module
 */

import { AppError } from "../../../src/base/errors.ts";
import { JOB_ADMITTED_MAX_DEFAULT, STORE_WAL_AUTOCHECKPOINT_PAGES } from "../../../src/base/limits.ts";
import { walSizeBytes } from "../../../src/store/db.ts";
import { openStore, type Store, storeConnection } from "../../../src/store/store.ts";
import { loadAverage } from "../load.ts";
import { median, waitUntil, yieldTurn } from "./harness.ts";
import { type JobHarness, jobHarness } from "./job_harness.ts";

export const RAW_TX = 50_000;
export const LIFECYCLE_JOBS = 50_000;
export const LIFECYCLE_WARMUP = 2_000;
/** (a) and (b) run alternately this many times; the table shows the medians. */
export const LIFECYCLE_ROUNDS = 3;
/** Jobs per WAL-bytes sample: few enough that no checkpoint runs inside the sample. */
export const WAL_SAMPLE_JOBS = 300;
/** Jobs per round of (b) with its checkpoints left out (their WAL, about 7 KB a job, is checkpointed after the round). */
export const CHECKPOINT_FREE_JOBS = 5_000;
/** Checkpoints timed, each of a WAL the lifecycle grew to STORE_WAL_AUTOCHECKPOINT_PAGES pages. */
export const CHECKPOINT_SAMPLES = 10;
/** Bytes of a WAL holding `pages` pages of 4 KiB: its header, then a 24-byte header per frame. */
const walBytesOfPages = (pages: number) => 32 + pages * (24 + 4096);

/** (a): prepared BEGIN IMMEDIATE / one-row UPDATE / COMMIT on the store's own connection, in tx/s (after a warm-up). */
export function rawTransactions(store: Store): number {
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
  for (let i = 0; i < RAW_TX; i++) {
    begin.run();
    update.run();
    commit.run();
  }
  return RAW_TX / ((performance.now() - t0) / 1000);
}

/**
 * Submits `count` no-op jobs and waits until all are terminal. Submissions arrive as from
 * many concurrent clients: whenever admission has room, a wave fills it (one admission
 * transaction per job), while the executor claims and completes jobs in the same process.
 */
async function lifecycle(
  h: JobHarness,
  store: Store,
  count: number,
  onSample?: () => void,
): Promise<number> {
  const start = h.terminal();
  const t0 = performance.now();
  let submitted = 0;
  let lastSample = t0;
  while (submitted < count) {
    const room = Math.min(JOB_ADMITTED_MAX_DEFAULT - store.rows.jobCountAdmitted(), count - submitted);
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
  await waitUntil("lifecycle jobs", () => h.terminal() - start >= count, 120_000, 0);
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
    await lifecycle(h, store, WAL_SAMPLE_JOBS);
    return walSizeBytes(store.path) / WAL_SAMPLE_JOBS;
  } finally {
    db.exec(`PRAGMA wal_autocheckpoint = ${STORE_WAL_AUTOCHECKPOINT_PAGES}`);
  }
}

/**
 * (b) with its checkpoints left out: automatic checkpoints are off during the round and the WAL it grew is
 * checkpointed after it, untimed. Beside (b), this is the share of (b) that its checkpoints take.
 */
async function lifecycleWithoutCheckpoints(h: JobHarness, store: Store, count: number): Promise<number> {
  const db = storeConnection(store).db;
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.exec("PRAGMA wal_autocheckpoint = 0");
  try {
    return await lifecycle(h, store, count);
  } finally {
    db.exec(`PRAGMA wal_autocheckpoint = ${STORE_WAL_AUTOCHECKPOINT_PAGES}`);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
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
      while (walSizeBytes(store.path) < walBytesOfPages(STORE_WAL_AUTOCHECKPOINT_PAGES)) await lifecycle(h, store, 20);
      const t0 = performance.now();
      db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      pauses.push(performance.now() - t0);
    }
  } finally {
    db.exec(`PRAGMA wal_autocheckpoint = ${STORE_WAL_AUTOCHECKPOINT_PAGES}`);
  }
  return pauses.sort((x, y) => x - y);
}

/** Every job row in the store (retained terminal jobs included). */
function countJobs(store: Store): number {
  return (storeConnection(store).db.prepare("SELECT count(*) AS n FROM jobs").get() as { n: number }).n;
}

/** One round of the alternation: (a) in tx/s, (b) in jobs/s, and the load average after it. */
export interface LifecycleRound {
  raw: number;
  rate: number;
  /** (b) with its checkpoints left out, in jobs/s. */
  rateWithoutCheckpoints: number;
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
  /** Median over the rounds of (b) / (b without its checkpoints). */
  checkpointedShare: number;
  /** Ascending ms: see {@linkcode checkpointPauses}. */
  checkpointPauses: number[];
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
  try {
    const h = jobHarness(store);
    await h.executor.start();
    await lifecycle(h, store, LIFECYCLE_WARMUP);
    walPerJobFresh = await walBytesPerJob(h, store);
    for (let round = 0; round < LIFECYCLE_ROUNDS; round++) {
      const rawStore = openStore(`${dir}/raw-${round}.db`);
      const raw = rawTransactions(rawStore);
      rawStore.close();
      // Before (b), so the WAL (b) leaves is the one measured after the rounds.
      const rateWithoutCheckpoints = await lifecycleWithoutCheckpoints(h, store, CHECKPOINT_FREE_JOBS);
      const rate = await lifecycle(h, store, LIFECYCLE_JOBS / LIFECYCLE_ROUNDS, () => {
        walMax = Math.max(walMax, walSizeBytes(store.path));
      });
      rounds.push({ raw, rate, rateWithoutCheckpoints, load: await loadAverage() });
    }
    walAfter = walSizeBytes(store.path);
    walMax = Math.max(walMax, walAfter);
    walPerJobRetained = await walBytesPerJob(h, store);
    retainedAtEnd = countJobs(store);
    pauses = await checkpointPauses(h, store);
    await h.executor.stop();
  } finally {
    store.close();
  }
  const raw = median(rounds.map((r) => r.raw));
  const lifecycleRate = median(rounds.map((r) => r.rate));
  const ratio = median(rounds.map((r) => r.rate * 3 / r.raw));
  const walGrowth = walPerJobRetained / walPerJobFresh;
  const checkpointedShare = median(rounds.map((r) => r.rate / r.rateWithoutCheckpoints));
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
    checkpointedShare,
    checkpointPauses: pauses,
  };
}
