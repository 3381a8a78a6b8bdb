import assert from "node:assert/strict";
import {
  STORE_WAL_AUTOCHECKPOINT_PAGES,
  STORE_WAL_AUTOCHECKPOINT_PAGES_SERVING,
  STORE_WAL_SWITCH_PAUSE_MS_MAX,
} from "../base/limits.ts";
import { tempDir } from "../../testing/temp.ts";
import {
  nextWalSwitchPause,
  openDatabase,
  sqliteVersion,
  sqliteVersionWarning,
  walBytesOfPages,
  walSizeBytes,
} from "./db.ts";
import { Connection } from "./tx.ts";

Deno.test("nextWalSwitchPause: doubles from 1 ms up to STORE_WAL_SWITCH_PAUSE_MS_MAX, then stays there", () => {
  const pauses = [1];
  while (pauses.length < 10) pauses.push(nextWalSwitchPause(pauses.at(-1)!));
  assert.deepEqual(pauses, [1, 2, 4, 8, 16, 32, 50, 50, 50, 50]);
  assert.equal(STORE_WAL_SWITCH_PAUSE_MS_MAX, 50, "the sequence above is written for this bound");
  assert.equal(nextWalSwitchPause(STORE_WAL_SWITCH_PAUSE_MS_MAX / 2), STORE_WAL_SWITCH_PAUSE_MS_MAX, "at the bound");
  assert.equal(nextWalSwitchPause(STORE_WAL_SWITCH_PAUSE_MS_MAX / 2 + 1), STORE_WAL_SWITCH_PAUSE_MS_MAX, "past it");
});

/** The WAL header's checkpoint sequence number: SQLite adds one whenever a writer restarts the WAL after a
 * checkpoint copied all of it. */
function walRestarts(path: string): number {
  const header = Deno.readFileSync(`${path}-wal`).subarray(0, walBytesOfPages(0));
  return new DataView(header.buffer, header.byteOffset).getUint32(12);
}

for (const pages of [STORE_WAL_AUTOCHECKPOINT_PAGES, STORE_WAL_AUTOCHECKPOINT_PAGES_SERVING]) {
  Deno.test(`openDatabase: commits checkpoint once the WAL holds autocheckpointPages (${pages}) pages, not sooner`, async () => {
    await using dir = await tempDir("longcall-db-checkpoint-");
    const path = dir.file("x.db");
    const conn = new Connection(
      openDatabase(path, pages === STORE_WAL_AUTOCHECKPOINT_PAGES ? {} : { autocheckpointPages: pages }),
    );
    try {
      conn.db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL) STRICT; INSERT INTO t VALUES (1, 0)");
      conn.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      // Each commit rewrites one page, so it appends one frame to the WAL.
      const commit = () => conn.write(() => conn.stmt("UPDATE t SET v = v + 1 WHERE id = 1").run());
      await commit();
      const restarts = walRestarts(path);
      for (let frames = 1; frames < pages; frames++) await commit();
      const full = walBytesOfPages(pages);
      assert.equal(walSizeBytes(path), full, "every frame kept");
      assert.equal(walRestarts(path), restarts, `no checkpoint before the WAL held ${pages} pages`);
      // The commit that made it `pages` long checkpointed it: the next one starts the WAL over.
      await commit();
      assert.equal(walRestarts(path), restarts + 1, `checkpointed at ${pages} pages`);
      assert.equal(walSizeBytes(path), full, "written over, not appended");
    } finally {
      conn.close();
    }
  });
}

Deno.test("openDatabase: autocheckpointPages must be a positive integer (RangeError before opening)", async () => {
  await using dir = await tempDir("longcall-db-checkpoint-");
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => openDatabase(dir.file("x.db"), { autocheckpointPages: bad }), RangeError, String(bad));
  }
  await assert.rejects(Deno.stat(dir.file("x.db")), Deno.errors.NotFound, "refused before creating the file");
});

Deno.test("sqliteVersionWarning: SQLite up to 3.51.2 (the multi-process WAL bug) is named, later ones are not", () => {
  for (const old of ["3.7.0", "3.45.1", "3.51.2", "3.51", "2.9.9"]) {
    const warning = sqliteVersionWarning(old);
    assert.ok(warning !== undefined, old);
    assert.match(warning, new RegExp(`^SQLite ${old.replaceAll(".", "\\.")} in this Deno .* Deno 2\\.9\\.6 or newer`));
  }
  for (const fixed of ["3.51.3", "3.52.0", "3.53.2", "3.100.0", "4.0.0"]) {
    assert.equal(sqliteVersionWarning(fixed), undefined, fixed);
  }
  // The library this Deno ships, as a store reads it.
  const db = openDatabase(":memory:");
  try {
    assert.match(sqliteVersion(db), /^\d+\.\d+\.\d+$/);
    assert.equal(sqliteVersionWarning(sqliteVersion(db)), undefined, "Deno 2.9.6's SQLite has the fix");
  } finally {
    db.close();
  }
});
