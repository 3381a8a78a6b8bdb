/**
 * The SQLite result codes longcall tells apart, in one table for the two places that classify
 * SQLite errors: opening a database (db.ts: which file is wrong and how) and writing to it
 * (tx.ts: busy, or a transient storage fault). See https://sqlite.org/rescode.html.
 *
 * `node:sqlite` errors carry the code in `errcode` (extended codes keep the primary code in the
 * low byte), except `db.exec` errors, which carry only SQLite's message: for those the message
 * is mapped back to its code.
 *
 * @module
 */

export const SQLITE_BUSY = 5;
export const SQLITE_LOCKED = 6;
export const SQLITE_READONLY = 8;
export const SQLITE_IOERR = 10;
export const SQLITE_CORRUPT = 11;
export const SQLITE_FULL = 13;
export const SQLITE_CANTOPEN = 14;
export const SQLITE_NOTADB = 26;

/** SQLite's own message (`sqlite3_errstr`) for the codes whose errors may arrive as a message only. */
export const SQLITE_MESSAGES: Readonly<Record<number, string>> = {
  [SQLITE_IOERR]: "disk I/O error",
  [SQLITE_CORRUPT]: "database disk image is malformed",
  [SQLITE_FULL]: "database or disk is full",
  [SQLITE_NOTADB]: "file is not a database",
  [SQLITE_BUSY]: "database is locked",
  [SQLITE_LOCKED]: "database table is locked",
  [SQLITE_READONLY]: "attempt to write a readonly database",
};

/** The primary result code in an error's `errcode` (extended codes folded), or `undefined`. */
export function sqliteErrcode(err: unknown): number | undefined {
  const code = (err as { errcode?: unknown } | null | undefined)?.errcode;
  return typeof code === "number" ? code & 0xff : undefined;
}

/** The primary result code an error names by SQLite's message at its start, or `undefined`. */
export function sqliteCodeFromMessage(err: unknown): number | undefined {
  if (!(err instanceof Error)) return undefined;
  for (const [code, message] of Object.entries(SQLITE_MESSAGES)) {
    if (err.message.startsWith(message)) return Number(code);
  }
  return undefined;
}

/** The primary result code of an SQLite error: its `errcode`, else, for an error `node:sqlite` raised
 * (`code: "ERR_SQLITE_ERROR"`: `db.exec` errors carry only the message), the one its message names; else
 * `undefined` (another error's message is never read as SQLite's). */
export function sqlitePrimaryCode(err: unknown): number | undefined {
  return sqliteErrcode(err) ??
    ((err as { code?: unknown } | null | undefined)?.code === "ERR_SQLITE_ERROR"
      ? sqliteCodeFromMessage(err)
      : undefined);
}
