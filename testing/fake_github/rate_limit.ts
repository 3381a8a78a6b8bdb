/**
 * GitHub's rate limits as the fake plays them: a primary budget per token (and one for anonymous
 * requests) over a window, `x-ratelimit-*` headers, exhaustion until a reset, queued secondary-limit
 * answers (403/429, optional `retry-after`), and the `/rate_limit` body.
 *
 * @module
 */

import type { FakeGitHubOptions, Json } from "./model.ts";

/** The primary budgets and what tests injected. */
export class RateLimits {
  readonly #now: () => number;
  readonly #limit: number;
  readonly #anonymousLimit: number;
  readonly windowMs: number;
  readonly #buckets = new Map<string, { used: number; resetAt: number }>();
  #exhaustedUntil = 0;
  readonly #secondary: Array<{ status: 403 | 429; retryAfterSec: number | undefined }> = [];

  constructor(now: () => number, options: FakeGitHubOptions["rateLimit"] = {}) {
    this.#now = now;
    this.#limit = options.limit ?? 5000;
    this.#anonymousLimit = options.anonymousLimit ?? 60;
    this.windowMs = options.windowMs ?? 3_600_000;
  }

  /** The token's window (a fresh one once the last has reset). */
  bucket(token: string | undefined): { used: number; resetAt: number } {
    const key = token ?? "";
    let b = this.#buckets.get(key);
    if (b === undefined || this.#now() >= b.resetAt) {
      b = { used: 0, resetAt: this.#now() + this.windowMs };
      this.#buckets.set(key, b);
    }
    return b;
  }

  /** The primary limit of a token (anonymous when undefined). */
  limitOf(token: string | undefined): number {
    return token === undefined ? this.#anonymousLimit : this.#limit;
  }

  /** Whether {@linkcode exhaust} is in force. */
  exhausted(): boolean {
    return this.#now() < this.#exhaustedUntil;
  }

  /** Every token is out of requests until `resetInMs` from now (default: one window). */
  exhaust(resetInMs?: number): void {
    this.#exhaustedUntil = this.#now() + (resetInMs ?? this.windowMs);
  }

  /** Remaining primary requests of a token. */
  remaining(token: string | undefined): number {
    return this.exhausted() ? 0 : Math.max(0, this.limitOf(token) - this.bucket(token).used);
  }

  /** Sets the `x-ratelimit-*` headers of the token's window. */
  setHeaders(headers: Headers, token: string | undefined): void {
    const b = this.bucket(token);
    const lim = this.limitOf(token);
    const exhausted = this.exhausted();
    headers.set("x-ratelimit-limit", String(lim));
    headers.set("x-ratelimit-remaining", String(exhausted ? 0 : Math.max(0, lim - b.used)));
    headers.set("x-ratelimit-used", String(exhausted ? lim : Math.min(lim, b.used)));
    headers.set("x-ratelimit-reset", String(Math.ceil((exhausted ? this.#exhaustedUntil : b.resetAt) / 1000)));
    headers.set("x-ratelimit-resource", "core");
  }

  /** The body of `GET /rate_limit` for the token. */
  rateLimitBody(token: string | undefined): Json {
    const b = this.bucket(token);
    const lim = this.limitOf(token);
    const exhausted = this.exhausted();
    const core = {
      limit: lim,
      used: exhausted ? lim : b.used,
      remaining: exhausted ? 0 : lim - b.used,
      reset: Math.ceil((exhausted ? this.#exhaustedUntil : b.resetAt) / 1000),
    };
    return {
      resources: {
        core,
        search: { limit: 30, used: 0, remaining: 30, reset: Math.ceil((this.#now() + 60_000) / 1000) },
      },
      rate: core,
    };
  }

  /** The next `count` requests hit a secondary limit. */
  limitSecondaryNext(count: number, options: { status?: 403 | 429; retryAfterSec?: number } = {}): void {
    for (let i = 0; i < count; i++) {
      this.#secondary.push({ status: options.status ?? 403, retryAfterSec: options.retryAfterSec });
    }
  }

  /** The next queued secondary-limit answer, if any (taken). */
  takeSecondary(): { status: 403 | 429; retryAfterSec: number | undefined } | undefined {
    return this.#secondary.shift();
  }
}

/** GitHub's body of a secondary-limit answer. */
export function secondaryLimitBody(status: number): Json {
  return {
    message:
      "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.",
    documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
    status: String(status),
  };
}

/** GitHub's body of a primary-limit answer (403). */
export function primaryLimitBody(token: string | undefined): Json {
  return {
    message: token === undefined
      ? "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit.)"
      : "API rate limit exceeded for user ID 583231.",
    documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits",
    status: "403",
  };
}
