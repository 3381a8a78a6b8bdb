/**
 * The one composition root of the job runtime: {@linkcode openRuntime} opens the store, the job
 * kinds, the control side (JobControl + the JobWaits of bounded reads) and the execution side (an
 * Executor in this thread, the network worker, or none) from one config. `serve`, the network
 * worker, the blocking CLI commands and the test harnesses all open it here; `permissions` starts
 * the worker through {@linkcode startNetworkWorker}, the same function the runtime uses, so the
 * audit reads the very permission set a server grants ({@linkcode networkWorkerPermissions}).
 *
 * No zod and no MCP code: the network worker loads this module.
 *
 * @module
 */

import { type Clock, ScaledClock, systemClock } from "../base/clock.ts";
import type { Logger, LogLevel } from "../base/log.ts";
import { STORE_WAL_AUTOCHECKPOINT_PAGES_SERVING } from "../base/limits.ts";
import { JobControl } from "../jobs/control.ts";
import { Executor, type ExecutorOptions } from "../jobs/executor.ts";
import { type AnyJobPolicy, JobKindRegistry } from "../jobs/kinds.ts";
import { JobWaits } from "../jobs/wait.ts";
import type { Synchronous } from "../store/db.ts";
import { openStore, type Store } from "../store/store.ts";
import { netHostOf } from "./permissions.ts";
import { type GitHubConfig, productPolicies } from "./product_kinds.ts";
import type { productRegistry } from "./product_runners.ts";
import { databaseFiles, WorkerExecutor, type WorkerPermissions } from "./worker_executor.ts";
import { networkWorkerScript, type WorkerScript } from "./worker_script.ts";

/** Executor settings a caller may override (tests shorten heartbeats and leases). */
export type ExecutorOverrides = Partial<Omit<ExecutorOptions, "clock" | "log" | "handlerClock">>;

/** The product's kinds: where GitHub is and how to fetch from it (tests inject a fetch). */
export interface ProductKindsConfig {
  github: GitHubConfig;
  /** The GitHub client's fetch (default the global one). In-process execution only: it cannot be posted. */
  fetch?: typeof fetch;
  /**
   * Their runners, required to execute them in this process: `productRegistry` from
   * src/cli/product_runners.ts, handed in by whoever executes, so that a thread whose jobs run in
   * the network worker (or nowhere) never loads them and the GitHub client behind them.
   */
  runners?: typeof productRegistry;
}

/**
 * The job kinds of a runtime: the product's, any registry over the store (tests, fixtures), or only
 * kinds' policies, for a runtime that reads, admits and cancels jobs but runs none (execution `none`).
 */
export type RuntimeKinds =
  | { product: ProductKindsConfig }
  | { registry(ctx: { store: Store; log: Logger; clock: Clock }): JobKindRegistry }
  | { policies: readonly AnyJobPolicy[] };

/** Where jobs run: an Executor in this thread, the network worker (product kinds only), or nowhere. */
export type ExecutionConfig =
  | "in_process"
  | "none"
  | { networkWorker: { moduleUrl: string | URL; logLevel: LogLevel } };

/** Everything a runtime is opened from. */
export interface RuntimeConfig {
  db: string;
  synchronous?: Synchronous;
  kinds: RuntimeKinds;
  log: Logger;
  /** Real time of the control side and the executor (default the system clock). */
  clock?: Clock;
  /** The clock job handlers run on (in-process only; tests share a ManualClock with a fake GitHub). */
  handlerClock?: Clock;
  /** Simulations only: handlers run on a clock this many times faster than real time (both executions). */
  timeRate?: number;
  execution: ExecutionConfig;
  executor?: ExecutorOverrides;
  admittedMax?: number;
  retentionMs?: number;
  /**
   * Whether the control side takes the in-process fast paths: a submission wakes the executor at
   * once, a persisted cancel aborts its handler at once (default true). `false` leaves both to the
   * executor's claim and cancel polls, as for a job another process admitted (tests of those polls).
   */
  fastPaths?: boolean;
}

