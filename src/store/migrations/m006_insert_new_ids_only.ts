import type { Migration } from "../migrations.ts";

/**
 * Closes the one way around m005's guards: `INSERT OR REPLACE` / `REPLACE INTO` on an existing job
 * id. REPLACE resolves the id conflict by deleting the old row, and that implicit delete fires no
 * DELETE trigger under SQLite's default `recursive_triggers = OFF`; even with the pragma ON, the
 * DELETE guard lets a terminal row go (retention deletes terminal rows), so a finished job's result
 * could be replaced, and with it OFF a live job could be swapped for a terminal one. A pragma
 * belongs to each connection and a raw one may set what it likes, so the guard is a trigger: an
 * insert whose id exists is refused, whatever the conflict clause. (An UPSERT's `DO UPDATE` already
 * runs `jobs_guard`; with this trigger it is refused before that.)
 *
 * longcall itself never inserts an existing id (ids are fresh; a collision was already refused by
 * the primary key), so its behaviour is unchanged; the cost is one primary-key probe per insert.
 */
export const M006_INSERT_NEW_IDS_ONLY: Migration = {
  version: 6,
  name: "insert_new_ids_only",
  sql: `
CREATE TRIGGER jobs_insert_new_only BEFORE INSERT ON jobs
WHEN EXISTS (SELECT 1 FROM jobs WHERE id = NEW.id)
BEGIN
  SELECT RAISE(ABORT, 'Cannot insert job: a job with this id already exists');
END;
`,
};
