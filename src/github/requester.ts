/**
 * One conditional GET and a paginated listing, over the {@linkcode Transport} and the
 * {@linkcode RetryPolicy}: what every endpoint of the GitHub client is built from.
 *
 * - Conditional requests through an {@linkcode EtagCache}: an unchanged resource is a `304`
 *   answered from the cache (free when authenticated; GitHub counts an anonymous one), and the
 *   `Link` header stored beside it still paginates when the 304 omits it.
 * - The per-job {@linkcode RequestBudget}: a unit is reserved before sending, committed for a
 *   counted answer, given back for a free 304 or a request that never got an answer.
 * - Pagination follows `Link rel="next"`, bounded by {@linkcode GITHUB_PAGES_MAX} pages and an
 *   optional item count; `complete` says whether anything was left out.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { GITHUB_PAGES_MAX } from "../base/limits.ts";
import type { Logger } from "../base/log.ts";
import type { EtagCache, EtagEntry } from "./etag_cache.ts";
import { nextLink } from "./link.ts";
import type { RateLimitState, RequestBudget } from "./rate_limit.ts";
import { freshAttempt, type PolicyCall, type RetryPolicy, type RetryStats } from "./retry_policy.ts";
import { describeError, type RawResponse, type Transport } from "./transport.ts";

/** Per-call options of {@linkcode Requester.get}. */
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

/** Common per-call options of the endpoints. */
export type EndpointOptions = GetOptions;

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

/** Options of {@linkcode Requester.getPaginated}. */
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
export interface GitHubStats extends RetryStats {
  /** Answers counted against the primary limit: every non-304 answer except `/rate_limit`, and every
   * 304 of an anonymous client (GitHub counts a 304 only when it answers an authorized request for free). */
  requests: number;
  /** 304 answers (free when authenticated; counted in `requests` too when anonymous). */
  not_modified: number;
  /** 304 answers that were counted (anonymous client). */
  not_modified_counted: number;
  /**
   * Answers with an ETag that the cache did not keep because of their size (over
   * `GITHUB_ETAG_BODY_BYTES_MAX`, src/base/limits.ts): the next read of that URL is never a 304
   * (a listing then asks for smaller pages).
   */
  too_large_to_cache: number;
}

/** Options of {@linkcode Requester}. */
export interface RequesterOptions {
  transport: Transport;
  policy: RetryPolicy;
  /** Updated in place (the policy updates its own counters in it). */
  stats: GitHubStats;
  log: Logger;
  /** Validators for conditional requests; without one every request is unconditional. */
  etagCache?: EtagCache | undefined;
}

/** Whether a parsed JSON value is an object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> & { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One answer as {@linkcode Requester} turns it into a {@linkcode GetResult}. */
interface Answer {
  status: 200 | 304;
  /** The body (from the cache for a 304). */
  text: string;
  etag: string | undefined;
  fromCache: boolean;
  /** The `Link` header (for a 304, the one stored beside the representation), or null. */
  link: string | null;
}

/** Cache key of the `Link` header stored beside a representation (a fragment is never sent). */
function linkKey(url: string): string {
  return `${url}#link`;
}

/** GETs through one transport, policy and cache. */
export class Requester {
  readonly #transport: Transport;
  readonly #policy: RetryPolicy;
  readonly #stats: GitHubStats;
  readonly #log: Logger;
  readonly #cache: EtagCache | undefined;

  constructor(options: RequesterOptions) {
    this.#transport = options.transport;
    this.#policy = options.policy;
    this.#stats = options.stats;
    this.#log = options.log;
    this.#cache = options.etagCache;
  }

