/**
 * What the database-enforced guards cost the job lifecycle: the executor's steady state driven straight through
 * JobRows (admission waves of the default bound in one transaction each, then transactions of up to the default
 * running bound of terminal writes plus the claims that refill their slots, as Executor runs them), on a store as
 * shipped and on copies without the guard triggers: `jobs_guard` (m005: terminal rows immutable, legal transitions
 * only) and `jobs_insert_new_only` (m006: no REPLACE over an existing job). No handler, no executor, no timers: the
 * store's own statements and commits, so the difference between variants is the triggers' price. A dev measurement
 * for the notes on issue 14 (what bounds the lifecycle goal), not part of `deno task bench`.
 *
 *   deno task store-guards [--rounds N] [--jobs N] [--retained N] [--json]
 *
 * Variants run alternately within each round, each on a fresh database that first retains `--retained` ended jobs;
 * the answer is the median per variant, with each round's load average.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { newJobId, newOwnerId } from "../../src/base/ids.ts";
import { JOB_ADMITTED_MAX_DEFAULT, JOB_RUNNING_MAX_DEFAULT } from "../../src/base/limits.ts";
import { intOption } from "../../src/cli/command.ts";
import { openStore, type Store, storeConnection } from "../../src/store/store.ts";
import { loadAverage } from "./load.ts";
import { median } from "./store/harness.ts";

const ROUNDS_DEFAULT = 3;
const JOBS_DEFAULT = 30_000;
/** Ended jobs each database holds before the timed part (the bench's lifecycle runs on a growing table too). */
const RETAINED_DEFAULT = 20_000;
/** Upper bounds of the flags: a run stays within minutes. */
const ROUNDS_MAX = 20;
const JOBS_MAX = 200_000;
const RETAINED_MAX = 200_000;

const HELP = `Usage: deno task store-guards [--rounds N] [--jobs N] [--retained N] [--json]

Times the job lifecycle's store writes (admission, claim, terminal write; no handler, no executor) on a store as
shipped and on copies without the guard triggers jobs_guard (m005) and jobs_insert_new_only (m006), alternating,
each on a fresh database holding --retained ended jobs first. Defaults: ${ROUNDS_DEFAULT} rounds (1..${ROUNDS_MAX}),
${JOBS_DEFAULT} jobs (1..${JOBS_MAX}), ${RETAINED_DEFAULT} retained (0..${RETAINED_MAX}).`;

const VARIANTS = {
  "as shipped": [],
  "without jobs_guard": ["jobs_guard"],
  "without jobs_insert_new_only": ["jobs_insert_new_only"],
  "without both": ["jobs_guard", "jobs_insert_new_only"],
} as const satisfies Record<string, readonly string[]>;
type Variant = keyof typeof VARIANTS;

/** A store and the registered owner that runs jobs on it. */
interface Owned {
  store: Store;
  ownerId: string;
}

/** Runs `count` jobs through admission, claim and terminal write as `owned.ownerId`; jobs per second. */
async function lifecycle(owned: Owned, count: number): Promise<number> {
  const { store, ownerId } = owned;
  const rows = store.rows;
  const claim = { ownerId, kinds: ["noop"], max: JOB_RUNNING_MAX_DEFAULT };
  const t0 = performance.now();
  for (let done = 0; done < count;) {
    const now = Date.now();
    const wave = Math.min(JOB_ADMITTED_MAX_DEFAULT, count - done);
    await Promise.all(Array.from({ length: wave }, () =>
      rows.jobInsertIfAdmitted({
        id: newJobId(now),
        kind: "noop",
        requestJson: "null",
        retentionMs: 86_400_000,
        authority: null,
        now,
        admittedMax: JOB_ADMITTED_MAX_DEFAULT,
      })));
    let running = (await rows.jobSetTerminalManyAndClaimIfOwned([], claim, { now })).claimed;
    while (running.length > 0) {
      const ends = running.map((job) => ({
        id: job.id,
        ownerId,
        attempt: job.attempt,
        terminal: { status: "succeeded" as const, outcome: "succeeded", resultJson: "null", error: null },
      }));
      const { landed, claimed } = await rows.jobSetTerminalManyAndClaimIfOwned(ends, claim, { now: Date.now() });
      if (!landed.every(Boolean)) throw new Error("Cannot measure: a terminal write did not land");
      done += landed.length;
      running = claimed;
    }
  }
  return count / ((performance.now() - t0) / 1000);
}

/** One variant on a fresh database in `dir`: `run.retained` jobs first, then `run.jobs` timed. */
async function measure(dir: string, run: { variant: Variant; jobs: number; retained: number }): Promise<number> {
  const { variant, jobs, retained } = run;
  const store = openStore(`${dir}/${variant.replaceAll(" ", "_")}.db`);
  try {
    for (const trigger of VARIANTS[variant]) storeConnection(store).db.exec(`DROP TRIGGER ${trigger}`);
    const ownerId = newOwnerId();
    await store.rows.ownerRegister({ ownerId, pid: Deno.pid, leaseMs: 3_600_000 }, Date.now());
    if (retained > 0) await lifecycle({ store, ownerId }, retained);
    return await lifecycle({ store, ownerId }, jobs);
  } finally {
    store.close();
  }
}

if (import.meta.main) {
  let values: { rounds?: string; jobs?: string; retained?: string; json?: boolean; help?: boolean };
  let rounds: number, jobs: number, retained: number;
  try {
    values = parseArgs({
      options: {
        rounds: { type: "string" },
        jobs: { type: "string" },
        retained: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
    rounds = intOption(values.rounds, { name: "rounds", min: 1, max: ROUNDS_MAX, fallback: ROUNDS_DEFAULT });
    jobs = intOption(values.jobs, { name: "jobs", min: 1, max: JOBS_MAX, fallback: JOBS_DEFAULT });
    retained = intOption(values.retained, { name: "retained", min: 0, max: RETAINED_MAX, fallback: RETAINED_DEFAULT });
  } catch (err) {
    console.error(`store-guards: ${err instanceof Error ? err.message : err}\n\n${HELP}`);
    Deno.exit(2);
  }
  if (values.help === true) {
    console.log(HELP);
    Deno.exit(0);
  }
  const rates = new Map<Variant, number[]>(Object.keys(VARIANTS).map((v) => [v as Variant, []]));
  const loads: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const dir = await Deno.makeTempDir({ prefix: "longcall-store-guards-" });
    try {
      loads.push(await loadAverage());
      for (const variant of rates.keys()) rates.get(variant)!.push(await measure(dir, { variant, jobs, retained }));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  const shipped = median(rates.get("as shipped")!);
  const variants = [...rates].map(([variant, r]) => ({
    variant,
    jobs_per_s: Math.round(median(r)),
    vs_shipped: median(r) / shipped,
    rounds: r.map(Math.round),
  }));
  if (values.json === true) {
    console.log(JSON.stringify({ rounds, jobs, retained, loads, variants }));
  } else {
    console.log(
      `${rounds} alternating rounds of ${jobs} jobs after ${retained} retained; 1-min load ${loads.join(", ")}`,
    );
    for (const v of variants) {
      console.log(
        `${v.variant}: ${v.jobs_per_s} jobs/s = ${v.vs_shipped.toFixed(2)}x as shipped (${v.rounds.join(", ")})`,
      );
    }
  }
}
