/**
 * The CI endpoints of the GitHub client: a commit's check runs, legacy statuses, check suites and
 * workflow runs, a check run's annotations, a branch's rules and its classic protection summary. Each
 * validates its arguments and
 * the shape of GitHub's answer, and says whether it read everything GitHub counts (`complete`).
 * {@linkcode GitHubClient} exposes them as methods.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { isCommitSha, type RepoRef } from "../base/names.ts";
import { GITHUB_PER_PAGE_MAX } from "../base/limits.ts";
import type { RateLimitState } from "./rate_limit.ts";
import { refPath, repoPath } from "./repo_path.ts";
import { type EndpointOptions, isJsonObject as isObject, type Requester } from "./requester.ts";
import type {
  GitHubBranchRule,
  GitHubBranchWithProtection,
  GitHubCheckAnnotation,
  GitHubCheckRun,
  GitHubCheckRunsPage,
  GitHubCheckSuite,
  GitHubCheckSuitesPage,
  GitHubCombinedStatus,
  GitHubCommitStatus,
  GitHubWorkflowRun,
  GitHubWorkflowRunsPage,
} from "./types.ts";

/** A git ref (SHA, branch or tag) of one repository: what the per-commit CI endpoints read. */
export interface RefTarget {
  repo: RepoRef;
  ref: string;
}

/** One commit of a repository, by its SHA (40 lowercase hex digits). */
export interface CommitTarget {
  repo: RepoRef;
  sha: string;
}

/** One branch of a repository, by name. */
export interface BranchTarget {
  repo: RepoRef;
  branch: string;
}

/** One check run of a repository, by id. */
export interface CheckRunTarget {
  repo: RepoRef;
  checkRunId: number;
}

/** Options of {@linkcode getCheckRuns}. */
export interface CheckRunsOptions extends EndpointOptions {
  /** Runs per page (1..{@linkcode GITHUB_PER_PAGE_MAX}, default the cap). */
  perPage?: number;
}

/** Options of {@linkcode getCheckRunAnnotations}. */
export interface AnnotationsOptions extends EndpointOptions {
  /** Annotations read (1..{@linkcode GITHUB_PER_PAGE_MAX}): one page of that size. */
  perPage: number;
}

/** {@linkcode getCheckRuns}'s answer. */
export interface CheckRunsResult {
  total_count: number;
  check_runs: GitHubCheckRun[];
  /** Every run GitHub counted was fetched (`check_runs.length >= total_count`). */
  complete: boolean;
  pages: number;
  notModified: boolean;
  rateLimit: RateLimitState;
}

/** {@linkcode getCombinedStatusAll}'s answer. */
export interface CombinedStatusResult {
  /** GitHub's combined state over every status (`pending` also when there are none). */
  state: string;
  total_count: number;
  statuses: GitHubCommitStatus[];
  /** Every status GitHub counts was read and the combined state agrees with them. */
  complete: boolean;
  /** The combined state agrees with the statuses read. */
  consistent: boolean;
  pages: number;
  notModified: boolean;
}

/** {@linkcode getCheckSuites}'s answer. */
export interface CheckSuitesResult {
  check_suites: GitHubCheckSuite[];
  total_count: number;
  complete: boolean;
}

/**
 * All check runs of `target.ref` (`per_page=100&filter=latest`, every page up to the page bound).
 * `complete` is false when fewer runs were fetched than GitHub's `total_count`.
 */
export async function getCheckRuns(
  http: Requester,
  target: RefTarget,
  options: CheckRunsOptions,
): Promise<CheckRunsResult> {
  const { repo, ref } = target;
  const perPage = options.perPage ?? GITHUB_PER_PAGE_MAX;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > GITHUB_PER_PAGE_MAX) {
    throw new RangeError(`Cannot list 1..${GITHUB_PER_PAGE_MAX} check runs per page: current value is ${perPage}`);
  }
  const path = `${repoPath(repo.owner, repo.repo)}/commits/${
    refPath(ref)
  }/check-runs?per_page=${perPage}&filter=latest`;
  const page = await http.getPaginated<GitHubCheckRun, GitHubCheckRunsPage>(path, {
    ...options,
    extract: (body) => {
      if (!isObject(body) || typeof body.total_count !== "number" || !Array.isArray(body.check_runs)) {
        throw new AppError("request_failed", `Cannot read check runs of ${ref}: unexpected response shape`);
      }
      return body.check_runs;
    },
  });
  const total = page.first?.total_count ?? 0;
  return {
    total_count: total,
    check_runs: page.items,
    complete: page.items.length >= total,
    pages: page.pages,
    notModified: page.notModified,
    rateLimit: page.rateLimit,
  };
}

