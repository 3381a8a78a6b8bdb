/**
 * An executor's owner row and the lease its heartbeats keep. The lease fences every write the
 * executor makes for its jobs: past it, another process may record them as lost
 * (src/jobs/reconciler.ts), so a terminal write is retried only while {@linkcode OwnerHeartbeat.holds}.
 *
 * ```
 *   register ──▶ live ── beat (lease held) ──▶ live
 *                 │
 *                 └─ beat refused (lease lapsed) ──▶ lost ── renew (fresh owner id) ──▶ live
 * ```
 *
 * @module
 */

import type { Clock } from "../base/clock.ts";
import { newOwnerId } from "../base/ids.ts";
import type { JobRows } from "../store/job_rows.ts";

/** The owner-row writes a heartbeat makes. */
export type OwnerRows = Pick<JobRows, "ownerRegister" | "ownerHeartbeatIfLive" | "ownerDelete">;

/** What an owner row records and how long its lease lasts. */
export interface OwnerHeartbeatOptions {
  /** Real time: heartbeats and the lease. */
  clock: Clock;
  /** The process id stored in the owner row. */
  pid: number;
  /** How long a heartbeat keeps the lease. */
  leaseMs: number;
}

/** One executor's owner row, its heartbeat and its lease. */
export class OwnerHeartbeat {
  readonly #rows: OwnerRows;
  readonly #clock: Clock;
  readonly #pid: number;
  readonly #leaseMs: number;
  #ownerId = newOwnerId();
  /** Until when this owner's lease certainly holds: the last heartbeat written plus the lease
   * (never later than the stored lease, whose heartbeat_at is at most the local time of the write). */
  #leaseUntil = -Infinity;

  constructor(rows: OwnerRows, options: OwnerHeartbeatOptions) {
    this.#rows = rows;
    this.#clock = options.clock;
    this.#pid = options.pid;
    this.#leaseMs = options.leaseMs;
  }

  /** The current owner id (a fresh one after {@linkcode renew}). */
  get ownerId(): string {
    return this.#ownerId;
  }

  /** Writes the owner row; the lease holds from now. */
  async register(): Promise<void> {
    const registeredAt = this.#clock.now();
    await this.#rows.ownerRegister({ ownerId: this.#ownerId, pid: this.#pid, leaseMs: this.#leaseMs }, registeredAt);
    this.#leaseUntil = registeredAt + this.#leaseMs;
  }

  /**
   * Refreshes the heartbeat. True while the lease held; false when it had lapsed (the owner lost
   * its jobs: the caller aborts them and calls {@linkcode renew}). A storage fault throws and leaves
   * the lease as it was, so it lapses unless a later beat lands.
   */
  async beat(): Promise<boolean> {
    const at = this.#clock.now();
    const live = await this.#rows.ownerHeartbeatIfLive(this.#ownerId, at);
    if (live) this.#leaseUntil = at + this.#leaseMs;
    return live;
  }

  /** Starts afresh under a new owner id after a lost lease. */
  renew(): Promise<void> {
    this.#ownerId = newOwnerId();
    return this.register();
  }

  /** Whether the lease certainly holds now (writes under it may land). */
  holds(): boolean {
    return this.#clock.now() < this.#leaseUntil;
  }

  /** Deletes the owner row (clean shutdown). */
  delete(): Promise<void> {
    return this.#rows.ownerDelete(this.#ownerId);
  }
}
