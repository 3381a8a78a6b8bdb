/**
 * The evaluation's tables: rows of the side-by-side and hosts-without-tasks tables, and the markdown and
 * plain-text (terminal) table layouts.
 *
 * @module
 */

import { answerText, sameAnswer } from "../../../testing/hosts.ts";
import { int, pct, seconds, simSeconds, tokens } from "./format.ts";
import { hostRequests, type Pair, reduction, withinWaitBound } from "./measures.ts";

/** Rows of a side-by-side table: metric, polling host, task-aware host, change. */
export function pairRows(p: Pair): string[][] {
  const a = p.polling, b = p.task;
  const change = (x: number, y: number) => {
    const r = reduction(x, y);
    return r === undefined ? "–" : r >= 0 ? `−${pct(r)}` : `+${pct(-r)}`;
  };
  return [
    ["Model calls", int(a.meter.modelCalls), int(b.meter.modelCalls), change(a.meter.modelCalls, b.meter.modelCalls)],
    [
      "Tool calls written by the model",
      int(a.meter.toolCalls),
      int(b.meter.toolCalls),
      change(
        a.meter.toolCalls,
        b.meter.toolCalls,
      ),
    ],
    [
      "Model-visible bytes (≈ tokens)",
      `${int(a.meter.visibleBytes)} (≈ ${tokens(a.meter.visibleBytes)})`,
      `${int(b.meter.visibleBytes)} (≈ ${tokens(b.meter.visibleBytes)})`,
      change(a.meter.visibleBytes, b.meter.visibleBytes),
    ],
    [
      "Context re-read over all model calls, bytes",
      int(a.meter.contextBytes),
      int(b.meter.contextBytes),
      change(a.meter.contextBytes, b.meter.contextBytes),
    ],
    ["Host requests outside the model", int(hostRequests(a)), int(hostRequests(b)), ""],
    [
      "GitHub requests: counted / free 304",
      `${int(a.github.counted)} / ${int(a.github.notModified)}`,
      `${int(b.github.counted)} / ${int(b.github.notModified)}`,
      "",
    ],
    ["Elapsed (real time)", seconds(a.elapsedMs), seconds(b.elapsedMs), ""],
    [
      "Final answer",
      answerText(a.answer),
      answerText(b.answer),
      sameAnswer(a.answer, b.answer) ? "identical" : "DIFFERENT",
    ],
    ["Correct (matches the expected outcome)", a.correct ? "yes" : "NO", b.correct ? "yes" : "NO", ""],
  ];
}

/** A markdown table (cells escape `|`). */
export function mdTable(header: string[], rows: string[][]): string {
  const esc = (s: string) => s.replaceAll("|", "\\|");
  return [
    `| ${header.map(esc).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
  ].join("\n");
}

/** The rows of the hosts-without-tasks table (also printed by scripts/eval.ts). */
export function noTaskRows(pairs: readonly Pair[], rate: number): string[][] {
  return pairs.filter((p) => p.wait !== undefined || p.instant !== undefined).map((p) => {
    const i = p.instant, w = p.wait;
    const nt = w?.noTask;
    return [
      `\`${p.scenario.id}\``,
      nt === undefined ? "–" : simSeconds(nt.jobMs, rate),
      i === undefined ? "–" : int(i.meter.modelCalls),
      i === undefined ? "–" : i.noTask?.gaveUp === true ? `gave up (${answerText(i.answer)})` : answerText(i.answer),
      w === undefined ? "–" : int(w.meter.modelCalls),
      nt?.bound === undefined ? "–" : `${nt.bound}${nt.forcedTurns > 0 ? ` (incl. ${nt.forcedTurns} forced)` : ""}`,
      w === undefined ? "–" : withinWaitBound(w) ? "yes" : "**no**",
      w === undefined ? "–" : `${answerText(w.answer)}${w.correct ? "" : " (WRONG)"}`,
    ];
  });
}

/** A plain-text table (terminal). */
export function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), widths.map((w) => "─".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
