/**
 * The final answer of a run, normalized so every host's answer compares field by field with the
 * others' and with the scenario's expectation.
 *
 * @module
 */

import type { Scenario } from "../scenarios.ts";

/** The final answer of a run, normalized so both hosts' answers compare field by field. */
export interface FinalAnswer {
  /** `unfinished`: the model gave up before the job ended (the instant polling host). */
  job_status: "succeeded" | "failed" | "cancelled" | "unfinished";
  outcome: string;
  error_code?: string;
  /** Scenario-specific facts the model reports: CI summary and head, or per-repository sync outcomes. */
  detail: string;
}

/** A loosely read JSON object. */
export type Rec = Record<string, unknown>;
/** `v` as an object, or an empty one. */
export const rec = (v: unknown): Rec => (typeof v === "object" && v !== null ? v as Rec : {});

/** The detail line of a job result: watch summary and head, or sync items. */
export function detailOf(result: unknown): string {
  const r = rec(result);
  if (Array.isArray(r["items"])) {
    return (r["items"] as unknown[]).map((i) => {
      const item = rec(i);
      const retry = typeof item["retry_after_ms"] === "number" ? ` retry_after_ms=${item["retry_after_ms"]}` : "";
      const reason = typeof item["reason"] === "string" ? `(${item["reason"]}${retry})` : "";
      return `${String(item["key"])}=${String(item["item_status"])}${reason}`;
    }).join(", ");
  }
  const s = rec(r["summary"]);
  if (typeof r["observed_head_sha"] === "string") {
    return `head ${r["observed_head_sha"].slice(0, 7)}, ${s["passed"]}/${s["total"]} passed, ${s["failed"]} failed, ` +
      `${s["pending"]} pending`;
  }
  return "";
}

/** Compares an answer with a scenario's expectation. */
export function answerMatches(answer: FinalAnswer, expected: Scenario["expected"]): boolean {
  if (answer.job_status !== expected.job_status || answer.outcome !== expected.outcome) return false;
  if (expected.error_code !== undefined && answer.error_code !== expected.error_code) return false;
  return (expected.detail_includes ?? []).every((part) => answer.detail.includes(part));
}

/** Same answer, field by field. */
export function sameAnswer(a: FinalAnswer, b: FinalAnswer): boolean {
  return a.job_status === b.job_status && a.outcome === b.outcome && a.error_code === b.error_code &&
    a.detail === b.detail;
}

/** One line for the transcript and the report. */
export function answerText(a: FinalAnswer): string {
  const code = a.error_code === undefined ? "" : ` (${a.error_code})`;
  const detail = a.detail === "" ? "" : `; ${a.detail}`;
  return `${a.job_status}/${a.outcome}${code}${detail}`;
}
