import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  SQLITE_BUSY,
  SQLITE_CORRUPT,
  SQLITE_FULL,
  SQLITE_IOERR,
  SQLITE_MESSAGES,
  SQLITE_NOTADB,
  sqliteCodeFromMessage,
  sqliteErrcode,
  sqlitePrimaryCode,
} from "./sqlite_codes.ts";
import { isBusyError, isStorageFault, sqliteError } from "./tx.ts";

/** The error `fn` throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.fail("expected an error");
}

Deno.test("sqliteErrcode: the primary code of errcode, extended codes folded; undefined without errcode", () => {
  assert.equal(sqliteErrcode({ errcode: SQLITE_BUSY }), SQLITE_BUSY);
  assert.equal(sqliteErrcode({ errcode: SQLITE_IOERR | (3 << 8) }), SQLITE_IOERR, "SQLITE_IOERR_WRITE");
  assert.equal(sqliteErrcode({ errcode: SQLITE_BUSY | (2 << 8) }), SQLITE_BUSY, "SQLITE_BUSY_SNAPSHOT");
  for (const value of [new Error("database or disk is full"), { errcode: "13" }, {}, null, undefined, 13]) {
    assert.equal(sqliteErrcode(value), undefined, String(value));
  }
});

Deno.test("sqliteCodeFromMessage: SQLite's message at the start of an error names its code", () => {
  for (const [code, message] of Object.entries(SQLITE_MESSAGES)) {
    assert.equal(sqliteCodeFromMessage(new Error(message)), Number(code), message);
    assert.equal(sqliteCodeFromMessage(new Error(`${message}: /tmp/x.db`)), Number(code), `${message} with detail`);
    assert.equal(sqliteCodeFromMessage(new Error(`oops: ${message}`)), undefined, "only at the start");
  }
  assert.equal(sqliteCodeFromMessage(new Error("no such table: jobs_x")), undefined, "a message not in the table");
  assert.equal(sqliteCodeFromMessage("database or disk is full"), undefined, "a string is not an error");
});

Deno.test("a real not-a-database error classifies alike with errcode (prepare) and message only (exec)", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/garbage.db`;
    Deno.writeTextFileSync(path, "x".repeat(8192));
    const db = new DatabaseSync(path);
    try {
      const prepared = thrown(() => db.prepare("SELECT * FROM sqlite_schema").all());
      const executed = thrown(() => db.exec("SELECT * FROM sqlite_schema"));
      assert.equal(sqliteErrcode(prepared), SQLITE_NOTADB);
      assert.equal(sqliteErrcode(executed), undefined, "db.exec errors carry no errcode");
      assert.equal(sqliteCodeFromMessage(executed), SQLITE_NOTADB, "SQLITE_MESSAGES holds SQLite's own text");
      assert.equal((prepared as { errstr?: unknown }).errstr, SQLITE_MESSAGES[SQLITE_NOTADB]);
    } finally {
      db.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("isBusyError: a real SQLITE_BUSY from a prepared statement is busy; other errors are not", () => {
  const dir = Deno.makeTempDirSync();
  const a = new DatabaseSync(`${dir}/x.db`);
  const b = new DatabaseSync(`${dir}/x.db`);
  try {
    a.exec("PRAGMA busy_timeout = 0; CREATE TABLE t (x)");
    b.exec("PRAGMA busy_timeout = 0");
    a.exec("BEGIN IMMEDIATE");
    const busy = thrown(() => b.prepare("BEGIN IMMEDIATE").run());
    assert.equal(isBusyError(busy), true);
    assert.equal(isBusyError({ errcode: 6 | (1 << 8) }), true, "SQLITE_LOCKED_SHAREDCACHE");
    assert.equal(isBusyError(sqliteError(SQLITE_FULL)), false);
    assert.equal(isBusyError(new Error("database is locked")), false, "a message alone is not enough");
    a.exec("ROLLBACK");
  } finally {
    a.close();
    b.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("isStorageFault: full disk and I/O errors by errcode, or by message from node:sqlite only", () => {
  assert.equal(isStorageFault(sqliteError(SQLITE_FULL)), true);
  assert.equal(isStorageFault(sqliteError(SQLITE_IOERR | (3 << 8))), true);
  assert.equal(isStorageFault(sqliteError(SQLITE_CORRUPT)), false);
  const fromExec = (message: string) => Object.assign(new Error(message), { code: "ERR_SQLITE_ERROR" });
  assert.equal(isStorageFault(fromExec("database or disk is full")), true);
  assert.equal(isStorageFault(fromExec("disk I/O error")), true);
  assert.equal(isStorageFault(fromExec("database disk image is malformed")), false);
  assert.equal(isStorageFault(new Error("database or disk is full")), false, "not raised by node:sqlite");
  assert.equal(isStorageFault(null), false);
});

Deno.test("sqlitePrimaryCode: errcode first, a message only from node:sqlite, from a real db.exec error too", () => {
  assert.equal(sqlitePrimaryCode(sqliteError(SQLITE_BUSY | (2 << 8))), SQLITE_BUSY);
  const execError = thrown(() => {
    const dir = Deno.makeTempDirSync();
    try {
      Deno.writeTextFileSync(`${dir}/x.db`, "x".repeat(4096));
      new DatabaseSync(`${dir}/x.db`).exec("PRAGMA journal_mode = WAL");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  });
  assert.equal((execError as { errcode?: unknown }).errcode, undefined, "db.exec errors carry no errcode");
  assert.equal(sqlitePrimaryCode(execError), SQLITE_NOTADB);
  assert.equal(sqlitePrimaryCode(new Error("file is not a database")), undefined, "not raised by node:sqlite");
  assert.equal(sqlitePrimaryCode(null), undefined);
});

Deno.test("sqliteError: shaped like node:sqlite, with SQLite's message for known codes", () => {
  const err = sqliteError(SQLITE_NOTADB) as Error & Record<string, unknown>;
  assert.equal(err.code, "ERR_SQLITE_ERROR");
  assert.equal(err.errcode, SQLITE_NOTADB);
  assert.equal(err.errstr, "file is not a database");
  assert.equal(err.message, "file is not a database");
  assert.equal(sqliteError(99).message, "SQLite error 99");
});
