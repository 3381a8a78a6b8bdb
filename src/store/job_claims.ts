/**
 * The claim: a live owner takes the oldest queued jobs of its kinds (FIFO), `queued -> running`,
 * in one transaction, fenced by its own lease: per job a SELECT of the next queued row, then its take
 * by rowid. The same statements run inside the executor's combined terminal-writes-and-claim
 * transaction (job_run_writes.ts).
 *
 * @module
 */

import { CLAIM_KINDS_INLINE_MAX } from "../base/limits.ts";
import { ACTIVE, type JobRow } from "./job_row.ts";
import type { Connection } from "./tx.ts";

/** Which queued jobs an executor's owner may claim, and how many at most. */
export interface ClaimRequest {
  ownerId: string;
  kinds: readonly string[];
  max: number;
  /**
   * Only these queued jobs (still FIFO among them), when given: a one-shot command's executor runs the job
   * it submitted and nothing else queued in the store (src/cli/follow_job.ts). Empty claims nothing.
   */
  ids?: readonly string[];
}

/**
 * What an executor needs of a job it just claimed (now `running` under its owner). Only these
 * columns are read back: the full row (22 columns, JSON re-parsed) cost a tenth of a claim.
 */
export type ClaimedJob = Pick<JobRow, "id" | "kind" | "request" | "attempt" | "phase">;

/**
 * The claim of one job read by the claim's SELECT (by rowid, in the same transaction), fenced by the
 * owner's live lease. Two statements instead of one `UPDATE ... WHERE id = (SELECT ...) RETURNING`:
 * SQLite collects RETURNING rows in a temporary table on every execution, and the outer `id =` was a
 * second primary-key search for the row the subquery had just found (5% of the lifecycle's
 * instructions, measured under callgrind).
 */
const TAKE_SQL =
  `UPDATE jobs SET status = 'running', owner_id = ?1, started_at = ?2, updated_at = ?2, attempt = attempt + 1
   WHERE rowid = ?3 AND status = 'queued'
     AND EXISTS (SELECT 1 FROM job_owners WHERE owner_id = ?1 AND heartbeat_at + lease_ms > ?2)`;

/** Claim SQL over one connection. */
export class JobClaims {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /**
   * Claims the oldest queued job of `claim.kinds` for the live owner `claim.ownerId` (FIFO) at `now`, or
   * returns undefined. The claim fails if the owner's own lease lapsed.
   */
  async jobClaimNextIfOwnerLive(
    claim: Omit<ClaimRequest, "max">,
    now: number,
  ): Promise<ClaimedJob | undefined> {
    return (await this.jobClaimBatchIfOwnerLive({ ownerId: claim.ownerId, kinds: claim.kinds, max: 1 }, now))[0];
  }

  /**
   * Claims up to `claim.max` of the oldest queued jobs of `claim.kinds` (FIFO order) for the owner
   * `claim.ownerId` at `now`, in one transaction: one commit for the batch instead of one per job.
   * Empty if the owner's lease lapsed.
   */
  jobClaimBatchIfOwnerLive(claim: ClaimRequest, now: number): Promise<ClaimedJob[]> {
    return this.#conn.write(() => this.jobClaimBatchInWrite(claim, now));
  }

  /**
   * The claim itself, inside a write transaction the caller holds (see {@linkcode jobClaimBatchIfOwnerLive}):
   * up to `c.max` jobs, none when the owner's lease lapsed.
   */
  jobClaimBatchInWrite(c: ClaimRequest, now: number): ClaimedJob[] {
    if (c.kinds.length === 0 || c.max <= 0 || c.ids?.length === 0) return [];
    const { sql, args } = c.ids === undefined ? this.#claimSql(c.kinds) : claimAmongSql(c.kinds, c.ids);
    const next = this.#conn.stmt(sql);
    const take = this.#conn.stmt(TAKE_SQL);
    const out: ClaimedJob[] = [];
    while (out.length < c.max) {
      const raw = next.get(...args) as (ClaimedJob & { r: number; request: string }) | undefined;
      if (raw === undefined) break;
      // Inside the write transaction the row read is still queued: only a lapsed lease refuses it.
      if (Number(take.run(c.ownerId, now, raw.r).changes) !== 1) break;
      out.push({
        id: raw.id,
        kind: raw.kind,
        request: JSON.parse(raw.request),
        attempt: raw.attempt + 1,
        phase: raw.phase,
      });
    }
    return out;
  }

  #claimKinds: readonly string[] = [];
  #claimSqlOf: { sql: string; args: readonly string[] } | undefined;

  /**
   * The statement that reads the next queued job of these kinds, rebuilt only when they change: an
   * executor claims with the same kinds every time, and a statement text built anew is hashed again
   * by the statement cache on every lookup (a fifth of the claim's JavaScript time).
   */
  #claimSql(kinds: readonly string[]): { sql: string; args: readonly string[] } {
    const same = this.#claimSqlOf !== undefined && kinds.length === this.#claimKinds.length &&
      kinds.every((k, i) => k === this.#claimKinds[i]);
    if (same) return this.#claimSqlOf!;
    // Up to CLAIM_KINDS_INLINE_MAX kinds are compared inline (`kind = ?1 OR kind = ?2 ...`): the
    // json_each form builds a temporary table of the kinds on every execution, once per claimed job.
    const inline = kinds.length <= CLAIM_KINDS_INLINE_MAX;
    const kindTerm = inline
      ? `(${kinds.map((_, i) => `kind = ?${i + 1}`).join(" OR ")})`
      : "kind IN (SELECT value FROM json_each(?1))";
    this.#claimKinds = [...kinds];
    this.#claimSqlOf = {
      sql: `SELECT rowid AS r, id, kind, request, attempt, phase FROM jobs
            WHERE ${ACTIVE} AND status = 'queued' AND ${kindTerm} ORDER BY created_at, rowid LIMIT 1`,
      args: inline ? [...kinds] : [JSON.stringify(kinds)],
    };
    return this.#claimSqlOf;
  }
}

/**
 * The statement that reads the next queued job among `ids` of these kinds. Built per claim: only a one-shot
 * command claims this way, for the one job it submitted.
 */
function claimAmongSql(kinds: readonly string[], ids: readonly string[]): { sql: string; args: readonly string[] } {
  return {
    sql: `SELECT rowid AS r, id, kind, request, attempt, phase FROM jobs
          WHERE id IN (SELECT value FROM json_each(?1)) AND ${ACTIVE} AND status = 'queued'
            AND kind IN (SELECT value FROM json_each(?2)) ORDER BY created_at, rowid LIMIT 1`,
    args: [JSON.stringify(ids), JSON.stringify(kinds)],
  };
}
