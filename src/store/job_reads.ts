/**
 * Job reads: one job, a batch by id, the list, the FIFO queue positions of one job or of a batch,
 * recent run times (poll guidance) and a job's events. Plain statements, no transaction.
 *
 * @module
 */

import { IDS_PER_CALL_MAX } from "../base/limits.ts";
import { recentRuns } from "./job_ended.ts";
import {
  ACTIVE,
  BATCH_COLUMNS,
  COLUMNS,
  type JobEvent,
  type JobRow,
  type JobStatus,
  parseRow,
  type Raw,
  rowOfArray,
} from "./job_row.ts";
import type { Connection } from "./tx.ts";

/**
 * The batch reads' own statements (their text is theirs alone: the cached statements return arrays).
 * The ids drive the loop (a join from `json_each` to the primary key, one seek per id) instead of
 * `id IN (SELECT ...)`, which first builds an ephemeral index of the ids. The subquery names only
 * `wanted`, so the columns of `jobs` stay unambiguous (json_each has an `id` column too).
 */
const batchSql = (columns: "concise" | "all") =>
  `SELECT ${BATCH_COLUMNS(columns)} FROM (SELECT value AS wanted FROM json_each(?)) JOIN jobs ON jobs.id = wanted`;
const BATCH_SQL = { concise: batchSql("concise"), all: batchSql("all") };

/** Read-only SQL over `jobs` and `job_events`. */
export class JobReads {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /** One job, or undefined. */
  jobGet(id: string): JobRow | undefined {
    const raw = this.#conn.stmt(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`).get(
      id,
    ) as Raw | undefined;
    return raw === undefined ? undefined : parseRow(raw);
  }

  /**
   * Several jobs by id in one statement (at most {@linkcode IDS_PER_CALL_MAX}; a repeated id is read
   * once per occurrence, the map keeps one); unknown ids are absent from the map. `concise` leaves the
   * request and result unread and unparsed (as `null`): the concise `jobs.get` view shows neither.
   */
  jobGetMany(ids: readonly string[], columns: "concise" | "all"): Map<string, JobRow> {
    if (ids.length > IDS_PER_CALL_MAX) {
      throw new RangeError(`Cannot read jobs: at most ${IDS_PER_CALL_MAX} ids, current value is ${ids.length}`);
    }
    const stmt = this.#conn.stmt(BATCH_SQL[columns]);
    // Arrays, not objects: rowOfArray builds each row as one literal (see there). node:sqlite's
    // `StatementSync.setReturnArrays` (Node 24; Deno implements it, its bundled types lag behind).
    (stmt as unknown as { setReturnArrays(enabled: boolean): void }).setReturnArrays(true);
    const out = new Map<string, JobRow>();
    for (const a of stmt.all(JSON.stringify(ids)) as unknown as unknown[][]) {
      const row = rowOfArray(a);
      out.set(row.id, row);
    }
    return out;
  }

  /**
   * The FIFO position (0 = next) of each queued job among `ids`, and how many jobs run now: what
   * queue guidance needs for a whole batch of reads, in two statements. SQLite numbers the queue
   * (at most the admission bound) and returns only the batch's rows; an id that is not queued (or
   * unknown) is absent.
   */
  jobQueuePositions(ids: readonly string[]): { ahead: Map<string, number>; running: number } {
    const rows = this.#conn.stmt(
      `SELECT id, ahead FROM (
         SELECT id, row_number() OVER (ORDER BY created_at, rowid) - 1 AS ahead
         FROM jobs WHERE ${ACTIVE} AND status = 'queued'
       ) WHERE id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as { id: string; ahead: number }[];
    const r = this.#conn.stmt(`SELECT count(*) AS n FROM jobs WHERE ${ACTIVE} AND status = 'running'`).get() as {
      n: number;
    };
    return { ahead: new Map(rows.map((q) => [q.id, q.ahead])), running: r.n };
  }

  /** Jobs newest first, filtered. */
  jobList(
    filter: { status?: JobStatus; kind?: string; limit: number },
  ): JobRow[] {
    const rows = this.#conn.stmt(
      `SELECT ${COLUMNS} FROM jobs WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR kind = ?2)
       ORDER BY rowid DESC LIMIT ?3`,
    ).all(filter.status ?? null, filter.kind ?? null, filter.limit) as Raw[];
    return rows.map(parseRow);
  }

  /** Position of a queued job in the FIFO queue (0 = next), and how many run now. */
  jobQueuePosition(id: string): { ahead: number; running: number } {
    const r = this.#conn.stmt(
      `SELECT
         (SELECT count(*) FROM jobs q WHERE ${ACTIVE} AND q.status = 'queued'
           AND (q.created_at < j.created_at OR (q.created_at = j.created_at AND q.rowid < j.rowid))) AS ahead,
         (SELECT count(*) FROM jobs WHERE ${ACTIVE} AND status = 'running') AS running
       FROM jobs j WHERE j.id = ?`,
    ).get(id) as { ahead: number; running: number } | undefined;
    return r ?? { ahead: 0, running: 0 };
  }

  /** Mean run time of the newest succeeded jobs of a kind (a sample: {@linkcode recentRuns}), if any. */
  jobRecentRunMs(kind: string): number | undefined {
    const runs = recentRuns(this.#conn, kind);
    return runs.length === 0 ? undefined : runs.reduce((sum, r) => sum + r.ms, 0) / runs.length;
  }

  /** A job's events, oldest first. */
  jobEvents(id: string): JobEvent[] {
    return this.#conn.stmt(
      "SELECT seq, at, level, message FROM job_events WHERE job_id = ? ORDER BY seq",
    ).all(
      id,
    ) as unknown as JobEvent[];
  }
}
