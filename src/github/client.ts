/**
 * The GitHub REST client: the endpoints longcall reads, each validated and typed, over one
 * conditional GET. The repository endpoints (pull request, repository, issues, rate limit) are
 * here; the rest lives beside it, one concern per file:
 *
 * - check_endpoints.ts: the CI endpoints (check runs, statuses, suites, workflow runs, annotations,
 *   branch rules, a branch's classic protection summary), exposed here as methods;
 * - transport.ts: the one `fetch` call (headers, token, timeout, requests in flight, bounded bodies);
 * - retry_policy.ts: rate limits (`retry-after`, `x-ratelimit-reset`, secondary-limit backoff) and
 *   retries of 5xx / network errors, waiting on the injected {@linkcode Clock};
 * - requester.ts: the conditional GET through an {@linkcode EtagCache}, the per-job
 *   {@linkcode RequestBudget}, pagination;
 * - repo_path.ts: the only way owner, repository and ref strings enter a path.
 *
 * Errors are typed ({@linkcode AppError}); the token never appears in a message, a log line or a
 * stored row (the transport keeps it in a private field and only ever puts it in a header).
 *
 * @module
 */

import type { Clock } from "../base/clock.ts";
import { AppError } from "../base/errors.ts";
import { GITHUB_PER_PAGE_MAX, GITHUB_VALUE_QUOTED_CHARS_MAX } from "../base/limits.ts";
import type { Logger } from "../base/log.ts";
import { isCommitSha, type RepoRef } from "../base/names.ts";
import {
  type AnnotationsOptions,
  type BranchProtectionResult,
  type CheckRunsOptions,
  type CheckRunsResult,
  type CheckSuitesResult,
  type CombinedStatusResult,
  getBranchProtection,
  getBranchRules,
  getCheckRunAnnotations,
  getCheckRuns,
  getCheckSuites,
  getCombinedStatusAll,
  listWorkflowRuns,
} from "./check_endpoints.ts";
import { GITHUB_API_URL_DEFAULT } from "./api_root.ts";
import type { EtagCache } from "./etag_cache.ts";
import { emptyRateLimitState } from "./rate_limit.ts";
import { repoPath } from "./repo_path.ts";
import {
  type EndpointOptions,
  type GetOptions,
  type GetResult,
  type GitHubStats,
  isJsonObject,
  type PageResult,
  type PaginateOptions,
  Requester,
} from "./requester.ts";
import { type RateGate, RetryPolicy } from "./retry_policy.ts";
import { Transport } from "./transport.ts";
import type {
  GitHubBranchRule,
  GitHubCheckAnnotation,
  GitHubIssue,
  GitHubPullRequest,
  GitHubRateLimitResponse,
  GitHubRepository,
  GitHubWorkflowRun,
} from "./types.ts";

export { RequestBudget } from "./rate_limit.ts";
export { type EtagCache, MemoryEtagCache, SqliteEtagCache } from "./etag_cache.ts";
export type { AnnotationsOptions, CheckRunsOptions, CheckRunsResult } from "./check_endpoints.ts";
export type { PullRef, RepoRef } from "../base/names.ts";
export type { EndpointOptions } from "./requester.ts";
export { isResponseTooLarge, RESPONSE_TOO_LARGE } from "./transport.ts";

/** Options of {@linkcode GitHubClient}. */
export interface GitHubClientOptions {
  /** API root, default {@linkcode GITHUB_API_URL_DEFAULT} (GHES: `https://host/api/v3`). */
  baseUrl?: string;
  /** Token sent as `Authorization: Bearer`; anonymous when absent or empty. */
  token?: string;
  clock: Clock;
  log: Logger;
  /** Validators for conditional requests; without one every request is unconditional. */
  etagCache?: EtagCache;
  /** Injected transport (tests); default the global `fetch`. */
  fetch?: typeof fetch;
  userAgent?: string;
  /** Longest single rate-limit wait this client accepts before `rate_limited`
   * (capped by {@linkcode GITHUB_RATE_LIMIT_WAIT_MS_MAX}). */
  maxRateLimitWaitMs?: number;
  /** Per-request timeout (default and cap {@linkcode GITHUB_REQUEST_TIMEOUT_MS}). */
  requestTimeoutMs?: number;
  /** Requests in flight (default and cap {@linkcode GITHUB_CONCURRENCY_MAX}). */
  concurrencyMax?: number;
  /** The rate-limit gate shared by the clients of one token (default: this client's own). */
  rateGate?: RateGate;
}

