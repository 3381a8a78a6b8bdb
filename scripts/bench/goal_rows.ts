/**
 * The rows of docs/benchmarks.md that carry a goal, read back from the markdown `deno task bench` wrote: the
 * README's copy of them (scripts/readme_tables.ts) and every goal's record across the committed runs
 * (`deno task bench-history --goals`, scripts/bench/p99_history.ts) read them here.
 *
 * @module
 */

/** One goal row: its section's title and its four cells as written. */
export interface GoalRow {
  section: string;
  metric: string;
  value: string;
  goal: string;
  /** `yes`, or `**no**` for a missed goal. */
  met: string;
  /** The section's "Measured ..." line (when, at which commit): a run of `--only` keeps the other sections
   * as they were, this line with them. Empty if the section has none. */
  measured: string;
}

/** The rows of `doc` (a docs/benchmarks.md) whose goal cell is not empty, in order. */
export function goalRowsOf(doc: string): GoalRow[] {
  const out: GoalRow[] = [];
  let section = "";
  let measured = "";
  for (const line of doc.split("\n")) {
    if (line.startsWith("## ")) [section, measured] = [line.slice(3).trim(), ""];
    if (line.startsWith("Measured ")) measured = line.trim();
    if (!line.startsWith("| ") || line.startsWith("| metric") || line.startsWith("| ---")) continue;
    const cells = line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim());
    const [metric = "", value = "", goal = "", met = ""] = cells;
    if (goal === "") continue;
    out.push({ section, metric, value, goal, met, measured });
  }
  return out;
}

/** Whether a goal row says its goal was met. */
export function goalMet(row: GoalRow): boolean {
  return row.met === "yes";
}

/** What names one goal across runs: its section and metric with every figure in the metric written `#`
 * (a metric may name its run's own counts, as the WAL row names the retained jobs). */
export function goalKey(row: GoalRow): string {
  return `${row.section}: ${row.metric.replace(/\d[\d,.]*/g, "#")}`;
}