/** The network worker as a runtime runs it: its code source and the grants it was created with. */
export interface NetworkWorker {
  readonly executor: WorkerExecutor;
  readonly script: WorkerScript;
  readonly permissions: WorkerPermissions;
}

/** The execution side, the same surface whichever runs the jobs. */
export interface Execution {
  readonly where: "in_process" | "network_worker" | "none";
  /** The in-process executor (undefined otherwise). */
  readonly executor: Executor | undefined;
  /** The network worker (undefined otherwise). */
  readonly worker: NetworkWorker | undefined;
  /**
   * Starts running jobs: the executor starts, or the worker opens its store and starts its own.
   * Resolves once it claims; rejects when the worker cannot start.
   */
  start(): Promise<void>;
  /**
   * The network worker's first start, whoever made it (`start()` or a submission's `wake()`): settles as it
   * does, or resolves at `stop()` if nothing started it; undefined for the other executions.
   */
  readonly firstStart?: Promise<void>;
  wake(): void;
  abortLocal(ids: readonly string[]): void;
  /** Stops claiming and keeps running what it owns (Executor.linger); `idle` resolves when none is left. */
  linger(): Promise<{ running: number; idle: Promise<void> }>;
  /** Graceful stop (the executor's shutdown rules). */
  stop(): Promise<void>;
}

/** An open runtime. The SQLite connection stays inside `store`. */
export interface Runtime {
  readonly store: Store;
  /** The kinds this runtime admits: runnable ones when it executes them, else their policies. */
  readonly registry: JobKindRegistry<AnyJobPolicy>;
  readonly control: JobControl;
  readonly waits: JobWaits;
  readonly execution: Execution;
  readonly log: Logger;
  /** The clock handlers run on. */
  readonly handlerClock: Clock;
  /** Closes the waits (waiting reads answer at once), stops the execution side (if started) and closes the
   * store. Idempotent. */
  close(): Promise<void>;
}

/** What the network worker works on: its database, the GitHub API it calls, and its code. */
export interface NetworkWorkerSetup {
  db: string;
  githubBaseUrl: string;
  script: WorkerScript;
}

/**
 * The network worker's permission set, the only definition of it: net to the GitHub API host
 * only, read and write to the database files, plus the reads its code needs when it does not
 * start from memory. `longcall permissions` audits exactly this value.
 */
export function networkWorkerPermissions(setup: NetworkWorkerSetup): WorkerPermissions {
  const { db, githubBaseUrl, script } = setup;
  return {
    net: [netHostOf(githubBaseUrl)],
    read: [...databaseFiles(db), ...script.codeReads],
    write: databaseFiles(db),
  };
}

/**
 * Starts the network worker for `db` and GitHub at `githubBaseUrl` with
 * {@linkcode networkWorkerPermissions}; its code comes from memory in the bundle, else from
 * `moduleUrl`. Nothing is opened yet: the runtime sends it `init`, `permissions` only audits it.
 */
export function startNetworkWorker(options: {
  db: string;
  githubBaseUrl: string;
  moduleUrl: string | URL;
  log: Logger;
  onJobEvent?: () => void;
}): NetworkWorker {
  const script = networkWorkerScript(String(options.moduleUrl));
  const permissions = networkWorkerPermissions({ db: options.db, githubBaseUrl: options.githubBaseUrl, script });
  try {
    const executor = new WorkerExecutor({
      moduleUrl: script.url,
      permissions,
      log: options.log,
      ...(options.onJobEvent === undefined ? {} : { onJobEvent: options.onJobEvent }),
    });
    return { executor, script, permissions };
  } catch (err) {
    script.release();
    throw err;
  }
}

function handlerClockOf(config: RuntimeConfig, clock: Clock): Clock {
  if (config.timeRate !== undefined) {
    if (config.handlerClock !== undefined) {
      throw new TypeError("Cannot open the runtime: give handlerClock or timeRate, current value has both");
    }
    return new ScaledClock(config.timeRate);
  }
  return config.handlerClock ?? clock;
}

