/**
 * ETag caches for conditional requests: a `304 Not Modified` answer costs nothing against
 * GitHub's primary rate limit, so the client remembers each URL's validator and body.
 * Two implementations: a bounded in-memory LRU and one over the SQLite `http_etags` table
 * (survives restarts). Keys are URLs, which never contain credentials.
 *
 * @module
 */

import {
  GITHUB_ETAG_BODY_BYTES_MAX,
  GITHUB_ETAG_MEMORY_BYTES_MAX,
  GITHUB_ETAG_MEMORY_ENTRIES_MAX,
} from "../base/limits.ts";
import type { Clock } from "../base/clock.ts";
import { EtagRows, utf8Length } from "../store/etag_rows.ts";

/** A cached representation: the validator and the body it validates. */
export interface EtagEntry {
  etag: string;
  body: string;
}

/** Where the client keeps validators. `put` may be asynchronous (SQLite writes are). */
export interface EtagCache {
  get(url: string): EtagEntry | undefined;
  /** Stores `url`'s representation; returns whether it was kept (a body over the cache's byte bound is not). */
  put(url: string, entry: EtagEntry): boolean | Promise<boolean>;
}

/** Options of {@linkcode MemoryEtagCache}. */
export interface MemoryEtagCacheOptions {
  entriesMax?: number;
  bytesMax?: number;
  bodyBytesMax?: number;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`Cannot bound the ETag cache ${name}: current value is ${value}`);
  }
  return value;
}

/** A bounded LRU in memory (by entry count and total body bytes). */
export class MemoryEtagCache implements EtagCache {
  readonly #entries = new Map<string, EtagEntry & { bytes: number }>();
  readonly #entriesMax: number;
  readonly #bytesMax: number;
  readonly #bodyBytesMax: number;
  #bytes = 0;

  constructor(options: MemoryEtagCacheOptions = {}) {
    this.#entriesMax = positiveInteger("entries", options.entriesMax ?? GITHUB_ETAG_MEMORY_ENTRIES_MAX);
    this.#bytesMax = positiveInteger("bytes", options.bytesMax ?? GITHUB_ETAG_MEMORY_BYTES_MAX);
    this.#bodyBytesMax = positiveInteger("body bytes", options.bodyBytesMax ?? GITHUB_ETAG_BODY_BYTES_MAX);
  }

  get(url: string): EtagEntry | undefined {
    const entry = this.#entries.get(url);
    if (entry === undefined) return undefined;
    // Refresh recency: Map iteration order is insertion order.
    this.#entries.delete(url);
    this.#entries.set(url, entry);
    return { etag: entry.etag, body: entry.body };
  }

  put(url: string, entry: EtagEntry): boolean {
    const { etag, body } = entry;
    this.#remove(url);
    const bytes = utf8Length(body);
    if (bytes > this.#bodyBytesMax || bytes > this.#bytesMax) return false;
    this.#entries.set(url, { etag, body, bytes });
    this.#bytes += bytes;
    while (this.#entries.size > this.#entriesMax || this.#bytes > this.#bytesMax) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#remove(oldest.value);
    }
    return true;
  }

  /** Entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Body bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  #remove(url: string): void {
    const entry = this.#entries.get(url);
    if (entry === undefined) return;
    this.#entries.delete(url);
    this.#bytes -= entry.bytes;
  }
}

/** An ETag cache over the SQLite `http_etags` table: an unchanged resource stays a free
 * 304 across restarts and across processes sharing the database. */
export class SqliteEtagCache implements EtagCache {
  readonly rows: EtagRows;
  readonly #clock: Clock;

  /** `rows`: the store's ETag rows (`store.etags`). */
  constructor(rows: EtagRows, clock: Clock) {
    this.rows = rows;
    this.#clock = clock;
  }

  get(url: string): EtagEntry | undefined {
    const row = this.rows.etagGet(url);
    return row === undefined ? undefined : { etag: row.etag, body: row.body };
  }

  put(url: string, entry: EtagEntry): Promise<boolean> {
    const { etag, body } = entry;
    return this.rows.etagPut({ url, etag, body, stored_at: this.#clock.now() });
  }
}
