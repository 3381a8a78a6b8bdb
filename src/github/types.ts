/**
 * Minimal shapes of the GitHub REST payloads longcall reads. Only the fields longcall
 * uses are typed; GitHub sends many more, which pass through untouched.
 *
 * @module
 */

/** `user` / `owner` objects. */
export interface GitHubUser {
  login: string;
  id: number;
  type?: string;
}

/** A label on an issue. */
export interface GitHubLabel {
  name: string;
  color?: string;
  description?: string | null;
}

/** `GET /repos/{o}/{r}`. */
export interface GitHubRepository {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  owner: GitHubUser;
  html_url: string;
  description: string | null;
  topics?: string[];
  default_branch: string;
  stargazers_count: number;
  license: { key: string; name: string; spdx_id: string | null } | null;
  archived: boolean;
  updated_at: string;
  pushed_at: string | null;
}

/** `GET /repos/{o}/{r}/pulls/{n}`. */
export interface GitHubPullRequest {
  id: number;
  number: number;
  state: "open" | "closed";
  title: string;
  html_url: string;
  draft?: boolean;
  merged: boolean;
  merged_at: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
  user: GitHubUser | null;
  head: { ref: string; sha: string; repo: { full_name: string } | null };
  base: { ref: string; sha: string; repo: { full_name: string } };
}

/** Status of a check run. */
export type CheckRunStatus = "queued" | "in_progress" | "completed" | "waiting" | "requested" | "pending";

/** Conclusion of a completed check run. */
export type CheckRunConclusion =
  | "success"
  | "failure"
  | "neutral"
  | "cancelled"
  | "skipped"
  | "timed_out"
  | "action_required"
  | "stale"
  | "startup_failure"
  | "error";

/** One check run. */
export interface GitHubCheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: CheckRunStatus;
  conclusion: CheckRunConclusion | null;
  started_at: string | null;
  completed_at: string | null;
  details_url: string | null;
  html_url?: string | null;
  app: { id?: number; slug: string; name?: string } | null;
  /** The suite the run belongs to (one per app per push/event). */
  check_suite?: { id: number } | null;
  /** Why it failed: each field up to 65,535 characters, included in list responses. */
  output?: GitHubCheckRunOutput;
}

/** `check_run.output`. */
export interface GitHubCheckRunOutput {
  title: string | null;
  summary: string | null;
  text?: string | null;
  annotations_count: number;
  annotations_url?: string;
}

/** Status of a check suite. */
export type CheckSuiteStatus = "queued" | "in_progress" | "completed" | "waiting" | "requested" | "pending";

/** One check suite (`GET /repos/{o}/{r}/commits/{ref}/check-suites`). */
export interface GitHubCheckSuite {
  id: number;
  head_sha: string;
  status: CheckSuiteStatus | null;
  conclusion: CheckRunConclusion | null;
  app: { id?: number; slug?: string; name?: string } | null;
  latest_check_runs_count: number;
  created_at?: string | null;
  updated_at?: string | null;
}

/** One page of `GET /repos/{o}/{r}/commits/{ref}/check-suites`. */
export interface GitHubCheckSuitesPage {
  total_count: number;
  check_suites: GitHubCheckSuite[];
}

/** One workflow run (`GET /repos/{o}/{r}/actions/runs?head_sha=`): names a suite's workflow and event. */
export interface GitHubWorkflowRun {
  id: number;
  name?: string | null;
  event: string;
  workflow_id: number;
  check_suite_id?: number;
  head_sha: string;
  path?: string;
}

/** One page of `GET /repos/{o}/{r}/actions/runs`. */
export interface GitHubWorkflowRunsPage {
  total_count: number;
  workflow_runs: GitHubWorkflowRun[];
}

/** One annotation (`GET /repos/{o}/{r}/check-runs/{id}/annotations`). */
export interface GitHubCheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  start_column?: number | null;
  end_column?: number | null;
  annotation_level: "notice" | "warning" | "failure" | null;
  title: string | null;
  message: string | null;
  raw_details?: string | null;
  blob_href?: string;
}

/** One rule of `GET /repos/{o}/{r}/rules/branches/{branch}`; only `required_status_checks` is read. */
export interface GitHubBranchRule {
  type: string;
  ruleset_source_type?: string;
  ruleset_source?: string;
  ruleset_id?: number;
  parameters?: {
    required_status_checks?: Array<{ context: string; integration_id?: number }>;
    strict_required_status_checks_policy?: boolean;
    [key: string]: unknown;
  };
}

/**
 * `protection.required_status_checks` of `GET /repos/{o}/{r}/branches/{branch}` ("Get a branch",
 * schema `protected-branch-required-status-check`): the summary of classic branch protection any
 * reader of the repository sees (the full `/protection` endpoint needs admin). `enforcement_level`
 * is `off`, `non_admins` or `everyone` in GitHub's answers; `checks[].app_id` null means any app.
 */
export interface GitHubRequiredStatusChecks {
  enforcement_level?: string;
  contexts: string[];
  checks: Array<{ context: string; app_id: number | null }>;
  strict?: boolean;
}

/** `GET /repos/{o}/{r}/branches/{branch}` (schema `branch-with-protection`); only the protection summary is read. */
export interface GitHubBranchWithProtection {
  name: string;
  protected: boolean;
  protection: {
    enabled?: boolean;
    required_status_checks?: GitHubRequiredStatusChecks;
    [key: string]: unknown;
  };
  protection_url?: string;
}

/** One page of `GET /repos/{o}/{r}/commits/{ref}/check-runs`. */
export interface GitHubCheckRunsPage {
  total_count: number;
  check_runs: GitHubCheckRun[];
}

/** State of a legacy commit status. */
export type CommitStatusState = "error" | "failure" | "pending" | "success";

/** One legacy commit status. */
export interface GitHubCommitStatus {
  id: number;
  context: string;
  state: CommitStatusState;
  description: string | null;
  target_url: string | null;
  created_at: string;
  updated_at: string;
}

/** `GET /repos/{o}/{r}/commits/{ref}/status`. */
export interface GitHubCombinedStatus {
  /** `pending` also when there are no statuses at all. */
  state: CommitStatusState;
  sha: string;
  total_count: number;
  statuses: GitHubCommitStatus[];
}

/** One item of `GET /repos/{o}/{r}/issues`; pull requests carry `pull_request`. */
export interface GitHubIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason?: string | null;
  html_url: string;
  user: GitHubUser | null;
  labels: GitHubLabel[];
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  pull_request?: { url: string; html_url: string; merged_at?: string | null };
}

/** One resource of `GET /rate_limit`. */
export interface GitHubRateLimitResource {
  limit: number;
  remaining: number;
  reset: number;
  used: number;
  resource?: string;
}

/** `GET /rate_limit`. */
export interface GitHubRateLimitResponse {
  resources: Record<string, GitHubRateLimitResource>;
  rate: GitHubRateLimitResource;
}
