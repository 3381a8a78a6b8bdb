/**
 * Job store benchmark (issue 2, section 9): raw SQLite write transactions, job lifecycle
 * throughput, cancel observation latency in-process and cross-process, reconciliation
 * latency after kill -9, WAL size after 50,000 jobs and RSS of a loaded process.
 *
 * Standalone: `deno run --allow-read --allow-write --allow-env --allow-run scripts/bench/store.ts`
 * (the same module is spawned as a child, with `--child MODE`, for the multi-process parts).
 *
 * @module
 */

import { setImmediate } from "node:timers";
import { systemClock } from "../../src/base/clock.ts";
import { AppError } from "../../src/base/errors.ts";
import {
  CANCEL_POLL_MS_DEFAULT,
  JOB_ADMITTED_MAX_DEFAULT,
  JOB_LIST_LIMIT_MAX,
  JOB_RUNNING_MAX_DEFAULT,
  OWNER_HEARTBEAT_MS_DEFAULT,
  OWNER_LEASE_MS_DEFAULT,
  RECONCILE_INTERVAL_MS_DEFAULT,
  STORE_WAL_AUTOCHECKPOINT_PAGES,
} from "../../src/base/limits.ts";
import { silentLogger } from "../../src/base/log.ts";
import { JobControl } from "../../src/jobs/control.ts";
import { Executor } from "../../src/jobs/executor.ts";
import { type AnyJobKind, defineJobKind, JobKindRegistry } from "../../src/jobs/kinds.ts";
import { walSizeBytes } from "../../src/store/db.ts";
import { loadAverage } from "./load.ts";
import { openStore, type Store, storeConnection } from "../../src/store/store.ts";

/** One benchmark section: title, rows and notes for docs/benchmarks.md. */
export interface BenchSection {
  title: string;
  rows: Array<{ metric: string; value: string; goal?: string; met?: boolean }>;
  notes?: string[];
}

const RAW_TX = 50_000;
const LIFECYCLE_JOBS = 50_000;
const LIFECYCLE_WARMUP = 2_000;
/** (a) and (b) run alternately this many times; the table shows the medians. */
const LIFECYCLE_ROUNDS = 3;
/** Jobs per WAL-bytes sample: few enough that no checkpoint runs inside the sample. */
const WAL_SAMPLE_JOBS = 300;
const WAL_GROWTH_GOAL = 1.25;
const CANCEL_SAMPLES_LOCAL = 200;
const CANCEL_SAMPLES_REMOTE = 40;
const RETAINED_JOBS = 10_000;

const LIFECYCLE_GOAL = 12_000;
const RATIO_GOAL = 0.8;
const CANCEL_LOCAL_GOAL_MS = 20;
const CANCEL_REMOTE_GOAL_MS = 300;
const RSS_GOAL_BYTES = 100 * 1024 * 1024;

const CHILD_PATH = new URL(import.meta.url).pathname;

// ---------------------------------------------------------------- kinds

const noopKind: AnyJobKind = defineJobKind<null, null>({
  kind: "noop",
  run: () => Promise.resolve(null),
});

/** Observed cancellations: job id -> performance.now() when the handler saw its abort. */
const aborted = new Map<string, number>();

const waitKind: AnyJobKind = defineJobKind<null, null>({
  kind: "wait",
  run: (ctx) =>
    new Promise((_resolve, reject) => {
      const onAbort = () => {
        aborted.set(ctx.id, performance.now());
        reject(ctx.signal.reason);
      };
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener("abort", onAbort, { once: true });
    }),
});

function registry(): JobKindRegistry {
  return new JobKindRegistry([noopKind, waitKind]);
}

// ---------------------------------------------------------------- helpers

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** File system type of a directory (`stat -f`), or undefined where that does not work. */
async function fsType(path: string): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("stat", { args: ["-f", "-c", "%T", path], stdout: "piped", stderr: "null" })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

/** A temp directory on a real disk: the repository's, when the system temp dir is in memory. */
async function benchDir(): Promise<{ path: string; where: string }> {
  const tmp = await Deno.makeTempDir({ prefix: "longcall-bench-store-" });
  const type = await fsType(tmp);
  if (type !== undefined && type !== "tmpfs" && type !== "ramfs") {
    return { path: tmp, where: `system temp dir (${type})` };
  }
  await Deno.remove(tmp);
  const base = new URL("../../.bench-tmp/", import.meta.url).pathname;
  await Deno.mkdir(base, { recursive: true });
  const path = await Deno.makeTempDir({ dir: base, prefix: "store-" });
  return {
    path,
    where: `.bench-tmp/ in the repository (${await fsType(path) ?? "type unknown"}; system temp dir: ${
      type ?? "type unknown"
    })`,
  };
}

async function waitUntil(what: string, probe: () => boolean, timeoutMs: number, everyMs = 1): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

