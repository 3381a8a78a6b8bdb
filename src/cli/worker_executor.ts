/**
 * The MCP thread's handle on the network worker: starts it with an explicit, narrow
 * permission set and forwards wake-ups and cancellations.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import type { Logger } from "../base/log.ts";
import type { FromWorker, ToWorker } from "./network_worker.ts";

import { WORKER_START_TIMEOUT_MS, WORKER_STOP_TIMEOUT_MS } from "../base/limits.ts";

/** Permission set of the network worker. */
export interface WorkerPermissions {
  net: string[];
  read: string[];
  write: string[];
}

/** The files SQLite touches for one database in WAL mode. */
export function databaseFiles(db: string): string[] {
  return [db, `${db}-wal`, `${db}-shm`, `${db}-journal`];
}

/** What a {@link WorkerExecutor} starts its worker from and reports to. */
export interface WorkerExecutorOptions {
  /** The worker's code. */
  moduleUrl: string | URL;
  /** Its explicit permission set. */
  permissions: WorkerPermissions;
  log: Logger;
  /** Hears each job progress or end the worker reports (wakes waiting readers). */
  onJobEvent?: () => void;
}

/** The network worker as the server sees it (the same surface as an in-process Executor). */
export class WorkerExecutor {
  readonly #worker: Worker;
  readonly #log: Logger;
  readonly #waiters = new Map<FromWorker["type"], (m: FromWorker) => void>();
  /** Why the worker answers nothing more (it failed, or it was stopped); undefined while it may. */
  #gone: string | undefined;
  readonly #failed = Promise.withResolvers<string>();
  /**
   * Resolves with the reason once the worker fails or crashes (its entry, its start, or any time after): from
   * then on nothing in this process runs jobs, so a server stops rather than go on admitting work nothing runs.
   * Never settles for a worker that was stopped.
   */
  readonly failed: Promise<string> = this.#failed.promise;
  readonly #entered: Promise<unknown>;
  /** Whether anything was sent yet: the worker loads its code on the first message. */
  #told = false;