/** Options of {@linkcode GitHubClient.listIssues}. */
export interface ListIssuesOptions extends EndpointOptions {
  state?: "open" | "closed" | "all";
  /** ISO 8601 timestamp: only items updated at or after it. */
  since?: string;
  sort?: "created" | "updated" | "comments";
  direction?: "asc" | "desc";
  perPage?: number;
  pagesMax?: number;
  itemsMax?: number;
}

/** A GitHub REST client. One per process (or per job) is fine; it is safe to share. */
export class GitHubClient {
  /** Whether requests carry a token. */
  readonly authenticated: boolean;
  /** The API root, without a trailing slash. */
  readonly baseUrl: string;
  /** Counters over every call of this client. */
  readonly stats: GitHubStats = {
    requests: 0,
    not_modified: 0,
    not_modified_counted: 0,
    too_large_to_cache: 0,
    retries: 0,
    rate_limit_waits: 0,
    rateLimit: emptyRateLimitState(),
  };

  readonly #transport: Transport;
  readonly #requester: Requester;

  /**
   * @throws {TypeError} for an unusable API URL, or a token over plain http off loopback.
   * @throws {RangeError} for a wait, timeout or concurrency outside its bounds.
   */
  constructor(options: GitHubClientOptions) {
    const transport = new Transport({
      baseUrl: options.baseUrl ?? GITHUB_API_URL_DEFAULT,
      token: options.token,
      fetch: options.fetch,
      userAgent: options.userAgent,
      requestTimeoutMs: options.requestTimeoutMs,
      concurrencyMax: options.concurrencyMax,
    });
    const policy = new RetryPolicy({
      clock: options.clock,
      log: options.log,
      stats: this.stats,
      scrub: (text) => transport.scrub(text),
      authenticated: transport.authenticated,
      gate: options.rateGate,
      maxRateLimitWaitMs: options.maxRateLimitWaitMs,
    });
    this.#transport = transport;
    this.#requester = new Requester({
      transport,
      policy,
      stats: this.stats,
      log: options.log,
      etagCache: options.etagCache,
    });
    this.baseUrl = transport.baseUrl;
    this.authenticated = transport.authenticated;
  }

  /** Requests in flight right now. */
  get inFlight(): number {
    return this.#transport.inFlight;
  }

  /**
   * GETs `path` (relative to the API root, or an absolute URL under it).
   *
   * @throws {AppError} `not_found`, `access_denied`, `rate_limited`, `transient`,
   *   `request_failed`, `budget_exhausted`; the signal's reason when aborted.
   */
  get<T>(path: string, options: GetOptions): Promise<GetResult<T>> {
    return this.#requester.get<T>(path, options);
  }

  /**
   * GETs every page of a listing, following `Link rel="next"`, bounded by `maxPages`
   * and `itemsMax`.
   */
  getPaginated<T, B = unknown>(path: string, options: PaginateOptions<T, B>): Promise<PageResult<T, B>> {
    return this.#requester.getPaginated<T, B>(path, options);
  }

  /** `GET /repos/{o}/{r}/pulls/{n}`: pull request `number` of `repo`. */
  getPull(repo: RepoRef, number: number, options: EndpointOptions): Promise<GetResult<GitHubPullRequest>> {
    if (!Number.isSafeInteger(number) || number < 1) {
      throw new RangeError(`Cannot read a pull request: current value of number is ${number}`);
    }
    return this.#requester.getChecked(
      `${repoPath(repo.owner, repo.repo)}/pulls/${number}`,
      (d: GitHubPullRequest) =>
        isJsonObject(d) && isJsonObject(d.head) && typeof d.head.sha === "string" && typeof d.state === "string",
      options,
    ).then((pull) => {
      // A malformed SHA would otherwise surface later as an internal TypeError (ref paths, the corpus).
      if (!isCommitSha(pull.data.head.sha)) {
        throw new AppError(
          "github_invalid",
          `Cannot read ${repo.owner}/${repo.repo}#${number}: GitHub answered a head SHA that is not 40 lowercase ` +
            `hex digits (${JSON.stringify(String(pull.data.head.sha).slice(0, GITHUB_VALUE_QUOTED_CHARS_MAX))})`,
        );
      }
      return pull;
    });
  }

  /**
   * All check runs of `ref` in `repo` (`per_page=100&filter=latest`, every page up to the page bound).
   * `complete` is false when fewer runs were fetched than GitHub's `total_count`.
   */
  getCheckRuns(repo: RepoRef, ref: string, options: CheckRunsOptions): Promise<CheckRunsResult> {
    return getCheckRuns(this.#requester, { repo, ref }, options);
  }

  /**
   * Every legacy status of `ref` in `repo`, every page. `complete` is false when fewer statuses were
   * read than `total_count`, or when the combined `state` contradicts the statuses read.
   */
  getCombinedStatusAll(repo: RepoRef, ref: string, options: EndpointOptions): Promise<CombinedStatusResult> {
    return getCombinedStatusAll(this.#requester, { repo, ref }, options);
  }

  /** Every check suite of `ref` in `repo`, every page. */
  getCheckSuites(repo: RepoRef, ref: string, options: EndpointOptions): Promise<CheckSuitesResult> {
    return getCheckSuites(this.#requester, { repo, ref }, options);
  }

  /** Workflow runs of commit `headSha` in `repo`: each names its suite's workflow and event. */
  listWorkflowRuns(
    repo: RepoRef,
    headSha: string,
    options: EndpointOptions,
  ): Promise<{ workflow_runs: GitHubWorkflowRun[]; complete: boolean }> {
    return listWorkflowRuns(this.#requester, { repo, sha: headSha }, options);
  }

  /** The first `options.perPage` annotations of check run `checkRunId` in `repo` (one page). */
  getCheckRunAnnotations(
    repo: RepoRef,
    checkRunId: number,
    options: AnnotationsOptions,
  ): Promise<GitHubCheckAnnotation[]> {
    return getCheckRunAnnotations(this.#requester, { repo, checkRunId }, options);
  }

  /** The rules that apply to `branch` of `repo`, every page (readable with read access). */
  getBranchRules(
    repo: RepoRef,
    branch: string,
    options: EndpointOptions,
  ): Promise<{ rules: GitHubBranchRule[]; complete: boolean }> {
    return getBranchRules(this.#requester, { repo, branch }, options);
  }

  /** `branch`'s classic protection summary (`/branches/{branch}`, read access); 403/404 is `readable: false`. */
  getBranchProtection(repo: RepoRef, branch: string, options: EndpointOptions): Promise<BranchProtectionResult> {
    return getBranchProtection(this.#requester, { repo, branch }, options);
  }

  /** `GET /repos/{o}/{r}`. */
  getRepository(repo: RepoRef, options: EndpointOptions): Promise<GetResult<GitHubRepository>> {
    return this.#requester.getChecked(
      repoPath(repo.owner, repo.repo),
      (d: GitHubRepository) => isJsonObject(d) && typeof d.full_name === "string",
      options,
    );
  }

  /** `GET /repos/{o}/{r}/issues` (pull requests included, with a `pull_request` key), all pages. */
  listIssues(repo: RepoRef, options: ListIssuesOptions): Promise<PageResult<GitHubIssue, unknown>> {
    const perPage = options.perPage ?? GITHUB_PER_PAGE_MAX;
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > GITHUB_PER_PAGE_MAX) {
      throw new RangeError(`Cannot list 1..${GITHUB_PER_PAGE_MAX} issues per page: current value is ${perPage}`);
    }
    const query = new URLSearchParams({
      state: options.state ?? "all",
      sort: options.sort ?? "updated",
      direction: options.direction ?? "asc",
      per_page: String(perPage),
    });
    if (options.since !== undefined) {
      if (Number.isNaN(Date.parse(options.since))) {
        throw new RangeError(`Cannot list issues since a time: current value is ${JSON.stringify(options.since)}`);
      }
      query.set("since", new Date(Date.parse(options.since)).toISOString());
    }
    const paginate: PaginateOptions<GitHubIssue, unknown> = { signal: options.signal };
    if (options.budget !== undefined) paginate.budget = options.budget;
    if (options.conditional !== undefined) paginate.conditional = options.conditional;
    if (options.maxRateLimitWaitMs !== undefined) paginate.maxRateLimitWaitMs = options.maxRateLimitWaitMs;
    if (options.onRateLimitWait !== undefined) paginate.onRateLimitWait = options.onRateLimitWait;
    if (options.pagesMax !== undefined) paginate.maxPages = options.pagesMax;
    if (options.itemsMax !== undefined) paginate.itemsMax = options.itemsMax;
    return this.getPaginated<GitHubIssue, unknown>(`${repoPath(repo.owner, repo.repo)}/issues?${query}`, paginate);
  }

  /** `GET /rate_limit` (free: never counted against the limit or a budget). */
  getRateLimit(options: { signal: AbortSignal }): Promise<GetResult<GitHubRateLimitResponse>> {
    return this.get<GitHubRateLimitResponse>("/rate_limit", { signal: options.signal, conditional: false });
  }
}
