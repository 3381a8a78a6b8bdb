/**
 * Copies the generated figures into the README: the evaluation's goal check and totals
 * (from docs/evaluation.md, written by `deno task eval`) and every benchmark row that has a
 * goal (from docs/benchmarks.md, written by `deno task bench`). Both commands call this at
 * the end; `deno task readme` runs it alone, and a test fails when the README is stale.
 *
 * @module
 */

import { goalRowsOf } from "./bench/goal_rows.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const BEGIN = "<!-- generated:measurements:begin -->";
const END = "<!-- generated:measurements:end -->";

/** The markdown table that follows `heading` in `doc`. */
function tableAfter(doc: string, heading: string): string[] {
  const lines = doc.split("\n");
  const at = lines.findIndex((l) => l.trim() === heading);
  if (at < 0) return [];
  const start = lines.findIndex((l, i) => i > at && l.startsWith("|"));
  if (start < 0) return [];
  const out: string[] = [];
  for (let i = start; i < lines.length && (lines[i] ?? "").startsWith("|"); i++) out.push(lines[i] ?? "");
  return out;
}

/** Benchmark rows that carry a goal, with their section title. */
function benchGoalRows(doc: string): string[] {
  return [
    "| section | metric | value | goal | met |",
    "| --- | --- | --- | --- | --- |",
    ...goalRowsOf(doc).map((r) => `| ${r.section} | ${r.metric} | ${r.value} | ${r.goal} | ${r.met} |`),
  ];
}

/** The generated README section for the current docs. */
export async function measurementsSection(): Promise<string> {
  const evaluation = await Deno.readTextFile(`${ROOT}docs/evaluation.md`).catch(() => "");
  const benchmarks = await Deno.readTextFile(`${ROOT}docs/benchmarks.md`).catch(() => "");
  return [
    BEGIN,
    "<!-- Copied from docs/evaluation.md and docs/benchmarks.md by scripts/readme_tables.ts; do not edit. -->",
    "",
    "Host evaluation (`deno task eval`, details in [docs/evaluation.md](docs/evaluation.md)):",
    "",
    ...tableAfter(evaluation, "## Goal check"),
    "",
    ...tableAfter(evaluation, "## Totals"),
    "",
    "Benchmark goals (`deno task bench`, method and all figures in [docs/benchmarks.md](docs/benchmarks.md)):",
    "",
    ...benchGoalRows(benchmarks),
    END,
  ].join("\n");
}

/** Rewrites the README section in place; returns whether it changed. */
export async function updateReadme(): Promise<boolean> {
  const path = `${ROOT}README.md`;
  const readme = await Deno.readTextFile(path);
  const begin = readme.indexOf(BEGIN), end = readme.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`Cannot update README.md: markers ${BEGIN} ... ${END} are missing`);
  const next = readme.slice(0, begin) + await measurementsSection() + readme.slice(end + END.length);
  if (next === readme) return false;
  await Deno.writeTextFile(path, next);
  // Keep `deno fmt --check` green: fmt aligns the copied tables.
  const fmt = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", path],
    stdout: "null",
    stderr: "null",
  })
    .output();
  if (fmt.code !== 0) throw new Error("Cannot format README.md after updating it: deno fmt failed");
  return true;
}

/** The README's current generated section. */
export async function readmeSection(): Promise<string> {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  return readme.slice(readme.indexOf(BEGIN), readme.indexOf(END) + END.length);
}

if (import.meta.main) {
  console.error((await updateReadme()) ? "readme: measurements updated" : "readme: measurements already current");
}
