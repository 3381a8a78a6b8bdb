/** Whether this code runs inside a Web Worker (kept tiny: the entry point reads it before loading anything). */
export function inWorker(): boolean {
  return typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";
}