  /**
   * GETs `path` (relative to the API root, or an absolute URL under it).
   *
   * @throws {AppError} `not_found`, `access_denied`, `rate_limited`, `transient`,
   *   `request_failed`, `budget_exhausted`; the signal's reason when aborted.
   */
  async get<T>(path: string, options: GetOptions): Promise<GetResult<T>> {
    const url = this.#transport.resolve(path);
    const parsed = new URL(url);
    const what = `GET ${parsed.pathname}${parsed.search}`;
    const counted = parsed.pathname !== `${this.#transport.basePath}/rate_limit`;
    const conditional = options.conditional ?? true;
    const { signal, budget } = options;
    const call: PolicyCall = {
      what,
      signal,
      maxWaitMs: this.#policy.waitBoundMs(options.maxRateLimitWaitMs),
      onWait: options.onRateLimitWait,
      attempt: freshAttempt(),
    };
    for (;;) {
      signal.throwIfAborted();
      await this.#policy.waitForGate(call);
      const cached = conditional ? this.#cacheGet(url) : undefined;
      if (counted) budget?.reserve(what);
      let res: RawResponse;
      try {
        res = await this.#transport.send(url, { etag: cached?.etag, signal });
      } catch (err) {
        if (counted) budget?.release();
        await this.#policy.afterNoAnswer(call, err);
        continue;
      }
      this.#policy.observe(res.headers);
      if (res.status === 304) {
        this.#stats.not_modified++;
        if (counted && !this.#transport.authenticated) {
          // GitHub counts a 304 without Authorization against the (60/h) anonymous limit.
          budget?.commit();
          this.#stats.requests++;
          this.#stats.not_modified_counted++;
        } else if (counted) budget?.release();
        if (cached === undefined) {
          throw new AppError("request_failed", `Cannot ${what}: GitHub answered 304 to an unconditional request`);
        }
        // A 304 may omit `Link`; the link stored with this representation still applies.
        const sidecar = res.headers.get("link") === null ? this.#cacheGet(linkKey(url)) : undefined;
        const link = res.headers.get("link") ?? (sidecar?.etag === cached.etag ? sidecar.body : null);
        return this.#result<T>({ status: 304, text: cached.body, etag: cached.etag, fromCache: true, link }, what);
      }
      if (counted) {
        budget?.commit();
        this.#stats.requests++;
      }
      if (res.status >= 200 && res.status < 300) {
        const etag = res.headers.get("etag") ?? undefined;
        const link = res.headers.get("link");
        const result = this.#result<T>({ status: 200, text: res.text, etag, fromCache: false, link }, what);
        if (etag !== undefined && this.#cache !== undefined) {
          if (await this.#cachePut(url, { etag, body: res.text }) === false) this.#stats.too_large_to_cache++;
          if (link !== null) await this.#cachePut(linkKey(url), { etag, body: link });
        }
        return result;
      }
      await this.#policy.afterRefusal(call, res);
    }
  }

  /**
   * {@linkcode Requester.get}, then `valid` on the body.
   *
   * @throws {AppError} what {@linkcode Requester.get} throws; `request_failed` when `valid` says no.
   */
  async getChecked<T>(path: string, valid: (data: T) => boolean, options: GetOptions): Promise<GetResult<T>> {
    const result = await this.get<T>(path, options);
    if (!valid(result.data)) {
      throw new AppError("request_failed", `Cannot read GET ${path}: unexpected response shape`);
    }
    return result;
  }

  /**
   * GETs every page of a listing, following `Link rel="next"`, bounded by `maxPages`
   * and `itemsMax`.
   *
   * @throws {RangeError} for `maxPages` outside 1..{@linkcode GITHUB_PAGES_MAX} or an `itemsMax` below 1.
   * @throws {AppError} what {@linkcode Requester.get} throws; `request_failed` for a page that is not a list.
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
    let rateLimit = this.#stats.rateLimit;
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

  #cacheGet(url: string): EtagEntry | undefined {
    if (this.#cache === undefined) return undefined;
    try {
      return this.#cache.get(url);
    } catch (err) {
      this.#log.warn("etag cache read failed; sending unconditionally", { error: describeError(err) });
      return undefined;
    }
  }

  /** Whether the cache kept the body; undefined when its write failed (logged). */
  async #cachePut(url: string, entry: EtagEntry): Promise<boolean | undefined> {
    try {
      return await this.#cache?.put(url, entry);
    } catch (err) {
      this.#log.warn("etag cache write failed", { error: describeError(err) });
      return undefined;
    }
  }

  /** `answer` as a result of the request `what` (which an unparsable body's error names). */
  #result<T>(answer: Answer, what: string): GetResult<T> {
    const { status, text, etag, fromCache, link } = answer;
    let data: T;
    try {
      data = JSON.parse(text) as T;
    } catch (err) {
      throw new AppError("request_failed", `Cannot ${what}: the response is not JSON (${describeError(err)})`);
    }
    const result: GetResult<T> = { status, data, fromCache, rateLimit: this.#stats.rateLimit };
    if (etag !== undefined) result.etag = etag;
    const next = nextLink(link);
    if (next !== undefined) result.next = next;
    return result;
  }
}
