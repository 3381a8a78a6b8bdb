/**
 * The scripted scenarios of `deno task eval` and `deno task demo`: what the simulated GitHub does (a CI
 * timeline for pull request `octo/widgets#42`, generated repositories, injected rate limits), what the user
 * asks the model to do (one tool call with its arguments), what the user or the host does mid-way (cancel,
 * crash the server), and the answer a correct run must end with.
 *
 * GitHub is simulated: `testing/fake_github.ts` serves these timelines on 127.0.0.1. Times in a timeline
 * are simulated milliseconds since the tool call; the server's job handlers and the fake run on the same clock,
 * {@linkcode DEFAULT_RATE} times faster than real time.
 *
 * @module
 */

import type { FakeCheck, FakeStatus, ScenarioName, ScenarioStep } from "./fake_github.ts";
import { SCENARIO_SHA_SECOND } from "./fake_github.ts";

/** Simulated milliseconds per real millisecond (fake GitHub and `serve --simulate-time-rate` share it). */
export const DEFAULT_RATE = 20;

/** A JSON value as tool arguments carry it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What a scenario groups under. The goal of the evaluation applies to `pr_checks`. */
export type ScenarioGroup = "pr_checks" | "sensitivity" | "sync" | "control";

/** The job-level answer a run ends with, in the vocabulary both hosts can express. */
export interface Expected {
  /** How the job ended: `succeeded` also covers CI verdicts such as `failed` or `superseded` (the watch worked). */
  job_status: "succeeded" | "failed" | "cancelled";
  /** The operation's outcome (`succeeded`, `failed`, `superseded`, `no_checks`, `changed`, `partial`, `cancelled`). */
  outcome: string;
  /** The typed error code of a failed job (e.g. `process_lost`). */
  error_code?: string;
  /** Substrings the answer's detail line must contain (e.g. the rate-limited repository). */
  detail_includes?: readonly string[];
}

/** One scripted scenario. */
export interface Scenario {
  id: string;
  title: string;
  group: ScenarioGroup;
  /** What the user asks, in words (shown in the transcript and the report). */
  prompt: string;
  /** Timeline of `octo/widgets#42` (a built-in name or steps); started at the tool call. */
  timeline: ScenarioName | readonly ScenarioStep[];
  /** Repositories the fake generates (name -> issues and pull requests). */
  generatedRepos?: Record<string, number>;
  /**
   * The first request for this repository (`owner/repo`) meets a GitHub secondary rate limit with
   * `retry-after: 60` (a loopback front in testing/hosts.ts answers it; everything else reaches the fake).
   */
  rateLimitRepository?: string;
  tool: "github.wait_pull_request_checks" | "github.sync_threads";
  args: Record<string, Json>;
  /** The user stops the operation this many real milliseconds after the tool call. */
  cancelAfterMs?: number;
  /** The server is killed (SIGKILL) this many real milliseconds after the tool call, and a new one is started. */
  restartAfterMs?: number;
  expected: Expected;
}

const q = (name: string): FakeCheck => ({ name, status: "queued" });
const run = (name: string): FakeCheck => ({ name, status: "in_progress" });
const done = (name: string, conclusion: string): FakeCheck => ({ name, status: "completed", conclusion });
const legacy = (state: FakeStatus["state"]): FakeStatus[] => [{ context: "ci/legacy", state }];

/** A pull request CI of about four and a half minutes with several material changes, ending green. */
export const PASS_AFTER_CHANGES: readonly ScenarioStep[] = [
  { atMs: 0 },
  { atMs: 15_000, checks: [q("build"), q("lint"), q("test")], statuses: legacy("pending") },
  { atMs: 30_000, checks: [run("build"), run("lint"), q("test")] },
  { atMs: 60_000, checks: [run("build"), done("lint", "success"), run("test")] },
  { atMs: 150_000, checks: [done("build", "success"), done("lint", "success"), run("test")] },
  {
    atMs: 270_000,
    checks: [done("build", "success"), done("lint", "success"), done("test", "success")],
    statuses: legacy("success"),
  },
];

/** Tests fail at 3 minutes while the build still runs until 6 minutes. */
export const FAIL_WHILE_BUILDING: readonly ScenarioStep[] = [
  { atMs: 0, checks: [q("build"), q("lint"), q("test")] },
  { atMs: 20_000, checks: [run("build"), run("lint"), run("test")] },
  { atMs: 60_000, checks: [run("build"), done("lint", "success"), run("test")] },
  { atMs: 180_000, checks: [run("build"), done("lint", "success"), done("test", "failure")] },
  { atMs: 360_000, checks: [done("build", "success"), done("lint", "success"), done("test", "failure")] },
];

/** The build runs; a new commit is pushed at 3 minutes (its CI starts later). */
export const PUSH_MID_RUN: readonly ScenarioStep[] = [
  { atMs: 0, checks: [q("build"), q("test")] },
  { atMs: 20_000, checks: [run("build"), run("test")] },
  { atMs: 180_000, headSha: SCENARIO_SHA_SECOND },
  { atMs: 200_000, checks: [q("build"), q("test")] },
  { atMs: 230_000, checks: [run("build"), run("test")] },
];

/** Checks already running, unchanged for 3 minutes, then lint completes. */
export const LONG_UNCHANGED: readonly ScenarioStep[] = [
  { atMs: 0, checks: [run("build"), run("lint")] },
  { atMs: 180_000, checks: [run("build"), done("lint", "success")] },
  { atMs: 360_000, checks: [done("build", "success"), done("lint", "success")] },
];

