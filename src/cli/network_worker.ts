/**
 * The network worker: the only part of a longcall server that can reach GitHub. It runs
 * the executor (claiming, handlers, heartbeats, reconciliation, retention) on its own
 * database connection, with a permission set of its own: net to the configured GitHub
 * host, read/write to the database files, nothing else. The MCP thread talks to it with
 * messages only.
 *
 * @module
 */

import { assert } from "../base/errors.ts";
import { type IdleCollection, idleCollection } from "../base/idle_collect.ts";
import { createLogger, type LogLevel } from "../base/log.ts";
import type { ExecutorOptions } from "../jobs/executor.ts";
import type { Synchronous } from "../store/db.ts";
import type { GitHubConfig } from "./product_kinds.ts";
import { productRegistry } from "./product_runners.ts";
import { openRuntime, type Runtime } from "./runtime.ts";

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
  | { type: "entered" }
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
  let runtime: Runtime | undefined;
  // Once no message came and no job reported progress or ended for a while, the worker gives back the memory
  // its jobs grew (between a watch's polls too: a collection's pause does not matter to a job waiting on GitHub).
  let idle: IdleCollection | null = null;
  // Once the host is gone its stderr may be a closed pipe or a vanished terminal: a lingering worker logs nothing.
  let muted = false;
  const writeLog = (line: string) => {
    if (!muted) console.error(line);
  };
  const post = (m: FromWorker) => scope.postMessage(m);
  const handle = async (event: MessageEvent<ToWorker>) => {
    const msg = event.data;
    idle?.touch();
    try {
      switch (msg.type) {
        case "init": {
          // The same composition root as every other process, executing in this thread (requests
          // were validated and normalized when admitted, so no spec or zod is loaded here).
          const opened = openRuntime({
            db: msg.db,
            ...(msg.synchronous === undefined ? {} : { synchronous: msg.synchronous }),
            kinds: { product: { github: msg.github, runners: productRegistry } },
            log: createLogger(msg.logLevel, { scope: "longcall:worker", write: writeLog }),
            ...(msg.timeRate === undefined ? {} : { timeRate: msg.timeRate }),
            execution: "in_process",
            executor: {
              ...msg.executor,
              onTerminal: (id) => {
                idle?.touch();
                post({ type: "ended", id });
              },
              onProgress: (id) => {
                idle?.touch();
                post({ type: "progress", id });
              },
            },
          });
          runtime = opened;
          await opened.execution.start();
          const executor = opened.execution.executor;
          assert(executor !== undefined, "the network worker's runtime runs an executor");
          idle = idleCollection(opened.log);
          post({ type: "ready", ownerId: executor.ownerId });
          break;
        }
        case "wake":
          runtime?.execution.wake();
          break;
        case "cancel":
          runtime?.execution.abortLocal(msg.ids);
          break;
        case "linger": {
          muted = true;
          if (runtime === undefined) {
            post({ type: "lingering", running: 0 });
            post({ type: "idle" });
            break;
          }
          const { running, idle } = await runtime.execution.linger();
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
          idle?.stop();
          await runtime?.close();
          post({ type: "stopped" });
          scope.close();
          break;
      }
    } catch (err) {
      post({ type: "failed", message: err instanceof Error ? err.message : String(err) });
    }
  };
  // One message at a time, in the order sent: a linger or a stop that arrives while init is still opening the
  // store (they come together when a submission starts the worker) waits for it.
  let queue = Promise.resolve();
  const enqueue = (event: MessageEvent<ToWorker>) => {
    queue = queue.then(() => handle(event));
  };
  scope.onmessage = enqueue;
  for (const event of held) enqueue(event as MessageEvent<ToWorker>);
}
