/**
 * A fake GitHub REST API: a real HTTP server on 127.0.0.1 for tests, the demo and
 * benchmarks. Payloads follow GitHub's documented shapes, built from the JSON fixtures in
 * `fixtures/github/`.
 *
 * - Endpoints: `GET /repos/{o}/{r}`, `/repos/{o}/{r}/pulls/{n}`,
 *   `/repos/{o}/{r}/commits/{ref}/check-runs`, `/repos/{o}/{r}/commits/{ref}/status` (paged at 30
 *   by default like GitHub), `/repos/{o}/{r}/commits/{ref}/check-suites`,
 *   `/repos/{o}/{r}/actions/runs?head_sha=`, `/repos/{o}/{r}/check-runs/{id}/annotations`,
 *   `/repos/{o}/{r}/rules/branches/{branch}`,
 *   `/repos/{o}/{r}/issues` (state, since, sort, direction, per_page, page, `Link`),
 *   `/rate_limit`.
 * - Lists page as GitHub's do: `per_page` 30 by default, 100 at most, `Link` rels
 *   prev/next/last/first (the combined status pages its `statuses`; `total_count` and `state`
 *   cover all of them).
 * - Strong ETags per representation and token; `If-None-Match` -> `304`, free with a token,
 *   charged without one (as GitHub does; `counts.notModifiedCounted`, `counts.free`).
 * - With `validateOpenApi`, every answer is checked against GitHub's REST description
 *   (`@octokit/openapi`, see testing/openapi_check.ts) into `openApiViolations`.
 * - `x-ratelimit-*` headers with a per-token counter; primary exhaustion (403, remaining 0,
 *   reset), secondary limits (403/429, optional `retry-after`), injected 5xx, 404 for
 *   unknown repositories, 403 for the private `octo/secret`, 401 for tokens outside
 *   `validTokens` when that option is set.
 * - Scenarios: the checks of pull request `octo/widgets#42` follow a timeline keyed by
 *   milliseconds since the scenario started. Time is `now()` (inject a ManualClock's
 *   `now`) plus whatever `advance(ms)` added.
 * - Generated repositories (`generatedRepos: {"big/repo": 5000}`) for sync benchmarks.
 * - `counts`: requests by endpoint kind, charged vs 304, rate limited, max in flight.
 *
 * Standalone: `deno run --allow-net=127.0.0.1 testing/fake_github.ts --scenario checks_pass
 * [--port N] [--generated owner/repo=N] [--latency-ms N]` prints `{"url": ...}` as one JSON line
 * on stdout and serves until SIGINT/SIGTERM.
 *
 * @module
 */

import repositoryFixture from "../fixtures/github/repository.json" with { type: "json" };
import pullFixture from "../fixtures/github/pull.json" with { type: "json" };
import checkRunsFixture from "../fixtures/github/check_runs.json" with { type: "json" };
import combinedStatusFixture from "../fixtures/github/combined_status.json" with { type: "json" };
import issuesFixture from "../fixtures/github/issues.json" with { type: "json" };
import { loadOpenApiCheck } from "./openapi_check.ts";

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** The pull request whose checks the scenarios drive. */
export const SCENARIO_PULL = { owner: "octo", repo: "widgets", number: 42 } as const;
/** Head SHA at the start of every scenario. */
export const SCENARIO_SHA_FIRST = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
/** Head SHA after the push of `new_push`. */
export const SCENARIO_SHA_SECOND = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
/** The repository every request is refused for (403). */
export const PRIVATE_REPO = "octo/secret";
/** The fixture repository. */
export const FIXTURE_REPO = "octo/widgets";

/** Endpoint kinds counted separately. */
export type EndpointKind =
  | "repository"
  | "pull"
  | "check_runs"
  | "status"
  | "issues"
  | "rate_limit"
  | "check_suites"
  | "workflow_runs"
  | "annotations"
  | "rules"
  | "unknown";
const KINDS: readonly EndpointKind[] = [
  "repository",
  "pull",
  "check_runs",
  "status",
  "issues",
  "rate_limit",
  "check_suites",
  "workflow_runs",
  "annotations",
  "rules",
  "unknown",
];

/** One check in a scenario step. */
export interface FakeCheck {
  name: string;
  status: "queued" | "in_progress" | "completed";
  /** Default `success` when completed; `null` gives a completed run without a conclusion. */
  conclusion?: string | null;
  /** App slug (default `github-actions`). */
  app?: string;
  /** Key of the check suite the run belongs to (a {@linkcode FakeSuite}); default one suite per app.
   * Two runs of one name in two suites are a re-triggered workflow's old and new run. */
  suite?: string;
  /** `output` of the run; `paddingBytes` adds that many characters each to `summary` and `text`. */
  output?: { title?: string; summary?: string; text?: string; paddingBytes?: number };
  /** Annotations of the run (`/check-runs/{id}/annotations`). */
  annotations?: FakeAnnotation[];
}

/** One annotation of a check run. */
export interface FakeAnnotation {
  path: string;
  start_line: number;
  message: string;
  level?: "notice" | "warning" | "failure";
  title?: string;
}

/** One check suite in a scenario step (`/commits/{ref}/check-suites`). Suites not listed are derived
 * from the checks: one per app (or per `FakeCheck.suite`), completed when all its runs are. */
export interface FakeSuite {
  key: string;
  app?: string;
  status: "queued" | "in_progress" | "completed";
  conclusion?: string | null;
  /** GitHub Actions only: the workflow and event behind the suite (`/actions/runs`). */
  workflow?: string;
  event?: string;
}

/** One legacy status in a scenario step. */
export interface FakeStatus {
  context: string;
  state: "pending" | "success" | "failure" | "error";
  description?: string;
}

/**
 * A step of a scenario timeline, effective from `atMs` after the scenario started. Fields
 * left out keep their previous value. `checks` and `statuses` replace the lists of the
 * head SHA current after this step's `headSha`.
 */
export interface ScenarioStep {
  atMs: number;
  headSha?: string;
  pullState?: "open" | "closed";
  merged?: boolean;
  checks?: FakeCheck[];
  statuses?: FakeStatus[];
  /** Check suites listed explicitly (replaces the previous list for the head SHA). */
  suites?: FakeSuite[];
  /** The base branch's rules from this step on: required status checks, or `forbidden` (403). */
  requiredChecks?: Array<{ context: string; integration_id?: number }> | "forbidden";
}

/** Built-in scenario names. */
export type ScenarioName =
  | "checks_pass"
  | "checks_fail"
  | "new_push"
  | "no_checks"
  | "flaky_unchanged"
  | "many_checks"
  | "pr_closed"
  | "pr_merged"
  | "statuses_paged"
  | "rerun_passed"
  | "rerun_running"
  | "late_dependent"
  | "fork_approval"
  | "null_conclusion"
  | "huge_outputs"
  | "required_checks"
  | "rules_forbidden";

const q = (name: string): FakeCheck => ({ name, status: "queued" });
const run = (name: string): FakeCheck => ({ name, status: "in_progress" });
const done = (name: string, conclusion: string): FakeCheck => ({ name, status: "completed", conclusion });
const inSuite = (check: FakeCheck, suite: string): FakeCheck => ({ ...check, suite });
/** The lint failure's output and annotations (`checks_fail`). */
const LINT_FAILURE: Pick<FakeCheck, "output" | "annotations"> = {
  output: { title: "2 problems (2 errors)", summary: "eslint found 2 errors in 1 file.\nRun `npm run lint -- --fix`." },
  annotations: [
    { path: "src/widget.ts", start_line: 12, message: "'x' is assigned a value but never used.", level: "failure" },
    { path: "src/widget.ts", start_line: 30, message: "Missing return type on function.", level: "failure" },
  ],
};
const statusesPaged = (failing: boolean): FakeStatus[] =>
  Array.from({ length: 40 }, (_, i) => ({
    context: `ci/shard-${String(i + 1).padStart(2, "0")}`,
    state: failing && i === 34 ? "failure" : failing ? "success" : "pending",
  }));

