/**
 * The GitHub REST client: the only code in longcall that calls `fetch`.
 *
 * - Conditional requests through an {@linkcode EtagCache}: an unchanged resource is a
 *   free `304` answered from the cache.
 * - GitHub's rate-limit rules (`retry-after`, `x-ratelimit-reset`, secondary-limit
 *   backoff), waiting on the injected {@linkcode Clock} so waits are cancellable and
 *   testable; a wait beyond the caller's bound ends in `rate_limited` instead.
 * - Retries only for GETs on 5xx / network errors, a per-request timeout combined with
 *   the caller's signal, at most {@linkcode GITHUB_CONCURRENCY_MAX} requests in flight,
 *   bounded response bodies, and a per-job {@linkcode RequestBudget}.
 * - Typed errors ({@linkcode AppError}); the token never appears in a message, a log line
 *   or a stored row (it lives in a private field and is only ever put in a header).
 *
 * @module
 */

import { isLoopbackHost } from "../base/net.ts";
import { AppError } from "../base/errors.ts";
import { isCommitSha, isOwnerName, isRepoName } from "../base/names.ts";
import type { Clock } from "../base/clock.ts";
import type { Logger } from "../base/log.ts";
import { redact } from "../base/log.ts";
import {
  GITHUB_CONCURRENCY_MAX,
  GITHUB_ERROR_BODY_BYTES_MAX,
  GITHUB_ERROR_MESSAGE_CHARS_MAX,
  GITHUB_PAGES_MAX,
  GITHUB_PER_PAGE_MAX,
  GITHUB_RATE_LIMIT_RESET_SLACK_MS,
  GITHUB_RATE_LIMIT_WAIT_MS_MAX,
  GITHUB_RATE_LIMIT_WAITS_MAX,
  GITHUB_REQUEST_TIMEOUT_MS,
  GITHUB_RESPONSE_BYTES_MAX,
  GITHUB_RETRIES_MAX,
  GITHUB_RETRY_BACKOFF_MS_MIN,
} from "../base/limits.ts";
import type { EtagCache, EtagEntry } from "./etag_cache.ts";
import { nextLink } from "./link.ts";
import {
  emptyRateLimitState,
  parseRateLimitHeaders,
  type RateLimitState,
  rateLimitWait,
  type RequestBudget,
} from "./rate_limit.ts";
import { Semaphore } from "./semaphore.ts";
import type {
  GitHubBranchRule,
  GitHubCheckAnnotation,
  GitHubCheckRun,
  GitHubCheckRunsPage,
  GitHubCheckSuite,
  GitHubCheckSuitesPage,
  GitHubCombinedStatus,
  GitHubCommitStatus,
  GitHubIssue,
  GitHubPullRequest,
  GitHubRateLimitResponse,
  GitHubRepository,
  GitHubWorkflowRun,
  GitHubWorkflowRunsPage,
} from "./types.ts";

export { type RateLimitState, RequestBudget } from "./rate_limit.ts";
export { type EtagCache, MemoryEtagCache, SqliteEtagCache } from "./etag_cache.ts";

/** GitHub's public API. */
export const GITHUB_API_URL_DEFAULT = "https://api.github.com";

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
}

/** Per-call options of {@linkcode GitHubClient.get}. */
export interface GetOptions {
  signal: AbortSignal;
  /** Send `If-None-Match` when a validator is cached (default true). */
  conditional?: boolean;
  /** Shared cap on counted requests. */
  budget?: RequestBudget;
  /** Overrides the client's rate-limit wait bound for this call (lower only). */
  maxRateLimitWaitMs?: number;
  /** Called before waiting out a rate limit, with the instant (clock ms) requests resume: poll guidance. */
  onRateLimitWait?: (untilMs: number) => void;
}

/** A successful GET: fresh (200) or validated from the cache (304). */
export interface GetResult<T> {
  status: 200 | 304;
  data: T;
  etag?: string;
  fromCache: boolean;
  rateLimit: RateLimitState;
  /** Absolute URL of `Link rel="next"`, when there is a next page. */
  next?: string;
}

