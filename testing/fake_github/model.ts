/**
 * The fake GitHub's public model: the scenario step shapes tests script, the counters and request
 * log they read, the options of `startFakeGitHub` and the handle it returns. Re-exported by
 * testing/fake_github.ts, which is what callers import.
 *
 * @module
 */

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
  | "branch"
  | "unknown";
/** Every endpoint kind, for zeroed counters. */
export const KINDS: readonly EndpointKind[] = [
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
  "branch",
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
  /** Whether the base branch's rules from this step on also require workflows (a `workflows` rule). */
  requiredWorkflows?: boolean;
  /**
   * The base branch's classic protection from this step on, as "Get a branch" summarizes it to any
   * reader; `forbidden` (403) or `not_found` (404) when the branch cannot be read. Default: unprotected.
   */
  branchProtection?: FakeBranchProtection | "forbidden" | "not_found";
}

/** Classic branch protection's required status checks (`app_id` absent: any app). */
export interface FakeBranchProtection {
  enforcement_level: "off" | "non_admins" | "everyone";
  checks: Array<{ context: string; app_id?: number }>;
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
  | "required_workflows"
  | "rules_forbidden";

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
  /** Marks an issue of a fixture or generated repository as updated now (changes `updated_at` and, optionally,
   * the `title` and `state` of `options`). */
  touchIssue(fullName: string, number: number, options?: { title?: string; state?: "open" | "closed" }): void;
  /** Listing movement: right after page `options.afterPage` of a `/issues` listing of `fullName` is answered
   * (200 or 304), {@linkcode FakeGitHub.touchIssue} runs once with the `title` and `state` of `options`, so the
   * thread moves between two page reads (a `since=` re-listing without `page` is page 1; several moves for one
   * page fire on successive reads). */
  touchIssueAfterPage(
    fullName: string,
    number: number,
    options: { afterPage: number; title?: string; state?: "open" | "closed" },
  ): void;
  setLatency(ms: number): void;
  resetCounts(): void;
  close(): Promise<void>;
}

function emptyKinds(): Record<EndpointKind, number> {
  return Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<EndpointKind, number>;
}

/** Zeroed counters. */
export function newCounts(): FakeCounts {
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