/**
 * Every legacy status of `target.ref` (`/commits/{ref}/status?per_page=100`, every page: GitHub pages
 * the combined status at 30 by default). `complete` is false when fewer statuses were read than
 * `total_count`, or when the combined `state` (which covers all of them) contradicts the statuses
 * read (e.g. `failure` while none read fails).
 */
export async function getCombinedStatusAll(
  http: Requester,
  target: RefTarget,
  options: EndpointOptions,
): Promise<CombinedStatusResult> {
  const { repo, ref } = target;
  const path = `${repoPath(repo.owner, repo.repo)}/commits/${refPath(ref)}/status?per_page=${GITHUB_PER_PAGE_MAX}`;
  const page = await http.getPaginated<GitHubCommitStatus, GitHubCombinedStatus>(path, {
    ...options,
    extract: (body) => {
      if (
        !isObject(body) || typeof body.state !== "string" || typeof body.total_count !== "number" ||
        !Array.isArray(body.statuses)
      ) {
        throw new AppError("request_failed", `Cannot read the combined status of ${ref}: unexpected response shape`);
      }
      return body.statuses;
    },
  });
  const total = page.first?.total_count ?? 0;
  const state = page.first?.state ?? "pending";
  const statuses = page.items;
  const anyFailing = statuses.some((s) => s.state === "failure" || s.state === "error");
  const anyPending = statuses.some((s) => s.state === "pending");
  const consistent = total === 0 ||
    (state === "success" ? !anyFailing && !anyPending : state === "pending" ? !anyFailing : anyFailing);
  return {
    state,
    total_count: total,
    statuses,
    complete: page.complete && statuses.length >= total && consistent,
    consistent,
    pages: page.pages,
    notModified: page.notModified,
  };
}

/** Every check suite of `target.ref` (`/commits/{ref}/check-suites?per_page=100`, every page). */
export async function getCheckSuites(
  http: Requester,
  target: RefTarget,
  options: EndpointOptions,
): Promise<CheckSuitesResult> {
  const { repo, ref } = target;
  const path = `${repoPath(repo.owner, repo.repo)}/commits/${
    refPath(ref)
  }/check-suites?per_page=${GITHUB_PER_PAGE_MAX}`;
  const page = await http.getPaginated<GitHubCheckSuite, GitHubCheckSuitesPage>(path, {
    ...options,
    extract: (body) => {
      if (!isObject(body) || typeof body.total_count !== "number" || !Array.isArray(body.check_suites)) {
        throw new AppError("request_failed", `Cannot read check suites of ${ref}: unexpected response shape`);
      }
      return body.check_suites;
    },
  });
  const total = page.first?.total_count ?? 0;
  return { check_suites: page.items, total_count: total, complete: page.complete && page.items.length >= total };
}

/** Workflow runs of one commit (`/actions/runs?head_sha=`): each names its suite's workflow and event. */
export async function listWorkflowRuns(
  http: Requester,
  commit: CommitTarget,
  options: EndpointOptions,
): Promise<{ workflow_runs: GitHubWorkflowRun[]; complete: boolean }> {
  const { repo, sha: headSha } = commit;
  if (!isCommitSha(headSha)) {
    throw new TypeError(`Cannot list workflow runs of a commit: current value is ${JSON.stringify(headSha)}`);
  }
  const path = `${repoPath(repo.owner, repo.repo)}/actions/runs?head_sha=${headSha}&per_page=${GITHUB_PER_PAGE_MAX}`;
  const page = await http.getPaginated<GitHubWorkflowRun, GitHubWorkflowRunsPage>(path, {
    ...options,
    extract: (body) => {
      if (!isObject(body) || typeof body.total_count !== "number" || !Array.isArray(body.workflow_runs)) {
        throw new AppError("request_failed", `Cannot read workflow runs of ${headSha}: unexpected response shape`);
      }
      return body.workflow_runs;
    },
  });
  const total = page.first?.total_count ?? 0;
  return { workflow_runs: page.items, complete: page.complete && page.items.length >= total };
}

