/**
 * The store's public face: one connection with its job rows.
 *
 * @module
 */

import { openDatabase, type OpenOptions } from "./db.ts";
import { JobRows } from "./job_rows.ts";
import { Connection } from "./tx.ts";

/** An open database connection and the job rows over it. */
export interface Store {
  readonly path: string;
  readonly conn: Connection;
  readonly rows: JobRows;
  close(): void;
}

/** Opens a store (creating and migrating the database when needed). */
export function openStore(path: string, options: OpenOptions = {}): Store {
  const conn = new Connection(openDatabase(path, options));
  return { path, conn, rows: new JobRows(conn), close: () => conn.close() };
}
