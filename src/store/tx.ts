/**
 * Write transactions without blocking the event loop: `BEGIN IMMEDIATE` with a short
 * busy timeout, and on `SQLITE_BUSY` an async, jittered, bounded backoff ending in a
 * typed `store_busy` error. Every read-modify-write in longcall goes through here.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { AppError } from "../base/errors.ts";
import {
  STORE_BUSY_BACKOFF_MS_MAX,
  STORE_BUSY_BACKOFF_MS_MIN,
  STORE_BUSY_RETRIES_MAX,
  STORE_CHECKPOINT_COMMITS,
} from "../base/limits.ts";

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

/** Whether an error is SQLite's busy/locked family (including extended codes). */
export function isBusyError(err: unknown): boolean {
  const code = (err as { errcode?: unknown })?.errcode;
  if (typeof code !== "number") return false;
  const primary = code & 0xff;
  return primary === SQLITE_BUSY || primary === SQLITE_LOCKED;
}

/** A connection with cached statements and async write transactions. */
export class Connection {
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #commits = 0;
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
   * @throws {AppError} `store_busy` when the lock could not be taken after the bounded retries.
   */
  async write<T>(fn: () => T): Promise<T> {
    let delay = STORE_BUSY_BACKOFF_MS_MIN;
    for (let attempt = 0;; attempt++) {
      const outcome = this.tryWrite(fn);
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
    try {
      this.#begin.run();
    } catch (err) {
      if (isBusyError(err)) return { ok: false, error: err };
      throw err;
    }
    let value: T;
    try {
      value = fn();
      this.#commit.run();
    } catch (err) {
      if (this.db.isTransaction) this.#rollback.run();
      if (isBusyError(err)) return { ok: false, error: err };
      throw err;
    }
    this.#afterCommit();
    return { ok: true, value };
  }

  #afterCommit(): void {
    if (++this.#commits % STORE_CHECKPOINT_COMMITS === 0) {
      try {
        this.db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      } catch {
        // A passive checkpoint that cannot run now is retried after the next batch.
      }
    }
  }

  close(): void {
    this.#statements.clear();
    this.db.close();
  }
}
