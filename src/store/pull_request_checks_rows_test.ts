import assert from "node:assert/strict";
import { WATCH_CHECKS_MAX } from "../base/limits.ts";
import type { PullRequestChecksObservation } from "./corpus_types.ts";
import { openDatabase } from "./db.ts";
import { PullRequestChecksRows } from "./pull_request_checks_rows.ts";
import { Connection } from "./tx.ts";

const T0 = Date.UTC(2026, 0, 1);
const SHA = "a".repeat(40);

const obs: PullRequestChecksObservation = {
  repository: "o/r",
  number: 5,
  head_sha: SHA,
  outcome: "succeeded",
  signature: "sig",
  checks: [],
  observed_at: T0,
};

async function withRows(fn: (rows: PullRequestChecksRows) => Promise<void>): Promise<void> {
  const conn = new Connection(openDatabase(":memory:"));
  try {
    await fn(new PullRequestChecksRows(conn));
  } finally {
    conn.close();
  }
}

Deno.test("PullRequestChecksRows: WATCH_CHECKS_MAX checks are stored; one more is a RangeError", async () => {
  await withRows(async (rows) => {
    const checks = Array.from({ length: WATCH_CHECKS_MAX + 1 }, (_, i) => ({ name: `c${i}` }));
    assert.equal(await rows.pullRequestChecksPut({ ...obs, checks: checks.slice(0, WATCH_CHECKS_MAX) }), true);
    assert.equal(rows.pullRequestChecksGet([{ repository: "o/r", number: 5 }])[0]?.checks.length, WATCH_CHECKS_MAX);
    await assert.rejects(
      () => rows.pullRequestChecksPut({ ...obs, checks, observed_at: T0 + 1 }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message ===
          `Cannot store pull request checks: at most ${WATCH_CHECKS_MAX} checks are stored; current value is ${checks.length}`,
    );
  });
});

Deno.test("PullRequestChecksRows: an older observation is ignored; the same time replaces", async () => {
  await withRows(async (rows) => {
    assert.equal(await rows.pullRequestChecksPut({ ...obs, observed_at: T0 + 10 }), true);
    assert.equal(await rows.pullRequestChecksPut({ ...obs, outcome: "failed", observed_at: T0 }), false);
    assert.equal(await rows.pullRequestChecksPut({ ...obs, signature: "sig-2", observed_at: T0 + 10 }), true);
    const [row] = rows.pullRequestChecksGet([{ repository: "o/r", number: 5 }, { repository: "o/r", number: 6 }]);
    assert.equal(row?.outcome, "succeeded");
    assert.equal(row?.signature, "sig-2");
    assert.deepEqual(rows.pullRequestChecksGet([{ repository: "o/r", number: 6 }]), [undefined]);
  });
});

Deno.test("PullRequestChecksRows: a bad repository, number, time or head SHA is refused", async () => {
  await withRows(async (rows) => {
    const bad: [Partial<PullRequestChecksObservation>, RegExp][] = [
      [{ repository: "o" }, /repository must be owner\/name/],
      [{ number: 0 }, /number must be an integer >= 1/],
      [{ observed_at: -5 }, /observed_at must be epoch milliseconds/],
      [{ head_sha: "A".repeat(40) }, /head_sha must be 40 lowercase hex/],
      [{ head_sha: "a".repeat(39) }, /head_sha must be 40 lowercase hex/],
    ];
    for (const [over, message] of bad) {
      await assert.rejects(() => rows.pullRequestChecksPut({ ...obs, ...over }), message, JSON.stringify(over));
    }
    assert.deepEqual(rows.pullRequestChecksGet([{ repository: "o/r", number: 5 }]), [undefined]);
  });
});
