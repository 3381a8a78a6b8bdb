/**
 * The executor's steady state under a backlog: a batch of terminal writes refills the slots it frees
 * in its own transaction, so claims do not take transactions of their own (issue 14). Observed through
 * the SQL each write transaction ran (the connection's test seam), not through timing.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import { openHarness, tempDir, waitFor } from "../testing/temp.ts";

const CLAIM = /^UPDATE jobs SET status = 'running'/;
const TERMINAL = /^UPDATE jobs SET status = \?1/;

for (const runningMax of [1, 4]) {
  Deno.test(`Executor: terminal batches refill their slots in the same transaction (runningMax ${runningMax})`, async () => {
    await using dir = await tempDir();
    // A manual clock: no periodic loop (heartbeat, reconcile, cancel poll, sweep) writes meanwhile.
    const clock = new ManualClock(1_700_000_000_000);
    await using h = await openHarness(dir.file("a.db"), { clock, executor: { runningMax }, start: false });
    const jobs = runningMax * 6;
    const ids: string[] = [];
    for (let i = 0; i < jobs; i++) ids.push((await h.control.submit("echo", i)).id);
    const txs: string[][] = [];
    // `when` sees every write transaction's statements and never injects a fault.
    h.store.conn.faults = {
      errcode: 13,
      count: Infinity,
      when: (sql) => {
        txs.push([...sql]);
        return false;
      },
    };
    await h.executor!.start();
    await waitFor("backlog drained", () => h.terminal.length === jobs);
    h.store.conn.faults = undefined;
    const kinds = txs.map((sql) => ({
      claims: sql.filter((s) => CLAIM.test(s)).length,
      terminals: sql.filter((s) => TERMINAL.test(s)).length,
    })).filter((t) => t.claims + t.terminals > 0);
    // One claim for the first slots; then every batch of ends refills the slots it frees in its own
    // transaction. (Once the queue is empty, a wake-up may still look for work: those come after the end.)
    const lastEnd = kinds.findLastIndex((t) => t.terminals > 0);
    const claimOnly = kinds.slice(0, lastEnd).filter((t) => t.terminals === 0);
    assert.equal(claimOnly.length, 1, JSON.stringify(kinds));
    assert.equal(kinds.reduce((n, t) => n + t.terminals, 0), jobs);
    for (const id of ids) assert.equal(h.store.rows.jobGet(id)?.status, "succeeded");
    assert.equal(lastEnd, jobs / runningMax, JSON.stringify(kinds));
  });
}
