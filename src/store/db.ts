/**
 * Opening the database: the only place that imports `node:sqlite`. Applies pragmas,
 * checks the schema identity (a foreign or newer database is refused, never touched)
 * and runs migrations.
 *
 * @module
 */

import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { AppError } from "../base/errors.ts";
import {
  STORE_BUSY_TIMEOUT_MS,
  STORE_JOURNAL_SIZE_LIMIT_BYTES,
  STORE_OPEN_BUSY_TIMEOUT_MS,
  STORE_WAL_AUTOCHECKPOINT_PAGES,
  STORE_WAL_SWITCH_PAUSE_MS_MAX,
} from "../base/limits.ts";
import { APPLICATION_ID, MIGRATIONS } from "./migrations.ts";
import {
  SQLITE_BUSY,
  SQLITE_CANTOPEN,
  SQLITE_CORRUPT,
  SQLITE_FULL,
  SQLITE_IOERR,
  SQLITE_LOCKED,
  SQLITE_NOTADB,
  SQLITE_READONLY,
  sqlitePrimaryCode,
} from "./sqlite_codes.ts";

export type { DatabaseSync };

/** `synchronous` pragma: NORMAL survives process crashes (WAL); FULL also power loss. */
export type Synchronous = "NORMAL" | "FULL";

export interface OpenOptions {
  synchronous?: Synchronous;
  /** Busy timeout used while migrating at start-up, when blocking briefly is harmless. */
  migrationBusyTimeoutMs?: number;
  /** The WAL length in pages at which this connection's commits checkpoint (SQLite's autocheckpoint; default
   * {@linkcode STORE_WAL_AUTOCHECKPOINT_PAGES}). */
  autocheckpointPages?: number;
}

/** Creates the parent directory (0700) and the file (0600) if missing. An existing file is
 * left alone without touching its directory (the network worker may read only the file). */
function prepareFile(path: string): void {
  if (path === ":memory:") return;
  try {
    const info = Deno.statSync(path);
    if (!info.isFile) {
      throw new AppError(
        "store_incompatible",
        `Cannot open database ${path}: it is ${
          info.isDirectory ? "a directory" : "not a regular file"
        }, not a database file; pass --db with a file path (it is created if missing)`,
      );
    }
    // Never opened here to probe it: closing any descriptor of a file drops every POSIX lock this process holds
    // on it, the SQLite connections' included (a second open in the same process, the network worker's, would
    // silently unlock the first). A read-only file is refused by openDatabase, through SQLite.
    return;
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (!(err instanceof Deno.errors.NotFound)) throw unusablePath(path, err);
  }
  // File modes exist only on POSIX; on Windows the per-user profile directory's ACL protects
  // the default path (docs/SECURITY.md). node:path's dirname knows both separators there.
  const posix = Deno.build.os !== "windows";
  try {
    Deno.mkdirSync(dirname(path), { recursive: true, ...(posix ? { mode: 0o700 } : {}) });
    const file = Deno.openSync(path, { create: true, write: true, ...(posix ? { mode: 0o600 } : {}) });
    file.close();
    if (posix) Deno.chmodSync(path, 0o600);
  } catch (err) {
    throw unusablePath(path, err);
  }
}

/** A database path the file system refuses (read-only, not this user's, a file where a directory should be). */
function unusablePath(path: string, err: unknown): AppError {
  return new AppError(
    "storage_unavailable",
    `Cannot use database path ${path}: ${err instanceof Error ? err.message : String(err)}; pass --db (or ` +
      `LONGCALL_DB) with a path this user may read and write`,
    { cause: err },
  );
}

function pragmaNumber(db: DatabaseSync, name: string): number {
  const row = db.prepare(`PRAGMA ${name}`).get() as
    | Record<string, unknown>
    | undefined;
  return Number(row?.[name] ?? 0);
}

/**
 * Opens (creating if needed) a longcall database and brings its schema up to date.
 *
 * @throws {AppError} `store_incompatible` for a database that is not longcall's or is
 *   newer than this program, a file that is not an SQLite database, a damaged one, a
 *   directory at the path, or a file SQLite cannot open (each message names the path).
 */
