/**
 * scripts/bench/store_guards.ts (`deno task store-guards`): the price of the database-enforced guards that the
 * closing notes cite. Its refusals at and past each flag's bounds, and one small real run of every variant.
 */

import assert from "node:assert/strict";
import { benchScript } from "./helpers/bench_script.ts";

const storeGuards = (...args: string[]) => benchScript("store_guards.ts", ...args);

Deno.test("store-guards refuses flags past their bounds, with exit 2 and its usage", async () => {
  const cases: [string[], RegExp][] = [
    [["--rounds", "0"], /Cannot use --rounds: expected an integer from 1 to 20, current value is 0/],
    [["--rounds", "21"], /current value is 21/],
    [["--jobs", "0"], /Cannot use --jobs: expected an integer from 1 to 200000, current value is 0/],
    [["--jobs", "200001"], /current value is 200001/],
    [["--jobs", "1.5"], /current value is 1.5/],
    [["--retained=-1"], /Cannot use --retained: expected an integer from 0 to 200000, current value is -1/],
    [["--retained", "200001"], /current value is 200001/],
    [["--nope"], /Unknown option '--nope'/],
  ];
  for (const [args, message] of cases) {
    const { code, stdout, stderr } = await storeGuards(...args);
    assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
    assert.match(stderr, message, args.join(" "));
    assert.match(stderr, /Usage: deno task store-guards/);
    assert.equal(stdout, "");
  }
});

Deno.test("store-guards --help prints its usage and runs nothing", async () => {
  const { code, stdout, stderr } = await storeGuards("--help");
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^Usage: deno task store-guards/);
  assert.doesNotMatch(stdout, /jobs\/s/);
});

Deno.test("store-guards --json: every variant at the bounds' low ends, each with its rate and its ratio to the store as shipped", async () => {
  const { code, stdout, stderr } = await storeGuards("--rounds", "1", "--jobs", "1", "--retained", "0", "--json");
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout) as {
    rounds: number;
    jobs: number;
    retained: number;
    loads: string[];
    variants: { variant: string; jobs_per_s: number; vs_shipped: number; rounds: number[] }[];
  };
  assert.deepEqual([report.rounds, report.jobs, report.retained], [1, 1, 0]);
  assert.equal(report.loads.length, 1);
  assert.deepEqual(report.variants.map((v) => v.variant), [
    "as shipped",
    "without jobs_guard",
    "without jobs_insert_new_only",
    "without both",
  ]);
  const shipped = report.variants[0]!;
  assert.equal(shipped.vs_shipped, 1);
  for (const v of report.variants) {
    assert.ok(v.jobs_per_s > 0 && v.rounds.length === 1, JSON.stringify(v));
    // Both rates are rounded to whole jobs per second; the ratio is of the unrounded medians.
    assert.ok(
      Math.abs(v.vs_shipped * shipped.jobs_per_s - v.jobs_per_s) <= 0.5 * v.vs_shipped + 0.5,
      JSON.stringify(v),
    );
  }
});
