/**
 * Job rows: every SQL statement about jobs, owners and events, behind one object (`store.rows`) so
 * the control and execution sides take a single dependency (or a `Pick` of it). Methods are named
 * noun first with their guard in the name (`jobSetTerminalIfOwned`); each is one `BEGIN IMMEDIATE`
 * transaction through {@linkcode Connection.write}, or a plain read. Each method is one part's:
 *
 * - job_row.ts: the row type, job states, row decoders (shared by the parts);
 * - job_admission.ts: admission, the group-committed insert queue;
 * - job_reads.ts: one job, batches, the list, the queue positions of a batch and of one job, recent run time, events;
 * - job_claims.ts: the claim (`queued -> running` for a live owner);
 * - job_run_writes.ts: progress, events, the fenced terminal writes, `interrupted` at shutdown;
 * - job_cancellation.ts: cancellation requests and the owner's read of them;
 * - job_maintenance.ts: reconciliation and retention;
 * - owner_rows.ts: the owners table (`job_owners`).
 *
 * @module
 */

import { changeStamp } from "./change_stamp.ts";
import { JobAdmission, type JobInsert } from "./job_admission.ts";
import { type CancelEffect, JobCancellation } from "./job_cancellation.ts";
import { type ClaimedJob, type ClaimRequest, JobClaims } from "./job_claims.ts";
import { JobMaintenance, type ReconcileRelease } from "./job_maintenance.ts";
import { JobReads } from "./job_reads.ts";
import type { JobEvent, JobRow, JobStatus } from "./job_row.ts";
import { JobRunWrites, type ProgressWrite, type TerminalWrite } from "./job_run_writes.ts";
import { OwnerRows } from "./owner_rows.ts";
import type { Connection } from "./tx.ts";

export type { CancelEffect, ClaimedJob, ClaimRequest, JobEvent, JobInsert, JobRow, JobStatus, ProgressWrite };
export type { ReconcileRelease, TerminalWrite };
export { TERMINAL_STATUSES } from "./job_row.ts";

/** SQL access to jobs, events and owners over one connection. */
export class JobRows {
  // Callers use the methods, or changeStamp().
  readonly #conn: Connection;
  readonly #admission: JobAdmission;
  readonly #reads: JobReads;
  readonly #claims: JobClaims;
  readonly #runWrites: JobRunWrites;
  readonly #cancellation: JobCancellation;
  readonly #maintenance: JobMaintenance;
  readonly #owners: OwnerRows;

  constructor(conn: Connection) {
    this.#conn = conn;
    this.#admission = new JobAdmission(conn);
    this.#reads = new JobReads(conn);
    this.#claims = new JobClaims(conn);
    this.#runWrites = new JobRunWrites(conn, this.#claims);
    this.#cancellation = new JobCancellation(conn, this.#reads);
    this.#maintenance = new JobMaintenance(conn);
    this.#owners = new OwnerRows(conn);
  }