function harness(store: Store, options: { runningMax?: number; cancelPollMs?: number } = {}) {
  let terminal = 0;
  const executor = new Executor(store.rows, registry(), {
    clock: systemClock,
    log: silentLogger,
    ...(options.runningMax === undefined ? {} : { runningMax: options.runningMax }),
    ...(options.cancelPollMs === undefined ? {} : { cancelPollMs: options.cancelPollMs }),
    onTerminal: () => terminal++,
  });
  const control = new JobControl(store.rows, registry(), {
    clock: systemClock,
    onSubmitted: () => executor.wake(),
    onCancelRequested: (ids) => executor.abortLocal(ids),
  });
  return { executor, control, terminal: () => terminal };
}

// ---------------------------------------------------------------- (a) raw transactions

function rawTransactions(store: Store): number {
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

// ---------------------------------------------------------------- (b) lifecycle

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Submits `count` no-op jobs and waits until all are terminal. Submissions arrive as from
 * many concurrent clients: whenever admission has room, a wave fills it (one admission
 * transaction per job), while the executor claims and completes jobs in the same process.
 */
async function lifecycle(
  h: ReturnType<typeof harness>,
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
async function walBytesPerJob(h: ReturnType<typeof harness>, store: Store): Promise<number> {
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

function countJobs(store: Store): number {
  return (storeConnection(store).db.prepare("SELECT count(*) AS n FROM jobs").get() as { n: number }).n;
}

// ---------------------------------------------------------------- cancel latency

async function cancelLatencyLocal(store: Store): Promise<number[]> {
  const h = harness(store, { cancelPollMs: 60_000 }); // only the in-process fast path can be fast
  await h.executor.start();
  const samples: number[] = [];
  try {
    for (let i = 0; i < CANCEL_SAMPLES_LOCAL; i++) {
      const row = await h.control.submit("wait", null);
      await waitUntil("running", () => h.executor.runningIds().includes(row.id), 5_000, 0);
      const t0 = performance.now();
      await h.control.cancel(row.id);
      await waitUntil("abort", () => aborted.has(row.id), 5_000, 0);
      samples.push(aborted.get(row.id)! - t0);
    }
  } finally {
    await h.executor.stop();
  }
  return samples.sort((a, b) => a - b);
}

interface Child {
  process: Deno.ChildProcess;
  lines: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

function spawnChild(mode: string, dir: string, db: string): Child {
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      "--deny-net",
      "--deny-run",
      CHILD_PATH,
      "--child",
      mode,
      db,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines: Array<Record<string, unknown>> = [];
  void (async () => {
    let buffered = "";
    for await (const chunk of process.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const text = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (text !== "") lines.push(JSON.parse(text) as Record<string, unknown>);
      }
    }
  })();
  const writer = process.stdin.getWriter();
  return {
    process,
    lines,
    stop: async () => {
      await writer.close().catch(() => {});
      try {
        process.kill("SIGKILL");
      } catch {
        // already gone
      }
      await process.status;
    },
  };
}

async function cancelLatencyRemote(store: Store, dir: string): Promise<number[]> {
  const child = spawnChild("executor", dir, store.path);
  const control = new JobControl(store.rows, registry(), { clock: systemClock });
  const samples: number[] = [];
  try {
    await waitUntil("child ready", () => child.lines.some((l) => l.ready === true), 30_000, 5);
    for (let i = 0; i < CANCEL_SAMPLES_REMOTE; i++) {
      const row = await control.submit("wait", null);
      await waitUntil("running", () => store.rows.jobGet(row.id)?.status === "running", 10_000);
      await sleep(Math.random() * CANCEL_POLL_MS_DEFAULT); // cancels land at every phase of the poll
      const t0 = performance.now();
      await control.cancel(row.id);
      await waitUntil("cancelled", () => store.rows.jobGet(row.id)?.status === "cancelled", 10_000);
      samples.push(performance.now() - t0);
    }
  } finally {
    await child.stop();
  }
  return samples.sort((a, b) => a - b);
}

// ---------------------------------------------------------------- reconciliation after kill -9

async function reconcileAfterKill(store: Store, dir: string): Promise<number> {
  const victim = spawnChild("executor", dir, store.path);
  const survivor = spawnChild("executor", dir, store.path);
  const control = new JobControl(store.rows, registry(), { clock: systemClock });
  try {
    await waitUntil("children ready", () => [victim, survivor].every((c) => c.lines.some((l) => l.ready)), 30_000, 5);
    const victimOwner = victim.lines.find((l) => l.ready)?.owner;
    // Submit until the victim runs one (the survivor may claim some first).
    let job: string | undefined;
    for (let i = 0; i < 20 && job === undefined; i++) {
      const row = await control.submit("wait", null);
      await waitUntil("running", () => store.rows.jobGet(row.id)?.status === "running", 10_000);
      if (store.rows.jobGet(row.id)?.owner_id === victimOwner) job = row.id;
    }
    if (job === undefined) throw new Error("bench: the victim never claimed a job");
    const id = job;
    victim.process.kill("SIGKILL");
    const t0 = performance.now();
    await waitUntil("process_lost", () => store.rows.jobGet(id)?.status === "failed", 60_000, 5);
    return performance.now() - t0;
  } finally {
    await victim.stop();
    await survivor.stop();
  }
}

// ---------------------------------------------------------------- RSS

async function rssLoaded(dir: string): Promise<{ rss: number; baseline: number }> {
  const path = `${dir}/rss.db`;
  const store = openStore(path);
  try {
    // 10,000 retained (terminal) jobs: admitted in chunks, then cancelled while queued.
    const control = new JobControl(store.rows, registry(), { clock: systemClock });
    for (let done = 0; done < RETAINED_JOBS;) {
      const ids: string[] = [];
      for (let i = 0; i < JOB_ADMITTED_MAX_DEFAULT && done + ids.length < RETAINED_JOBS; i++) {
        ids.push((await control.submit("noop", null)).id);
      }
      for (const id of ids) await control.cancel(id);
      done += ids.length;
    }
    // 256 admitted: the child's executor runs 4 of them and 252 stay queued.
    for (let i = 0; i < JOB_ADMITTED_MAX_DEFAULT; i++) await control.submit("wait", null);
  } finally {
    store.close();
  }
  const measure = async (mode: string) => {
    const child = spawnChild(mode, dir, path);
    try {
      await waitUntil("rss", () => child.lines.some((l) => typeof l.rss === "number"), 60_000, 10);
      return Number(child.lines.find((l) => typeof l.rss === "number")?.rss);
    } finally {
      await child.stop();
    }
  };
  return { rss: await measure("rss"), baseline: await measure("baseline") };
}

// ---------------------------------------------------------------- section

/** Runs every store measurement on a temp database. */
export async function benchStore(): Promise<BenchSection> {
  const { path: dir, where } = await benchDir();
  const notes: string[] = [];
  try {
    // (a) and (b) alternately, so a busy machine slows both sides of each ratio alike; + WAL size
    const store = openStore(`${dir}/lifecycle.db`);
    const rounds: { raw: number; rate: number; load: string }[] = [];
    let walMax = 0;
    let walAfter: number;
    let walPerJobFresh: number;
    let walPerJobRetained: number;
    let retainedAtEnd: number;
    try {
      const h = harness(store);
      await h.executor.start();
      await lifecycle(h, store, LIFECYCLE_WARMUP);
      walPerJobFresh = await walBytesPerJob(h, store);
      for (let round = 0; round < LIFECYCLE_ROUNDS; round++) {
        const rawStore = openStore(`${dir}/raw-${round}.db`);
        const raw = rawTransactions(rawStore);
        rawStore.close();
        const rate = await lifecycle(h, store, LIFECYCLE_JOBS / LIFECYCLE_ROUNDS, () => {
          walMax = Math.max(walMax, walSizeBytes(store.path));
        });
        rounds.push({ raw, rate, load: await loadAverage() });
      }
      walAfter = walSizeBytes(store.path);
      walMax = Math.max(walMax, walAfter);
      walPerJobRetained = await walBytesPerJob(h, store);
      retainedAtEnd = countJobs(store);
      await h.executor.stop();
    } finally {
      store.close();
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? NaN;
    const raw = median(rounds.map((r) => r.raw));
    const lifecycleRate = median(rounds.map((r) => r.rate));
    const ratio = median(rounds.map((r) => r.rate * 3 / r.raw));
    const walGrowth = walPerJobRetained / walPerJobFresh;

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

// ---------------------------------------------------------------- child modes

async function child(mode: string, path: string): Promise<void> {
  const print = (line: Record<string, unknown>) => console.log(JSON.stringify(line));
  const store = openStore(path);
  if (mode === "baseline") {
    print({ rss: Deno.memoryUsage().rss });
    return;
  }
  const h = harness(store);
  await h.executor.start();
  if (mode === "rss") {
    await waitUntil("claims", () => h.executor.runningIds().length > 0, 10_000, 10);
    // Exercise the read paths a server would: a full page of the list, then every job by id.
    h.control.list({ limit: JOB_LIST_LIMIT_MAX });
    const ids = storeConnection(store).db.prepare("SELECT id FROM jobs").all() as { id: string }[];
    for (const { id } of ids) h.control.get(id);
    await sleep(1_000);
    print({ rss: Deno.memoryUsage().rss, running: h.executor.runningIds().length });
  } else {
    print({ ready: true, owner: h.executor.ownerId });
  }
  for await (const _ of Deno.stdin.readable) { /* until the parent closes stdin */ }
  await h.executor.stop();
  store.close();
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--child");
  if (i >= 0) {
    await child(Deno.args[i + 1] ?? "", Deno.args[i + 2] ?? "");
    Deno.exit(0);
  }
  console.log(JSON.stringify(await benchStore(), null, 2));
}