  /** Starts the worker; `options.onJobEvent` hears each job progress or end it reports (wakes waiting readers). */
  constructor(options: WorkerExecutorOptions) {
    const { moduleUrl, permissions, log, onJobEvent } = options;
    this.#log = log;
    this.#worker = createWorker(moduleUrl, permissions);
    this.#entered = this.#expect("entered", WORKER_START_TIMEOUT_MS);
    this.#entered.catch(() => {}); // reported to whoever awaits entered(); never an unhandled rejection
    this.#worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const m = event.data;
      if (m.type === "ended" || m.type === "progress") onJobEvent?.();
      if (m.type === "failed") {
        this.#gone = m.message;
        this.#log.error("network worker failed", { error: m.message });
        this.#failed.resolve(m.message);
      }
      // A failure answers whoever waits for it, else whoever waits for "ready".
      const key = this.#waiters.has(m.type) ? m.type : m.type === "failed" ? "ready" : undefined;
      const waiter = key === undefined ? undefined : this.#waiters.get(key);
      if (key !== undefined && waiter !== undefined) {
        this.#waiters.delete(key);
        waiter(m);
      }
    };
    this.#worker.onerror = (event) => {
      event.preventDefault();
      this.#gone = event.message;
      this.#log.error("network worker crashed", { error: event.message });
      this.#failed.resolve(event.message);
      for (const [, waiter] of this.#waiters) waiter({ type: "failed", message: event.message });
      this.#waiters.clear();
    };
  }

  /** Waits for a message of `reply` type (or a failure) without sending anything. */
  #expect<T extends FromWorker["type"]>(reply: T, timeoutMs: number): Promise<Extract<FromWorker, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(reply);
        reject(new Error(`network worker sent no ${reply} message within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.set(reply, (m) => {
        clearTimeout(timer);
        if (m.type === "failed") reject(new Error(`network worker: ${m.message}`));
        else resolve(m as Extract<FromWorker, { type: T }>);
      });
    });
  }

  /** Sends `message` and waits up to `expected.timeoutMs` for a message of `expected.reply` type (or a failure). */
  #request<T extends FromWorker["type"]>(
    message: ToWorker,
    expected: { reply: T; timeoutMs: number },
  ): Promise<Extract<FromWorker, { type: T }>> {
    const { reply, timeoutMs } = expected;
    // A worker that already failed (its entry crashed, say) answers nothing: say so now, not after the timeout.
    if (this.#gone !== undefined) return Promise.reject(new Error(`network worker: ${this.#gone}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(reply);
        reject(new Error(`network worker did not answer ${message.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.set(reply, (m) => {
        clearTimeout(timer);
        if (m.type === "failed") reject(new Error(`network worker: ${m.message}`));
        else resolve(m as Extract<FromWorker, { type: T }>);
      });
      this.#post(message);
    });
  }

  #post(message: ToWorker): void {
    this.#told = true;
    this.#worker.postMessage(message);
  }

  /**
   * Resolves once the worker's entry runs (src/cli/worker_env.ts, `enterWorker`): its static imports have
   * loaded, and from source it loads the rest of its code on the first message it gets.
   */
  async entered(): Promise<void> {
    await this.#entered;
  }

  /** Opens the worker's store and starts its executor. */
  async start(init: Extract<ToWorker, { type: "init" }>): Promise<void> {
    const ready = await this.#request(init, { reply: "ready", timeoutMs: WORKER_START_TIMEOUT_MS });
    this.#log.debug("network worker ready", { owner: ready.ownerId });
  }

  wake(): void {
    if (this.#gone === undefined) this.#post({ type: "wake" });
  }

  abortLocal(ids: readonly string[]): void {
    if (this.#gone === undefined) this.#post({ type: "cancel", ids: [...ids] });
  }

  /**
   * The executor's linger (see Executor.linger): the worker stops claiming and logging and keeps
   * running its jobs. `idle` resolves once none is left, or when the worker fails (nothing is left
   * to wait for then).
   */
  async linger(): Promise<{ running: number; idle: Promise<void> }> {
    if (this.#gone !== undefined) return { running: 0, idle: Promise.resolve() };
    const idle = Promise.withResolvers<void>();
    this.#waiters.set("idle", () => idle.resolve());
    try {
      const m = await this.#request({ type: "linger" }, { reply: "lingering", timeoutMs: WORKER_START_TIMEOUT_MS });
      return { running: m.running, idle: idle.promise };
    } catch (err) {
      this.#waiters.delete("idle");
      this.#log.warn("network worker did not linger", { error: String(err) });
      return { running: 0, idle: Promise.resolve() };
    }
  }

  /** Asks the worker what Deno grants it for each descriptor. */
  async audit(descriptors: Deno.PermissionDescriptor[]): Promise<Deno.PermissionState[]> {
    const m = await this.#request({ type: "audit", descriptors }, {
      reply: "audit",
      timeoutMs: WORKER_START_TIMEOUT_MS,
    });
    return m.states;
  }

  /** Graceful stop (the executor's shutdown rules), then terminates the worker. */
  async stop(): Promise<void> {
    try {
      // Told nothing yet, it has opened nothing: stopping it must not make it load its code first.
      if (this.#gone === undefined && this.#told) {
        await this.#request({ type: "stop" }, { reply: "stopped", timeoutMs: WORKER_STOP_TIMEOUT_MS });
      }
    } catch (err) {
      this.#log.warn("network worker did not stop cleanly", { error: String(err) });
    } finally {
      this.#worker.terminate();
      // Whatever still waits for an answer (a start in flight) gets none now, and nothing asked later will:
      // both fail at once rather than wait out their timeouts.
      this.#gone ??= "the network worker was stopped";
      for (const [, waiter] of this.#waiters) waiter({ type: "failed", message: this.#gone });
      this.#waiters.clear();
    }
  }
}

/** Creates the worker with an explicit permission set; explains a grant the process lacks. */
function createWorker(moduleUrl: string | URL, permissions: WorkerPermissions): Worker {
  try {
    return new Worker(moduleUrl, {
      type: "module",
      name: "longcall-network",
      // Explicit permissions (needs --unstable-worker-options): the worker's own state,
      // so revoking on the MCP thread does not take them from it, and it can never do
      // more than this list.
      deno: {
        permissions: {
          net: permissions.net,
          read: permissions.read,
          write: permissions.write,
          env: false,
          run: false,
          ffi: false,
          sys: false,
          import: false,
        },
      },
    } as WorkerOptions);
  } catch (err) {
    throw new AppError(
      "access_denied",
      `Cannot start the network worker with net ${permissions.net.join(", ")} and the database files: this ` +
        `process was not granted them (${err instanceof Error ? err.message : String(err)}). Run with the flags ` +
        "of src/cli/permissions.ts for your GitHub host; see docs/SECURITY.md.",
      { cause: err },
    );
  }
}
