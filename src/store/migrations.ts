/**
 * Forward-only schema migrations, written as TypeScript so a compiled binary carries
 * them. Version N is applied when `user_version` is N-1. Never edit a shipped entry;
 * append a new one.
 *
 * @module
 */

import { M001_JOBS } from "./migrations/m001_jobs.ts";
import { M002_CORPUS } from "./migrations/m002_corpus.ts";
import { M003_RECENT_RUNS } from "./migrations/m003_recent_runs.ts";
import { M004_LEAN_JOBS } from "./migrations/m004_lean_jobs.ts";
import { M005_GUARDS_WITHOUT_LISTS } from "./migrations/m005_guards_without_lists.ts";
import { M006_INSERT_NEW_IDS_ONLY } from "./migrations/m006_insert_new_ids_only.ts";
import { M007_ONE_ENDED_INDEX } from "./migrations/m007_one_ended_index.ts";

/** One migration step. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration in order; `MIGRATIONS[i].version === i + 1`. */
export const MIGRATIONS: readonly Migration[] = [
  M001_JOBS,
  M002_CORPUS,
  M003_RECENT_RUNS,
  M004_LEAN_JOBS,
  M005_GUARDS_WITHOUT_LISTS,
  M006_INSERT_NEW_IDS_ONLY,
  M007_ONE_ENDED_INDEX,
];

/** `PRAGMA application_id` of a longcall database ("LCAL"). */
export const APPLICATION_ID = 0x4c43414c;
