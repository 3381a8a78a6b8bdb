/**
 * retentionSweep (src/jobs/retention_sweep.ts) over a real in-memory store: batches until one comes
 * back short, keeps jobs not yet expired and jobs not ended, stops when told, refuses a bad batch.
 */

import assert from "node:assert/strict";
import { ManualClock } from "../base/clock.ts";
import { openStore } from "../store/store.ts";
import { retentionSweep } from "./retention_sweep.ts";

const RETENTION_MS = 1_000;

/** `n` jobs cancelled while queued (ended, expiring RETENTION_MS later) plus one still queued, at `at.clock`'s time. */
async function seed(at: { store: ReturnType<typeof openStore>; clock: ManualClock }, n: number): Promise<void> {
  const { store, clock } = at;
  for (let i = 0; i < n + 1; i++) {
    await store.rows.jobInsertIfAdmitted({
      id: crypto.randomUUID(),
      kind: "test",
      requestJson: "{}",
      retentionMs: RETENTION_MS,
      authority: null,
      now: clock.now(),
      admittedMax: 1_000,
    });
  }
  for (const row of store.rows.jobList({ status: "queued", limit: n })) {
    await store.rows.jobCancelRequest(row.id, clock.now());
  }
}

Deno.test("retentionSweep: deletes expired ended jobs in batches until a short batch; keeps the queued job", async () => {
  const store = openStore(":memory:");
  try {
    const clock = new ManualClock();
    await seed({ store, clock }, 7);
    assert.equal(
      await retentionSweep(store.rows, { clock, keepGoing: () => true, batchMax: 3 }),
      0,
      "nothing has expired yet",
    );
    clock.advance(RETENTION_MS);
    const batches: number[] = [];
    const rows = {
      jobDeleteExpired: async (now: number, batch: number) => {
        const n = await store.rows.jobDeleteExpired(now, batch);
        batches.push(n);
        return n;
      },
    };
    assert.equal(await retentionSweep(rows, { clock, keepGoing: () => true, batchMax: 3 }), 7);
    assert.deepEqual(batches, [3, 3, 1]);
    assert.equal(store.rows.jobList({ status: "queued", limit: 10 }).length, 1, "a queued job never expires");
  } finally {
    store.close();
  }
});

Deno.test("retentionSweep: a batch of exactly batchMax asks once more (and gets an empty batch)", async () => {
  const store = openStore(":memory:");
  try {
    const clock = new ManualClock();
    await seed({ store, clock }, 3);
    clock.advance(RETENTION_MS);
    const batches: number[] = [];
    const rows = {
      jobDeleteExpired: async (now: number, batch: number) => {
        const n = await store.rows.jobDeleteExpired(now, batch);
        batches.push(n);
        return n;
      },
    };
    assert.equal(await retentionSweep(rows, { clock, keepGoing: () => true, batchMax: 3 }), 3);
    assert.deepEqual(batches, [3, 0]);
  } finally {
    store.close();
  }
});

Deno.test("retentionSweep: stops between batches once keepGoing() is false", async () => {
  const store = openStore(":memory:");
  try {
    const clock = new ManualClock();
    await seed({ store, clock }, 5);
    clock.advance(RETENTION_MS);
    let batches = 0;
    const rows = {
      jobDeleteExpired: (now: number, batch: number) => {
        batches++;
        return store.rows.jobDeleteExpired(now, batch);
      },
    };
    assert.equal(await retentionSweep(rows, { clock, keepGoing: () => batches < 1, batchMax: 2 }), 2);
    assert.equal(await retentionSweep(rows, { clock, keepGoing: () => false, batchMax: 2 }), 0, "not started at all");
    assert.equal(batches, 1);
  } finally {
    store.close();
  }
});

Deno.test("retentionSweep: refuses a batchMax of 0 or a fraction (which would never end or be rounded by SQLite)", async () => {
  const store = openStore(":memory:");
  try {
    for (const bad of [0, -1, 1.5]) {
      await assert.rejects(
        retentionSweep(store.rows, { clock: new ManualClock(), keepGoing: () => true, batchMax: bad }),
        (err: unknown) => err instanceof RangeError && err.message.includes(`current value is ${bad}`),
      );
    }
  } finally {
    store.close();
  }
});
