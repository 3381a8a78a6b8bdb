/**
 * The `jobs.get` 100/1 p99 goal across the committed bench runs: each version of docs/benchmarks.md in git
 * history is one run of `deno task bench` (full or `--only mcp`), so its rows give that run's 1-id and 100-id
 * p50 / p99 and the ratio the goal reads. Printed beside each other, with each call's tail (its p99 over its p50),
 * the rank correlation (Spearman) of the 1-id p99 (how noisy the machine was for the call the ratio divides by)
 * and the ratio, how many runs met, and in how many the 100-id call's tail was the thinner one.
 *
 *   deno task bench-history [--since REV] [--json]
 *   (deno run --allow-run=git scripts/bench/p99_history.ts ...)
 *
 * The tails are computed from the figures as the file rounds them (two decimals of a millisecond).
 *
 * `--since REV`: only runs committed after REV (`git log REV..HEAD`). Runs whose file lacks any of the rows
 * (early versions) are left out and counted.
 *
 * `--goals`: instead, every goal row of the same runs ({@linkcode goalRecords}): in how many runs each goal was
 * met, and the runs that missed it with the value they wrote. A run written with `--only` re-measured one
 * section and kept the others; a kept row (the same "Measured ..." line) counts once, at the run that wrote it.
 * A goal whose target changed over the runs is listed once per target.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { median } from "./store/harness.ts";
import { BATCH_VS_ONE_GOAL } from "./goals.ts";
import { goalKey, goalMet, type GoalRow, goalRowsOf } from "./goal_rows.ts";

const USAGE = `Usage: deno run --allow-run=git scripts/bench/p99_history.ts [--since REV] [--goals] [--json]

The jobs.get 100/1 p99 goal in every committed version of docs/benchmarks.md (one per bench run),
newest first: each run's 1-id and 100-id p50 / p99, its ratio, each call's tail (p99 / p50) and,
where the run has it, the ratio from the Node host through the official SDK's transport; then how
many runs met the goal, the median ratio, the rank correlation of the 1-id p99 with the ratio, and
in how many runs the 100-id tail was the thinner.

  --since REV   only runs committed after REV
  --goals       every goal row instead: in how many runs each was measured and met, and the misses with
                their values (a section a run of --only NAME kept counts once)
  --json        one JSON object on stdout instead of the table
  --help        this text`;

const DOC = "docs/benchmarks.md";

/** One run's round trips as its docs/benchmarks.md wrote them, in ms, and the ratio row's p99 ratio. */
export interface P99Run {
  one: { p50: number; p99: number };
  hundred: { p50: number; p99: number };
  ratio: number;
  /** The same ratio from the Node host reading through the official SDK's transport (runs from f8b6353 on). */
  nodeSdkRatio?: number;
}

const ONE_ROW = /^\| jobs\.get 1 id, legacy stdio p50 \/ p99 \| ([\d.]+) \/ ([\d.]+) ms \|/m;
const HUNDRED_ROW = /^\| jobs\.get 100 ids, legacy stdio p50 \/ p99 \| ([\d.]+) \/ ([\d.]+) ms \|/m;
const RATIO_ROW = /^\| jobs\.get 100 ids p99 \/ 1 id p99 [^|]*\| \**([\d.]+)x/m;
const NODE_SDK_RATIO = /^\| jobs\.get 100 ids p99 \/ 1 id p99 from that Node host[^\n]*SDK \([^)]*\): ([\d.]+)x/m;

/** The run in one version of docs/benchmarks.md, or undefined if it lacks any of the three rows. */
export function parseRun(markdown: string): P99Run | undefined {
  const one = ONE_ROW.exec(markdown);
  const hundred = HUNDRED_ROW.exec(markdown);
  const ratio = RATIO_ROW.exec(markdown);
  if (one === null || hundred === null || ratio === null) return undefined;
  const nodeSdk = NODE_SDK_RATIO.exec(markdown);
  return {
    one: { p50: Number(one[1]), p99: Number(one[2]) },
    hundred: { p50: Number(hundred[1]), p99: Number(hundred[2]) },
    ratio: Number(ratio[1]),
    ...(nodeSdk === null ? {} : { nodeSdkRatio: Number(nodeSdk[1]) }),
  };
}

/** One goal across runs: the runs that wrote its row, how many met it, and each miss (newest first). */
export interface GoalRecord {
  goal: string;
  /** The goal cell (a goal whose target changed has a record per target). */
  target: string;
  /** The runs that measured it. */
  runs: number;
  met: number;
  misses: { commit: string; value: string }[];
}

/**
 * Every goal's record over `versions` (newest first), in the order the newest run lists them; a goal whose target
 * changed has a record per target. A row is one measurement, counted at the run that wrote it: a later version
 * that kept its section as it was (the same "Measured ..." line) adds nothing.
 */
export function goalRecords(versions: readonly { commit: string; rows: readonly GoalRow[] }[]): GoalRecord[] {
  const recordKey = (row: GoalRow) => `${goalKey(row)}\n${row.goal}`;
  const records = new Map<string, GoalRecord>();
  for (const { rows } of versions) {
    for (const row of rows) {
      const key = recordKey(row);
      if (!records.has(key)) records.set(key, { goal: goalKey(row), target: row.goal, runs: 0, met: 0, misses: [] });
    }
  }
  const seen = new Set<string>();
  for (const { commit, rows } of [...versions].reverse()) {
    for (const row of rows) {
      const key = recordKey(row);
      const measurement = `${key}\n${row.measured}`;
      if (row.measured !== "" && seen.has(measurement)) continue;
      seen.add(measurement);
      const record = records.get(key) as GoalRecord; // every key was added above
      record.runs++;
      if (goalMet(row)) record.met++;
      else record.misses.unshift({ commit, value: row.value }); // newest first, as the versions
    }
  }
  return [...records.values()];
}