/** The runners of the product's kinds, or why they cannot run in this process. */
function productRunners(product: ProductKindsConfig): typeof productRegistry {
  if (product.runners === undefined) {
    throw new TypeError(
      "Cannot run the product's kinds in this process: kinds.product.runners is missing (pass productRegistry " +
        "from src/cli/product_runners.ts)",
    );
  }
  return product.runners;
}

/**
 * Opens a runtime: the store, the kinds, the control side and (not yet started) the execution
 * side. Call `execution.start()` to run jobs, `close()` to stop them and close the store.
 *
 * @throws {TypeError} for a network worker without the product's kinds, or with an injected
 *   fetch or handler clock (neither can cross into the worker); for the product's kinds executed in
 *   this process without their runners; for kinds given as policies alone with any execution but `none`.
 */
export function openRuntime(config: RuntimeConfig): Runtime {
  const clock = config.clock ?? systemClock;
  const handlerClock = handlerClockOf(config, clock);
  const workerConfig = typeof config.execution === "object" ? config.execution.networkWorker : undefined;
  const product = "product" in config.kinds ? config.kinds.product : undefined;
  const policies = "policies" in config.kinds ? config.kinds.policies : undefined;
  if (policies !== undefined && config.execution !== "none") {
    throw new TypeError("Cannot run jobs from kinds' policies alone: pass kinds.product or kinds.registry");
  }
  if (workerConfig !== undefined) {
    if (product === undefined) {
      throw new TypeError("Cannot run jobs in the network worker: it runs only the product's kinds");
    }
    if (product.fetch !== undefined || config.handlerClock !== undefined) {
      throw new TypeError("Cannot run jobs in the network worker with an injected fetch or handler clock");
    }
  }
  const runners = product !== undefined && config.execution === "in_process" ? productRunners(product) : undefined;
  const log = config.log;
  const store = openStore(config.db, {
    ...(config.synchronous === undefined ? {} : { synchronous: config.synchronous }),
    // With a network worker this thread serves, and a checkpoint blocks the committing thread (its fsyncs):
    // the worker's connection checkpoints, this one only past a backstop.
    ...(workerConfig === undefined ? {} : { autocheckpointPages: STORE_WAL_AUTOCHECKPOINT_PAGES_SERVING }),
  });
  try {
    // The runners (GitHub clients, the ETag cache) exist only where jobs execute: with the network
    // worker (or no execution) this thread admits with the kinds' policies alone.
    const runnable: JobKindRegistry | undefined = product !== undefined
      ? runners?.(store, {
        github: product.github,
        log,
        clock: handlerClock,
        ...(product.fetch === undefined ? {} : { fetch: product.fetch }),
      })
      : policies !== undefined
      ? undefined
      : (config.kinds as Extract<RuntimeKinds, { registry: unknown }>).registry({ store, log, clock: handlerClock });
    const registry: JobKindRegistry<AnyJobPolicy> = runnable ?? new JobKindRegistry(policies ?? productPolicies());
    // Waiting jobs.get calls share one change probe; the executor's own events wake them sooner.
    const waits = new JobWaits({ probe: () => store.changeStamp(), clock });
    let execution: Execution;
    if (workerConfig !== undefined) {
      const github = (product as ProductKindsConfig).github;
      const worker = startNetworkWorker({
        db: config.db,
        githubBaseUrl: github.baseUrl,
        moduleUrl: workerConfig.moduleUrl,
        log,
        onJobEvent: () => waits.notify(),
      });
      execution = workerExecution(worker, {
        init: {
          type: "init",
          db: config.db,
          ...(config.synchronous === undefined ? {} : { synchronous: config.synchronous }),
          github,
          logLevel: workerConfig.logLevel,
          ...(config.timeRate === undefined ? {} : { timeRate: config.timeRate }),
          executor: config.executor ?? {},
        },
        log,
      });
    } else if (config.execution === "in_process" && runnable !== undefined) {
      const overrides = config.executor ?? {};
      execution = inProcessExecution(
        new Executor(store.rows, runnable, {
          clock,
          handlerClock,
          log: log.child("executor"),
          ...overrides,
          onTerminal: (id) => {
            overrides.onTerminal?.(id);
            waits.notify();
          },
          onProgress: (id) => {
            overrides.onProgress?.(id);
            waits.notify();
          },
        }),
      );
    } else {
      execution = NO_EXECUTION;
    }
    const control = new JobControl(store.rows, registry, {
      clock,
      handlerClock,
      ...(config.admittedMax === undefined ? {} : { admittedMax: config.admittedMax }),
      ...(config.retentionMs === undefined ? {} : { retentionMs: config.retentionMs }),
      ...(config.fastPaths === false ? {} : {
        onSubmitted: () => execution.wake(),
        onCancelRequested: (ids: string[]) => execution.abortLocal(ids),
      }),
      waits,
    });
    let closed: Promise<void> | undefined;
    return {
      store,
      registry,
      control,
      waits,
      execution,
      log,
      handlerClock,
      close: () =>
        closed ??= (async () => {
          // Waiting jobs.get calls answer now (with their current view) instead of at their deadline.
          waits.close();
          try {
            await execution.stop();
          } finally {
            store.close();
          }
        })(),
    };
  } catch (err) {
    store.close();
    throw err;
  }
}

