/**
 * Job kind `github.wait_pull_request_checks`: its name, outcomes, result and observation types,
 * and its policy ({@linkcode watchPolicy}: outcome, first poll guidance, material progress), the
 * part both sides share. No zod and no client: the spec is src/github/watch_spec.ts, the runner
 * (the polling loop, only where jobs execute) src/github/watch_runner.ts.
 *
 * @module
 */

import { type AnyJobPolicy, defineJobPolicy } from "../jobs/kinds.ts";
import type { PullRequestChecksObservation } from "../store/corpus_types.ts";
import type {
  CheckEntry,
  CheckRunLike,
  ChecksSummary,
  RequiredCheck,
  StatusLike,
  SuiteLike,
  SuitesSummary,
  SuiteWorkflow,
} from "./checks_state.ts";
import type { PullRef, RepoRef } from "../base/names.ts";
import type { GitHubCheckAnnotation } from "./types.ts";
import type { WatchRequest } from "./watch_spec.ts";

export const WATCH_KIND = "github.wait_pull_request_checks";

export type { WatchRequest };

/** Every outcome, distinct in the result and in the job's outcome. */
export type WatchOutcome =
  | "succeeded"
  | "failed"
  | "timed_out"
  | "superseded"
  | "no_checks"
  | "changed"
  | "incomplete"
  | "action_required"
  | "closed"
  | "merged";

/** Every outcome, in the order the docs list them. */
export const WATCH_OUTCOMES: readonly WatchOutcome[] = [
  "succeeded",
  "failed",
  "timed_out",
  "superseded",
  "no_checks",
  "changed",
  "incomplete",
  "action_required",
  "closed",
  "merged",
];

/** One reading of the PR and its CI. */
export interface PullObservation {
  head_sha: string;
  /** The pull request's `state`: open | closed. */
  state: string;
  /** Whether the pull request was merged. */
  merged?: boolean;
  /** The base branch (its rules name the required checks). */
  base_ref?: string;
  /** Every check run listed (re-runs of one check included; the watcher keeps the newest). */
  check_runs: CheckRunLike[];
  statuses: StatusLike[];
  /** The commit's check suites (default none). */
  suites?: SuiteLike[];
  /** Workflow and event per check suite id, when read (re-runs present). */
  workflows?: ReadonlyMap<number, SuiteWorkflow>;
  /** Whether every check run, status and suite GitHub counts was fetched. */
  coverage_complete: boolean;
  /** Why coverage is not complete, in words. */
  coverage_gaps?: string[];
}

/** Per-read options of a {@linkcode PullObserver}. */
export interface ObserveOptions {
  /** Cancels the read (the watch's signal). */
  signal: AbortSignal;
  /** Longest rate-limit wait this read may make; a longer one fails with `rate_limited`. */
  maxRateLimitWaitMs?: number;
  /** Called before a rate-limit wait with the instant requests resume (feeds poll guidance). */
  onRateLimitWait?: (untilMs: number) => void;
}

/** Where observations come from (the GitHub client in production, anything in tests). */
export interface PullObserver {
  /** The head SHA of `pull`. */
  headSha(pull: PullRef, options: ObserveOptions): Promise<string>;
  /** One reading of `pull` and of the CI of commit `sha`. */
  observe(pull: PullRef, sha: string, options: ObserveOptions): Promise<PullObservation>;
  /** The checks `branch` of `repo` requires (rulesets and classic protection); `required_checks_unavailable`
   * when either cannot be read. */
  requiredChecks?(repo: RepoRef, branch: string, options: ObserveOptions): Promise<RequiredCheck[]>;
  /** The first annotations of check run `checkRunId` of `repo` (why it failed). */
  annotations?(repo: RepoRef, checkRunId: number, options: ObserveOptions): Promise<GitHubCheckAnnotation[]>;
  /** Counted requests (anonymous 304s included) and 304s so far, and the last rate-limit state seen. */
  stats(): {
    requests: number;
    not_modified: number;
    not_modified_counted?: number;
    rate_limit?: Record<string, unknown> | undefined;
  };
  /** Whether requests carry a token. */
  readonly authenticated: boolean;
}

export interface Transition {
  at: string;
  signature: string;
  summary: ChecksSummary;
}

/** One annotation of a failing check run (bounded). */
export interface FailureAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: string | null;
  title: string | null;
  message: string;
}

