/**
 * scripts/bench/startup_ab.ts (`deno task startup-ab`): the side-by-side start-up command the closing
 * notes cite. Its refusals, and one real round of this tree against the hello server.
 */

import assert from "node:assert/strict";
import { benchScript } from "./helpers/bench_script.ts";

const startupAb = (...args: string[]) => benchScript("startup_ab.ts", ...args);

Deno.test("startup-ab refuses what it cannot compare, with exit 2 and its usage", async () => {
  const cases: [string[], RegExp][] = [
    [[], /give at least one NAME=ENTRY/],
    [["src/main.ts"], /expected NAME=ENTRY/],
    [["a="], /expected NAME=ENTRY/],
    [["a=src/main.ts", "a=src/main.ts"], /names must be distinct and not "hello"/],
    [["hello=src/main.ts"], /names must be distinct and not "hello"/],
    [["--runs", "0", "a=src/main.ts"], /--runs: expected an integer from 1 to 200, current value is 0/],
    [["--runs", "201", "a=src/main.ts"], /current value is 201/],
    [["--runs", "1.5", "a=src/main.ts"], /current value is 1.5/],
    [["--without-resolution", "b", "a=src/main.ts"], /--without-resolution: it names no entry, current value is b/],
  ];
  for (const [args, message] of cases) {
    const { code, stdout, stderr } = await startupAb(...args);
    assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
    assert.match(stderr, message, args.join(" "));
    assert.match(stderr, /Usage: deno task startup-ab/);
    assert.equal(stdout, "");
  }
});

Deno.test("startup-ab --runs 1 --json: this tree, with and without the resolution flag, against hello", async () => {
  const { code, stdout, stderr } = await startupAb(
    "--runs",
    "1",
    "--json",
    "--without-resolution",
    "plain",
    "now=src/main.ts",
    "plain=src/main.ts",
  );
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout) as {
    runs: number;
    load: { before: string; after: string };
    hello_ms: number;
    results: {
      name: string;
      resolution: boolean;
      median_ms: number;
      vs_hello: number;
      paired_diff_ms: number;
      serving_at_ms: number;
    }[];
  };
  assert.equal(report.runs, 1);
  assert.match(report.load.before, /^\d+\.\d+$/);
  assert.ok(report.hello_ms > 0);
  const [now, plain] = report.results;
  assert.equal(now?.name, "now");
  assert.equal(now.resolution, true);
  // Without the launch line's resolution flag the same tree still serves (as it did before the flag).
  assert.equal(plain?.name, "plain");
  assert.equal(plain.resolution, false);
  assert.ok(plain.median_ms > 0 && Number.isInteger(plain.serving_at_ms));
  assert.equal(now.vs_hello, now.median_ms / report.hello_ms);
  // One round: the per-round difference is that round's own.
  assert.equal(now.paired_diff_ms, now.median_ms - report.hello_ms);
  assert.ok(Number.isInteger(now.serving_at_ms) && now.serving_at_ms > 0, "it logged its start-up phases");
});