function inProcessExecution(executor: Executor): Execution {
  let started = false;
  return {
    where: "in_process",
    executor,
    worker: undefined,
    start: async () => {
      started = true;
      await executor.start();
    },
    wake: () => executor.wake(),
    abortLocal: (ids) => executor.abortLocal(ids),
    linger: () => Promise.resolve(executor.linger()),
    stop: async () => {
      if (started) await executor.stop();
    },
  };
}

/**
 * The network worker's execution. `start()` sends `options.init` once (later calls share its outcome); a
 * submission (`wake`) starts it too, so a server that starts its worker late (src/cli/serve.ts) never
 * leaves a job waiting for that. `firstStart` settles as that one start does, whoever made it. Before
 * it has started it runs nothing: nothing to abort or linger for.
 */
function workerExecution(
  worker: NetworkWorker,
  options: { init: Parameters<WorkerExecutor["start"]>[0]; log: Logger },
): Execution {
  const { init, log } = options;
  const first = Promise.withResolvers<void>();
  // Whoever awaits start() or firstStart hears a failure; until then it is no unhandled rejection.
  first.promise.catch(() => {});
  let started = false;
  const begin = (on: "start" | "submission") => {
    if (!started) {
      started = true;
      log.debug("starting the network worker", { on });
      worker.executor.start(init).then(first.resolve, first.reject);
    }
    return first.promise;
  };
  return {
    where: "network_worker",
    executor: undefined,
    worker,
    firstStart: first.promise,
    start: () => begin("start"),
    wake: () => {
      void begin("submission");
      worker.executor.wake();
    },
    abortLocal: (ids) => {
      if (started) worker.executor.abortLocal(ids);
    },
    linger: () => started ? worker.executor.linger() : Promise.resolve({ running: 0, idle: Promise.resolve() }),
    stop: async () => {
      // Never started, it never will be: firstStart settles (resolved) so nothing waits for it.
      if (!started) first.resolve();
      try {
        await worker.executor.stop();
      } finally {
        worker.script.release();
      }
    },
  };
}

/** Control only: jobs are admitted and read here and run by whichever process claims them. */
const NO_EXECUTION: Execution = {
  where: "none",
  executor: undefined,
  worker: undefined,
  start: () => Promise.resolve(),
  wake: () => {},
  abortLocal: () => {},
  linger: () => Promise.resolve({ running: 0, idle: Promise.resolve() }),
  stop: () => Promise.resolve(),
};