/** Options of {@linkcode GitHubClient.getPaginated}. */
export interface PaginateOptions<T, B> extends GetOptions {
  /** Pages fetched at most (1..{@linkcode GITHUB_PAGES_MAX}, default the cap). */
  maxPages?: number;
  /** Stop once this many items are collected. */
  itemsMax?: number;
  /** Items of one page's body; default: the body must be an array. */
  extract?: (body: B) => T[];
}

/** A paginated listing. */
export interface PageResult<T, B> {
  items: T[];
  pages: number;
  /** No page was left unfetched and no item dropped by `itemsMax`. */
  complete: boolean;
  /** Every page was a free 304. */
  notModified: boolean;
  /** Body of the first page (e.g. for `total_count`). */
  first: B | undefined;
  rateLimit: RateLimitState;
}

/** Counters over every call of one client. */
export interface GitHubStats {
  /** Answers counted against the primary limit: every non-304 answer except `/rate_limit`, and every
   * 304 of an anonymous client (GitHub counts a 304 only when it answers an authorized request for free). */
  requests: number;
  /** 304 answers (free when authenticated; counted in `requests` too when anonymous). */
  not_modified: number;
  /** 304 answers that were counted (anonymous client). */
  not_modified_counted: number;
  /** Retries after 5xx / network errors. */
  retries: number;
  /** Rate-limit waits made. */
  rate_limit_waits: number;
  /** The last rate-limit headers seen. */
  rateLimit: RateLimitState;
}

/** Common per-call options of the endpoint helpers. */
export interface EndpointOptions {
  signal: AbortSignal;
  budget?: RequestBudget;
  conditional?: boolean;
  maxRateLimitWaitMs?: number;
  /** Called before waiting out a rate limit, with the instant (clock ms) requests resume: poll guidance. */
  onRateLimitWait?: (untilMs: number) => void;
}

/** {@linkcode GitHubClient.getCheckRuns}'s answer. */
export interface CheckRunsResult {
  total_count: number;
  check_runs: GitHubCheckRun[];
  /** Every run GitHub counted was fetched (`check_runs.length >= total_count`). */
  complete: boolean;
  pages: number;
  notModified: boolean;
  rateLimit: RateLimitState;
}

/** {@linkcode GitHubClient.getCombinedStatusAll}'s answer. */
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

