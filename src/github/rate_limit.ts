/**
 * GitHub's rate-limit rules as pure functions, plus the per-job request budget.
 *
 * When limited (403 or 429): honour `retry-after`; else if `x-ratelimit-remaining` is 0
 * wait until `x-ratelimit-reset`; else (a secondary limit) wait at least a minute and
 * back off exponentially.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { GITHUB_RATE_LIMIT_RESET_SLACK_MS, GITHUB_RATE_LIMIT_WAIT_MS_MIN } from "../base/limits.ts";

/** The last rate-limit headers seen (`reset_at` in epoch milliseconds). */
export interface RateLimitState {
  limit: number | null;
  remaining: number | null;
  used: number | null;
  reset_at: number | null;
  resource: string | null;
}

/** A state with nothing seen yet. */
export function emptyRateLimitState(): RateLimitState {
  return { limit: null, remaining: null, used: null, reset_at: null, resource: null };
}

function headerInt(headers: Headers, name: string): number | null {
  const raw = headers.get(name);
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/** Reads `x-ratelimit-*`; `undefined` when the response carries none. */
export function parseRateLimitHeaders(headers: Headers): RateLimitState | undefined {
  const limit = headerInt(headers, "x-ratelimit-limit");
  const remaining = headerInt(headers, "x-ratelimit-remaining");
  const used = headerInt(headers, "x-ratelimit-used");
  const reset = headerInt(headers, "x-ratelimit-reset");
  const resource = headers.get("x-ratelimit-resource");
  if (limit === null && remaining === null && used === null && reset === null && resource === null) return undefined;
  return { limit, remaining, used, reset_at: reset === null ? null : reset * 1000, resource };
}

/** Milliseconds of a `retry-after` header (delta seconds or an HTTP date), if present. */
export function parseRetryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const raw = headers.get("retry-after");
  if (raw === null) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Why and how long to wait before retrying a limited request. */
export interface RateLimitWait {
  kind: "retry_after" | "primary" | "secondary";
  waitMs: number;
}

/** A refused answer as {@linkcode rateLimitWait} reads it. */
export interface RefusedAnswer {
  status: number;
  headers: Headers;
  /** GitHub's message (a secondary limit names itself there). */
  message: string;
}

/** Options of {@linkcode rateLimitWait}. */
export interface RateLimitWaitOptions {
  /** Secondary-limit waits already made by this call (the exponent of the backoff). */
  secondaryWaits: number;
}

/**
 * Classifies a 403/429 answer at `nowMs`. Returns `undefined` when it is not a rate limit (a plain
 * permission denial).
 */
export function rateLimitWait(
  answer: RefusedAnswer,
  nowMs: number,
  options: RateLimitWaitOptions,
): RateLimitWait | undefined {
  const { status, headers, message } = answer;
  const { secondaryWaits } = options;
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = parseRetryAfterMs(headers, nowMs);
  if (retryAfter !== undefined) return { kind: "retry_after", waitMs: retryAfter };
  const remaining = headerInt(headers, "x-ratelimit-remaining");
  const reset = headerInt(headers, "x-ratelimit-reset");
  if (remaining === 0 && reset !== null) {
    return { kind: "primary", waitMs: Math.max(0, reset * 1000 - nowMs) + GITHUB_RATE_LIMIT_RESET_SLACK_MS };
  }
  // GitHub's older (and GitHub Enterprise Server's) secondary-limit answers say "abuse detection mechanism".
  if (status === 429 || remaining === 0 || /rate limit|abuse detection/i.test(message)) {
    return { kind: "secondary", waitMs: GITHUB_RATE_LIMIT_WAIT_MS_MIN * 2 ** secondaryWaits };
  }
  return undefined;
}

/**
 * A cap on counted requests (non-304 answers), shared by every call of one job. A request
 * reserves a unit before it is sent; a free 304 or a request that never got an answer
 * gives it back.
 */
export class RequestBudget {
  /** Counted requests allowed. */
  readonly max: number;
  #used = 0;
  #reserved = 0;

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 0) {
      throw new RangeError(`Cannot create a request budget: current value of max is ${max}`);
    }
    this.max = max;
  }

  /** Counted requests spent. */
  get used(): number {
    return this.#used;
  }

  /** Requests still allowed (excluding those in flight). */
  get remaining(): number {
    return this.max - this.#used - this.#reserved;
  }

  /**
   * Reserves one request before sending.
   *
   * @throws {AppError} `budget_exhausted` when nothing is left.
   */
  reserve(what: string): void {
    if (this.#used + this.#reserved >= this.max) {
      throw new AppError(
        "budget_exhausted",
        `Cannot send ${what}: the request budget of ${this.max} is spent (used ${this.#used})`,
        { data: { budget: this.max, used: this.#used } },
      );
    }
    this.#reserved++;
  }

  /** The reserved request was answered and counted. */
  commit(): void {
    if (this.#reserved > 0) this.#reserved--;
    this.#used++;
  }

  /** The reserved request was free (304) or never answered. */
  release(): void {
    if (this.#reserved > 0) this.#reserved--;
  }
}