  /** This connection's change stamp (src/store/change_stamp.ts): moves when any connection commits. */
  changeStamp(): string {
    return changeStamp(this.#conn);
  }

  // ------------------------------------------------------------ control side

  /** See {@linkcode JobAdmission.jobInsertIfAdmitted}. */
  jobInsertIfAdmitted(input: JobInsert): Promise<JobRow> {
    return this.#admission.jobInsertIfAdmitted(input);
  }

  /** See {@linkcode JobAdmission.jobCountAdmitted}. */
  jobCountAdmitted(): number {
    return this.#admission.jobCountAdmitted();
  }

  /** See {@linkcode JobReads.jobGet}. */
  jobGet(id: string): JobRow | undefined {
    return this.#reads.jobGet(id);
  }

  /** See {@linkcode JobReads.jobGetMany}. */
  jobGetMany(ids: readonly string[], columns: "concise" | "all"): Map<string, JobRow> {
    return this.#reads.jobGetMany(ids, columns);
  }

  /** See {@linkcode JobReads.jobQueuePositions}. */
  jobQueuePositions(ids: readonly string[]): { ahead: Map<string, number>; running: number } {
    return this.#reads.jobQueuePositions(ids);
  }

  /** See {@linkcode JobReads.jobList}. */
  jobList(filter: { status?: JobStatus; kind?: string; limit: number }): JobRow[] {
    return this.#reads.jobList(filter);
  }

  /** See {@linkcode JobReads.jobQueuePosition}. */
  jobQueuePosition(id: string): { ahead: number; running: number } {
    return this.#reads.jobQueuePosition(id);
  }

  /** See {@linkcode JobReads.jobRecentRunMs}. */
  jobRecentRunMs(kind: string): number | undefined {
    return this.#reads.jobRecentRunMs(kind);
  }

  /** See {@linkcode JobCancellation.jobCancelRequest}. */
  jobCancelRequest(id: string, now: number): Promise<CancelEffect> {
    return this.#cancellation.jobCancelRequest(id, now);
  }

  /** See {@linkcode JobReads.jobEvents}. */
  jobEvents(id: string): JobEvent[] {
    return this.#reads.jobEvents(id);
  }

  // ------------------------------------------------------------ execution side

  /** See {@linkcode OwnerRows.ownerRegister}. */
  ownerRegister(ownerId: string, pid: number, now: number, leaseMs: number): Promise<void> {
    return this.#owners.ownerRegister(ownerId, pid, now, leaseMs);
  }

  /** See {@linkcode OwnerRows.ownerHeartbeatIfLive}. */
  ownerHeartbeatIfLive(ownerId: string, now: number): Promise<boolean> {
    return this.#owners.ownerHeartbeatIfLive(ownerId, now);
  }

  /** See {@linkcode OwnerRows.ownerDelete}. */
  ownerDelete(ownerId: string): Promise<void> {
    return this.#owners.ownerDelete(ownerId);
  }

  /** See {@linkcode OwnerRows.ownerListLive}. */
  ownerListLive(now: number): { owner_id: string; pid: number; heartbeat_at: number }[] {
    return this.#owners.ownerListLive(now);
  }

  /** See {@linkcode JobClaims.jobClaimNextIfOwnerLive}. */
  jobClaimNextIfOwnerLive(ownerId: string, kinds: readonly string[], now: number): Promise<ClaimedJob | undefined> {
    return this.#claims.jobClaimNextIfOwnerLive(ownerId, kinds, now);
  }

  /** See {@linkcode JobClaims.jobClaimBatchIfOwnerLive}. */
  jobClaimBatchIfOwnerLive(ownerId: string, kinds: readonly string[], now: number, max: number): Promise<ClaimedJob[]> {
    return this.#claims.jobClaimBatchIfOwnerLive(ownerId, kinds, now, max);
  }

  /** See {@linkcode JobRunWrites.jobSetProgressIfOwned}. */
  jobSetProgressIfOwned(id: string, ownerId: string, attempt: number, p: ProgressWrite, now: number): Promise<boolean> {
    return this.#runWrites.jobSetProgressIfOwned(id, ownerId, attempt, p, now);
  }

  /** See {@linkcode JobRunWrites.jobEventAppend}. */
  jobEventAppend(id: string, level: JobEvent["level"], message: string, now: number): Promise<void> {
    return this.#runWrites.jobEventAppend(id, level, message, now);
  }

  /** See {@linkcode JobRunWrites.jobSetTerminalIfOwned}. */
  jobSetTerminalIfOwned(
    id: string,
    ownerId: string,
    attempt: number,
    t: TerminalWrite,
    now: number,
  ): Promise<JobRow | undefined> {
    return this.#runWrites.jobSetTerminalIfOwned(id, ownerId, attempt, t, now);
  }

  /** See {@linkcode JobRunWrites.jobSetTerminalManyIfOwned}. */
  jobSetTerminalManyIfOwned(
    items: readonly { id: string; ownerId: string; attempt: number; terminal: TerminalWrite }[],
    now: number,
  ): Promise<boolean[]> {
    return this.#runWrites.jobSetTerminalManyIfOwned(items, now);
  }

  /** See {@linkcode JobRunWrites.jobSetTerminalManyAndClaimIfOwned}. */
  jobSetTerminalManyAndClaimIfOwned(
    items: readonly { id: string; ownerId: string; attempt: number; terminal: TerminalWrite }[],
    claim: ClaimRequest,
    now: number,
  ): Promise<{ landed: boolean[]; claimed: ClaimedJob[] }> {
    return this.#runWrites.jobSetTerminalManyAndClaimIfOwned(items, claim, now);
  }

  /** See {@linkcode JobRunWrites.jobSetInterruptedIfOwned}. */
  jobSetInterruptedIfOwned(id: string, ownerId: string, attempt: number, now: number): Promise<JobRow | undefined> {
    return this.#runWrites.jobSetInterruptedIfOwned(id, ownerId, attempt, now);
  }

  /** See {@linkcode JobCancellation.jobListCancelRequested}. */
  jobListCancelRequested(ownerId: string): string[] {
    return this.#cancellation.jobListCancelRequested(ownerId);
  }

  /** See {@linkcode JobMaintenance.jobReconcileLost}. */
  jobReconcileLost(now: number, release?: ReconcileRelease | (() => ReconcileRelease | undefined)): Promise<string[]> {
    return this.#maintenance.jobReconcileLost(now, release);
  }

  /** See {@linkcode JobMaintenance.jobDeleteExpired}. */
  jobDeleteExpired(now: number, batch: number): Promise<number> {
    return this.#maintenance.jobDeleteExpired(now, batch);
  }
}
