/**
 * The results file (`docs/conformance.md`): one markdown section per mode, replaced in place between its HTML
 * comment markers.
 *
 * @module
 */

import type { Mode } from "./catalogue.ts";
import type { Options } from "./options.ts";
import type { ScenarioResult, Verdict } from "./scenario_run.ts";

const MARK_BEGIN = (mode: Mode) => `<!-- conformance:${mode}:begin -->`;
const MARK_END = (mode: Mode) => `<!-- conformance:${mode}:end -->`;

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The check counts of a result, e.g. "5 ok, 1 warn". */
export function countsCell(counts: Record<string, number>): string {
  const order = ["SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO"];
  const short: Record<string, string> = { SUCCESS: "ok", FAILURE: "fail", WARNING: "warn", SKIPPED: "skip" };
  return order.filter((k) => (counts[k] ?? 0) > 0).map((k) => `${counts[k]} ${short[k] ?? k.toLowerCase()}`)
    .join(", ");
}

function whyNotApplicable(r: ScenarioResult): string {
  if (r.spec.notApplicable !== undefined) return r.spec.notApplicable;
  const naChecks = r.spec.naChecks ?? {};
  return r.excused.map((id) => `\`${id}\`: ${naChecks[id] ?? ""}`).join("; ");
}

/** The section of one mode (`options.mode`): header, tally and one row per scenario, between its markers. */
export function renderSection(results: readonly ScenarioResult[], commandLine: string, options: Options): string {
  const date = new Date().toISOString();
  const ran = results.filter((r) => r.verdict !== "n/a");
  const tally = (v: Verdict) => ran.filter((r) => r.verdict === v).length;
  const title = options.mode === "fixture" ? "Tasks extension (fixture server)" : "Product server";
  const lines = [
    MARK_BEGIN(options.mode),
    `## ${title}`,
    "",
    `Generated ${date} by \`${commandLine}\`.`,
    "",
    `Server: \`${options.server}\`, MCP endpoint path \`${options.path}\`. Each scenario ran in its own ` +
    `conformance CLI process (\`--allow-net=127.0.0.1\`), time box ${options.timeoutMs} ms. ` +
    `0.2.0-alpha.12 core scenarios ran with \`--spec-version <Wire>\`; tasks-* scenarios at their default wire ` +
    `(2026-07-28); 0.1.16 at 2025-11-25.`,
    "",
    `Ran ${ran.length}: ${tally("pass")} pass, ${tally("fail")} fail, ${tally("skipped")} skipped, ` +
    `${tally("timeout")} timeout, ${tally("error")} error; ${results.length - ran.length} not applicable.`,
    "",
    "| Package | Scenario | Wire | Result | Checks | Notes | Why not applicable |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const r of results) {
    const notes = [
      r.notes,
      r.spec.knownIssue !== undefined && r.verdict !== "pass" ? `known: ${r.spec.knownIssue}` : "",
    ]
      .filter((s) => s !== "").join(" — ");
    lines.push(
      `| ${r.spec.pkg} | \`${r.spec.name}\` | ${r.spec.wire} | ${r.verdict} | ${countsCell(r.counts)} | ` +
        `${cell(notes)} | ${cell(whyNotApplicable(r))} |`,
    );
  }
  lines.push("", MARK_END(options.mode));
  return lines.join("\n");
}

/** One mode's section of the results file: the mode, and the markdown {@link renderSection} gave for it. */
export interface ReportSection {
  mode: Mode;
  text: string;
}

/** Replaces the section of `section.mode` in `path` (or appends it, or writes a new file with a header). */
export async function writeReport(path: string, section: ReportSection): Promise<void> {
  const { mode } = section;
  let existing: string | undefined;
  try {
    existing = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const header = "# Conformance results\n\nWritten by `scripts/conformance.ts` (see docs/notes/conformance.md). " +
    "Results: pass = no failed check other than checks listed as not applicable; skipped = the suite ran no " +
    "scorable check (reported, does not fail the run).\n";
  let text: string;
  const begin = existing?.indexOf(MARK_BEGIN(mode)) ?? -1;
  const end = existing?.indexOf(MARK_END(mode)) ?? -1;
  if (existing !== undefined && begin >= 0 && end > begin) {
    text = existing.slice(0, begin) + section.text + existing.slice(end + MARK_END(mode).length);
  } else if (existing !== undefined && existing.trim() !== "") {
    text = `${existing.trimEnd()}\n\n${section.text}\n`;
  } else {
    text = `${header}\n${section.text}\n`;
  }
  await Deno.writeTextFile(path, text);
}
