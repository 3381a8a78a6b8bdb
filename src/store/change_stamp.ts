/**
 * One cheap probe that says whether the database may have changed: SQLite's `data_version`
 * (moves when any other connection, in this process or another, commits) joined with
 * `total_changes()` (moves when this connection writes). Two equal stamps from one
 * connection mean nothing was committed in between; a different stamp means something may
 * have changed (owner heartbeats and corpus writes move it too, so readers re-check).
 *
 * @module
 */

import type { Connection } from "./tx.ts";

const SQL = "SELECT total_changes() AS own, (SELECT data_version FROM pragma_data_version) AS others";

/** The connection's current change stamp (one O(1) read, no table touched). */
export function changeStamp(conn: Connection): string {
  const row = conn.stmt(SQL).get() as { own: number | bigint; others: number | bigint };
  return `${row.own}:${row.others}`;
}
