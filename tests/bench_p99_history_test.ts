/** scripts/bench/p99_history.ts: reading a bench run's p99 rows, and the rank correlation it prints. */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { goalRecords, parseRun, ranks, spearman, tailOf } from "../scripts/bench/p99_history.ts";
import { goalKey, goalRowsOf } from "../scripts/bench/goal_rows.ts";

const SCRIPT = fileURLToPath(new URL("../scripts/bench/p99_history.ts", import.meta.url));
const DOC = fileURLToPath(new URL("../docs/benchmarks.md", import.meta.url));

Deno.test("parseRun: reads the rows docs/benchmarks.md has now (a renamed row fails here, not in the history)", async () => {
  const doc = await Deno.readTextFile(DOC);
  const run = parseRun(doc);
  assert.ok(run !== undefined, "every row found");
  for (const ms of [run.one.p50, run.one.p99, run.hundred.p50, run.hundred.p99, run.ratio]) {
    assert.ok(Number.isFinite(ms) && ms > 0, String(ms));
  }
  assert.ok(run.one.p50 <= run.one.p99 && run.hundred.p50 <= run.hundred.p99);
  // A run on a machine without node writes the Node rows as not measured.
  if (doc.includes("| SDK (socket): ")) assert.ok(run.nodeSdkRatio !== undefined && run.nodeSdkRatio > 0);
});

Deno.test("parseRun: a met and a missed ratio (bold), and a version without one of the rows", () => {
  const rows = (ratio: string) =>
    [
      "| jobs.get 1 id, legacy stdio p50 / p99 | 0.22 / 0.88 ms |  |  |",
      "| jobs.get 100 ids, legacy stdio p50 / p99 | 1.08 / 2.34 ms |  |  |",
      `| jobs.get 100 ids p99 / 1 id p99 (p50 ratio in brackets) | ${ratio} (4.83x); 2.15-3.23x | <= 2x | no |`,
    ].join("\n");
  assert.deepEqual(parseRun(rows("**2.66x**")), {
    one: { p50: 0.22, p99: 0.88 },
    hundred: { p50: 1.08, p99: 2.34 },
    ratio: 2.66,
  });
  assert.equal(parseRun(rows("1.37x"))?.ratio, 1.37);
  assert.equal(parseRun(rows("1.37x"))?.nodeSdkRatio, undefined, "runs before the Node SDK row");
  const withNode = rows("1.37x") +
    "\n| jobs.get 100 ids p99 / 1 id p99 from that Node host, by the server's stdout | " +
    "socket: 1.64x (2.94x); 1.26-2.15x \\| FIFO: 1.61x (3.02x); 1.23-2.46x \\| SDK (socket): 1.36x (2.83x); 0.98-2.14x |  |  |";
  assert.equal(parseRun(withNode)?.nodeSdkRatio, 1.36);
  assert.equal(parseRun(rows("1.37x").split("\n").slice(1).join("\n")), undefined);
});

/** A docs/benchmarks.md of two sections, each measured at `at`, with one goal row each. */
function doc(at: { store: string; mcp: string }, values: { store: string; mcp: string }): string {
  return [
    "## Job store",
    "",
    `Measured ${at.store}; load average (1 min) 0.5 before, 0.6 after.`,
    "",
    "| metric | value | goal | goal met |",
    "| --- | --- | --- | --- |",
    "| (a) raw transactions | 60,000 tx/s |  |  |",
    `| WAL bytes written per job: with 2,000 retained jobs / with 52,600 (ratio) | ${values.store} | <= 1.25x | ${
      values.store.startsWith("2") ? "**no**" : "yes"
    } |`,
    "",
    "## MCP server",
    "",
    `Measured ${at.mcp}; load average (1 min) 0.5 before, 0.6 after.`,
    "",
    "| metric | value | goal | goal met |",
    "| --- | --- | --- | --- |",
    `| jobs.get 100 ids p99 / 1 id p99 (p50 ratio in brackets) | ${values.mcp} | <= 2x | ${
      values.mcp.startsWith("**") ? "**no**" : "yes"
    } |`,
  ].join("\n");
}