const PR = { owner: "octo", repo: "widgets", number: 42 } as const;

/**
 * The five repositories of the sync scenario. The last one meets a secondary rate limit: the GitHub client then
 * holds every request of the job until the limit lifts (as GitHub asks), so a limited repository placed earlier
 * would make all the later ones retryable too.
 */
export const SYNC_REPOSITORIES: Record<string, number> = {
  "acme/api": 120,
  "acme/web": 80,
  "acme/cli": 45,
  "acme/docs": 30,
  "acme/infra": 60,
};

/** Every scenario of the evaluation, in run order. */
export const SCENARIOS: readonly Scenario[] = [
  {
    id: "checks_pass",
    title: "Checks pass after several changes (CI of ~4.5 min)",
    group: "pr_checks",
    prompt: "Wait for the CI of octo/widgets#42 and tell me the verdict.",
    timeline: PASS_AFTER_CHANGES,
    tool: "github.wait_pull_request_checks",
    args: { ...PR },
    expected: { job_status: "succeeded", outcome: "succeeded", detail_includes: ["4/4 passed"] },
  },
  {
    id: "fail_fast",
    title: "A check fails at 3 min while the build runs; fail_fast",
    group: "pr_checks",
    prompt: "Watch octo/widgets#42 and stop at the first failing check.",
    timeline: FAIL_WHILE_BUILDING,
    tool: "github.wait_pull_request_checks",
    args: { ...PR, fail_fast: true },
    expected: { job_status: "succeeded", outcome: "failed", detail_includes: ["1 failed"] },
  },
  {
    id: "superseded",
    title: "Superseded by a new push at 3 min",
    group: "pr_checks",
    prompt: "Wait for the CI of octo/widgets#42 and tell me the verdict.",
    timeline: PUSH_MID_RUN,
    tool: "github.wait_pull_request_checks",
    args: { ...PR },
    expected: { job_status: "succeeded", outcome: "superseded", detail_includes: ["head bbbbbbb"] },
  },
  {
    id: "no_checks",
    title: "No checks register within a 2-minute grace",
    group: "pr_checks",
    prompt: "Wait for the CI of octo/widgets#42; give up if no check shows up within 2 minutes.",
    timeline: "no_checks",
    tool: "github.wait_pull_request_checks",
    args: { ...PR, first_check_grace_ms: 120_000 },
    expected: { job_status: "succeeded", outcome: "no_checks", detail_includes: ["0/0 passed"] },
  },
  {
    id: "until_change",
    title: 'until: "change": the next material change comes after 3 min',
    group: "pr_checks",
    prompt: "Tell me when anything changes in the CI of octo/widgets#42.",
    timeline: LONG_UNCHANGED,
    tool: "github.wait_pull_request_checks",
    args: { ...PR, until: "change" },
    expected: { job_status: "succeeded", outcome: "changed", detail_includes: ["1/2 passed"] },
  },
  {
    id: "short_ci",
    title: "Sensitivity: a short CI (the fake's built-in 90-s checks_pass)",
    group: "sensitivity",
    prompt: "Wait for the CI of octo/widgets#42 and tell me the verdict.",
    timeline: "checks_pass",
    tool: "github.wait_pull_request_checks",
    args: { ...PR },
    expected: { job_status: "succeeded", outcome: "succeeded", detail_includes: ["3/3 passed"] },
  },
  {
    id: "sync_partial",
    title: "Sync 5 repositories, one rate-limited (partial)",
    group: "sync",
    prompt: "Sync the issues and pull requests of the five acme repositories.",
    timeline: "no_checks",
    generatedRepos: SYNC_REPOSITORIES,
    rateLimitRepository: "acme/infra",
    tool: "github.sync_threads",
    args: { repositories: Object.keys(SYNC_REPOSITORIES), limit_per_repository: 50 },
    expected: {
      job_status: "succeeded",
      outcome: "partial",
      detail_includes: ["acme/api=complete", "acme/docs=complete", "acme/infra=retryable(rate_limited retry_after_ms="],
    },
  },
  {
    id: "user_cancel",
    title: "The user cancels after 4 s (~80 s simulated)",
    group: "control",
    prompt: "Wait for the CI of octo/widgets#42 … (then, 4 s later) stop, never mind.",
    timeline: PASS_AFTER_CHANGES,
    tool: "github.wait_pull_request_checks",
    args: { ...PR },
    cancelAfterMs: 4_000,
    expected: { job_status: "cancelled", outcome: "cancelled" },
  },
  {
    id: "server_restart",
    title: "The server is killed (SIGKILL) after 3 s and restarted on the same database",
    group: "control",
    prompt: "Wait for the CI of octo/widgets#42 and tell me the verdict.",
    timeline: PASS_AFTER_CHANGES,
    tool: "github.wait_pull_request_checks",
    args: { ...PR },
    restartAfterMs: 3_000,
    expected: { job_status: "failed", outcome: "failed", error_code: "process_lost" },
  },
];

/** A scenario by id. */
export function scenarioById(id: string): Scenario {
  const found = SCENARIOS.find((s) => s.id === id);
  if (found === undefined) {
    throw new RangeError(`Cannot find scenario ${id}: expected one of ${SCENARIOS.map((s) => s.id).join(", ")}`);
  }
  return found;
}