/**
 * The built-in timelines (times in ms since the scenario started):
 *
 * - `checks_pass`: nothing until 20 s (CI registers late); build+lint queued at 20 s,
 *   in progress at 40 s, lint success at 60 s, build success and legacy status success at 90 s.
 * - `checks_fail`: like `checks_pass` but lint fails at 60 s (build still running), build succeeds at 90 s.
 * - `new_push`: build queued on the first SHA, in progress at 30 s; head changes to
 *   {@linkcode SCENARIO_SHA_SECOND} at 60 s; its build is queued at 80 s, runs at 100 s, passes at 130 s.
 * - `no_checks`: no check run or status ever registers.
 * - `flaky_unchanged`: build+lint in progress from 10 s, unchanged until both pass at 10 min.
 * - `many_checks`: 150 completed successful check runs from the start (two pages of 100).
 * - `pr_closed`: build in progress; the pull request is closed unmerged at 60 s.
 * - `pr_merged`: build in progress; the pull request is merged at 60 s.
 * - `statuses_paged`: build and 40 pending statuses; at 30 s build passes and every status passes but
 *   `ci/shard-35` (page 2 at GitHub's default 30 per page), which fails.
 * - `rerun_passed`: build failed a minute before the watch; its workflow was re-triggered on the same
 *   commit (a second suite): queued at 0, running at 30 s, passing at 60 s. `lint` passes from two apps.
 * - `rerun_running`: the same with the new run already in progress at 0.
 * - `late_dependent`: build runs in suite `ci` and passes at 30 s; a dependent workflow's
 *   `deploy-preview` registers at 35 s (suite `deploy`) and passes at 50 s.
 * - `fork_approval`: only an external status (success); the Actions suite is completed
 *   `action_required` with zero runs (a fork's workflows awaiting approval).
 * - `null_conclusion`: build completed without a conclusion until it gets `success` at 60 s.
 * - `huge_outputs`: 100 completed check runs whose summary and text are 64 KB each (a 13 MB page).
 * - `required_checks`: rules require `build` and `ci/legacy`; lint (not required) fails with output and
 *   annotations; build passes at 20 s; `ci/legacy` reports success at 40 s.
 * - `rules_forbidden`: build passes; the branch rules answer 403.
 *
 * `checks_fail`'s lint failure carries an output title, summary and two annotations.
 */
export const SCENARIOS: Readonly<Record<ScenarioName, readonly ScenarioStep[]>> = {
  checks_pass: [
    { atMs: 0 },
    { atMs: 20_000, checks: [q("build"), q("lint")], statuses: [{ context: "ci/legacy", state: "pending" }] },
    { atMs: 40_000, checks: [run("build"), run("lint")] },
    { atMs: 60_000, checks: [run("build"), done("lint", "success")] },
    {
      atMs: 90_000,
      checks: [done("build", "success"), done("lint", "success")],
      statuses: [{ context: "ci/legacy", state: "success" }],
    },
  ],
  checks_fail: [
    { atMs: 0 },
    { atMs: 20_000, checks: [q("build"), q("lint")], statuses: [{ context: "ci/legacy", state: "pending" }] },
    { atMs: 40_000, checks: [run("build"), run("lint")] },
    { atMs: 60_000, checks: [run("build"), { ...done("lint", "failure"), ...LINT_FAILURE }] },
    {
      atMs: 90_000,
      checks: [done("build", "success"), { ...done("lint", "failure"), ...LINT_FAILURE }],
      statuses: [{ context: "ci/legacy", state: "success" }],
    },
  ],
  new_push: [
    { atMs: 0, checks: [q("build")] },
    { atMs: 30_000, checks: [run("build")] },
    { atMs: 60_000, headSha: SCENARIO_SHA_SECOND },
    { atMs: 80_000, checks: [q("build")] },
    { atMs: 100_000, checks: [run("build")] },
    { atMs: 130_000, checks: [done("build", "success")], statuses: [{ context: "ci/legacy", state: "success" }] },
  ],
  no_checks: [{ atMs: 0 }],
  flaky_unchanged: [
    { atMs: 0 },
    { atMs: 10_000, checks: [run("build"), run("lint")] },
    { atMs: 600_000, checks: [done("build", "success"), done("lint", "success")] },
  ],
  many_checks: [
    {
      atMs: 0,
      checks: Array.from({ length: 150 }, (_, i) => done(`check-${String(i + 1).padStart(3, "0")}`, "success")),
    },
  ],
  pr_closed: [
    { atMs: 0, checks: [run("build")] },
    { atMs: 60_000, pullState: "closed" },
  ],
  pr_merged: [
    { atMs: 0, checks: [run("build")] },
    { atMs: 60_000, pullState: "closed", merged: true },
  ],
  statuses_paged: [
    { atMs: 0, checks: [run("build")], statuses: statusesPaged(false) },
    { atMs: 30_000, checks: [done("build", "success")], statuses: statusesPaged(true) },
  ],
  // The old run failed a minute before the watch; the workflow was re-triggered on the same commit
  // (a new suite): its run is queued at 0, runs at 30 s and passes at 60 s. `lint` is reported by
  // two apps: two checks.
  rerun_passed: [
    {
      atMs: -60_000,
      checks: [inSuite(done("build", "failure"), "ci-1"), done("lint", "success"), {
        ...done("lint", "success"),
        app: "other-ci",
      }],
      suites: [{ key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" }],
    },
    {
      atMs: 0,
      checks: [
        inSuite(done("build", "failure"), "ci-1"),
        inSuite(q("build"), "ci-2"),
        done("lint", "success"),
        { ...done("lint", "success"), app: "other-ci" },
      ],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "queued", workflow: "CI", event: "pull_request" },
      ],
    },
    {
      atMs: 30_000,
      checks: [
        inSuite(done("build", "failure"), "ci-1"),
        inSuite(run("build"), "ci-2"),
        done("lint", "success"),
        { ...done("lint", "success"), app: "other-ci" },
      ],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "in_progress", workflow: "CI", event: "pull_request" },
      ],
    },
    {
      atMs: 60_000,
      checks: [
        inSuite(done("build", "failure"), "ci-1"),
        inSuite(done("build", "success"), "ci-2"),
        done("lint", "success"),
        { ...done("lint", "success"), app: "other-ci" },
      ],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "completed", conclusion: "success", workflow: "CI", event: "pull_request" },
      ],
    },
  ],
  // Like rerun_passed, but the new run is already in progress when the watch starts.
  rerun_running: [
    {
      atMs: -60_000,
      checks: [inSuite(done("build", "failure"), "ci-1")],
      suites: [{ key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" }],
    },
    {
      atMs: -10_000,
      checks: [inSuite(done("build", "failure"), "ci-1"), inSuite(run("build"), "ci-2")],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "in_progress", workflow: "CI", event: "pull_request" },
      ],
    },
    {
      atMs: 60_000,
      checks: [inSuite(done("build", "failure"), "ci-1"), inSuite(done("build", "success"), "ci-2")],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "completed", conclusion: "success", workflow: "CI", event: "pull_request" },
      ],
    },
  ],
  late_dependent: [
    { atMs: 0, checks: [inSuite(run("build"), "ci")] },
    { atMs: 30_000, checks: [inSuite(done("build", "success"), "ci")] },
    {
      atMs: 35_000,
      checks: [inSuite(done("build", "success"), "ci"), inSuite(q("deploy-preview"), "deploy")],
    },
    {
      atMs: 50_000,
      checks: [inSuite(done("build", "success"), "ci"), inSuite(done("deploy-preview", "success"), "deploy")],
    },
  ],
  fork_approval: [
    {
      atMs: 0,
      statuses: [{ context: "ci/external", state: "success" }],
      suites: [{
        key: "ci",
        status: "completed",
        conclusion: "action_required",
        workflow: "CI",
        event: "pull_request",
      }],
    },
  ],
  null_conclusion: [
    { atMs: 0, checks: [{ name: "build", status: "completed", conclusion: null }] },
    { atMs: 60_000, checks: [done("build", "success")] },
  ],
  huge_outputs: [
    {
      atMs: 0,
      checks: Array.from({ length: 100 }, (_, i) => ({
        ...done(`shard-${String(i + 1).padStart(3, "0")}`, "success"),
        output: { title: "ok", paddingBytes: 64 * 1024 },
      })),
    },
  ],
  required_checks: [
    {
      atMs: 0,
      checks: [run("build"), { ...done("lint", "failure"), ...LINT_FAILURE }],
      requiredChecks: [{ context: "build" }, { context: "ci/legacy" }],
    },
    { atMs: 20_000, checks: [done("build", "success"), { ...done("lint", "failure"), ...LINT_FAILURE }] },
    { atMs: 40_000, statuses: [{ context: "ci/legacy", state: "success" }] },
  ],
  rules_forbidden: [
    { atMs: 0, checks: [done("build", "success")], requiredChecks: "forbidden" },
  ],
};