Deno.test("goalRowsOf: only rows with a goal, with their section and its Measured line; cells as written", () => {
  const rows = goalRowsOf(
    doc({ store: "at commit a", mcp: "at commit b" }, { store: "1.03x", mcp: "**2.30x** (4.1x)" }),
  );
  assert.deepEqual(rows.map((r) => [r.section, r.value, r.goal, r.met, r.measured]), [
    ["Job store", "1.03x", "<= 1.25x", "yes", "Measured at commit a; load average (1 min) 0.5 before, 0.6 after."],
    [
      "MCP server",
      "**2.30x** (4.1x)",
      "<= 2x",
      "**no**",
      "Measured at commit b; load average (1 min) 0.5 before, 0.6 after.",
    ],
  ]);
  // A metric's own counts do not split one goal into several across runs.
  assert.equal(
    goalKey(rows[0]!),
    "Job store: WAL bytes written per job: with # retained jobs / with # (ratio)",
  );
});

Deno.test("goalRecords: met and missed per goal and target; a kept section counts once, at the run that wrote it", () => {
  const versions = [
    // Newest first: an --only mcp run that kept the store section of the run before it.
    { commit: "c4", rows: goalRowsOf(doc({ store: "s2", mcp: "m4" }, { store: "2.10x", mcp: "1.50x" })) },
    { commit: "c3", rows: goalRowsOf(doc({ store: "s2", mcp: "m3" }, { store: "2.10x", mcp: "**2.40x**" })) },
    { commit: "c2", rows: goalRowsOf(doc({ store: "s1", mcp: "m2" }, { store: "1.01x", mcp: "**2.20x**" })) },
    { commit: "c1", rows: goalRowsOf(doc({ store: "s0", mcp: "m1" }, { store: "1.02x", mcp: "1.90x" })) },
  ];
  // The oldest run had a looser goal for the MCP row.
  versions[3]!.rows = versions[3]!.rows.map((r) => r.section === "MCP server" ? { ...r, goal: "<= 3x" } : r);
  assert.deepEqual(goalRecords(versions), [
    {
      goal: "Job store: WAL bytes written per job: with # retained jobs / with # (ratio)",
      target: "<= 1.25x",
      runs: 3,
      met: 2,
      misses: [{ commit: "c3", value: "2.10x" }],
    },
    {
      goal: "MCP server: jobs.get # ids p# / # id p# (p# ratio in brackets)",
      target: "<= 2x",
      runs: 3,
      met: 1,
      misses: [{ commit: "c3", value: "**2.40x**" }, { commit: "c2", value: "**2.20x**" }],
    },
    {
      goal: "MCP server: jobs.get # ids p# / # id p# (p# ratio in brackets)",
      target: "<= 3x",
      runs: 1,
      met: 1,
      misses: [],
    },
  ]);
});

Deno.test("tailOf: a call's p99 over its p50", () => {
  assert.equal(tailOf({ p50: 0.25, p99: 1 }), 4);
  assert.equal(tailOf({ p50: 1, p99: 1 }), 1);
});

Deno.test("ranks: from 1, ties share the mean of their ranks", () => {
  assert.deepEqual(ranks([3, 1, 2]), [3, 1, 2]);
  assert.deepEqual(ranks([5, 1, 5, 2]), [3.5, 1, 3.5, 2]);
  assert.deepEqual(ranks([]), []);
});

Deno.test("spearman: +1 and -1 for monotone pairs, a known value with ties, NaN without spread or pairs", () => {
  assert.equal(spearman([1, 2, 3, 4], [10, 20, 30, 400]), 1);
  assert.equal(spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1);
  // Ranks x: 1, 2.5, 2.5, 4; y: 1, 2, 3, 4; Pearson of those: 4.5 / sqrt(4.5 * 5).
  assert.ok(Math.abs(spearman([1, 2, 2, 3], [1, 2, 3, 4]) - 4.5 / Math.sqrt(4.5 * 5)) < 1e-12);
  assert.ok(Number.isNaN(spearman([1, 1, 1], [1, 2, 3])));
  assert.ok(Number.isNaN(spearman([1], [1])));
  assert.throws(() => spearman([1, 2], [1]), RangeError);
});

Deno.test("p99_history: --help answers with exit 0; an unknown option is exit 2 with the usage; an unknown revision 1", async () => {
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-run=git", SCRIPT, ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
    };
  };
  const help = await run("--help");
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: /);
  const bad = await run("--bogus");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Unknown option '--bogus'[\s\S]*Usage: /);
  // An empty range (valid in a shallow clone too): no runs, and --goals --json still one JSON object.
  const none = await run("--goals", "--json", "--since", "HEAD");
  assert.equal(none.code, 0, none.stderr);
  assert.deepEqual(JSON.parse(none.stdout), { runs: 0, goals: [] });
  const unknown = await run("--since", "longcall-no-such-revision");
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^p99_history: git log .*longcall-no-such-revision/);
  assert.doesNotMatch(unknown.stderr, /\n\s+at /, "no stack trace");
});
