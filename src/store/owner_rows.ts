/**
 * The owners table (`job_owners`): an executor registers its owner, keeps its lease alive with
 * heartbeats, deletes it on a clean shutdown; the live ones can be listed.
 * A job is owned through `jobs.owner_id`; every job write fenced by ownership checks the lease here.
 *
 * @module
 */

import type { Connection } from "./tx.ts";

/** An executor's owner row as it registers: its id, its process and how long a heartbeat keeps its lease. */
export interface OwnerRegistration {
  ownerId: string;
  pid: number;
  leaseMs: number;
}

/** SQL over `job_owners`. */
export class OwnerRows {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /** Registers an executor owner, started and last heard from at `now`. */
  ownerRegister(owner: OwnerRegistration, now: number): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.stmt(
        "INSERT INTO job_owners (owner_id, pid, started_at, heartbeat_at, lease_ms) VALUES (?, ?, ?, ?, ?)",
      ).run(owner.ownerId, owner.pid, now, now, owner.leaseMs);
    });
  }

  /**
   * Refreshes an owner's heartbeat if its lease has not lapsed. Returns false when the
   * owner is gone or stale: it lost its jobs and must abort them.
   */
  ownerHeartbeatIfLive(ownerId: string, now: number): Promise<boolean> {
    return this.#conn.write(() => {
      const r = this.#conn.stmt(
        "UPDATE job_owners SET heartbeat_at = ?1 WHERE owner_id = ?2 AND heartbeat_at + lease_ms > ?1",
      ).run(now, ownerId);
      return Number(r.changes) === 1;
    });
  }

  /** Deletes an owner row (clean shutdown). */
  ownerDelete(ownerId: string): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.stmt("DELETE FROM job_owners WHERE owner_id = ?").run(ownerId);
    });
  }

  /** Live owners (heartbeat within lease). */
  ownerListLive(
    now: number,
  ): { owner_id: string; pid: number; heartbeat_at: number }[] {
    return this.#conn.stmt(
      "SELECT owner_id, pid, heartbeat_at FROM job_owners WHERE heartbeat_at + lease_ms > ? ORDER BY started_at",
    ).all(now) as unknown as {
      owner_id: string;
      pid: number;
      heartbeat_at: number;
    }[];
  }
}