/** Names of the built-in scenarios. */
export const SCENARIO_NAMES: readonly ScenarioName[] = Object.keys(SCENARIOS) as ScenarioName[];

/** Request counters (live object; {@linkcode FakeGitHub.resetCounts} zeroes it in place). */
export interface FakeCounts {
  /** Every request received. */
  total: number;
  /** Requests charged against the primary limit (anonymous 304s included). */
  counted: number;
  /** Every 304 answer, free or not. */
  notModified: number;
  /** Anonymous 304 answers: GitHub charges a conditional request without `Authorization` (part of `counted`). */
  notModifiedCounted: number;
  /** Answers not charged: authorized 304s and `/rate_limit`. */
  free: number;
  /** 403/429 rate-limit answers (primary or secondary). */
  rateLimited: number;
  /** Injected 5xx answers. */
  injectedErrors: number;
  byKind: Record<EndpointKind, number>;
  countedByKind: Record<EndpointKind, number>;
  notModifiedByKind: Record<EndpointKind, number>;
  /** Requests being handled now, and the most ever at once. */
  inFlight: number;
  maxInFlight: number;
}

/** One handled request (bounded log). */
export interface FakeRequestRecord {
  kind: EndpointKind;
  path: string;
  status: number;
  conditional: boolean;
  authenticated: boolean;
  at: number;
}