/** Why one check failed, so a reader can say what broke without another call. */
export interface FailureDetail {
  kind: "check_run" | "status";
  name: string;
  /** The app (check runs) or null. */
  app: string | null;
  conclusion: string;
  /** The check run's page on github.com (statuses: null). */
  html_url: string | null;
  /** The reporter's page (check runs: `details_url`; statuses: `target_url`). */
  details_url: string | null;
  /** `output.title` (statuses: their description), at most WATCH_FAILURE_TITLE_CHARS_MAX chars. */
  title: string | null;
  /** `output.summary`, at most WATCH_FAILURE_SUMMARY_CHARS_MAX chars. */
  summary: string | null;
  summary_truncated: boolean;
  /** GitHub's `output.annotations_count` (0 for statuses). */
  annotations_count: number;
  /** The first annotations (at most WATCH_FAILURE_ANNOTATIONS_MAX), read once when the watch ends failed. */
  annotations: FailureAnnotation[];
  /** Why the annotations could not be read, if they could not. */
  annotations_error?: string;
}

/** What an anonymous watch costs: GitHub counts every anonymous request, 304s included, against 60/h. */
export interface AnonymousCost {
  /** 304 answers GitHub counted because no token was sent. */
  counted_not_modified: number;
  /** Counted requests per poll over this watch. */
  counted_per_poll: number;
  /** Counted requests an hour at the requested poll interval. */
  counted_per_hour_at_interval: number;
  /** GitHub's anonymous limit per hour (from its headers, else 60). */
  hourly_limit: number;
  /** Poll waits stretched past the interval so the watch fits in what is left of the limit. */
  paced_polls: number;
  /** The same, in words. */
  note: string;
}

/** The watch result stored with the job and returned to clients. */
export interface WatchResult {
  outcome: WatchOutcome;
  /** Why this outcome, in words (e.g. which suites wait for approval, what is pending). */
  reason: string;
  repository: string;
  number: number;
  expected_head_sha: string;
  observed_head_sha: string;
  /** The pull request's state at the last reading: open | closed. */
  pull_state: string;
  merged: boolean;
  /** Only the base branch's required checks were watched. */
  required_only: boolean;
  /** The required check names (with `required_only`). */
  required_checks?: string[];
  summary: ChecksSummary;
  /** The commit's check suites at the last reading. */
  suites: SuitesSummary;
  /** Older runs of a re-triggered check (same name, app, workflow and event) left out of `checks`. */
  duplicates_dropped: number;
  /** Why coverage could not be proven complete (empty when it was). */
  coverage_gaps: string[];
  /** Why each failing check failed (at most WATCH_FAILURE_DETAILS_MAX). */
  failures: FailureDetail[];
  failures_truncated: boolean;
  /** Signature of the final observation (every check, even beyond the `checks` bound). */
  signature: string;
  checks: CheckEntry[];
  checks_truncated: boolean;
  transitions: Transition[];
  transitions_truncated: boolean;
  polls: number;
  /** Requests GitHub counted against the primary limit (anonymous 304s included). */
  requests: number;
  /** 304 answers (free only when authenticated). */
  not_modified: number;
  /** 304 answers GitHub counted (anonymous watch). */
  not_modified_counted: number;
  rate_limit?: Record<string, unknown> | undefined;
  authenticated: boolean;
  /** Present when the watch is anonymous: what it cost and why a token helps. */
  anonymous_cost?: AnonymousCost;
  started_at: string;
  finished_at: string;
}

/**
 * The watch's policy, all the control side needs of the kind (no zod, no client): the job's
 * outcome is the watch outcome, the first poll guidance is the first scheduled GitHub poll, only
 * the count of CI transitions in the progress message is material to a waiting reader, and its
 * subject is the pull request.
 */
export const watchPolicy: AnyJobPolicy = defineJobPolicy<WatchRequest, WatchResult>({
  kind: WATCH_KIND,
  outcome: (result) => result.outcome,
  firstPollAfterMs: watchFirstPollMs,
  // The CI signature moves exactly when a transition is seen (the progress message counts every
  // one, also past the kept list's bound); the poll count beside it is not material to a waiting reader.
  materialProgress: (message) => /\b(\d+) transitions?\b/.exec(message ?? "")?.[1],
  subject: (request) => `${request.owner}/${request.repo}#${request.number}`,
});

/**
 * When a watch's first look can show something new: its first scheduled GitHub poll. The first
 * reading (and the re-read confirming a verdict) happen as it starts; a CI still pending then can
 * change only by the next scheduled poll, so hosts are told to look then, not every 250 ms.
 */
export function watchFirstPollMs(req: Pick<WatchRequest, "poll_interval_ms" | "timeout_ms">): number {
  return Math.min(req.poll_interval_ms, req.timeout_ms);
}

/** The corpus record of a finished watch: its last complete observation. */
export function checksObservationOf(r: WatchResult): PullRequestChecksObservation {
  return {
    repository: r.repository,
    number: r.number,
    head_sha: r.observed_head_sha,
    outcome: r.outcome,
    // The final observation's signature: the last transition kept may be older (bounded list).
    signature: r.signature,
    checks: r.checks,
    observed_at: Date.parse(r.finished_at),
  };
}