/** {@linkcode GitHubClient.getCheckSuites}'s answer. */
export interface CheckSuitesResult {
  check_suites: GitHubCheckSuite[];
  total_count: number;
  complete: boolean;
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

interface RawResponse {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/** `data.reason` of the `request_failed` error for a body over {@linkcode GITHUB_RESPONSE_BYTES_MAX}. */
export const RESPONSE_TOO_LARGE = "response_too_large";

/** Whether `err` is the error of a response body over the byte bound. */
export function isResponseTooLarge(err: unknown): boolean {
  return err instanceof AppError && err.code === "request_failed" && err.data?.reason === RESPONSE_TOO_LARGE;
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

async function readBounded(res: Response, max: number, truncate: boolean): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (!truncate && Number.isFinite(declared) && declared > max) {
    await res.body?.cancel();
    throw new AppError(
      "request_failed",
      `Cannot read the response: it declares ${declared} bytes, over the bound of ${max}`,
      { data: { reason: RESPONSE_TOO_LARGE, bytes_max: max } },
    );
  }
  if (res.body === null) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.length > max) {
      await reader.cancel();
      if (!truncate) {
        throw new AppError("request_failed", `Cannot read the response: it exceeds the bound of ${max} bytes`, {
          data: { reason: RESPONSE_TOO_LARGE, bytes_max: max },
        });
      }
      chunks.push(value.subarray(0, max - total));
      total = max;
      break;
    }
    chunks.push(value);
    total += value.length;
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

function boundedWait(name: string, value: number | undefined, fallback: number, cap: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`Cannot use ${name}: current value is ${value}`);
  }
  return Math.min(value, cap);
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
    retries: 0,
    rate_limit_waits: 0,
    rateLimit: emptyRateLimitState(),
  };

  readonly #token: string | undefined;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #cache: EtagCache | undefined;
  readonly #fetch: typeof fetch;
  readonly #userAgent: string;
  readonly #maxWaitMs: number;
  readonly #timeoutMs: number;
  readonly #semaphore: Semaphore;
  readonly #basePath: string;
  /** No request is sent before this instant (epoch ms): the limit is known to be hit. */
  #blockedUntil = 0;

  constructor(options: GitHubClientOptions) {
    const raw = options.baseUrl ?? GITHUB_API_URL_DEFAULT;
    let base: URL;
    try {
      base = new URL(raw);
    } catch {
      throw new TypeError(`Cannot use the GitHub API URL: current value is ${JSON.stringify(raw)}`);
    }
    if (base.protocol !== "https:" && base.protocol !== "http:") {
      throw new TypeError(`Cannot use the GitHub API URL: current value is ${JSON.stringify(raw)} (not http/https)`);
    }
    if (base.search !== "" || base.hash !== "" || base.username !== "" || base.password !== "") {
      throw new TypeError(
        `Cannot use the GitHub API URL: current value is ${JSON.stringify(raw)} (query, fragment or credentials)`,
      );
    }
    const token = options.token === undefined || options.token === "" ? undefined : options.token;
    if (token !== undefined && base.protocol === "http:" && !isLoopbackHost(base.hostname)) {
      throw new TypeError(
        `Cannot send a token over plain http: current value of the API URL is ${JSON.stringify(raw)}`,
      );
    }
    this.baseUrl = base.href.replace(/\/+$/, "");
    this.#basePath = base.pathname.replace(/\/+$/, "");
    this.#token = token;
    this.authenticated = token !== undefined;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#cache = options.etagCache;
    this.#fetch = options.fetch ?? fetch;
    this.#userAgent = options.userAgent ?? "longcall";
    this.#maxWaitMs = boundedWait(
      "maxRateLimitWaitMs",
      options.maxRateLimitWaitMs,
      GITHUB_RATE_LIMIT_WAIT_MS_MAX,
      GITHUB_RATE_LIMIT_WAIT_MS_MAX,
    );
    this.#timeoutMs = boundedWait(
      "requestTimeoutMs",
      options.requestTimeoutMs,
      GITHUB_REQUEST_TIMEOUT_MS,
      GITHUB_REQUEST_TIMEOUT_MS,
    );
    const concurrency = options.concurrencyMax ?? GITHUB_CONCURRENCY_MAX;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > GITHUB_CONCURRENCY_MAX) {
      throw new RangeError(
        `Cannot bound GitHub requests in flight to 1..${GITHUB_CONCURRENCY_MAX}: current value is ${concurrency}`,
      );
    }
    this.#semaphore = new Semaphore(concurrency);
  }

  /** Requests in flight right now. */
  get inFlight(): number {
    return this.#semaphore.held;
  }

  /**
   * GETs `path` (relative to the API root, or an absolute URL under it).
   *
   * @throws {AppError} `not_found`, `access_denied`, `rate_limited`, `transient`,
   *   `request_failed`, `budget_exhausted`; the signal's reason when aborted.
   */
  async get<T>(path: string, options: GetOptions): Promise<GetResult<T>> {
    const url = this.#resolve(path);
    const parsed = new URL(url);
    const what = `GET ${parsed.pathname}${parsed.search}`;
    const counted = parsed.pathname !== `${this.#basePath}/rate_limit`;
    const conditional = options.conditional ?? true;
    const maxWait = boundedWait("maxRateLimitWaitMs", options.maxRateLimitWaitMs, this.#maxWaitMs, this.#maxWaitMs);
    const { signal, budget } = options;
    let retries = 0;
    let limitedWaits = 0;
    let secondaryWaits = 0;
    for (;;) {
      signal.throwIfAborted();
      await this.#waitForGate(what, signal, maxWait, options.onRateLimitWait);
      const cached = conditional ? this.#cacheGet(url) : undefined;
      if (counted) budget?.reserve(what);
      let res: RawResponse;
      try {
        res = await this.#send(url, cached?.etag, signal);
      } catch (err) {
        if (counted) budget?.release();
        if (signal.aborted) throw signal.reason;
        if (err instanceof AppError) throw err;
        if (retries < GITHUB_RETRIES_MAX) {
          retries++;
          await this.#retryPause(what, retries, describe(err), signal);
          continue;
        }
        throw new AppError(
          "transient",
          this.#scrub(`Cannot ${what}: network error after ${retries} retries (${describe(err)})`),
          { retryable: true, retryAfterMs: GITHUB_RETRY_BACKOFF_MS_MIN * 2 ** retries, data: { path: what } },
        );
      }
      this.#observeRateLimit(res.headers);
      if (res.status === 304) {
        this.stats.not_modified++;
        if (counted && !this.authenticated) {
          // GitHub counts a 304 without Authorization against the (60/h) anonymous limit.
          budget?.commit();
          this.stats.requests++;
          this.stats.not_modified_counted++;
        } else if (counted) budget?.release();
        if (cached === undefined) {
          throw new AppError("request_failed", `Cannot ${what}: GitHub answered 304 to an unconditional request`);
        }
        // A 304 may omit `Link`; the link stored with this representation still applies.
        const sidecar = res.headers.get("link") === null ? this.#cacheGet(linkKey(url)) : undefined;
        const link = res.headers.get("link") ?? (sidecar?.etag === cached.etag ? sidecar.body : null);
        return this.#result<T>(304, cached.body, cached.etag, true, link, what);
      }
      if (counted) {
        budget?.commit();
        this.stats.requests++;
      }
      if (res.status >= 200 && res.status < 300) {
        const etag = res.headers.get("etag") ?? undefined;
        const link = res.headers.get("link");
        const result = this.#result<T>(200, res.text, etag, false, link, what);
        if (etag !== undefined && this.#cache !== undefined) {
          await this.#cachePut(url, etag, res.text);
          if (link !== null) await this.#cachePut(linkKey(url), etag, link);
        }
        return result;
      }
      const message = this.#githubMessage(res.text);
      if (res.status === 403 || res.status === 429) {
        const wait = rateLimitWait(res.status, res.headers, message, this.#clock.now(), secondaryWaits);
        if (wait !== undefined) {
          if (wait.kind === "secondary") secondaryWaits++;
          limitedWaits++;
          const until = this.#clock.now() + wait.waitMs;
          this.#blockedUntil = Math.max(this.#blockedUntil, until);
          if (wait.waitMs > maxWait || limitedWaits > GITHUB_RATE_LIMIT_WAITS_MAX) {
            throw this.#rateLimited(what, wait.waitMs, wait.kind, limitedWaits);
          }
          continue;
        }
      }
      if (res.status >= 500 && retries < GITHUB_RETRIES_MAX) {
        retries++;
        await this.#retryPause(what, retries, `${res.status} ${res.statusText}`, signal);
        continue;
      }
      throw this.#errorFor(res, message, what, retries);
    }
  }

  /**
   * GETs every page of a listing, following `Link rel="next"`, bounded by `maxPages`
   * and `itemsMax`.
   */
  async getPaginated<T, B = unknown>(path: string, options: PaginateOptions<T, B>): Promise<PageResult<T, B>> {
    const maxPages = options.maxPages ?? GITHUB_PAGES_MAX;
    if (!Number.isInteger(maxPages) || maxPages < 1 || maxPages > GITHUB_PAGES_MAX) {
      throw new RangeError(`Cannot fetch 1..${GITHUB_PAGES_MAX} pages: current value of maxPages is ${maxPages}`);
    }
    const itemsMax = options.itemsMax;
    if (itemsMax !== undefined && (!Number.isInteger(itemsMax) || itemsMax < 1)) {
      throw new RangeError(`Cannot collect a positive number of items: current value of itemsMax is ${itemsMax}`);
    }
    const extract = options.extract ?? ((body: B): T[] => {
      if (!Array.isArray(body)) {
        throw new AppError("request_failed", `Cannot list ${path}: the response is not an array`);
      }
      return body as T[];
    });
    const items: T[] = [];
    let first: B | undefined;
    let pages = 0;
    let notModified = true;
    let next: string | undefined = path;
    let dropped = false;
    let rateLimit = this.stats.rateLimit;
    while (next !== undefined && pages < maxPages) {
      const getOptions: GetOptions = { signal: options.signal };
      if (options.conditional !== undefined) getOptions.conditional = options.conditional;
      if (options.budget !== undefined) getOptions.budget = options.budget;
      if (options.maxRateLimitWaitMs !== undefined) getOptions.maxRateLimitWaitMs = options.maxRateLimitWaitMs;
      if (options.onRateLimitWait !== undefined) getOptions.onRateLimitWait = options.onRateLimitWait;
      const page: GetResult<B> = await this.get<B>(next, getOptions);
      pages++;
      rateLimit = page.rateLimit;
      if (page.status !== 304) notModified = false;
      if (first === undefined) first = page.data;
      const pageItems = extract(page.data);
      if (!Array.isArray(pageItems)) {
        throw new AppError("request_failed", `Cannot list ${path}: a page's items are not an array`);
      }
      next = page.next;
      if (itemsMax !== undefined && items.length + pageItems.length >= itemsMax) {
        const room = itemsMax - items.length;
        items.push(...pageItems.slice(0, room));
        dropped = pageItems.length > room;
        break;
      }
      items.push(...pageItems);
    }
    return { items, pages, complete: next === undefined && !dropped, notModified, first, rateLimit };
  }

  /** `GET /repos/{o}/{r}/pulls/{n}`. */
  getPull(
    owner: string,
    repo: string,
    number: number,
    options: EndpointOptions,
  ): Promise<GetResult<GitHubPullRequest>> {
    if (!Number.isSafeInteger(number) || number < 1) {
      throw new RangeError(`Cannot read a pull request: current value of number is ${number}`);
    }
    return this.#checked(
      `${repoPath(owner, repo)}/pulls/${number}`,
      options,
      (d: GitHubPullRequest) =>
        isObject(d) && isObject(d.head) && typeof d.head.sha === "string" && typeof d.state === "string",
    ).then((pull) => {
      // A malformed SHA would otherwise surface later as an internal TypeError (ref paths, the corpus).
      if (!isCommitSha(pull.data.head.sha)) {
        throw new AppError(
          "github_invalid",
          `Cannot read ${owner}/${repo}#${number}: GitHub answered a head SHA that is not 40 lowercase hex digits ` +
            `(${JSON.stringify(String(pull.data.head.sha).slice(0, 80))})`,
        );
      }
      return pull;
    });
  }

  /**
   * All check runs of `ref` (`per_page=100&filter=latest`, every page up to the page bound).
   * `complete` is false when fewer runs were fetched than GitHub's `total_count`.
   */
  async getCheckRuns(
    owner: string,
    repo: string,
    ref: string,
    options: EndpointOptions & { perPage?: number },
  ): Promise<CheckRunsResult> {
    const perPage = options.perPage ?? GITHUB_PER_PAGE_MAX;
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > GITHUB_PER_PAGE_MAX) {
      throw new RangeError(`Cannot list 1..${GITHUB_PER_PAGE_MAX} check runs per page: current value is ${perPage}`);
    }
    const path = `${repoPath(owner, repo)}/commits/${refPath(ref)}/check-runs?per_page=${perPage}&filter=latest`;
    const page = await this.getPaginated<GitHubCheckRun, GitHubCheckRunsPage>(path, {
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

  /** `GET /repos/{o}/{r}/commits/{ref}/status` (combined legacy statuses). */
  getCombinedStatus(
    owner: string,
    repo: string,
    ref: string,
    options: EndpointOptions,
  ): Promise<GetResult<GitHubCombinedStatus>> {
    return this.#checked(
      `${repoPath(owner, repo)}/commits/${refPath(ref)}/status`,
      options,
      (d: GitHubCombinedStatus) => isObject(d) && typeof d.state === "string" && Array.isArray(d.statuses),
    );
  }

  /**
   * Every legacy status of `ref` (`/commits/{ref}/status?per_page=100`, every page: GitHub pages
   * the combined status at 30 by default). `complete` is false when fewer statuses were read than
   * `total_count`, or when the combined `state` (which covers all of them) contradicts the statuses
   * read (e.g. `failure` while none read fails).
   */
  async getCombinedStatusAll(
    owner: string,
    repo: string,
    ref: string,
    options: EndpointOptions,
  ): Promise<CombinedStatusResult> {
    const path = `${repoPath(owner, repo)}/commits/${refPath(ref)}/status?per_page=${GITHUB_PER_PAGE_MAX}`;
    const page = await this.getPaginated<GitHubCommitStatus, GitHubCombinedStatus>(path, {
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

  /** Every check suite of `ref` (`/commits/{ref}/check-suites?per_page=100`, every page). */
  async getCheckSuites(owner: string, repo: string, ref: string, options: EndpointOptions): Promise<CheckSuitesResult> {
    const path = `${repoPath(owner, repo)}/commits/${refPath(ref)}/check-suites?per_page=${GITHUB_PER_PAGE_MAX}`;
    const page = await this.getPaginated<GitHubCheckSuite, GitHubCheckSuitesPage>(path, {
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
  async listWorkflowRuns(
    owner: string,
    repo: string,
    headSha: string,
    options: EndpointOptions,
  ): Promise<{ workflow_runs: GitHubWorkflowRun[]; complete: boolean }> {
    if (!/^[0-9a-f]{40}$/.test(headSha)) {
      throw new TypeError(`Cannot list workflow runs of a commit: current value is ${JSON.stringify(headSha)}`);
    }
    const path = `${repoPath(owner, repo)}/actions/runs?head_sha=${headSha}&per_page=${GITHUB_PER_PAGE_MAX}`;
    const page = await this.getPaginated<GitHubWorkflowRun, GitHubWorkflowRunsPage>(path, {
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

  /** The first `perPage` annotations of a check run (`/check-runs/{id}/annotations`, one page). */
  async getCheckRunAnnotations(
    owner: string,
    repo: string,
    checkRunId: number,
    perPage: number,
    options: EndpointOptions,
  ): Promise<GitHubCheckAnnotation[]> {
    if (!Number.isSafeInteger(checkRunId) || checkRunId < 1) {
      throw new RangeError(`Cannot read annotations of a check run: current value of its id is ${checkRunId}`);
    }
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > GITHUB_PER_PAGE_MAX) {
      throw new RangeError(`Cannot read 1..${GITHUB_PER_PAGE_MAX} annotations: current value is ${perPage}`);
    }
    const result = await this.#checked(
      `${repoPath(owner, repo)}/check-runs/${checkRunId}/annotations?per_page=${perPage}`,
      options,
      (d: GitHubCheckAnnotation[]) => Array.isArray(d),
    );
    return result.data.slice(0, perPage);
  }

  /**
   * The rules that apply to a branch (`/rules/branches/{branch}`, every page): readable with read
   * access, unlike legacy branch protection.
   */
  async getBranchRules(
    owner: string,
    repo: string,
    branch: string,
    options: EndpointOptions,
  ): Promise<{ rules: GitHubBranchRule[]; complete: boolean }> {
    const path = `${repoPath(owner, repo)}/rules/branches/${refPath(branch)}?per_page=${GITHUB_PER_PAGE_MAX}`;
    const page = await this.getPaginated<GitHubBranchRule, unknown>(path, options);
    return { rules: page.items, complete: page.complete };
  }

  /** `GET /repos/{o}/{r}`. */
  getRepository(owner: string, repo: string, options: EndpointOptions): Promise<GetResult<GitHubRepository>> {
    return this.#checked(
      repoPath(owner, repo),
      options,
      (d: GitHubRepository) => isObject(d) && typeof d.full_name === "string",
    );
  }

  /** `GET /repos/{o}/{r}/issues` (pull requests included, with a `pull_request` key), all pages. */
  listIssues(owner: string, repo: string, options: ListIssuesOptions): Promise<PageResult<GitHubIssue, unknown>> {
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
    if (options.pagesMax !== undefined) paginate.maxPages = options.pagesMax;
    if (options.itemsMax !== undefined) paginate.itemsMax = options.itemsMax;
    return this.getPaginated<GitHubIssue, unknown>(`${repoPath(owner, repo)}/issues?${query}`, paginate);
  }

  /** `GET /rate_limit` (free: never counted against the limit or a budget). */
  getRateLimit(options: { signal: AbortSignal }): Promise<GetResult<GitHubRateLimitResponse>> {
    return this.get<GitHubRateLimitResponse>("/rate_limit", { signal: options.signal, conditional: false });
  }

  // ------------------------------------------------------------ internals

  async #checked<T>(path: string, options: EndpointOptions, valid: (data: T) => boolean): Promise<GetResult<T>> {
    const result = await this.get<T>(path, options);
    if (!valid(result.data)) {
      throw new AppError("request_failed", `Cannot read GET ${path}: unexpected response shape`);
    }
    return result;
  }

  #resolve(path: string): string {
    if (/^https?:\/\//i.test(path)) {
      let url: URL;
      try {
        url = new URL(path);
      } catch {
        throw new TypeError(`Cannot GET a URL: current value is ${JSON.stringify(path)}`);
      }
      // Never send the token anywhere but the configured API root (e.g. via a Link header).
      if (!(url.href === this.baseUrl || url.href.startsWith(`${this.baseUrl}/`))) {
        throw new AppError(
          "request_failed",
          `Cannot GET ${url.origin}${url.pathname}: it is outside the API root ${this.baseUrl}`,
        );
      }
      return url.href;
    }
    if (!path.startsWith("/")) {
      throw new TypeError(`Cannot GET a path that does not start with "/": current value is ${JSON.stringify(path)}`);
    }
    return `${this.baseUrl}${path}`;
  }

  #cacheGet(url: string): EtagEntry | undefined {
    if (this.#cache === undefined) return undefined;
    try {
      return this.#cache.get(url);
    } catch (err) {
      this.#log.warn("etag cache read failed; sending unconditionally", { error: describe(err) });
      return undefined;
    }
  }

  async #cachePut(url: string, etag: string, body: string): Promise<void> {
    try {
      await this.#cache?.put(url, etag, body);
    } catch (err) {
      this.#log.warn("etag cache write failed", { error: describe(err) });
    }
  }

  async #send(url: string, etag: string | undefined, signal: AbortSignal): Promise<RawResponse> {
    const release = await this.#semaphore.acquire(signal);
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException(`no answer within ${this.#timeoutMs} ms`, "TimeoutError")),
      this.#timeoutMs,
    );
    try {
      const headers = new Headers({
        "accept": "application/vnd.github+json",
        "x-github-api-version": "2022-11-28",
        "user-agent": this.#userAgent,
      });
      if (this.#token !== undefined) headers.set("authorization", `Bearer ${this.#token}`);
      if (etag !== undefined) headers.set("if-none-match", etag);
      const res = await this.#fetch(url, {
        method: "GET",
        headers,
        signal: AbortSignal.any([signal, timeout.signal]),
      });
      const ok = res.status >= 200 && res.status < 300;
      const text = res.status === 304
        ? await readBounded(res, 0, true)
        : await readBounded(res, ok ? GITHUB_RESPONSE_BYTES_MAX : GITHUB_ERROR_BODY_BYTES_MAX, !ok);
      return { status: res.status, statusText: res.statusText, headers: res.headers, text };
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  async #waitForGate(
    what: string,
    signal: AbortSignal,
    maxWait: number,
    onWait: ((untilMs: number) => void) | undefined,
  ): Promise<void> {
    for (;;) {
      const waitMs = this.#blockedUntil - this.#clock.now();
      if (waitMs <= 0) return;
      if (waitMs > maxWait) throw this.#rateLimited(what, waitMs, "known", 0);
      this.stats.rate_limit_waits++;
      this.#log.warn("rate limited; waiting", { path: what, wait_ms: waitMs });
      onWait?.(this.#blockedUntil);
      await this.#clock.sleep(waitMs, signal);
    }
  }

  async #retryPause(what: string, retry: number, reason: string, signal: AbortSignal): Promise<void> {
    this.stats.retries++;
    const delay = GITHUB_RETRY_BACKOFF_MS_MIN * 2 ** (retry - 1);
    this.#log.warn("transient GitHub failure; retrying", {
      path: what,
      retry,
      delay_ms: delay,
      reason: this.#scrub(reason),
    });
    await this.#clock.sleep(delay, signal);
  }

  #observeRateLimit(headers: Headers): void {
    const state = parseRateLimitHeaders(headers);
    if (state === undefined) return;
    this.stats.rateLimit = state;
    if (state.remaining === 0 && state.reset_at !== null) {
      // The next request would be refused: hold everything until the window resets.
      this.#blockedUntil = Math.max(this.#blockedUntil, state.reset_at + GITHUB_RATE_LIMIT_RESET_SLACK_MS);
    }
  }

  #result<T>(
    status: 200 | 304,
    text: string,
    etag: string | undefined,
    fromCache: boolean,
    link: string | null,
    what: string,
  ): GetResult<T> {
    let data: T;
    try {
      data = JSON.parse(text) as T;
    } catch (err) {
      throw new AppError("request_failed", `Cannot ${what}: the response is not JSON (${describe(err)})`);
    }
    const result: GetResult<T> = { status, data, fromCache, rateLimit: this.stats.rateLimit };
    if (etag !== undefined) result.etag = etag;
    const next = nextLink(link);
    if (next !== undefined) result.next = next;
    return result;
  }

  #githubMessage(text: string): string {
    try {
      const body = JSON.parse(text) as unknown;
      if (isObject(body) && typeof body.message === "string") {
        return this.#scrub(body.message.slice(0, GITHUB_ERROR_MESSAGE_CHARS_MAX));
      }
    } catch {
      // Not JSON: fall through to the raw text.
    }
    return this.#scrub(text.slice(0, GITHUB_ERROR_MESSAGE_CHARS_MAX));
  }

  #rateLimited(what: string, waitMs: number, kind: string, waits: number): AppError {
    return new AppError(
      "rate_limited",
      `Cannot ${what}: GitHub rate limit (${kind}); retry after ${Math.ceil(waitMs / 1000)} s` +
        (waits > GITHUB_RATE_LIMIT_WAITS_MAX ? ` (gave up after ${waits - 1} waits)` : ""),
      {
        retryable: true,
        retryAfterMs: Math.ceil(waitMs),
        data: { retry_after_ms: Math.ceil(waitMs), kind, reset_at: this.stats.rateLimit.reset_at },
      },
    );
  }

  #errorFor(res: RawResponse, message: string, what: string, retries: number): AppError {
    const detail = `GitHub answered ${res.status}${res.statusText === "" ? "" : ` ${res.statusText}`}` +
      (message === "" ? "" : `: ${message}`);
    const data = { status: res.status, path: what };
    if (res.status === 404) return new AppError("not_found", `Cannot ${what}: ${detail}`, { data });
    if (res.status === 401 || res.status === 403) {
      return new AppError("access_denied", `Cannot ${what}: ${detail}`, { data });
    }
    if (res.status >= 500) {
      return new AppError("transient", `Cannot ${what}: ${detail} (after ${retries} retries)`, {
        retryable: true,
        retryAfterMs: GITHUB_RETRY_BACKOFF_MS_MIN * 2 ** retries,
        data,
      });
    }
    return new AppError("request_failed", `Cannot ${what}: ${detail}`, { data });
  }

  /** Removes the token (and anything token-shaped) from text that may reach a message or log. */
  #scrub(text: string): string {
    const token = this.#token;
    const plain = token === undefined ? text : text.split(token).join("[redacted]");
    return redact(plain);
  }
}

