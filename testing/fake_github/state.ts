/**
 * The scenario state at a moment: which head SHA the pull request has, whether it is open or merged,
 * and the check runs, statuses and suites of each SHA, replayed from the timeline's steps.
 *
 * @module
 */

import {
  type FakeAnnotation,
  type FakeBranchProtection,
  type FakeSuite,
  SCENARIO_SHA_FIRST,
  type ScenarioStep,
} from "./model.ts";

/** A check run as the timeline made it, with its times. */
export interface CheckRecord {
  name: string;
  status: string;
  conclusion: string | null;
  app: string;
  /** Suite key (explicit, else the app). */
  suite: string;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: FakeAnnotation[];
}

/** A legacy status as the timeline made it, with its times. */
export interface StatusRecord {
  context: string;
  state: string;
  description: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What one SHA has. */
export interface ShaState {
  checks: CheckRecord[];
  statuses: StatusRecord[];
  suites?: Array<FakeSuite & { createdAt: number }>;
}

/** The pull request and its SHAs at a moment. */
export interface ScenarioState {
  headSha: string;
  pullState: "open" | "closed";
  merged: boolean;
  pullUpdatedAt: number;
  bySha: Map<string, ShaState>;
  knownShas: Set<string>;
  requiredChecks: Array<{ context: string; integration_id?: number }> | "forbidden";
  requiredWorkflows: boolean;
  branchProtection: FakeBranchProtection | "forbidden" | "not_found" | undefined;
}

/** Replays a timeline (`steps`, started at `startMs`) up to `nowMs`. */
export function scenarioState(
  timeline: { steps: readonly ScenarioStep[]; startMs: number },
  nowMs: number,
): ScenarioState {
  const { steps, startMs } = timeline;
  const state: ScenarioState = {
    headSha: SCENARIO_SHA_FIRST,
    pullState: "open",
    merged: false,
    pullUpdatedAt: startMs,
    bySha: new Map(),
    knownShas: new Set([SCENARIO_SHA_FIRST]),
    requiredChecks: [],
    requiredWorkflows: false,
    branchProtection: undefined,
  };
  for (const step of steps) if (step.headSha !== undefined) state.knownShas.add(step.headSha);
  const ordered = [...steps].sort((x, y) => x.atMs - y.atMs);
  for (const step of ordered) {
    const at = startMs + step.atMs;
    if (at > nowMs) break;
    if (step.headSha !== undefined && step.headSha !== state.headSha) {
      state.headSha = step.headSha;
      state.pullUpdatedAt = at;
    }
    if (step.pullState !== undefined && step.pullState !== state.pullState) {
      state.pullState = step.pullState;
      state.pullUpdatedAt = at;
    }
    if (step.merged !== undefined && step.merged !== state.merged) {
      state.merged = step.merged;
      state.pullUpdatedAt = at;
    }
    if (step.requiredChecks !== undefined) state.requiredChecks = step.requiredChecks;
    if (step.requiredWorkflows !== undefined) state.requiredWorkflows = step.requiredWorkflows;
    if (step.branchProtection !== undefined) state.branchProtection = step.branchProtection;
    const sha = state.headSha;
    const prev = state.bySha.get(sha) ?? { checks: [], statuses: [] };
    const next: ShaState = { checks: prev.checks, statuses: prev.statuses };
    if (prev.suites !== undefined) next.suites = prev.suites;
    if (step.suites !== undefined) {
      next.suites = step.suites.map((x) => ({
        ...x,
        createdAt: prev.suites?.find((p) => p.key === x.key)?.createdAt ?? at,
      }));
    }
    if (step.checks !== undefined) {
      next.checks = step.checks.map((c) => {
        const app = c.app ?? "github-actions";
        const suite = c.suite ?? app;
        const old = prev.checks.find((p) => p.name === c.name && p.app === app && p.suite === suite);
        const started = c.status === "queued" ? null : old?.startedAt ?? at;
        const completed = c.status === "completed" ? old?.completedAt ?? at : null;
        const pad = "x".repeat(c.output?.paddingBytes ?? 0);
        const text = (t: string | undefined) => t === undefined && pad === "" ? null : `${t ?? ""}${pad}`;
        return {
          name: c.name,
          status: c.status,
          conclusion: c.status === "completed" ? (c.conclusion === undefined ? "success" : c.conclusion) : null,
          app,
          suite,
          createdAt: old?.createdAt ?? at,
          startedAt: started,
          completedAt: completed,
          output: { title: c.output?.title ?? null, summary: text(c.output?.summary), text: text(c.output?.text) },
          annotations: c.annotations ?? [],
        };
      });
    }
    if (step.statuses !== undefined) {
      next.statuses = step.statuses.map((s) => {
        const old = prev.statuses.find((p) => p.context === s.context);
        const changed = old === undefined || old.state !== s.state;
        return {
          context: s.context,
          state: s.state,
          description: s.description ?? `${s.context} is ${s.state}`,
          createdAt: old?.createdAt ?? at,
          updatedAt: changed ? at : old.updatedAt,
        };
      });
    }
    state.bySha.set(sha, next);
  }
  return state;
}
