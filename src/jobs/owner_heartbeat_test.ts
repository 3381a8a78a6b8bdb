/**
 * OwnerHeartbeat (src/jobs/owner_heartbeat.ts) over a real in-memory store and a ManualClock: the
 * lease it keeps locally matches the stored one (register, beat, lapse, renew, delete).
 * tests/jobs_test.ts and tests/storage_faults_test.ts cover what the executor does on a lost lease.
 */

import assert from "node:assert/strict";
import { ManualClock } from "../base/clock.ts";
import { openStore } from "../store/store.ts";
import { OwnerHeartbeat } from "./owner_heartbeat.ts";

const LEASE_MS = 3_000;

function withStore(fn: (store: ReturnType<typeof openStore>, clock: ManualClock) => Promise<void>): Promise<void> {
  const store = openStore(":memory:");
  return fn(store, new ManualClock()).finally(() => store.close());
}

Deno.test("OwnerHeartbeat: the lease holds from register() until exactly leaseMs later, as the stored row says", async () => {
  await withStore(async (store, clock) => {
    const owner = new OwnerHeartbeat(store.rows, { clock, pid: 4242, leaseMs: LEASE_MS });
    assert.equal(owner.holds(), false, "no lease before register()");
    await owner.register();
    assert.equal(owner.holds(), true);
    assert.deepEqual(store.rows.ownerListLive(clock.now()).map((o) => [o.owner_id, o.pid]), [[owner.ownerId, 4242]]);
    clock.advance(LEASE_MS - 1);
    assert.equal(owner.holds(), true, "1 ms before the lease ends it holds");
    clock.advance(1);
    assert.equal(owner.holds(), false, "at the lease's end it no longer holds");
    assert.equal(store.rows.ownerListLive(clock.now()).length, 0, "the stored lease lapsed at the same moment");
  });
});

Deno.test("OwnerHeartbeat: a beat within the lease extends it from the beat's time", async () => {
  await withStore(async (store, clock) => {
    const owner = new OwnerHeartbeat(store.rows, { clock, pid: 1, leaseMs: LEASE_MS });
    await owner.register();
    clock.advance(LEASE_MS - 1);
    assert.equal(await owner.beat(), true);
    clock.advance(LEASE_MS - 1);
    assert.equal(owner.holds(), true, "the lease runs from the last beat");
    clock.advance(1);
    assert.equal(owner.holds(), false);
  });
});

Deno.test("OwnerHeartbeat: a beat after the lease lapsed is refused; renew() starts a fresh owner id with a fresh lease", async () => {
  await withStore(async (store, clock) => {
    const owner = new OwnerHeartbeat(store.rows, { clock, pid: 1, leaseMs: LEASE_MS });
    await owner.register();
    const first = owner.ownerId;
    clock.advance(LEASE_MS);
    assert.equal(await owner.beat(), false, "a lapsed lease is not revived");
    assert.equal(owner.holds(), false);
    await owner.renew();
    assert.notEqual(owner.ownerId, first);
    assert.equal(owner.holds(), true);
    assert.deepEqual(store.rows.ownerListLive(clock.now()).map((o) => o.owner_id), [owner.ownerId]);
  });
});

Deno.test("OwnerHeartbeat: delete() removes the owner row, so the next beat is refused", async () => {
  await withStore(async (store, clock) => {
    const owner = new OwnerHeartbeat(store.rows, { clock, pid: 1, leaseMs: LEASE_MS });
    await owner.register();
    await owner.delete();
    assert.equal(store.rows.ownerListLive(clock.now()).length, 0);
    assert.equal(await owner.beat(), false);
  });
});

Deno.test("OwnerHeartbeat: a beat that throws leaves the lease where the last beat put it", async () => {
  const clock = new ManualClock();
  let failing = false;
  const store = openStore(":memory:");
  try {
    const owner = new OwnerHeartbeat(
      {
        ownerRegister: (...a) => store.rows.ownerRegister(...a),
        ownerDelete: (id) => store.rows.ownerDelete(id),
        ownerHeartbeatIfLive: (id, now) =>
          failing ? Promise.reject(new Error("disk I/O error")) : store.rows.ownerHeartbeatIfLive(id, now),
      },
      { clock, pid: 1, leaseMs: LEASE_MS },
    );
    await owner.register();
    clock.advance(LEASE_MS - 1);
    failing = true;
    await assert.rejects(owner.beat(), /disk I\/O error/);
    clock.advance(1);
    assert.equal(owner.holds(), false, "a failed beat did not extend the lease");
  } finally {
    store.close();
  }
});
