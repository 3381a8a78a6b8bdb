/**
 * Temporary directories and stores for tests: every test gets its own real SQLite file.
 *
 * ```ts
 * await using dir = await tempDir();
 * await using h = await openHarness(dir.file("jobs.db"), { executor: { runningMax: 2 } });
 * ```
 *
 * @module
 */

import { type Clock, systemClock } from "../src/base/clock.ts";
import { type Logger, silentLogger } from "../src/base/log.ts";
import { type ExecutorOverrides, openRuntime } from "../src/cli/runtime.ts";
import type { JobControl, JobControlOptions } from "../src/jobs/control.ts";
import type { Executor } from "../src/jobs/executor.ts";
import type { AnyJobKind, JobKindRegistry } from "../src/jobs/kinds.ts";
import type { OpenOptions } from "../src/store/db.ts";
import type { JobRow } from "../src/store/job_rows.ts";
import { openStore, type Store, storeConnection } from "../src/store/store.ts";
import type { Connection } from "../src/store/tx.ts";
import { testRegistry } from "./test_kinds.ts";

/** A temporary directory removed (recursively) on dispose. */
export interface TempDir extends AsyncDisposable {
  readonly path: string;
  /** A path inside the directory. */
  file(name: string): string;
}

/** Creates a temporary directory: `await using dir = await tempDir()`. */
export async function tempDir(prefix = "longcall-test-"): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    file: (name) => `${path}/${name}`,
    [Symbol.asyncDispose]: async () => {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** A store closed on dispose, with its raw connection for tests (fault injection, raw SQL). */
export type TempStore = Store & Disposable & { readonly conn: Connection };

/** Opens (creating) a store at `path`, closed on dispose: `using store = openTempStore(dir.file("a.db"))`. */
export function openTempStore(path: string, options: OpenOptions = {}): TempStore {
  const store = openStore(path, options);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    store.close();
  };
  return tempStoreOf(store, close);
}

/** A test's view of an open store: its raw connection, closed (once) on dispose. */
export function tempStoreOf(store: Store, close: () => void = () => store.close()): TempStore {
  return { ...store, conn: storeConnection(store), close, [Symbol.dispose]: close };
}

export interface HarnessOptions {
  clock?: Clock;
  extraKinds?: readonly AnyJobKind[];
  /** The control side's bounds (its clock and fast paths come from the harness). */
  control?: Pick<JobControlOptions, "admittedMax" | "retentionMs">;
  /** Executor options (the clock is the harness's; `log` default silent). `false`: no executor. */
  executor?: (ExecutorOverrides & { log?: Logger }) | false;
  /** Start the executor at once (default true). */
  start?: boolean;
  /** Wire control -> executor fast paths (wake on submit, abortLocal on cancel). Default true. */
  wire?: boolean;
}

/** A store with a control side and an executor on the same connection. */
export interface Harness extends AsyncDisposable {
  readonly store: TempStore;
  readonly registry: JobKindRegistry;
  readonly control: JobControl;
  readonly executor: Executor | undefined;
  readonly clock: Clock;
  /** Terminal ids reported by the executor's onTerminal, in order. */
  readonly terminal: string[];
  /** Progress writes reported by onProgress, in order. */
  readonly progress: string[];
}

/**
 * Opens a runtime ({@linkcode openRuntime}, the one composition root) over the test kinds plus
 * `extraKinds`: a JobControl and (optionally) an in-process Executor on one store.
 */
export async function openHarness(path: string, options: HarnessOptions = {}): Promise<Harness> {
  const clock = options.clock ?? systemClock;
  const terminal: string[] = [];
  const progress: string[] = [];
  let registry: JobKindRegistry | undefined;
  const { log, ...user } = options.executor === false ? {} : options.executor ?? {};
  const runtime = openRuntime({
    db: path,
    kinds: { registry: () => registry = testRegistry(options.extraKinds ?? []) },
    log: log ?? silentLogger,
    clock,
    execution: options.executor === false ? "none" : "in_process",
    executor: {
      ...user,
      onTerminal: (id) => {
        terminal.push(id);
        user.onTerminal?.(id);
      },
      onProgress: (id) => {
        progress.push(id);
        user.onProgress?.(id);
      },
    },
    ...options.control,
    fastPaths: options.wire ?? true,
  });
  const executor = runtime.execution.executor;
  try {
    if (executor !== undefined && (options.start ?? true)) await runtime.execution.start();
  } catch (err) {
    await runtime.close();
    throw err;
  }
  return {
    // Closing it closes the whole runtime (once), as disposing the harness does.
    store: tempStoreOf(runtime.store, () => void runtime.close()),
    registry: registry as JobKindRegistry,
    control: runtime.control,
    executor,
    clock,
    terminal,
    progress,
    [Symbol.asyncDispose]: async () => {
      // A test may have started the executor itself (`start: false`): stop it whoever started it.
      await executor?.stop();
      await runtime.close();
    },
  };
}

/**
 * Polls `probe` every `options.everyMs` (5 by default) until it returns a value other than undefined/false, or
 * throws after `options.timeoutMs` (10 s by default).
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const { timeoutMs = 10_000, everyMs = 5 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Waits until a job has `options.status` (one status or any of several; read through `store`) and returns the
 * row; throws after `options.timeoutMs` (10 s by default).
 */
export function waitForStatus(
  store: Store,
  id: string,
  options: { status: JobRow["status"] | readonly JobRow["status"][]; timeoutMs?: number },
): Promise<JobRow> {
  const { status, timeoutMs = 10_000 } = options;
  const wanted: readonly string[] = typeof status === "string" ? [status] : status;
  return waitFor(`job ${id} to be ${wanted.join("|")}`, () => {
    const row = store.rows.jobGet(id);
    return row !== undefined && wanted.includes(row.status) ? row : undefined;
  }, { timeoutMs });
}

/** A promise with its resolver, for gating handlers. */
export interface Gate {
  promise: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => open = resolve);
  return { promise, open };
}

/**
 * Waits until `ownerId`'s heartbeat has been written `options.count` more times (its stored heartbeat_at moved
 * that many times; throws after `options.timeoutMs`, 10 s by default). An executor's own loops as an observable
 * clock: a loop with a shorter period than the heartbeat has certainly run by then, so "nothing happened
 * meanwhile" needs no fixed sleep.
 */
export async function heartbeatsPass(
  store: Store,
  ownerId: string,
  options: { count: number; timeoutMs?: number },
): Promise<void> {
  const { count: n, timeoutMs = 10_000 } = options;
  const at = () => store.rows.ownerListLive(0).find((o) => o.owner_id === ownerId)?.heartbeat_at;
  let last = at();
  let seen = 0;
  await waitFor(`${n} heartbeats of owner ${ownerId}`, () => {
    const now = at();
    if (now !== last) {
      last = now;
      seen++;
    }
    return seen >= n;
  }, { timeoutMs });
}