/** Options of {@linkcode startFakeGitHub}. */
export interface FakeGitHubOptions {
  /** Time source (e.g. `() => manualClock.now()`); default `Date.now`. */
  now?: () => number;
  /** Initial scenario for `octo/widgets#42`; default `checks_pass`. */
  scenario?: ScenarioName | readonly ScenarioStep[];
  /** Deterministically generated repositories: full name -> number of issues/PRs. */
  generatedRepos?: Record<string, number>;
  /** Primary limit per token (default 5000), for anonymous requests (default 60), and the window (1 h). */
  rateLimit?: { limit?: number; anonymousLimit?: number; windowMs?: number };
  /** When set, any other token gets 401 Bad credentials. */
  validTokens?: readonly string[];
  /** Real delay before answering each request (lets tests observe concurrency). */
  latencyMs?: number;
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Omit `Link` on 304 answers (GitHub's documentation does not promise it there). Default false. */
  omitLinkOn304?: boolean;
  /** Check every answer against GitHub's REST description (testing/openapi_check.ts); problems
   * land in {@linkcode FakeGitHub.openApiViolations}. Default false (the test harness turns it on). */
  validateOpenApi?: boolean;
}

/** A running fake. */
export interface FakeGitHub {
  /** Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  readonly url: string;
  readonly counts: FakeCounts;
  /** The last requests handled (at most 10,000). */
  readonly requests: readonly FakeRequestRecord[];
  /** With `validateOpenApi`: every answer that did not conform (`METHOD path: problem`), at most 1,000. */
  readonly openApiViolations: readonly string[];
  /** The fake's current time. */
  now(): number;
  /** Moves the fake's time forward (added to `now()`). */
  advance(ms: number): void;
  /** Restarts the checks timeline at the current time. */
  setScenario(scenario: ScenarioName | readonly ScenarioStep[]): void;
  /** Milliseconds since the scenario started. */
  scenarioElapsedMs(): number;
  /** The next `count` requests (of `kind`, if given) answer `status` (default 502). */
  failNext(count: number, options?: { status?: number; kind?: EndpointKind }): void;
  /** The next `count` requests hit a secondary limit: `status` 403 (default) or 429, with
   * `retry-after: retryAfterSec` when given. */
  limitSecondaryNext(count: number, options?: { status?: 403 | 429; retryAfterSec?: number }): void;
  /** Every token is out of requests until `resetInMs` from now (403 + remaining 0 + reset). */
  exhaustPrimary(options?: { resetInMs?: number }): void;
  /** Remaining primary requests of a token (anonymous when undefined). */
  remaining(token?: string): number;
  /** Marks an issue of a fixture or generated repository as updated now (changes `updated_at` and, optionally, title). */
  touchIssue(fullName: string, number: number, changes?: { title?: string; state?: "open" | "closed" }): void;
  /** Listing movement: right after page `afterPage` of a `/issues` listing of `fullName` is answered
   * (200 or 304), {@linkcode FakeGitHub.touchIssue} runs once, so the thread moves between two page reads
   * (a `since=` re-listing without `page` is page 1; several moves for one page fire on successive reads). */
  touchIssueAfterPage(
    fullName: string,
    number: number,
    afterPage: number,
    changes?: { title?: string; state?: "open" | "closed" },
  ): void;
  setLatency(ms: number): void;
  resetCounts(): void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------- helpers

function clone(value: unknown): JsonObject {
  return structuredClone(value) as JsonObject;
}

function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** FNV-1a over UTF-16 code units, two lanes: a stable 64-bit-ish hex digest. */
function digest(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
    b = (b ^ (b >>> 13)) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

function smallHash(text: string): number {
  return parseInt(digest(text).slice(0, 7), 16);
}

function emptyKinds(): Record<EndpointKind, number> {
  return Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<EndpointKind, number>;
}

function newCounts(): FakeCounts {
  return {
    total: 0,
    counted: 0,
    notModified: 0,
    notModifiedCounted: 0,
    free: 0,
    rateLimited: 0,
    injectedErrors: 0,
    byKind: emptyKinds(),
    countedByKind: emptyKinds(),
    notModifiedByKind: emptyKinds(),
    inFlight: 0,
    maxInFlight: 0,
  };
}

// ---------------------------------------------------------------- scenario state

interface CheckRecord {
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

interface StatusRecord {
  context: string;
  state: string;
  description: string | null;
  createdAt: number;
  updatedAt: number;
}

interface ShaState {
  checks: CheckRecord[];
  statuses: StatusRecord[];
  suites?: Array<FakeSuite & { createdAt: number }>;
}

interface ScenarioState {
  headSha: string;
  pullState: "open" | "closed";
  merged: boolean;
  pullUpdatedAt: number;
  bySha: Map<string, ShaState>;
  knownShas: Set<string>;
  requiredChecks: Array<{ context: string; integration_id?: number }> | "forbidden";
}

function scenarioState(steps: readonly ScenarioStep[], startMs: number, nowMs: number): ScenarioState {
  const state: ScenarioState = {
    headSha: SCENARIO_SHA_FIRST,
    pullState: "open",
    merged: false,
    pullUpdatedAt: startMs,
    bySha: new Map(),
    knownShas: new Set([SCENARIO_SHA_FIRST]),
    requiredChecks: [],
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

// ---------------------------------------------------------------- payloads

const GENERATED_BASE_MS = Date.UTC(2024, 0, 1);
const LOREM = "Steps to reproduce, expected behaviour and actual behaviour are described below. " +
  "The widget renders, then the layout shifts when data arrives late; a retry fixes it. ";

interface IssueOverride {
  updatedAt: number;
  title?: string;
  state?: "open" | "closed";
}

/** A complete `simple-user` (every property GitHub's description requires). */
function userPayload(login: string, id: number, type: "User" | "Organization" = "User"): JsonObject {
  const api = `https://api.github.com/users/${login}`;
  return {
    login,
    id,
    node_id: `U_gen${digest(login)}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: "",
    url: api,
    html_url: `https://github.com/${login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type,
    site_admin: false,
  };
}

/** A complete `label`. */
function labelPayload(repoApi: string, id: number, name: string, color: string, description: string): JsonObject {
  return {
    id,
    node_id: `LA_gen${digest(`${repoApi}:${name}`)}`,
    url: `${repoApi}/labels/${encodeURIComponent(name)}`,
    name,
    description,
    color,
    default: id === 1,
  };
}

/** A complete `reaction-rollup`. */
function reactionsPayload(url: string, total: number): JsonObject {
  return {
    url,
    total_count: total,
    "+1": total,
    "-1": 0,
    laugh: 0,
    confused: 0,
    heart: 0,
    hooray: 0,
    eyes: 0,
    rocket: 0,
  };
}

function generatedIssue(fullName: string, i: number): JsonObject {
  const [owner = "", repo = ""] = fullName.split("/");
  const created = GENERATED_BASE_MS + i * 3_600_000;
  const updated = created + ((i * 7919) % 2000) * 60_000;
  const isPr = i % 4 === 0;
  const closed = i % 3 === 0;
  const base = `https://api.github.com/repos/${owner}/${repo}`;
  const labels: Json[] = [];
  if (i % 5 === 0) labels.push(labelPayload(base, 1, "bug", "d73a4a", "Something isn't working"));
  if (i % 7 === 0) labels.push(labelPayload(base, 4, "enhancement", "a2eeef", "New feature or request"));
  const html = `https://github.com/${owner}/${repo}/${isPr ? "pull" : "issues"}/${i}`;
  const item: JsonObject = {
    url: `${base}/issues/${i}`,
    repository_url: base,
    labels_url: `${base}/issues/${i}/labels{/name}`,
    comments_url: `${base}/issues/${i}/comments`,
    events_url: `${base}/issues/${i}/events`,
    html_url: html,
    id: 3_000_000_000 + smallHash(fullName) % 1_000_000 * 10_000 + i,
    node_id: `I_gen${digest(`${fullName}#${i}`)}`,
    number: i,
    title: `${isPr ? "Change" : "Problem"} ${i}: ${["layout", "tooltip", "legend", "axis", "theme"][i % 5]} ${
      ["shifts", "flickers", "overflows", "misaligns", "crashes"][(i * 3) % 5]
    }`,
    user: userPayload(`user${i % 97}`, 10_000 + (i % 97)),
    labels,
    state: closed ? "closed" : "open",
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: (i * 13) % 9,
    created_at: iso(created),
    updated_at: iso(updated),
    closed_at: closed ? iso(updated) : null,
    author_association: "CONTRIBUTOR",
    body: `Generated item ${i} of ${fullName}. ${LOREM.repeat(1 + (i % 3))}`.trim(),
    state_reason: closed ? "completed" : null,
    reactions: reactionsPayload(`${base}/issues/${i}/reactions`, i % 4),
  };
  if (isPr) {
    item.draft = false;
    item.pull_request = {
      url: `${base}/pulls/${i}`,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      merged_at: closed ? iso(updated) : null,
    };
  }
  return item;
}

/** An app (`integration`) as GitHub nests it in check runs and suites. */
function appPayload(slug: string): JsonObject {
  const id = slug === "github-actions" ? 15368 : 100_000 + smallHash(`app:${slug}`) % 100_000;
  const name = slug === "github-actions" ? "GitHub Actions" : slug;
  return {
    id,
    slug,
    node_id: `MDM6QXBw${digest(`app:${slug}`)}`,
    owner: slug === "github-actions" ? userPayload("github", 9919, "Organization") : clone(repositoryFixture.owner),
    name,
    description: "",
    external_url: `https://github.com/apps/${slug}`,
    html_url: `https://github.com/apps/${slug}`,
    created_at: "2018-07-30T09:30:17Z",
    updated_at: "2024-04-10T20:33:16Z",
    permissions: { checks: "write", metadata: "read" },
    events: ["check_run", "check_suite"],
  };
}

function repositoryPayload(fullName: string, id: number, openIssues: number): JsonObject {
  const [owner = "", name = ""] = fullName.split("/");
  const repo = clone(repositoryFixture);
  repo.id = id;
  repo.name = name;
  repo.full_name = fullName;
  repo.owner = { ...(repo.owner as JsonObject), login: owner };
  repo.html_url = `https://github.com/${fullName}`;
  repo.url = `https://api.github.com/repos/${fullName}`;
  repo.open_issues_count = openIssues;
  repo.open_issues = openIssues;
  if (fullName !== FIXTURE_REPO) repo.description = `Generated repository ${fullName} for benchmarks.`;
  return repo;
}

/**
 * A `minimal-repository`, as GitHub nests it in check suites and workflow runs: the identity,
 * owner and URL-template properties of the repository (no counts, dates or clone URLs).
 */
function minimalRepositoryPayload(fullName: string): JsonObject {
  const repo = repositoryPayload(fullName, Number(repositoryFixture.id), 0);
  const identity = ["id", "node_id", "name", "full_name", "private", "owner", "html_url", "description", "fork", "url"];
  return Object.fromEntries(
    Object.entries(repo).filter(([k]) =>
      identity.includes(k) ||
      (k.endsWith("_url") && !["git_url", "ssh_url", "clone_url", "svn_url", "mirror_url"].includes(k))
    ),
  ) as JsonObject;
}

// ---------------------------------------------------------------- server

interface Answer {
  status: number;
  body: Json;
  link?: string;
  /** Whether a 200 may be answered 304. */
  cacheable: boolean;
}

function notFound(doc = "https://docs.github.com/rest"): Answer {
  return { status: 404, body: { message: "Not Found", documentation_url: doc, status: "404" }, cacheable: false };
}

function tokenOf(req: Request): string | undefined {
  const auth = req.headers.get("authorization");
  if (auth === null) return undefined;
  const m = /^(?:bearer|token)\s+(.+)$/i.exec(auth.trim());
  return m?.[1];
}

function etagMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === bare);
}

/** GitHub's paging parameters: `per_page` 30 by default, at most 100; `page` from 1. */
function pageParams(params: URLSearchParams): { perPage: number; page: number } {
  const perPage = Math.min(PER_PAGE_MAX, intParam(params, "per_page", PER_PAGE_DEFAULT) ?? PER_PAGE_DEFAULT) ||
    PER_PAGE_DEFAULT;
  const page = Math.max(1, intParam(params, "page", 1) ?? 1);
  return { perPage, page };
}

/** GitHub's default and largest `per_page`. */
const PER_PAGE_DEFAULT = 30;
const PER_PAGE_MAX = 100;

function intParam(params: URLSearchParams, name: string, fallback: number): number | undefined {
  const raw = params.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/** Starts the fake on 127.0.0.1 (a free port unless `port` is given). */
export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const openApi = options.validateOpenApi === true ? await loadOpenApiCheck() : undefined;
  const openApiViolations: string[] = [];
  const baseNow = options.now ?? (() => Date.now());
  let offset = 0;
  const now = () => baseNow() + offset;
  let steps: readonly ScenarioStep[] = typeof options.scenario === "object"
    ? options.scenario
    : SCENARIOS[options.scenario ?? "checks_pass"];
  let scenarioStart = now();
  let latencyMs = options.latencyMs ?? 0;
  const limit = options.rateLimit?.limit ?? 5000;
  const anonymousLimit = options.rateLimit?.anonymousLimit ?? 60;
  const windowMs = options.rateLimit?.windowMs ?? 3_600_000;
  const validTokens = options.validTokens === undefined ? undefined : new Set(options.validTokens);
  const generated = new Map<string, number>(Object.entries(options.generatedRepos ?? {}));
  const generatedCache = new Map<string, JsonObject[]>();
  const overrides = new Map<string, IssueOverride>();
  const counts = newCounts();
  const requests: FakeRequestRecord[] = [];
  const buckets = new Map<string, { used: number; resetAt: number }>();
  let exhaustedUntil = 0;
  const failures: Array<{ status: number; kind: EndpointKind | undefined }> = [];
  const secondary: Array<{ status: 403 | 429; retryAfterSec: number | undefined }> = [];
  const pendingMoves: Array<
    { fullName: string; number: number; afterPage: number; changes: { title?: string; state?: "open" | "closed" } }
  > = [];

  for (const [name, n] of generated) {
    if (!/^[^/]+\/[^/]+$/.test(name) || !Number.isInteger(n) || n < 0) {
      throw new RangeError(`Cannot generate repository ${name}: current value of its item count is ${n}`);
    }
  }

  const bucket = (token: string | undefined) => {
    const key = token ?? "";
    let b = buckets.get(key);
    if (b === undefined || now() >= b.resetAt) {
      b = { used: 0, resetAt: now() + windowMs };
      buckets.set(key, b);
    }
    return b;
  };
  const limitOf = (token: string | undefined) => token === undefined ? anonymousLimit : limit;

  const issuesOf = (fullName: string): JsonObject[] | undefined => {
    let list: JsonObject[] | undefined;
    if (fullName === FIXTURE_REPO) {
      list = (issuesFixture as unknown[]).map(clone);
    } else if (generated.has(fullName)) {
      let cached = generatedCache.get(fullName);
      if (cached === undefined) {
        const n = generated.get(fullName) ?? 0;
        cached = Array.from({ length: n }, (_, i) => generatedIssue(fullName, i + 1));
        generatedCache.set(fullName, cached);
      }
      list = cached.map((x) => ({ ...x }));
    } else {
      return undefined;
    }
    for (const item of list) {
      const o = overrides.get(`${fullName}#${item.number}`);
      if (o === undefined) continue;
      item.updated_at = iso(o.updatedAt);
      if (o.title !== undefined) item.title = o.title;
      if (o.state !== undefined) {
        item.state = o.state;
        item.closed_at = o.state === "closed" ? iso(o.updatedAt) : null;
      }
    }
    return list;
  };

  const knownRepo = (fullName: string) => fullName === FIXTURE_REPO || generated.has(fullName);

  const pullPayload = (fullName: string, number: number): Answer => {
    const pull = clone(pullFixture);
    const base = `https://api.github.com/repos/${fullName}`;
    const html = `https://github.com/${fullName}/pull/${number}`;
    const head = pull.head as JsonObject;
    const baseRef = pull.base as JsonObject;
    pull.url = `${base}/pulls/${number}`;
    pull.html_url = html;
    pull.number = number;
    pull.id = 1_800_000_000 + smallHash(`${fullName}#${number}`) % 100_000_000;
    head.repo = { ...(head.repo as JsonObject), full_name: fullName, name: fullName.split("/")[1] ?? "" };
    baseRef.repo = { ...(baseRef.repo as JsonObject), full_name: fullName, name: fullName.split("/")[1] ?? "" };
    if (fullName === FIXTURE_REPO && number === SCENARIO_PULL.number) {
      const s = scenarioState(steps, scenarioStart, now());
      head.sha = s.headSha;
      pull.state = s.pullState;
      pull.merged = s.merged;
      pull.updated_at = iso(Math.max(Date.parse(String(pull.updated_at)), s.pullUpdatedAt));
      pull.closed_at = s.pullState === "closed" ? iso(s.pullUpdatedAt) : null;
      pull.merged_at = s.merged ? iso(s.pullUpdatedAt) : null;
      return { status: 200, body: pull, cacheable: true };
    }
    const issue = issuesOf(fullName)?.find((i) => i.number === number && i.pull_request !== undefined);
    if (issue === undefined) return notFound("https://docs.github.com/rest/pulls/pulls#get-a-pull-request");
    pull.title = issue.title ?? "";
    pull.body = issue.body ?? null;
    pull.state = issue.state ?? "open";
    pull.user = issue.user ?? null;
    pull.created_at = issue.created_at ?? null;
    pull.updated_at = issue.updated_at ?? null;
    pull.closed_at = issue.closed_at ?? null;
    const mergedAt = (issue.pull_request as JsonObject).merged_at ?? null;
    pull.merged_at = mergedAt;
    pull.merged = mergedAt !== null;
    head.sha = digest(`${fullName}#${number}:head`).repeat(3).slice(0, 40);
    head.ref = `topic-${number}`;
    return { status: 200, body: pull, cacheable: true };
  };

  const shaStateFor = (fullName: string, ref: string): ShaState | undefined => {
    if (fullName !== FIXTURE_REPO) return undefined;
    const s = scenarioState(steps, scenarioStart, now());
    const sha = ref === "sparkline" || ref === "heads/sparkline" ? s.headSha : ref;
    if (!s.knownShas.has(sha)) return undefined;
    return s.bySha.get(sha) ?? { checks: [], statuses: [] };
  };

  const noCommit = (ref: string, doc: string): Answer => ({
    status: 422,
    body: { message: `No commit found for SHA: ${ref}`, documentation_url: doc, status: "422" },
    cacheable: false,
  });

  const shaOf = (ref: string) => /^[0-9a-f]{40}$/.test(ref) ? ref : SCENARIO_SHA_FIRST;

  const checkRunId = (sha: string, c: CheckRecord) =>
    30_000_000 +
    smallHash(
        c.app === "github-actions" && c.suite === c.app ? `${sha}:${c.name}` : `${sha}:${c.name}:${c.app}:${c.suite}`,
      ) %
      10_000_000;

  /** Explicit suites of the step, plus one derived per suite key of the checks not listed. */
  const suitesOf = (sha: string, state: ShaState): JsonObject[] => {
    const keys = new Map<string, { app: string; runs: CheckRecord[]; explicit?: FakeSuite & { createdAt: number } }>();
    for (const x of state.suites ?? []) keys.set(x.key, { app: x.app ?? "github-actions", runs: [], explicit: x });
    for (const c of state.checks) {
      const entry = keys.get(c.suite) ?? { app: c.app, runs: [] };
      entry.runs.push(c);
      keys.set(c.suite, entry);
    }
    const out: JsonObject[] = [];
    for (const [key, entry] of keys) {
      const x = entry.explicit;
      const allDone = entry.runs.length > 0 && entry.runs.every((r) => r.status === "completed");
      const anyStarted = entry.runs.some((r) => r.status !== "queued");
      const status = x?.status ?? (allDone ? "completed" : anyStarted ? "in_progress" : "queued");
      const failing = entry.runs.some((r) =>
        r.conclusion !== null && !["success", "neutral", "skipped"].includes(r.conclusion)
      );
      const conclusion = x !== undefined
        ? (x.conclusion ?? null)
        : status === "completed"
        ? (failing ? "failure" : "success")
        : null;
      const id = 800_000 + smallHash(`${sha}:suite:${key}`) % 100_000;
      const created = x?.createdAt ?? Math.min(...entry.runs.map((r) => r.createdAt));
      const updated = Math.max(created, ...entry.runs.map((r) => r.completedAt ?? r.startedAt ?? created));
      out.push({
        id,
        node_id: `CS_kwDO${digest(`${sha}:${key}`)}`,
        head_branch: "sparkline",
        head_sha: sha,
        status,
        conclusion,
        url: `https://api.github.com/repos/${FIXTURE_REPO}/check-suites/${id}`,
        before: "0000000000000000000000000000000000000000",
        after: sha,
        pull_requests: [],
        app: appPayload(entry.app),
        created_at: iso(created),
        updated_at: iso(updated),
        rerequestable: true,
        runs_rerequestable: true,
        latest_check_runs_count: entry.runs.length,
        check_runs_url: `https://api.github.com/repos/${FIXTURE_REPO}/check-suites/${id}/check-runs`,
        head_commit: {
          id: sha,
          tree_id: digest(`${sha}:tree`).repeat(3).slice(0, 40),
          message: "Add sparkline",
          timestamp: iso(created),
          author: { name: "Octo Cat", email: "octocat@github.com" },
          committer: { name: "Octo Cat", email: "octocat@github.com" },
        },
        repository: minimalRepositoryPayload(FIXTURE_REPO),
        // Not part of GitHub's payload: used to build workflow runs.
        _key: key,
        _workflow: x?.workflow ?? key,
        _event: x?.event ?? "pull_request",
      });
    }
    return out;
  };

  const publicSuite = (x: JsonObject): JsonObject => {
    const { _key: _k, _workflow: _w, _event: _e, ...rest } = x;
    return rest;
  };

  const checkRunsPayload = (fullName: string, ref: string, params: URLSearchParams, url: URL): Answer => {
    const state = shaStateFor(fullName, ref);
    if (state === undefined) {
      return noCommit(ref, "https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference");
    }
    const { perPage, page } = pageParams(params);
    const template = (checkRunsFixture.check_runs[0] ?? {}) as unknown;
    const sha = shaOf(ref);
    const suiteIds = new Map(suitesOf(sha, state).map((x) => [String(x._key), Number(x.id)]));
    const all = state.checks.map((c): JsonObject => {
      const r = clone(template);
      const id = checkRunId(sha, c);
      r.id = id;
      r.name = c.name;
      r.head_sha = sha;
      r.status = c.status;
      r.conclusion = c.conclusion;
      r.started_at = c.startedAt === null ? null : iso(c.startedAt);
      r.completed_at = c.completedAt === null ? null : iso(c.completedAt);
      r.url = `https://api.github.com/repos/${fullName}/check-runs/${id}`;
      r.html_url = `https://github.com/${fullName}/actions/runs/900001/job/${id}`;
      r.details_url = r.html_url;
      r.app = { ...(r.app as JsonObject), ...appPayload(c.app) };
      r.check_suite = { id: suiteIds.get(c.suite) ?? 800_001 };
      r.output = {
        title: c.output.title,
        summary: c.output.summary,
        text: c.output.text,
        annotations_count: c.annotations.length,
        annotations_url: `https://api.github.com/repos/${fullName}/check-runs/${id}/annotations`,
      };
      return r;
    });
    const slice = all.slice((page - 1) * perPage, page * perPage);
    return {
      status: 200,
      body: { total_count: all.length, check_runs: slice },
      ...linkFor(url, page, Math.max(1, Math.ceil(all.length / perPage))),
      cacheable: true,
    };
  };

  const checkSuitesPayload = (fullName: string, ref: string, params: URLSearchParams, url: URL): Answer => {
    const state = shaStateFor(fullName, ref);
    if (state === undefined) {
      return noCommit(ref, "https://docs.github.com/rest/checks/suites#list-check-suites-for-a-git-reference");
    }
    const { perPage, page } = pageParams(params);
    const all = suitesOf(shaOf(ref), state).map(publicSuite);
    return {
      status: 200,
      body: { total_count: all.length, check_suites: all.slice((page - 1) * perPage, page * perPage) },
      ...linkFor(url, page, Math.max(1, Math.ceil(all.length / perPage))),
      cacheable: true,
    };
  };

  const workflowRunsPayload = (fullName: string, params: URLSearchParams, url: URL): Answer => {
    const headSha = params.get("head_sha");
    const state = headSha === null ? undefined : shaStateFor(fullName, headSha);
    const { perPage, page } = pageParams(params);
    const sha = shaOf(headSha ?? "");
    const all = state === undefined ? [] : suitesOf(sha, state)
      .filter((x) => (x.app as JsonObject).slug === "github-actions")
      .map((x): JsonObject => {
        const workflow = String(x._workflow);
        const workflowId = 160_000 + smallHash(`workflow:${workflow}`) % 10_000;
        const id = 9_000_000 + smallHash(`${sha}:run:${String(x._key)}`) % 1_000_000;
        return {
          id,
          name: workflow,
          node_id: `WFR_kwLO${digest(`${sha}:${String(x._key)}`)}`,
          check_suite_id: Number(x.id),
          check_suite_node_id: String(x.node_id),
          head_branch: "sparkline",
          head_sha: sha,
          path: `.github/workflows/${workflow.toLowerCase()}.yml`,
          display_title: "Add sparkline",
          run_number: 1 + smallHash(`${id}`) % 500,
          run_attempt: 1,
          event: String(x._event),
          status: x.status ?? null,
          conclusion: x.conclusion ?? null,
          workflow_id: workflowId,
          url: `https://api.github.com/repos/${fullName}/actions/runs/${id}`,
          html_url: `https://github.com/${fullName}/actions/runs/${id}`,
          pull_requests: [],
          created_at: x.created_at ?? null,
          updated_at: x.updated_at ?? null,
          run_started_at: x.created_at ?? null,
          jobs_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/jobs`,
          logs_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/logs`,
          check_suite_url: `https://api.github.com/repos/${fullName}/check-suites/${x.id}`,
          artifacts_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/artifacts`,
          cancel_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/cancel`,
          rerun_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/rerun`,
          workflow_url: `https://api.github.com/repos/${fullName}/actions/workflows/${workflowId}`,
          head_commit: x.head_commit ?? null,
          repository: x.repository ?? null,
          head_repository: x.repository ?? null,
        };
      });
    return {
      status: 200,
      body: { total_count: all.length, workflow_runs: all.slice((page - 1) * perPage, page * perPage) },
      ...linkFor(url, page, Math.max(1, Math.ceil(all.length / perPage))),
      cacheable: true,
    };
  };

  const annotationsPayload = (fullName: string, idText: string, params: URLSearchParams, url: URL): Answer => {
    const id = Number(idText);
    let found: { sha: string; check: CheckRecord } | undefined;
    if (fullName === FIXTURE_REPO) {
      const s = scenarioState(steps, scenarioStart, now());
      for (const [sha, st] of s.bySha) {
        const check = st.checks.find((c) => checkRunId(sha, c) === id);
        if (check !== undefined) found = { sha, check };
      }
    }
    if (found === undefined) return notFound("https://docs.github.com/rest/checks/runs#list-check-run-annotations");
    const { perPage, page } = pageParams(params);
    const all = found.check.annotations.map((a): JsonObject => ({
      path: a.path,
      blob_href: `https://github.com/${fullName}/blob/${found.sha}/${a.path}`,
      start_line: a.start_line,
      end_line: a.start_line,
      start_column: null,
      end_column: null,
      annotation_level: a.level ?? "failure",
      title: a.title ?? null,
      message: a.message,
      raw_details: null,
    }));
    return {
      status: 200,
      body: all.slice((page - 1) * perPage, page * perPage),
      ...linkFor(url, page, Math.max(1, Math.ceil(all.length / perPage))),
      cacheable: true,
    };
  };

  const rulesPayload = (fullName: string, branch: string): Answer => {
    const required = fullName === FIXTURE_REPO ? scenarioState(steps, scenarioStart, now()).requiredChecks : [];
    if (required === "forbidden") {
      return {
        status: 403,
        body: {
          message: "Resource not accessible by personal access token",
          documentation_url: "https://docs.github.com/rest/repos/rules#get-rules-for-a-branch",
          status: "403",
        },
        cacheable: false,
      };
    }
    const body: Json[] = required.length === 0 ? [] : [{
      type: "required_status_checks",
      ruleset_source_type: "Repository",
      ruleset_source: fullName,
      ruleset_id: 42,
      parameters: {
        strict_required_status_checks_policy: false,
        required_status_checks: required.map((r) => ({ ...r })),
      },
    }];
    void branch;
    return { status: 200, body, cacheable: true };
  };

  const statusPayload = (fullName: string, ref: string, params: URLSearchParams, url: URL): Answer => {
    const state = shaStateFor(fullName, ref);
    if (state === undefined) {
      return {
        status: 422,
        body: { message: `No commit found for SHA: ${ref}`, status: "422" },
        cacheable: false,
      };
    }
    const sha = /^[0-9a-f]{40}$/.test(ref) ? ref : SCENARIO_SHA_FIRST;
    const { perPage, page } = pageParams(params);
    const body = clone(combinedStatusFixture);
    const template = (combinedStatusFixture.statuses[0] ?? {}) as unknown;
    const statuses = state.statuses.map((s): JsonObject => {
      const r = clone(template);
      r.id = 40_000_000 + smallHash(`${sha}:${s.context}:${s.state}`) % 10_000_000;
      r.url = `https://api.github.com/repos/${fullName}/statuses/${sha}`;
      r.state = s.state;
      r.context = s.context;
      r.description = s.description;
      r.created_at = iso(s.createdAt);
      r.updated_at = iso(s.updatedAt);
      return r;
    });
    const states = statuses.map((s) => s.state);
    body.state = states.some((s) => s === "failure" || s === "error")
      ? "failure"
      : states.length === 0 || states.some((s) => s === "pending")
      ? "pending"
      : "success";
    // Paginated like GitHub: `statuses` is one page (30 by default, 100 at most); `state` and
    // `total_count` cover every status.
    body.statuses = statuses.slice((page - 1) * perPage, page * perPage);
    body.sha = sha;
    body.total_count = statuses.length;
    body.commit_url = `https://api.github.com/repos/${fullName}/commits/${sha}`;
    body.url = `https://api.github.com/repos/${fullName}/commits/${sha}/status`;
    return {
      status: 200,
      body,
      ...linkFor(url, page, Math.max(1, Math.ceil(statuses.length / perPage))),
      cacheable: true,
    };
  };

  const issuesPayload = (fullName: string, params: URLSearchParams, url: URL): Answer => {
    const list = issuesOf(fullName);
    if (list === undefined) return notFound();
    const state = params.get("state") ?? "open";
    const sort = params.get("sort") ?? "created";
    const direction = params.get("direction") ?? (sort === "created" || sort === "updated" ? "desc" : "desc");
    const perPageRaw = intParam(params, "per_page", 30);
    const page = intParam(params, "page", 1);
    const sinceRaw = params.get("since");
    const since = sinceRaw === null ? undefined : Date.parse(sinceRaw);
    if (
      !["open", "closed", "all"].includes(state) || !["created", "updated", "comments"].includes(sort) ||
      !["asc", "desc"].includes(direction) || perPageRaw === undefined || page === undefined ||
      (since !== undefined && Number.isNaN(since))
    ) {
      return {
        status: 422,
        body: {
          message: "Validation Failed",
          errors: [{ resource: "Issue", code: "invalid" }],
          documentation_url: "https://docs.github.com/rest/issues/issues#list-repository-issues",
          status: "422",
        },
        cacheable: false,
      };
    }
    const perPage = Math.min(100, Math.max(1, perPageRaw));
    const key = (i: JsonObject): number =>
      sort === "comments" ? Number(i.comments) : Date.parse(String(sort === "updated" ? i.updated_at : i.created_at));
    const filtered = list
      .filter((i) => state === "all" || i.state === state)
      .filter((i) => since === undefined || Date.parse(String(i.updated_at)) >= since)
      .sort((x, y) => (key(x) - key(y)) * (direction === "asc" ? 1 : -1) || Number(x.number) - Number(y.number));
    const last = Math.max(1, Math.ceil(filtered.length / perPage));
    const current = Math.max(1, page);
    return {
      status: 200,
      body: filtered.slice((current - 1) * perPage, current * perPage),
      ...linkFor(url, current, last),
      cacheable: true,
    };
  };

  const route = (kind: EndpointKind, parts: string[], url: URL): Answer => {
    const owner = parts[0] ?? "";
    const repo = parts[1] ?? "";
    const fullName = `${owner}/${repo}`;
    if (kind === "unknown") return notFound();
    if (fullName.toLowerCase() === PRIVATE_REPO) {
      return {
        status: 403,
        body: {
          message: "Resource not accessible by personal access token",
          documentation_url: "https://docs.github.com/rest/repos/repos#get-a-repository",
          status: "403",
        },
        cacheable: false,
      };
    }
    if (!knownRepo(fullName)) return notFound("https://docs.github.com/rest/repos/repos#get-a-repository");
    switch (kind) {
      case "repository": {
        const n = fullName === FIXTURE_REPO ? undefined : generated.get(fullName);
        const open = (issuesOf(fullName) ?? []).filter((i) => i.state === "open").length;
        const body = n === undefined
          ? repositoryPayload(fullName, Number(repositoryFixture.id), open)
          : repositoryPayload(fullName, 700_000 + smallHash(fullName) % 100_000, open);
        return { status: 200, body, cacheable: true };
      }
      case "pull":
        return pullPayload(fullName, Number(parts[2]));
      case "check_runs":
        return checkRunsPayload(fullName, parts[2] ?? "", url.searchParams, url);
      case "status":
        return statusPayload(fullName, parts[2] ?? "", url.searchParams, url);
      case "check_suites":
        return checkSuitesPayload(fullName, parts[2] ?? "", url.searchParams, url);
      case "workflow_runs":
        return workflowRunsPayload(fullName, url.searchParams, url);
      case "annotations":
        return annotationsPayload(fullName, parts[2] ?? "", url.searchParams, url);
      case "rules":
        return rulesPayload(fullName, parts[2] ?? "");
      case "issues":
        return issuesPayload(fullName, url.searchParams, url);
      default:
        return notFound();
    }
  };

  const classify = (pathname: string): { kind: EndpointKind; parts: string[] } => {
    if (pathname === "/rate_limit") return { kind: "rate_limit", parts: [] };
    const seg = "([^/]+)";
    const decode = (m: RegExpExecArray) => m.slice(1).map((s) => decodeURIComponent(s ?? ""));
    let m = new RegExp(`^/repos/${seg}/${seg}/?$`).exec(pathname);
    if (m !== null) return { kind: "repository", parts: decode(m) };
    m = new RegExp(`^/repos/${seg}/${seg}/pulls/([1-9][0-9]*)$`).exec(pathname);
    if (m !== null) return { kind: "pull", parts: decode(m) };
    m = new RegExp(`^/repos/${seg}/${seg}/commits/(.+)/check-runs$`).exec(pathname);
    if (m !== null) return { kind: "check_runs", parts: decode(m) };
    m = new RegExp(`^/repos/${seg}/${seg}/commits/(.+)/status$`).exec(pathname);
    if (m !== null) return { kind: "status", parts: decode(m) };
    m = new RegExp(`^/repos/${seg}/${seg}/commits/(.+)/check-suites$`).exec(pathname);
    if (m !== null) return { kind: "check_suites", parts: decode(m) };
    m = new RegExp(`^/repos/${seg}/${seg}/actions/runs$`).exec(pathname);
    if (m !== null) return { kind: "workflow_runs", parts: decode(m) };
    m = new RegExp(`^/repos/${seg}/${seg}/check-runs/([1-9][0-9]*)/annotations$`).exec(pathname);
    if (m !== null) return { kind: "annotations", parts: decode(m) };
    m = new RegExp(`^/repos/${seg}/${seg}/rules/branches/(.+)$`).exec(pathname);
    if (m !== null) return { kind: "rules", parts: decode(m) };
    m = new RegExp(`^/repos/${seg}/${seg}/issues$`).exec(pathname);
    if (m !== null) return { kind: "issues", parts: decode(m) };
    return { kind: "unknown", parts: [] };
  };

  const rateHeaders = (headers: Headers, token: string | undefined) => {
    const b = bucket(token);
    const lim = limitOf(token);
    const exhausted = now() < exhaustedUntil;
    headers.set("x-ratelimit-limit", String(lim));
    headers.set("x-ratelimit-remaining", String(exhausted ? 0 : Math.max(0, lim - b.used)));
    headers.set("x-ratelimit-used", String(exhausted ? lim : Math.min(lim, b.used)));
    headers.set("x-ratelimit-reset", String(Math.ceil((exhausted ? exhaustedUntil : b.resetAt) / 1000)));
    headers.set("x-ratelimit-resource", "core");
  };

  const json = (status: number, body: Json | undefined, headers: Headers): Response => {
    if (body !== undefined) headers.set("content-type", "application/json; charset=utf-8");
    return new Response(body === undefined ? null : JSON.stringify(body), { status, headers });
  };

  const record = (r: FakeRequestRecord) => {
    requests.push(r);
    if (requests.length > 10_000) requests.splice(0, requests.length - 10_000);
  };

  const touch = (fullName: string, number: number, changes: { title?: string; state?: "open" | "closed" }) => {
    const o: IssueOverride = { updatedAt: now() };
    if (changes.title !== undefined) o.title = changes.title;
    if (changes.state !== undefined) o.state = changes.state;
    overrides.set(`${fullName}#${number}`, o);
  };

  /** Fires the first pending move for this page read (several moves for one page fire on successive reads). */
  const applyMoves = (fullName: string, page: number) => {
    const i = pendingMoves.findIndex((m) => m.fullName === fullName && m.afterPage === page);
    const [m] = i < 0 ? [] : pendingMoves.splice(i, 1);
    if (m !== undefined) touch(m.fullName, m.number, m.changes);
  };

  const handle = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const { kind, parts } = classify(url.pathname);
    const token = tokenOf(req);
    const conditional = req.headers.has("if-none-match");
    counts.total++;
    counts.byKind[kind]++;
    counts.inFlight++;
    counts.maxInFlight = Math.max(counts.maxInFlight, counts.inFlight);
    try {
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const headers = new Headers({ "x-github-media-type": "github.v3; format=json", "vary": "Accept, Authorization" });
      const finish = (status: number, body: Json | undefined) => {
        record({
          kind,
          path: url.pathname + url.search,
          status,
          conditional,
          authenticated: token !== undefined,
          at: now(),
        });
        if (body !== undefined) headers.set("content-type", "application/json; charset=utf-8");
        if (openApi !== undefined && kind !== "unknown" && req.method === "GET") {
          for (
            const problem of openApi.check({
              method: req.method,
              url: url.pathname + url.search,
              conditional,
              status,
              headers,
              body,
            })
          ) {
            if (openApiViolations.length < 1_000) {
              openApiViolations.push(`GET ${url.pathname}${url.search}: ${problem}`);
            }
          }
        }
        return json(status, body, headers);
      };
      if (req.method !== "GET" && req.method !== "HEAD") {
        return finish(404, { message: "Not Found", status: "404" });
      }
      if (validTokens !== undefined && token !== undefined && !validTokens.has(token)) {
        rateHeaders(headers, undefined);
        return finish(401, {
          message: "Bad credentials",
          documentation_url: "https://docs.github.com/rest",
          status: "401",
        });
      }
      if (kind === "rate_limit") {
        const b = bucket(token);
        const lim = limitOf(token);
        const exhausted = now() < exhaustedUntil;
        const core = {
          limit: lim,
          used: exhausted ? lim : b.used,
          remaining: exhausted ? 0 : lim - b.used,
          reset: Math.ceil((exhausted ? exhaustedUntil : b.resetAt) / 1000),
        };
        rateHeaders(headers, token);
        counts.free++;
        return finish(200, {
          resources: {
            core,
            search: { limit: 30, used: 0, remaining: 30, reset: Math.ceil((now() + 60_000) / 1000) },
          },
          rate: core,
        });
      }
      const sec = secondary.shift();
      if (sec !== undefined) {
        counts.rateLimited++;
        rateHeaders(headers, token);
        if (sec.retryAfterSec !== undefined) headers.set("retry-after", String(sec.retryAfterSec));
        return finish(sec.status, {
          message:
            "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.",
          documentation_url:
            "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
          status: String(sec.status),
        });
      }
      const b = bucket(token);
      if (now() < exhaustedUntil || b.used >= limitOf(token)) {
        counts.rateLimited++;
        rateHeaders(headers, token);
        return finish(403, {
          message: token === undefined
            ? "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit.)"
            : "API rate limit exceeded for user ID 583231.",
          documentation_url:
            "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits",
          status: "403",
        });
      }
      const failIndex = failures.findIndex((f) => f.kind === undefined || f.kind === kind);
      if (failIndex >= 0) {
        const [failure] = failures.splice(failIndex, 1);
        counts.injectedErrors++;
        rateHeaders(headers, token);
        return finish(failure?.status ?? 502, { message: "Server Error", status: String(failure?.status ?? 502) });
      }
      const answer = route(kind, parts, url);
      if (kind === "issues") applyMoves(`${parts[0]}/${parts[1]}`, Number(url.searchParams.get("page") ?? "1"));
      const text = JSON.stringify(answer.body);
      if (answer.link !== undefined) headers.set("link", answer.link);
      if (answer.status === 200 && answer.cacheable) {
        // ETags differ per token, as GitHub's do (a validator from one token does not match for another).
        const etag = `"${digest(`${text}|${answer.link ?? ""}|${token === undefined ? "" : digest(token)}`)}"`;
        headers.set("etag", etag);
        headers.set("cache-control", token === undefined ? "public, max-age=60, s-maxage=60" : "private, max-age=60");
        if (etagMatches(req.headers.get("if-none-match"), etag)) {
          counts.notModified++;
          counts.notModifiedByKind[kind]++;
          if (options.omitLinkOn304 === true) headers.delete("link");
          if (token === undefined) {
            // GitHub charges a 304 only when the request carried no `Authorization`.
            b.used++;
            counts.counted++;
            counts.countedByKind[kind]++;
            counts.notModifiedCounted++;
          } else {
            counts.free++;
          }
          rateHeaders(headers, token);
          return finish(304, undefined);
        }
      }
      b.used++;
      counts.counted++;
      counts.countedByKind[kind]++;
      rateHeaders(headers, token);
      return finish(answer.status, answer.body);
    } finally {
      counts.inFlight--;
    }
  };

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      onListen: (addr) => {
        const url = `http://127.0.0.1:${addr.port}`;
        resolve({
          url,
          counts,
          requests,
          openApiViolations,
          now,
          advance: (ms) => {
            if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`Cannot advance time: current value is ${ms}`);
            offset += ms;
          },
          setScenario: (scenario) => {
            steps = typeof scenario === "object" ? scenario : SCENARIOS[scenario];
            if (steps === undefined) throw new RangeError(`Cannot set a scenario: current value is ${scenario}`);
            scenarioStart = now();
          },
          scenarioElapsedMs: () => now() - scenarioStart,
          failNext: (count, o = {}) => {
            for (let i = 0; i < count; i++) failures.push({ status: o.status ?? 502, kind: o.kind });
          },
          limitSecondaryNext: (count, o = {}) => {
            for (let i = 0; i < count; i++) secondary.push({ status: o.status ?? 403, retryAfterSec: o.retryAfterSec });
          },
          exhaustPrimary: (o = {}) => {
            exhaustedUntil = now() + (o.resetInMs ?? windowMs);
          },
          remaining: (token) => now() < exhaustedUntil ? 0 : Math.max(0, limitOf(token) - bucket(token).used),
          touchIssue: (fullName, number, changes = {}) => touch(fullName, number, changes),
          touchIssueAfterPage: (fullName, number, afterPage, changes = {}) => {
            if (!Number.isInteger(afterPage) || afterPage < 1) {
              throw new RangeError(`Cannot move an issue after a page: current value of afterPage is ${afterPage}`);
            }
            pendingMoves.push({ fullName, number, afterPage, changes });
          },
          setLatency: (ms) => {
            latencyMs = ms;
          },
          resetCounts: () => {
            Object.assign(counts, newCounts(), { inFlight: counts.inFlight });
          },
          close: () => server.shutdown(),
        });
      },
    }, handle);
  });
}