/** A call's tail: its p99 over its p50. */
export const tailOf = (p: { p50: number; p99: number }) => p.p99 / p.p50;

/** Ranks from 1, ties given the mean of the ranks they span. */
export function ranks(values: readonly number[]): number[] {
  const order = values.map((value, i) => ({ value, i })).sort((a, b) => a.value - b.value);
  const out = new Array<number>(values.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]?.value === order[start]?.value) end++;
    for (let k = start; k <= end; k++) out[(order[k] as { i: number }).i] = (start + end) / 2 + 1;
    start = end + 1;
  }
  return out;
}

/** Spearman's rank correlation of paired samples (the Pearson correlation of their ranks); NaN under 2 pairs. */
export function spearman(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new RangeError(`Cannot correlate ${x.length} values with ${y.length}`);
  if (x.length < 2) return NaN;
  const [rx, ry] = [ranks(x), ranks(y)];
  const mean = (x.length + 1) / 2;
  let cov = 0, vx = 0, vy = 0;
  for (let i = 0; i < x.length; i++) {
    const [dx, dy] = [(rx[i] as number) - mean, (ry[i] as number) - mean];
    cov += dx * dy;
    vx += dx * dx;
    vy += dy * dy;
  }
  return vx === 0 || vy === 0 ? NaN : cov / Math.sqrt(vx * vy);
}

async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  return new TextDecoder().decode(out.stdout);
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: Deno.args,
      options: {
        since: { type: "string" },
        goals: { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean" },
      },
    }));
  } catch (err) {
    console.error(`p99_history: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  const range = values.since === undefined ? [] : [`${values.since}..HEAD`];
  const commits = (await git(["log", "--format=%h %cs", ...range, "--", DOC])).split("\n").filter((l) => l !== "");
  if (values.goals === true) return await printGoals(commits.map((l) => l.split(" ")[0] ?? ""), values.json === true);
  const runs: (P99Run & { commit: string; date: string })[] = [];
  let unreadable = 0;
  for (const line of commits) {
    const [commit = "", date = ""] = line.split(" ");
    const run = parseRun(await git(["show", `${commit}:${DOC}`]));
    if (run === undefined) unreadable++;
    else runs.push({ commit, date, ...run });
  }
  const rho = spearman(runs.map((r) => r.one.p99), runs.map((r) => r.ratio));
  const met = runs.filter((r) => r.ratio <= BATCH_VS_ONE_GOAL).length;
  const thinner = runs.filter((r) => tailOf(r.hundred) < tailOf(r.one)).length;
  const medianRatio = median(runs.map((r) => r.ratio));
  if (values.json === true) {
    console.log(
      JSON.stringify({
        runs,
        unreadable,
        spearman: rho,
        met,
        goal: BATCH_VS_ONE_GOAL,
        hundredTailThinner: thinner,
        medianRatio,
      }),
    );
    return 0;
  }
  console.log(
    "commit   date        1 id p50 / p99   100 ids p50 / p99   100/1 p99   tail (p99/p50) 1 id | 100 ids   " +
      "Node SDK 100/1 p99",
  );
  for (const r of runs) {
    const pair = (p: { p50: number; p99: number }) => `${p.p50.toFixed(2)} / ${p.p99.toFixed(2)} ms`;
    const tails = `${tailOf(r.one).toFixed(1)}x | ${tailOf(r.hundred).toFixed(1)}x`;
    console.log(
      `${r.commit.padEnd(8)} ${r.date}  ${pair(r.one).padEnd(16)} ${pair(r.hundred).padEnd(19)} ` +
        `${r.ratio.toFixed(2)}x`.padEnd(12) + tails.padEnd(33) +
        (r.nodeSdkRatio === undefined ? "" : `${r.nodeSdkRatio.toFixed(2)}x`),
    );
  }
  console.log(
    `${runs.length} runs (${unreadable} versions without the rows left out); met (<= ${BATCH_VS_ONE_GOAL}x) in ${met}; ` +
      `median ratio ${medianRatio.toFixed(2)}x; Spearman of the 1-id p99 and the ratio: ${rho.toFixed(2)}; ` +
      `the 100-id tail the thinner in ${thinner}`,
  );
  return 0;
}

/** `--goals`: each goal's record over the runs `commits` (newest first). */
async function printGoals(commits: readonly string[], json: boolean): Promise<number> {
  const versions = [];
  for (const commit of commits) versions.push({ commit, rows: goalRowsOf(await git(["show", `${commit}:${DOC}`])) });
  const records = goalRecords(versions);
  if (json) {
    console.log(JSON.stringify({ runs: commits.length, goals: records }));
    return 0;
  }
  for (const r of records) {
    console.log(`${r.goal}\n  goal ${r.target}: met in ${r.met} of ${r.runs} runs`);
    for (const miss of r.misses) console.log(`  missed at ${miss.commit}: ${miss.value}`);
  }
  console.log(`${commits.length} runs (a section a run kept as it was counts once)`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(
    await main().catch((err) => {
      // A revision git does not know, or no repository: one line, not a stack.
      console.error(`p99_history: ${err instanceof Error ? err.message : String(err)}`);
      return 1;
    }),
  );
}