/** The first `options.perPage` annotations of a check run (`/check-runs/{id}/annotations`, one page). */
export async function getCheckRunAnnotations(
  http: Requester,
  checkRun: CheckRunTarget,
  options: AnnotationsOptions,
): Promise<GitHubCheckAnnotation[]> {
  const { repo, checkRunId } = checkRun;
  const { perPage, ...endpoint } = options;
  if (!Number.isSafeInteger(checkRunId) || checkRunId < 1) {
    throw new RangeError(`Cannot read annotations of a check run: current value of its id is ${checkRunId}`);
  }
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > GITHUB_PER_PAGE_MAX) {
    throw new RangeError(`Cannot read 1..${GITHUB_PER_PAGE_MAX} annotations: current value is ${perPage}`);
  }
  const result = await http.getChecked(
    `${repoPath(repo.owner, repo.repo)}/check-runs/${checkRunId}/annotations?per_page=${perPage}`,
    (d: GitHubCheckAnnotation[]) => Array.isArray(d),
    endpoint,
  );
  return result.data.slice(0, perPage);
}

/**
 * The rules that apply to a branch (`/rules/branches/{branch}`, every page): readable with read
 * access, unlike legacy branch protection.
 */
export async function getBranchRules(
  http: Requester,
  target: BranchTarget,
  options: EndpointOptions,
): Promise<{ rules: GitHubBranchRule[]; complete: boolean }> {
  const { repo, branch } = target;
  const path = `${repoPath(repo.owner, repo.repo)}/rules/branches/${refPath(branch)}?per_page=${GITHUB_PER_PAGE_MAX}`;
  const page = await http.getPaginated<GitHubBranchRule, unknown>(path, options);
  return { rules: page.items, complete: page.complete };
}

/**
 * {@linkcode getBranchProtection}'s answer: the classic branch protection's required status checks
 * as any reader sees them, or (`readable: false`) that GitHub refused the branch (403/404).
 */
export type BranchProtectionResult =
  | {
    readable: true;
    /** The branch has classic protection (`protected`). */
    protected: boolean;
    /** `off`, `non_admins` or `everyone`; undefined when GitHub did not say. */
    enforcement_level: string | undefined;
    /** Required checks: `checks[]` with their app (null: any), plus `contexts` not named there. */
    checks: Array<{ context: string; app_id: number | null }>;
    notModified: boolean;
  }
  | { readable: false; cause: "access_denied" | "not_found"; message: string };

function isRequiredStatusChecks(v: unknown): boolean {
  if (v === undefined) return true;
  return isObject(v) && Array.isArray(v.contexts) && v.contexts.every((c) => typeof c === "string") &&
    Array.isArray(v.checks) &&
    v.checks.every((c) =>
      isObject(c) && typeof c.context === "string" && (c.app_id === null || typeof c.app_id === "number")
    ) && (v.enforcement_level === undefined || typeof v.enforcement_level === "string");
}

/**
 * A branch's classic protection summary (`GET /repos/{o}/{r}/branches/{branch}`, "Get a branch",
 * conditional like every read): `protection.required_status_checks` is visible with read access,
 * while `/branches/{branch}/protection` needs admin. A 403 or 404 is a typed outcome
 * (`readable: false`), not an error: the caller decides what an unknown protection means.
 */
export async function getBranchProtection(
  http: Requester,
  target: BranchTarget,
  options: EndpointOptions,
): Promise<BranchProtectionResult> {
  const { repo, branch } = target;
  if (branch === "") throw new TypeError(`Cannot read the protection of a branch: current value is ""`);
  let result;
  try {
    result = await http.getChecked(
      `${repoPath(repo.owner, repo.repo)}/branches/${refPath(branch)}`,
      (d: GitHubBranchWithProtection) =>
        isObject(d) && typeof d.protected === "boolean" && isObject(d.protection) &&
        isRequiredStatusChecks(d.protection.required_status_checks),
      options,
    );
  } catch (err) {
    if (err instanceof AppError && (err.code === "access_denied" || err.code === "not_found")) {
      return { readable: false, cause: err.code, message: err.message };
    }
    throw err;
  }
  const rsc = result.data.protection.required_status_checks;
  const checks = (rsc?.checks ?? []).map((c) => ({ context: c.context, app_id: c.app_id }));
  for (const context of rsc?.contexts ?? []) {
    if (!checks.some((c) => c.context === context)) checks.push({ context, app_id: null });
  }
  return {
    readable: true,
    protected: result.data.protected,
    enforcement_level: rsc?.enforcement_level,
    checks,
    notModified: result.status === 304,
  };
}