function linkFor(url: URL, page: number, last: number): { link?: string } {
  if (last <= 1) return {};
  const at = (p: number) => {
    const u = new URL(url.href);
    u.searchParams.set("page", String(p));
    return `<${u.href}>`;
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`${at(page - 1)}; rel="prev"`);
  if (page < last) rels.push(`${at(page + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (page > 1) rels.push(`${at(1)}; rel="first"`);
  return rels.length === 0 ? {} : { link: rels.join(", ") };
}

// ---------------------------------------------------------------- standalone

function parseArgs(args: string[]): FakeGitHubOptions {
  const options: FakeGitHubOptions = {};
  const generatedRepos: Record<string, number> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1];
    const need = () => {
      if (value === undefined) throw new TypeError(`Cannot parse ${arg}: current value is missing`);
      i++;
      return value;
    };
    switch (arg) {
      case "--scenario": {
        const name = need();
        if (!(SCENARIO_NAMES as readonly string[]).includes(name)) {
          throw new TypeError(`Cannot use scenario ${name}: current value is not one of ${SCENARIO_NAMES.join(", ")}`);
        }
        options.scenario = name as ScenarioName;
        break;
      }
      case "--port":
        options.port = Number(need());
        break;
      case "--latency-ms":
        options.latencyMs = Number(need());
        break;
      case "--generated": {
        const spec = need();
        const m = /^([^/=]+\/[^/=]+)=(\d+)$/.exec(spec);
        if (m === null) throw new TypeError(`Cannot parse --generated OWNER/REPO=N: current value is ${spec}`);
        generatedRepos[m[1] ?? ""] = Number(m[2]);
        break;
      }
      default:
        throw new TypeError(`Cannot parse the arguments: current value ${arg} is unknown`);
    }
  }
  if (Object.keys(generatedRepos).length > 0) options.generatedRepos = generatedRepos;
  return options;
}

if (import.meta.main) {
  const options = parseArgs(Deno.args);
  const fake = await startFakeGitHub(options);
  console.log(JSON.stringify({
    url: fake.url,
    scenario: typeof options.scenario === "string" ? options.scenario : "checks_pass",
    pull: SCENARIO_PULL,
    generated: options.generatedRepos ?? {},
  }));
  const stop = () => {
    fake.close().then(() => Deno.exit(0));
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
