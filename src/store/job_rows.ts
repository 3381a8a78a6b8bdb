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
import {
  type FencedTerminalWrite,
  type JobFence,
  JobRunWrites,
  type ProgressWrite,
  type TerminalWrite,
} from "./job_run_writes.ts";
import { type OwnerRegistration, OwnerRows } from "./owner_rows.ts";
import type { Connection } from "./tx.ts";

export type { CancelEffect, ClaimedJob, ClaimRequest, JobEvent, JobInsert, JobRow, JobStatus, ProgressWrite };
export type { FencedTerminalWrite, JobFence, OwnerRegistration, ReconcileRelease, TerminalWrite };
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
  ownerRegister(owner: OwnerRegistration, now: number): Promise<void> {
    return this.#owners.ownerRegister(owner, now);
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
  jobClaimNextIfOwnerLive(claim: Omit<ClaimRequest, "max">, now: number): Promise<ClaimedJob | undefined> {
    return this.#claims.jobClaimNextIfOwnerLive(claim, now);
  }

  /** See {@linkcode JobClaims.jobClaimBatchIfOwnerLive}. */
  jobClaimBatchIfOwnerLive(claim: ClaimRequest, now: number): Promise<ClaimedJob[]> {
    return this.#claims.jobClaimBatchIfOwnerLive(claim, now);
  }

  /** See {@linkcode JobRunWrites.jobSetProgressIfOwned}. */
  jobSetProgressIfOwned(fence: JobFence, p: ProgressWrite, options: { now: number }): Promise<boolean> {
    return this.#runWrites.jobSetProgressIfOwned(fence, p, options);
  }

  /** See {@linkcode JobRunWrites.jobEventAppend}. */
  jobEventAppend(id: string, event: Omit<JobEvent, "seq">): Promise<void> {
    return this.#runWrites.jobEventAppend(id, event);
  }

  /** See {@linkcode JobRunWrites.jobSetTerminalIfOwned}. */
  jobSetTerminalIfOwned(fence: JobFence, t: TerminalWrite, options: { now: number }): Promise<JobRow | undefined> {
    return this.#runWrites.jobSetTerminalIfOwned(fence, t, options);
  }

  /** See {@linkcode JobRunWrites.jobSetTerminalManyIfOwned}. */
  jobSetTerminalManyIfOwned(items: readonly FencedTerminalWrite[], now: number): Promise<boolean[]> {
    return this.#runWrites.jobSetTerminalManyIfOwned(items, now);
  }

  /** See {@linkcode JobRunWrites.jobSetTerminalManyAndClaimIfOwned}. */
  jobSetTerminalManyAndClaimIfOwned(
    items: readonly FencedTerminalWrite[],
    claim: ClaimRequest,
    options: { now: number },
  ): Promise<{ landed: boolean[]; claimed: ClaimedJob[] }> {
    return this.#runWrites.jobSetTerminalManyAndClaimIfOwned(items, claim, options);
  }

  /** See {@linkcode JobRunWrites.jobSetInterruptedIfOwned}. */
  jobSetInterruptedIfOwned(fence: JobFence, now: number): Promise<JobRow | undefined> {
    return this.#runWrites.jobSetInterruptedIfOwned(fence, now);
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
