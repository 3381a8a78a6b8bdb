/**
 * Protocol-neutral pieces every answer shares, whoever projects it (MCP tools, tasks, the CLI):
 * ISO 8601 times and the vectorized batch (one item per input key, in input order). The job
 * reads (src/jobs/projection.ts) and the corpus reads (src/corpus/get.ts) both answer with
 * {@linkcode Batch}; the sync job's result has its own item type (src/github/sync_kind.ts
 * `SyncItem`) because its items have two more states, `retryable` and `failed`.
 *
 * @module
 */

/**
 * ISO 8601 (UTC, milliseconds) of epoch milliseconds: the one time format of every answer, exactly
 * `new Date(ms).toISOString()`. Whole milliseconds from 1970 through 9999 (every stored time) are
 * formatted by arithmetic into one flat string (no Date, no concatenation): about three times faster
 * and half the garbage (a 100-id `jobs.get` answer formats some 300); anything else goes through Date.
 */
export function iso(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= YEAR_10000_MS) return new Date(ms).toISOString();
  // Civil date from days since the epoch (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1_000);
  const millis = rest - seconds * 1_000;
  return String.fromCharCode(
    ZERO + Math.floor(year / 1_000),
    ZERO + Math.floor(year / 100) % 10,
    ZERO + Math.floor(year / 10) % 10,
    ZERO + year % 10,
    DASH,
    ZERO + Math.floor(month / 10),
    ZERO + month % 10,
    DASH,
    ZERO + Math.floor(day / 10),
    ZERO + day % 10,
    T,
    ZERO + Math.floor(hours / 10),
    ZERO + hours % 10,
    COLON,
    ZERO + Math.floor(minutes / 10),
    ZERO + minutes % 10,
    COLON,
    ZERO + Math.floor(seconds / 10),
    ZERO + seconds % 10,
    DOT,
    ZERO + Math.floor(millis / 100),
    ZERO + Math.floor(millis / 10) % 10,
    ZERO + millis % 10,
    Z,
  );
}

/** 10000-01-01T00:00:00.000Z: from here on toISOString writes a six-digit, signed year. */
const YEAR_10000_MS = 253_402_300_800_000;
const [ZERO, DASH, T, COLON, DOT, Z] = [..."0-T:.Z"].map((c) => c.charCodeAt(0)) as [
  number,
  number,
  number,
  number,
  number,
  number,
];

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
