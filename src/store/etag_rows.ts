/**
 * ETag rows: the SQL of the `http_etags` table, which lets an unchanged GitHub resource
 * cost a free `304 Not Modified` across restarts. Rows hold a URL (never credentials),
 * the validator and the response body; both the body size and the row count are bounded.
 *
 * @module
 */

import { GITHUB_ETAG_BODY_BYTES_MAX, GITHUB_ETAG_ROWS_MAX, STORE_FAULT_RETRY_MS_EXECUTION } from "../base/limits.ts";
import type { Connection } from "./tx.ts";

/** One cached representation. */
export interface EtagRow {
  url: string;
  etag: string;
  body: string;
  stored_at: number;
}

/** Options of {@linkcode EtagRows}. */
export interface EtagRowsOptions {
  /** Rows kept; the oldest beyond this are deleted on write. Default {@linkcode GITHUB_ETAG_ROWS_MAX}. */
  rowsMax?: number;
  /** Largest body stored, in UTF-8 bytes. Default {@linkcode GITHUB_ETAG_BODY_BYTES_MAX}. */
  bodyBytesMax?: number;
}

const encoder = new TextEncoder();

/** UTF-8 byte length of a string. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** SQL over `http_etags`. */
export class EtagRows {
  readonly #conn: Connection;
  readonly #rowsMax: number;
  readonly #bodyBytesMax: number;

  constructor(conn: Connection, options: EtagRowsOptions = {}) {
    const rowsMax = options.rowsMax ?? GITHUB_ETAG_ROWS_MAX;
    const bodyBytesMax = options.bodyBytesMax ?? GITHUB_ETAG_BODY_BYTES_MAX;
    if (!Number.isInteger(rowsMax) || rowsMax < 1) {
      throw new RangeError(`Cannot bound http_etags rows: current value is ${rowsMax}`);
    }
    if (!Number.isInteger(bodyBytesMax) || bodyBytesMax < 0) {
      throw new RangeError(`Cannot bound http_etags body bytes: current value is ${bodyBytesMax}`);
    }
    this.#conn = conn;
    this.#rowsMax = rowsMax;
    this.#bodyBytesMax = bodyBytesMax;
  }

  /** The stored representation of `url`, if any. */
  etagGet(url: string): EtagRow | undefined {
    const raw = this.#conn.stmt("SELECT url, etag, body, stored_at FROM http_etags WHERE url = ?").get(url) as
      | Record<string, unknown>
      | undefined;
    if (raw === undefined) return undefined;
    return {
      url: String(raw.url),
      etag: String(raw.etag),
      body: String(raw.body),
      stored_at: Number(raw.stored_at),
    };
  }

  /**
   * Stores (or replaces) `row`, the representation of `row.url`, and prunes the oldest rows beyond
   * the row bound, in one transaction. A body over the byte bound is not stored and any
   * older row for the URL is deleted (it would be stale).
   *
   * @returns whether the row was stored.
   */
  async etagPut(row: EtagRow): Promise<boolean> {
    const { url, etag, body, stored_at: storedAt } = row;
    const fits = utf8Length(body) <= this.#bodyBytesMax;
    return await this.#conn.write(() => {
      if (!fits) {
        this.#conn.stmt("DELETE FROM http_etags WHERE url = ?").run(url);
        return false;
      }
      this.#conn.stmt(
        `INSERT INTO http_etags (url, etag, body, stored_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (url) DO UPDATE SET etag = excluded.etag, body = excluded.body, stored_at = excluded.stored_at`,
      ).run(url, etag, body, storedAt);
      const count = Number((this.#conn.stmt("SELECT COUNT(*) AS n FROM http_etags").get() as { n: unknown }).n);
      if (count > this.#rowsMax) {
        this.#conn.stmt(
          `DELETE FROM http_etags WHERE url IN
             (SELECT url FROM http_etags WHERE url <> ? ORDER BY stored_at ASC, url ASC LIMIT ?)`,
        ).run(url, count - this.#rowsMax);
      }
      return true;
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /** Deletes the row of `url`. */
  async etagDelete(url: string): Promise<void> {
    await this.#conn.write(() => {
      this.#conn.stmt("DELETE FROM http_etags WHERE url = ?").run(url);
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /** Number of rows (tests, diagnostics). */
  etagCount(): number {
    return Number((this.#conn.stmt("SELECT COUNT(*) AS n FROM http_etags").get() as { n: unknown }).n);
  }
}
