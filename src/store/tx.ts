/**
 * Write transactions without blocking the event loop: `BEGIN IMMEDIATE` with a short
 * busy timeout, and on `SQLITE_BUSY` an async, jittered, bounded backoff ending in a
 * typed `store_busy` error. A transient storage fault (`SQLITE_FULL`, `SQLITE_IOERR`) is
 * rolled back and, when the caller allows it (`faultRetryMs`, the execution side), retried
 * with a jittered backoff; otherwise it ends in a typed, retryable `storage_unavailable`.
 * Every read-modify-write in longcall goes through here.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { AppError } from "../base/errors.ts";
import {
  STORE_BUSY_BACKOFF_MS_MAX,
  STORE_BUSY_BACKOFF_MS_MIN,
  STORE_BUSY_RETRIES_MAX,
  STORE_FAULT_BACKOFF_MS_MAX,
  STORE_FAULT_BACKOFF_MS_MIN,
  STORE_FAULT_RETRY_AFTER_MS,
} from "../base/limits.ts";
import {
  SQLITE_BUSY,
  SQLITE_FULL,
  SQLITE_IOERR,
  SQLITE_LOCKED,
  SQLITE_MESSAGES,
  sqliteErrcode,
  sqlitePrimaryCode,
} from "./sqlite_codes.ts";

/** Whether an error is a transient storage fault: the disk is full or an I/O failed
 * (including extended codes). The transaction was rolled back; the same write may succeed later. */
export function isStorageFault(err: unknown): boolean {
  const primary = sqlitePrimaryCode(err);
  return primary === SQLITE_FULL || primary === SQLITE_IOERR;
}

/** Options of {@linkcode Connection.write}. */
export interface WriteOptions {
  /** How long a transient storage fault is retried (jittered backoff) before `storage_unavailable`.
   * Default 0: the control side answers at once and the client retries. */
  faultRetryMs?: number;
}

/**
 * Test seam: makes the next `count` write transactions fail at COMMIT with an error shaped
 * exactly as `node:sqlite` throws it (`code: "ERR_SQLITE_ERROR"`, `errcode`, `errstr`); the
 * transaction is really rolled back. Used by fault-injection tests; never set in production.
 */
export interface WriteFaults {
  /** SQLite result code to raise, e.g. 13 (SQLITE_FULL) or 10 (SQLITE_IOERR). */
  errcode: number;
  /** Write attempts left to fail; `Infinity` until cleared. */
  count: number;
  /** Only fail transactions whose work matches, given the SQL of the statements it ran
   * (default: every write). */
  when?: (sql: readonly string[]) => boolean;
}

/** An error as node:sqlite raises it for result code `errcode`. */
export function sqliteError(errcode: number): Error {
  const errstr = SQLITE_MESSAGES[errcode & 0xff] ?? `SQLite error ${errcode}`;
  return Object.assign(new Error(errstr), { code: "ERR_SQLITE_ERROR", errcode, errstr });
}

/** The typed error for a write that a storage fault stopped. */
export function storageUnavailable(cause: unknown, action: "write to" | "use" = "write to"): AppError {
  const what = (cause as { errstr?: unknown })?.errstr ?? (cause instanceof Error ? cause.message : String(cause));
  return new AppError(
    "storage_unavailable",
    `Cannot ${action} the database: ${String(what)}; retry once space is freed or the disk is back`,
    { retryable: true, retryAfterMs: STORE_FAULT_RETRY_AFTER_MS, cause },
  );
}

/** Whether an error is SQLite's busy/locked family (including extended codes). */
export function isBusyError(err: unknown): boolean {
  const primary = sqliteErrcode(err);
  return primary === SQLITE_BUSY || primary === SQLITE_LOCKED;
}

/** A connection with cached statements and async write transactions. */
export class Connection {
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #begin: StatementSync;
  #commit: StatementSync;
  #rollback: StatementSync;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.#begin = db.prepare("BEGIN IMMEDIATE");
    this.#commit = db.prepare("COMMIT");
    this.#rollback = db.prepare("ROLLBACK");
  }

  /** A cached prepared statement. */
  stmt(sql: string): StatementSync {
    this.#txSql?.push(sql);
    let s = this.#statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /**
   * Runs `fn` inside `BEGIN IMMEDIATE ... COMMIT`. `fn` must be synchronous (it holds
   * the write lock) and must not have side effects outside the database, because a
   * busy database makes it run again.
   *
   * @throws {AppError} `store_busy` when the lock could not be taken after the bounded retries;
   *   `storage_unavailable` (retryable, with `retryAfterMs`) for a storage fault that outlasted
   *   `options.faultRetryMs`.
   */
  async write<T>(fn: () => T, options: WriteOptions = {}): Promise<T> {
    let delay = STORE_BUSY_BACKOFF_MS_MIN;
    let faultDelay = STORE_FAULT_BACKOFF_MS_MIN;
    const faultDeadline = performance.now() + (options.faultRetryMs ?? 0);
    for (let attempt = 0;; attempt++) {
      let outcome: { ok: true; value: T } | { ok: false; error: unknown };
      try {
        outcome = this.tryWrite(fn);
      } catch (err) {
        if (!isStorageFault(err)) throw err;
        if (performance.now() + faultDelay > faultDeadline) throw storageUnavailable(err);
        await new Promise((resolve) => setTimeout(resolve, faultDelay / 2 + Math.random() * faultDelay / 2));
        faultDelay = Math.min(faultDelay * 2, STORE_FAULT_BACKOFF_MS_MAX);
        attempt--; // a fault is not a busy retry
        continue;
      }
      if (outcome.ok) return outcome.value;
      if (attempt >= STORE_BUSY_RETRIES_MAX) {
        throw new AppError(
          "store_busy",
          "Cannot write to the database: it stayed locked by another process",
          {
            retryable: true,
            retryAfterMs: STORE_BUSY_BACKOFF_MS_MAX,
            cause: outcome.error,
          },
        );
      }
      const jittered = delay / 2 + Math.random() * delay / 2;
      await new Promise((resolve) => setTimeout(resolve, jittered));
      delay = Math.min(delay * 2, STORE_BUSY_BACKOFF_MS_MAX);
    }
  }

  /** One attempt; `ok: false` only for a busy database (other errors are thrown). */
  tryWrite<T>(
    fn: () => T,
  ): { ok: true; value: T } | { ok: false; error: unknown } {
    this.#txSql = this.faults === undefined ? undefined : [];
    try {
      this.#begin.run();
    } catch (err) {
      if (isBusyError(err)) return { ok: false, error: err };
      throw err;
    }
    let value: T;
    try {
      value = fn();
      const fault = this.#takeFault();
      if (fault !== undefined) throw fault;
      this.#commit.run();
    } catch (err) {
      if (this.db.isTransaction) this.#rollback.run();
      if (isBusyError(err)) return { ok: false, error: err };
      throw err;
    }
    return { ok: true, value };
  }

  /** Injected faults (tests only); see {@linkcode WriteFaults}. */
  faults: WriteFaults | undefined;

  #txSql: string[] | undefined;

  #takeFault(): Error | undefined {
    const f = this.faults;
    const sql = this.#txSql ?? [];
    this.#txSql = undefined;
    if (f === undefined || f.count <= 0 || (f.when !== undefined && !f.when(sql))) return undefined;
    f.count--;
    return sqliteError(f.errcode);
  }

  close(): void {
    this.#statements.clear();
    this.db.close();
  }
}