/** Cache key of the `Link` header stored beside a representation (a fragment is never sent). */
function linkKey(url: string): string {
  return `${url}#link`;
}

function isObject(value: unknown): value is Record<string, unknown> & { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `/repos/{owner}/{repo}` after validating both names. */
export function repoPath(owner: string, repo: string): string {
  if (!isOwnerName(owner)) {
    throw new TypeError(`Cannot use a GitHub owner name: current value is ${JSON.stringify(owner)}`);
  }
  if (!isRepoName(repo)) {
    throw new TypeError(`Cannot use a GitHub repository name: current value is ${JSON.stringify(repo)}`);
  }
  return `/repos/${owner}/${repo}`;
}

/** A ref (SHA, branch or tag) as a path, each segment percent-encoded. */
export function refPath(ref: string): string {
  // deno-lint-ignore no-control-regex
  if (typeof ref !== "string" || ref === "" || ref.length > 255 || /[\s\x00-\x1f~^:?*[\\]/.test(ref)) {
    throw new TypeError(`Cannot use a git ref: current value is ${JSON.stringify(ref)}`);
  }
  if (ref.split("/").some((s) => s === "" || s === "." || s === "..")) {
    throw new TypeError(`Cannot use a git ref: current value is ${JSON.stringify(ref)}`);
  }
  return ref.split("/").map(encodeURIComponent).join("/");
}
