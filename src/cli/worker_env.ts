/**
 * What the entry point needs before it loads anything else.
 *
 * @module
 */

/** Whether this code runs inside a Web Worker. */
export function inWorker(): boolean {
  return typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";
}

/**
 * Installs a message handler that keeps every message until the real handler takes over,
 * so nothing posted while the worker's modules load is dropped. Returns the held list.
 */
export function holdWorkerMessages(): MessageEvent[] {
  const held: MessageEvent[] = [];
  (globalThis as unknown as { onmessage: (event: MessageEvent) => void }).onmessage = (event) => held.push(event);
  return held;
}
