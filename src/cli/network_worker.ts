/**
 * The network worker: the only part of a longcall server that can reach GitHub. It runs
 * the executor (claiming, handlers, heartbeats, reconciliation, retention) on its own
 * database connection, with a permission set of its own: net to the configured GitHub
 * host, read/write to the database files, nothing else. The MCP thread talks to it with
 * messages only.
 *
 * @module
 */

import { type Clock, ScaledClock, systemClock } from "../base/clock.ts";
import { createLogger, type LogLevel } from "../base/log.ts";
import { Executor, type ExecutorOptions } from "../jobs/executor.ts";
import type { Synchronous } from "../store/db.ts";
import { openStore } from "../store/store.ts";
import { type GitHubConfig, productRegistry } from "./product_kinds.ts";

/** Messages to the worker. */
export type ToWorker =
  | {
    type: "init";
    db: string;
    synchronous?: Synchronous;
    github: GitHubConfig;
    logLevel: LogLevel;
    timeRate?: number;
    executor: Partial<Omit<ExecutorOptions, "clock" | "log" | "handlerClock" | "onTerminal" | "onProgress">>;
  }
  | { type: "wake" }
  | { type: "cancel"; ids: string[] }
  | { type: "linger" }
  | { type: "stop" }
  | { type: "audit"; descriptors: Deno.PermissionDescriptor[] };

/** Messages from the worker. */
export type FromWorker =
  | { type: "loaded" }
  | { type: "ready"; ownerId: string }
  | { type: "stopped" }
  | { type: "lingering"; running: number }
  | { type: "idle" }
  | { type: "failed"; message: string }
  | { type: "ended"; id: string }
  | { type: "progress"; id: string }
  | { type: "audit"; states: Deno.PermissionState[] };

/** Worker entry: handles the messages held while loading, then every new one, until stopped. */
export function runNetworkWorker(held: readonly MessageEvent[] = []): void {
  const scope = globalThis as unknown as {
    postMessage(message: FromWorker): void;
    onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
    close(): void;
  };
  let executor: Executor | undefined;
  let closeStore: (() => void) | undefined;
  // Once the host is gone its stderr may be a closed pipe or a vanished terminal: a lingering worker logs nothing.
  let muted = false;
  const writeLog = (line: string) => {
    if (!muted) console.error(line);
  };
  const post = (m: FromWorker) => scope.postMessage(m);
  const handle = async (event: MessageEvent<ToWorker>) => {
    const msg = event.data;
    try {
      switch (msg.type) {
        case "init": {
          const log = createLogger(msg.logLevel, "longcall:worker", writeLog);
          const store = openStore(msg.db, msg.synchronous === undefined ? {} : { synchronous: msg.synchronous });
          closeStore = () => store.close();
          const handlerClock: Clock = msg.timeRate === undefined ? systemClock : new ScaledClock(msg.timeRate);
          const registry = productRegistry(store, msg.github, log, handlerClock, "run_only");
          executor = new Executor(store.rows, registry, {
            ...msg.executor,
            clock: systemClock,
            handlerClock,
            log: log.child("executor"),
            onTerminal: (id) => post({ type: "ended", id }),
            onProgress: (id) => post({ type: "progress", id }),
          });
          await executor.start();
          post({ type: "ready", ownerId: executor.ownerId });
          break;
        }
        case "wake":
          executor?.wake();
          break;
        case "cancel":
          executor?.abortLocal(msg.ids);
          break;
        case "linger": {
          muted = true;
          if (executor === undefined) {
            post({ type: "lingering", running: 0 });
            post({ type: "idle" });
            break;
          }
          const { running, idle } = executor.linger();
          post({ type: "lingering", running });
          void idle.then(() => post({ type: "idle" }));
          break;
        }
        case "audit": {
          const states: Deno.PermissionState[] = [];
          for (const d of msg.descriptors) states.push((await Deno.permissions.query(d)).state);
          post({ type: "audit", states });
          break;
        }
        case "stop":
          await executor?.stop();
          closeStore?.();
          post({ type: "stopped" });
          scope.close();
          break;
      }
    } catch (err) {
      post({ type: "failed", message: err instanceof Error ? err.message : String(err) });
    }
  };
  scope.onmessage = handle;
  // Every module of the worker is loaded now: the serving thread may drop its permissions
  // (revoking them earlier can fail the worker's own module loads).
  post({ type: "loaded" });
  for (const event of held) void handle(event as MessageEvent<ToWorker>);
}
