/**
 * What the entry point needs before it loads anything else.
 *
 * @module
 */

import type { FromWorker } from "./network_worker.ts";

/** Whether this code runs inside a Web Worker. */
export function inWorker(): boolean {
  return typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";
}

/** A network worker's entry, as {@linkcode enterWorker} left it. */
export interface WorkerEntry {
  /** Every message so far, and those still to come until the real handler takes over. */
  held: MessageEvent[];
  /** Resolves when the first message arrives. */
  first: Promise<void>;
}

/**
 * Installs a message handler that keeps every message until the real handler takes over (so nothing
 * posted while the worker's code loads is dropped), and tells the parent the entry runs
 * (`entered`). Its static imports have loaded by then: Deno checks those against the parent's
 * permissions, so the parent may narrow its own only now. Dynamic imports are checked against the
 * worker's own grants, so the code a worker imports after this loads whatever the parent holds.
 */
export function enterWorker(): WorkerEntry {
  const held: MessageEvent[] = [];
  const first = Promise.withResolvers<void>();
  const scope = globalThis as unknown as {
    onmessage: (event: MessageEvent) => void;
    postMessage(message: FromWorker): void;
  };
  scope.onmessage = (event) => {
    held.push(event);
    first.resolve();
  };
  scope.postMessage({ type: "entered" });
  return { held, first: first.promise };
}