export function openDatabase(
  path: string,
  options: OpenOptions = {},
): DatabaseSync {
  const autocheckpointPages = options.autocheckpointPages ?? STORE_WAL_AUTOCHECKPOINT_PAGES;
  if (!Number.isSafeInteger(autocheckpointPages) || autocheckpointPages < 1) {
    throw new RangeError(
      `Cannot open database: autocheckpointPages must be a positive integer, current value is ${autocheckpointPages}`,
    );
  }
  prepareFile(path);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
  } catch (err) {
    throw openError(path, err);
  }
  const openBusyMs = options.migrationBusyTimeoutMs ?? STORE_OPEN_BUSY_TIMEOUT_MS;
  try {
    db.exec(`PRAGMA busy_timeout = ${openBusyMs}`);
    // Refuse a foreign or newer database before anything writes to it: switching the
    // journal mode to WAL rewrites the file header. One read transaction, so the header and the
    // schema are read from one snapshot (another process may commit its migration in between).
    readIdentity(db, path);
    if (path !== ":memory:") switchToWal(db, openBusyMs);
    if (path !== ":memory:") refuseReadOnly(db);
    db.exec(`PRAGMA synchronous = ${options.synchronous ?? "NORMAL"}`);
    db.exec("PRAGMA foreign_keys = ON");
    db.exec(`PRAGMA wal_autocheckpoint = ${autocheckpointPages}`);
    db.exec(`PRAGMA journal_size_limit = ${STORE_JOURNAL_SIZE_LIMIT_BYTES}`);
    migrate(db, path);
    db.exec(`PRAGMA busy_timeout = ${STORE_BUSY_TIMEOUT_MS}`);
    return db;
  } catch (err) {
    db.close();
    throw openError(path, err);
  }
}

/**
 * Throws SQLITE_READONLY (see openError) for a file SQLite could open for reading only (read-only, immutable, on
 * a read-only mount), so it is refused at open, by path, not at a server's first write after it started serving.
 * The write is the header's own user_version, rolled back (in WAL mode BEGIN IMMEDIATE alone succeeds on such a
 * file: its lock lives in the -shm file).
 */
function refuseReadOnly(db: DatabaseSync): void {
  const version = pragmaNumber(db, "user_version");
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec(`PRAGMA user_version = ${version}`);
  } finally {
    if (db.isTransaction) db.exec("ROLLBACK");
  }
}

/**
 * `PRAGMA journal_mode = WAL`, retried for up to `busyMs`: SQLite answers it SQLITE_BUSY at once, without its
 * busy handler, while another connection holds a lock on a file still in rollback mode (two servers opening
 * the same new database together). Blocking is harmless here: the process does not serve yet.
 */
function switchToWal(db: DatabaseSync, busyMs: number): void {
  const deadline = Date.now() + busyMs;
  for (let pause = 1;; pause = nextWalSwitchPause(pause)) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (err) {
      const code = sqlitePrimaryCode(err);
      const left = deadline - Date.now();
      if ((code !== SQLITE_BUSY && code !== SQLITE_LOCKED) || left <= 0) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(pause, left));
    }
  }
}

/** The pause after `pause` ms between two WAL switch attempts: doubled, at most STORE_WAL_SWITCH_PAUSE_MS_MAX. */
export function nextWalSwitchPause(pause: number): number {
  return Math.min(pause * 2, STORE_WAL_SWITCH_PAUSE_MS_MAX);
}

/** Start-up errors that say which file and what is wrong with it (never a bare "internal error"). */
function openError(path: string, err: unknown): unknown {
  if (err instanceof AppError) return err;
  const primary = sqlitePrimaryCode(err);
  const detail = (err as { errstr?: unknown })?.errstr ?? (err instanceof Error ? err.message : String(err));
  if (primary === SQLITE_NOTADB) {
    return new AppError(
      "store_incompatible",
      `Cannot open database ${path}: the file is not an SQLite database (${String(detail)}); it was left ` +
        `unchanged. Move it away or pass --db with another path`,
      { cause: err },
    );
  }
  if (primary === SQLITE_CORRUPT) {
    return new AppError(
      "store_incompatible",
      `Cannot open database ${path}: the database file is damaged (${String(detail)}); it was left unchanged. ` +
        `Restore it from a backup or pass --db with another path`,
      { cause: err },
    );
  }
  if (primary === SQLITE_READONLY) {
    return new AppError(
      "storage_unavailable",
      `Cannot use database path ${path}: SQLite can only read it (${String(detail)}: the file, its directory or ` +
        `the file system is read-only); pass --db (or LONGCALL_DB) with a path this user may read and write`,
      { cause: err },
    );
  }
  if (primary === SQLITE_FULL || primary === SQLITE_IOERR) {
    return new AppError(
      "storage_unavailable",
      `Cannot open database ${path}: ${String(detail)} while preparing it; free space or fix the disk, then retry`,
      { retryable: true, cause: err },
    );
  }
  if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED) {
    return new AppError(
      "store_busy",
      `Cannot open database ${path}: another process held its write lock for longer than the start-up wait ` +
        `(${String(detail)}); retry in a moment`,
      { retryable: true, retryAfterMs: 1_000, cause: err },
    );
  }
  if (primary === SQLITE_CANTOPEN || (err instanceof Error && /unable to open database file/.test(err.message))) {
    return new AppError(
      "store_incompatible",
      `Cannot open database ${path}: SQLite could not open the file (${String(detail)}); check that its ` +
        `directory exists and that this user may read and write both`,
      { cause: err },
    );
  }
  return err;
}

