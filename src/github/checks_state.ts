/**
 * The verdict on a pull request's CI state, as pure functions: normalizing check runs and legacy
 * statuses into one list, the material-change signature, and the verdict. No I/O.
 *
 * @module
 */

/** One CI signal: a check run (Actions, Apps), a legacy commit status, or (with `required_only`) a
 * required check that has not reported yet (`expected`, always pending). */
export interface CheckEntry {
  kind: "check_run" | "status" | "expected";
  name: string;
  /** check runs: queued | in_progress | completed | waiting | requested | pending; statuses: pending | completed;
   * expected: expected */
  status: string;
  /** check runs: GitHub's conclusion (null while pending, and for a completed run without one: fail closed);
   * statuses: success | failure | error (null while pending); expected: null */
  conclusion: string | null;
  details_url: string | null;
  /** The app that reported a check run (its slug), else null. */
  app?: string | null;
  /** The check run's id (reads its annotations), else absent. */
  id?: number;
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

/** Minimal shapes of GitHub's payloads the verdict reads. */
export interface CheckRunLike {
  id?: number;
  name: string;
  status: string;
  conclusion: string | null;
  details_url?: string | null;
  html_url?: string | null;
  started_at?: string | null;
  app?: { id?: number; slug?: string } | null;
  check_suite?: { id: number } | null;
  output?: { title?: string | null; summary?: string | null; annotations_count?: number } | null;
}
export interface StatusLike {
  context: string;
  state: string;
  target_url?: string | null;
  description?: string | null;
}
/** A check suite as the verdict reads it. */
export interface SuiteLike {
  id: number;
  status: string | null;
  conclusion: string | null;
  app: { id?: number; slug?: string } | null;
  latest_check_runs_count: number;
}
/** The workflow and event behind a check suite (from `/actions/runs`). */
export interface SuiteWorkflow {
  workflow_id: number;
  event: string;
}

/** The app GitHub Actions reports as. */
export const ACTIONS_APP_SLUG = "github-actions";

function appKey(r: CheckRunLike): string {
  return r.app?.id !== undefined ? `id:${r.app.id}` : `slug:${r.app?.slug ?? ""}`;
}

/** Check name + app: runs sharing it may be re-runs of one check (or two workflows' jobs of one name). */
export function runIdentity(r: CheckRunLike): string {
  return `${r.name}\u0000${appKey(r)}`;
}

/** Whether two runs share a name and an app, so the workflow and event must tell them apart. */
export function hasDuplicateRuns(runs: readonly CheckRunLike[]): boolean {
  const seen = new Set<string>();
  for (const r of runs) {
    const key = runIdentity(r);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/**
 * Keeps the newest run per check name + app + workflow + event, as `gh pr checks` does
 * (`eliminateDuplicates`: newest `started_at` first); GitHub's `filter=latest` collapses
 * re-runs only inside one suite, so a workflow re-triggered on the same commit lists the old
 * run beside the new one. Two apps reporting one name stay two checks. A run whose suite's
 * workflow is unknown is keyed by its suite, so it is never collapsed on a guess.
 */
export function latestRuns(
  runs: readonly CheckRunLike[],
  workflows: ReadonlyMap<number, SuiteWorkflow> = new Map(),
): { runs: CheckRunLike[]; dropped: number } {
  const started = (r: CheckRunLike) => {
    const t = r.started_at === null || r.started_at === undefined ? NaN : Date.parse(r.started_at);
    return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t; // not started yet: the newest
  };
  const ordered = [...runs].sort((a, b) => started(b) - started(a) || (b.id ?? 0) - (a.id ?? 0));
  const seen = new Set<string>();
  const kept: CheckRunLike[] = [];
  for (const r of ordered) {
    const suite = r.check_suite?.id;
    const wf = suite === undefined ? undefined : workflows.get(suite);
    const isActions = r.app?.slug === ACTIONS_APP_SLUG;
    const scope = !isActions ? "" : wf !== undefined ? `wf:${wf.workflow_id}/${wf.event}` : `suite:${suite ?? ""}`;
    const key = `${runIdentity(r)}\u0000${scope}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(r);
  }
  return { runs: kept, dropped: runs.length - kept.length };
}

/** Normalizes check runs and statuses into one sorted list. */
export function normalizeChecks(checkRuns: readonly CheckRunLike[], statuses: readonly StatusLike[]): CheckEntry[] {
  const entries: CheckEntry[] = [];
  for (const r of checkRuns) {
    const entry: CheckEntry = {
      kind: "check_run",
      name: r.name,
      status: r.status,
      // A completed run must have a conclusion; without one it is pending, never a pass.
      conclusion: r.status === "completed" ? (r.conclusion ?? null) : null,
      details_url: r.details_url ?? r.html_url ?? null,
      app: r.app?.slug ?? null,
    };
    if (r.id !== undefined) entry.id = r.id;
    entries.push(entry);
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
  entries.sort((a, b) =>
    a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name) || (a.app ?? "").localeCompare(b.app ?? "")
  );
  return entries;
}

/** A check the base branch requires (`required_status_checks[].context`, optionally bound to an app). */
export interface RequiredCheck {
  context: string;
  integration_id?: number;
}

/** Options of {@linkcode requiredEntries}. */
export interface RequiredEntriesOptions {
  /** The app of each check run, by run id: what a required check bound to an app (`integration_id`) matches. */
  appIds: ReadonlyMap<number, number | undefined>;
}

/**
 * Only the required checks: entries whose name is required (a check run of the required app
 * when `integration_id` is set, its app read from `options.appIds`), plus one pending `expected`
 * entry per required check that has not reported. An entry two requirements match (`build` of any
 * app and `build` of app 15368, from a ruleset and classic protection) is listed once.
 */
export function requiredEntries(
  entries: readonly CheckEntry[],
  required: readonly RequiredCheck[],
  options: RequiredEntriesOptions,
): CheckEntry[] {
  const { appIds } = options;
  const out: CheckEntry[] = [];
  const listed = new Set<CheckEntry>();
  for (const req of required) {
    const matches = entries.filter((e) =>
      e.name === req.context &&
      (req.integration_id === undefined ||
        (e.kind === "check_run" && e.id !== undefined && appIds.get(e.id) === req.integration_id))
    );
    if (matches.length === 0) {
      if (!out.some((e) => e.kind === "expected" && e.name === req.context)) {
        out.push({ kind: "expected", name: req.context, status: "expected", conclusion: null, details_url: null });
      }
    } else {
      for (const m of matches) {
        if (!listed.has(m)) out.push(m);
        listed.add(m);
      }
    }
  }
  out.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  return out;
}

/** SHA-256 over each check's kind, name, status and conclusion: equal signatures mean no material change. */
export async function checksSignature(entries: readonly CheckEntry[]): Promise<string> {
  const text = entries.map((e) =>
    `${e.kind}\u0000${e.name}\u0000${e.status}\u0000${e.conclusion ?? ""}${e.app == null ? "" : `\u0000${e.app}`}`
  ).join("\n");
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
export type Verdict = "pending" | "succeeded" | "failed" | "incomplete" | "action_required";

/** Suites by what they say about the verdict. */
export interface SuitesSummary {
  total: number;
  /** queued / in_progress (and the other non-completed states): their runs may not exist yet. */
  pending: number;
  /** completed with conclusion action_required, whatever runs they hold: workflows waiting for a maintainer's
   * approval (GitHub lists those of a fork's pull request with no runs). */
  action_required: number;
  /** queued with no runs, from an app other than GitHub Actions: GitHub leaves these queued forever for
   * apps that never report, so they do not hold the verdict. */
  idle: number;
}

/** Classifies check suites. */
export function summarizeSuites(suites: readonly SuiteLike[]): SuitesSummary {
  let pending = 0, actionRequired = 0, idle = 0;
  for (const s of suites) {
    if (s.status === "completed") {
      if (s.conclusion === "action_required") actionRequired++;
      continue;
    }
    if (s.status === "queued" && s.latest_check_runs_count === 0 && s.app?.slug !== ACTIONS_APP_SLUG) idle++;
    else pending++;
  }
  return { total: suites.length, pending, action_required: actionRequired, idle };
}

/** Options of {@linkcode verdictOf}. */
export interface VerdictOptions {
  coverageComplete: boolean;
  failFast: boolean;
  /** The commit's check suites (default none). */
  suites?: readonly SuiteLike[];
  /** Entries are the required checks only: missing ones are `expected` entries, pending suites do not matter. */
  requiredOnly?: boolean;
}

/**
 * The verdict of one observation. Zero checks is `pending` (GitHub registers checks late;
 * the caller applies the first-check grace). Coverage that could not be proven complete
 * (fewer check runs fetched than GitHub's total_count) can never be `succeeded`, and neither can
 * an observation while a check suite is still queued or in progress (its runs may not exist yet).
 * A suite waiting for approval (`action_required`) with nothing else pending is `action_required`.
 */
export function verdictOf(entries: readonly CheckEntry[], options: VerdictOptions): Verdict {
  return verdictDetail(entries, options).verdict;
}

/** {@linkcode verdictOf} with the reason, in words. */
export function verdictDetail(entries: readonly CheckEntry[], options: VerdictOptions): {
  verdict: Verdict;
  reason: string;
} {
  const s = summarize(entries);
  const suites = summarizeSuites(options.suites ?? []);
  const suitesPending = options.requiredOnly === true ? 0 : suites.pending;
  if (s.failed > 0 && (options.failFast || (s.pending === 0 && suitesPending === 0))) {
    return { verdict: "failed", reason: `${s.failed} of ${s.total} checks failed` };
  }
  const expected = entries.filter((e) => e.kind === "expected").length;
  // With required_only, a suite awaiting approval matters only while a required check is still missing (its
  // workflow may be the one awaiting approval); once every required check passed, an optional one waiting does not.
  const approvalMatters = options.requiredOnly !== true || expected > 0;
  if (
    approvalMatters && suites.action_required > 0 && s.failed === 0 && s.pending === expected && suitesPending === 0
  ) {
    return {
      verdict: "action_required",
      reason: `${suites.action_required} check suite(s) wait for approval (action_required, no runs): ` +
        `a maintainer must approve the workflows of this pull request before they run`,
    };
  }
  if (s.pending > 0) return { verdict: "pending", reason: `${s.pending} of ${s.total} checks pending` };
  if (suitesPending > 0) {
    return { verdict: "pending", reason: `${suitesPending} check suite(s) still queued or in progress` };
  }
  if (s.total === 0) return { verdict: "pending", reason: "no checks reported" };
  if (!options.coverageComplete) {
    return { verdict: "incomplete", reason: "not every check or status GitHub counts could be read" };
  }
  return { verdict: "succeeded", reason: `${s.passed} of ${s.total} checks passed` };
}
