/**
 * The store's public face: one connection (private) with the rows over it. Callers get the
 * job, corpus and ETag rows and the change stamp; only `store/` touches the SQLite connection.
 *
 * @module
 */

import { changeStamp } from "./change_stamp.ts";
import { CorpusRows } from "./corpus_rows.ts";
import { openDatabase, type OpenOptions, sqliteVersion } from "./db.ts";
import { EtagRows } from "./etag_rows.ts";
import { JobRows } from "./job_rows.ts";
import { Connection } from "./tx.ts";

/** An open database: the rows over its one connection, which stays private to `store/`. */
export interface Store {
  readonly path: string;
  readonly rows: JobRows;
  /** The offline corpus (repositories, threads, checks observations). */
  readonly corpus: CorpusRows;
  /** The persisted ETags of conditional GitHub requests (default bounds). */
  readonly etags: EtagRows;
  /**
   * One O(1) probe that moves whenever any connection committed (src/store/change_stamp.ts):
   * equal stamps mean nothing changed in between.
   */
  changeStamp(): string;
  /** The SQLite library version behind the connection (see `sqliteVersionWarning` in src/store/db.ts). */
  readonly sqliteVersion: string;
  close(): void;
}

const connections = new WeakMap<Store, Connection>();

/** Opens a store (creating and migrating the database when needed). */
export function openStore(path: string, options: OpenOptions = {}): Store {
  const conn = new Connection(openDatabase(path, options));
  const store: Store = {
    path,
    rows: new JobRows(conn),
    corpus: new CorpusRows(conn),
    etags: new EtagRows(conn),
    changeStamp: () => changeStamp(conn),
    sqliteVersion: sqliteVersion(conn.db),
    close: () => conn.close(),
  };
  connections.set(store, conn);
  return store;
}

/**
 * The raw connection of a store, for tests and benchmarks only (raw-SQL trigger attacks, fault
 * injection, bulk fixtures). Runtime code outside `store/` never calls it: scripts/check_layers.ts
 * refuses it there.
 */
export function storeConnection(store: Store): Connection {
  const conn = connections.get(store);
  if (conn === undefined) throw new TypeError("Cannot reach the connection: current value is not an open store");
  return conn;
}