/**
 * {@linkcode checkIdentity} in one read transaction, so the header and the schema come from one snapshot:
 * another process may commit its migration between two statements run on their own.
 */
function readIdentity(db: DatabaseSync, path: string): number {
  db.exec("BEGIN");
  try {
    return checkIdentity(db, path);
  } finally {
    // Ended by SQLite itself when a read failed (SQLITE_FULL, SQLITE_IOERR): a COMMIT would then fail with
    // "no transaction is active" and hide the error that says what happened (see migrate).
    if (db.isTransaction) db.exec("COMMIT");
  }
}

function checkIdentity(db: DatabaseSync, path: string): number {
  const appId = pragmaNumber(db, "application_id");
  const version = pragmaNumber(db, "user_version");
  if (appId === 0) {
    const row = db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as {
      n: number;
    };
    if (row.n > 0) {
      throw new AppError(
        "store_incompatible",
        `Cannot open database ${path}: it is not a longcall database (it has tables but no longcall application_id); it was left unchanged`,
      );
    }
    return 0;
  }
  if (appId !== APPLICATION_ID) {
    throw new AppError(
      "store_incompatible",
      `Cannot open database ${path}: its application_id is ${appId}, not longcall's ${APPLICATION_ID}; it was left unchanged`,
    );
  }
  if (version > MIGRATIONS.length) {
    throw new AppError(
      "store_incompatible",
      `Cannot open database ${path}: its schema version is ${version}, newer than this longcall (${MIGRATIONS.length}); upgrade longcall`,
    );
  }
  return version;
}

function migrate(db: DatabaseSync, path: string): void {
  if (readIdentity(db, path) === MIGRATIONS.length) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const current = checkIdentity(db, path);
    for (const m of MIGRATIONS.slice(current)) {
      db.exec(m.sql);
      db.exec(`PRAGMA user_version = ${m.version}`);
    }
    db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    db.exec("COMMIT");
  } catch (err) {
    // SQLite may have rolled the transaction back itself (SQLITE_FULL, SQLITE_IOERR): a ROLLBACK then fails
    // with "no transaction is active" and would hide the error that says what happened.
    if (db.isTransaction) db.exec("ROLLBACK");
    throw err;
  }
}

/** The newest SQLite release with the WAL bug in which several processes writing one database could, rarely,
 * corrupt it (3.7.0 to this one; Deno 2.9.6 ships 3.53.2, which has the fix). */
export const SQLITE_WAL_BUG_LAST = "3.51.2";

/** The SQLite library version of this process's `node:sqlite` (e.g. "3.53.2"). */
export function sqliteVersion(db: DatabaseSync): string {
  return String((db.prepare("SELECT sqlite_version() AS v").get() as { v: unknown }).v);
}

/** What to tell a user whose SQLite has the multi-process WAL bug ({@linkcode SQLITE_WAL_BUG_LAST}), or undefined. */
export function sqliteVersionWarning(version: string): string | undefined {
  if (compareVersions(version, SQLITE_WAL_BUG_LAST) > 0) return undefined;
  return `SQLite ${version} in this Deno (${Deno.version.deno}) has a rare bug that can corrupt a database several ` +
    `processes write at once (SQLite 3.7.0 to ${SQLITE_WAL_BUG_LAST}); run longcall with Deno 2.9.6 or newer ` +
    `(SQLite 3.53.2), or use a released binary, before sharing a database between servers`;
}

/** Dotted versions compared part by part as numbers (a missing part is 0): negative, 0 or positive. */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Bytes of a WAL file holding `pages` frames of SQLite's default 4 KiB page (the page size longcall's databases
 * have): the 32-byte WAL header, then per frame a 24-byte frame header and the page. */
export function walBytesOfPages(pages: number): number {
  return 32 + pages * (24 + 4096);
}

/** Size in bytes of the database's WAL file (0 when absent). */
export function walSizeBytes(path: string): number {
  try {
    return Deno.statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}
