/**
 * Protocol-neutral pieces every answer shares, whoever projects it (MCP tools, tasks, the CLI):
 * ISO 8601 times and the vectorized batch (one item per input key, in input order). The job
 * reads (src/jobs/projection.ts) and the corpus reads (src/corpus/get.ts) both answer with
 * {@linkcode Batch}; the sync job's result has its own item type (src/github/sync_kind.ts
 * `SyncItem`) because its items have two more states, `retryable` and `failed`.
 *
 * @module
 */

/** ISO 8601 (UTC, milliseconds) of epoch milliseconds: the one time format of every answer. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** One entry of a vectorized answer; `R` is the answer's set of reasons for `unavailable`. */
export interface BatchItem<T, R extends string> {
  key: string;
  item_status: "complete" | "unavailable";
  value?: T;
  reason?: R;
  message?: string;
}

/** A vectorized answer: one item per input, in input order. */
export interface Batch<I extends BatchItem<unknown, string>> {
  batch_status: "complete" | "partial";
  items: I[];
}

/** Builds a batch, deriving `batch_status` from its items. */
export function batchOf<I extends BatchItem<unknown, string>>(items: I[]): Batch<I> {
  return { batch_status: items.every((i) => i.item_status === "complete") ? "complete" : "partial", items };
}
