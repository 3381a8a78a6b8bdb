/**
 * Pure evaluation of a pull request's CI state: normalizing check runs and legacy
 * statuses into one list, the material-change signature, and the verdict. No I/O.
 *
 * @module
 */

/** One CI signal: a check run (Actions, Apps) or a legacy commit status. */
export interface CheckEntry {
  kind: "check_run" | "status";
  name: string;
  /** check runs: queued | in_progress | completed | waiting | requested | pending; statuses: pending | completed */
  status: string;
  /** check runs: GitHub's conclusion; statuses: success | failure | error (null while pending) */
  conclusion: string | null;
  details_url: string | null;
}

/** Conclusions that end a check. */
export const TERMINAL_CONCLUSIONS: ReadonlySet<string> = new Set([
  "success",
  "neutral",
  "skipped",
  "failure",
  "error",
  "cancelled",
  "timed_out",
  "action_required",
  "stale",
  "startup_failure",
]);

/** Conclusions that make CI fail. */
export const FAILING_CONCLUSIONS: ReadonlySet<string> = new Set([
  "failure",
  "error",
  "cancelled",
  "timed_out",
  "action_required",
  "stale",
  "startup_failure",
]);

/** Minimal shapes of GitHub's payloads the evaluation reads. */
export interface CheckRunLike {
  name: string;
  status: string;
  conclusion: string | null;
  details_url?: string | null;
  html_url?: string | null;
}
export interface StatusLike {
  context: string;
  state: string;
  target_url?: string | null;
}

/** Normalizes check runs and statuses into one sorted list. */
export function normalizeChecks(checkRuns: readonly CheckRunLike[], statuses: readonly StatusLike[]): CheckEntry[] {
  const entries: CheckEntry[] = [];
  for (const r of checkRuns) {
    entries.push({
      kind: "check_run",
      name: r.name,
      status: r.status,
      conclusion: r.status === "completed" ? (r.conclusion ?? "neutral") : null,
      details_url: r.details_url ?? r.html_url ?? null,
    });
  }
  for (const s of statuses) {
    const done = s.state !== "pending";
    entries.push({
      kind: "status",
      name: s.context,
      status: done ? "completed" : "pending",
      conclusion: done ? s.state : null,
      details_url: s.target_url ?? null,
    });
  }
  entries.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  return entries;
}

/** SHA-256 over each check's kind, name, status and conclusion: equal signatures mean no material change. */
export async function checksSignature(entries: readonly CheckEntry[]): Promise<string> {
  const text = entries.map((e) => `${e.kind}\u0000${e.name}\u0000${e.status}\u0000${e.conclusion ?? ""}`).join("\n");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Counts by state. */
export interface ChecksSummary {
  total: number;
  pending: number;
  passed: number;
  failed: number;
}

/** Counts of pending, passing and failing checks. */
export function summarize(entries: readonly CheckEntry[]): ChecksSummary {
  let pending = 0, passed = 0, failed = 0;
  for (const e of entries) {
    if (e.conclusion === null || !TERMINAL_CONCLUSIONS.has(e.conclusion)) pending++;
    else if (FAILING_CONCLUSIONS.has(e.conclusion)) failed++;
    else passed++;
  }
  return { total: entries.length, pending, passed, failed };
}

/** What one observation says. */
export type Verdict = "pending" | "succeeded" | "failed" | "incomplete";

/**
 * The verdict of one observation. Zero checks is `pending` (GitHub registers checks late;
 * the caller applies the first-check grace). Coverage that could not be proven complete
 * (fewer check runs fetched than GitHub's total_count) can never be `succeeded`.
 */
export function verdictOf(
  entries: readonly CheckEntry[],
  options: { coverageComplete: boolean; failFast: boolean },
): Verdict {
  const s = summarize(entries);
  if (s.total === 0) return "pending";
  if (s.failed > 0 && (options.failFast || s.pending === 0)) return "failed";
  if (s.pending > 0) return "pending";
  return options.coverageComplete ? "succeeded" : "incomplete";
}
