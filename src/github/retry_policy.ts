/**
 * The GitHub client's retry and rate-limit policy: what happens after a request failed or was
 * refused, and when the next one may be sent.
 *
 * - Rate limits (GitHub's rules, read by the pure functions of rate_limit.ts): `retry-after` is
 *   honoured; `x-ratelimit-remaining: 0` holds every request of the client until
 *   `x-ratelimit-reset`; a secondary limit waits at least a minute and backs off exponentially. A
 *   wait longer than the caller's bound, or more than {@linkcode GITHUB_RATE_LIMIT_WAITS_MAX} of them,
 *   ends in `rate_limited` (retryable, with the instant to retry).
 * - 5xx answers and network errors are retried {@linkcode GITHUB_RETRIES_MAX} times with exponential
 *   backoff from {@linkcode GITHUB_RETRY_BACKOFF_MS_MIN}, then end `transient`.
 * - Every other refusal is typed: `not_found`, `access_denied`, `request_failed`.
 *
 * All waits are on the injected {@linkcode Clock} and the caller's signal, so they are testable and
 * cancellable. GitHub's error messages are cut and scrubbed of the token before they reach an error.
 *
 * @module
 */

import type { Clock } from "../base/clock.ts";
import { AppError } from "../base/errors.ts";
import {
  GITHUB_ERROR_MESSAGE_CHARS_MAX,
  GITHUB_RATE_LIMIT_RESET_SLACK_MS,
  GITHUB_RATE_LIMIT_WAIT_MS_MAX,
  GITHUB_RATE_LIMIT_WAITS_MAX,
  GITHUB_RETRIES_MAX,
  GITHUB_RETRY_BACKOFF_MS_MIN,
} from "../base/limits.ts";
import type { Logger } from "../base/log.ts";
import { parseRateLimitHeaders, type RateLimitState, rateLimitWait } from "./rate_limit.ts";
import { boundedMs, describeError, type RawResponse } from "./transport.ts";

/** The counters the policy keeps (part of the client's `stats`). */
export interface RetryStats {
  /** Retries after 5xx / network errors. */
  retries: number;
  /** Rate-limit waits made. */
  rate_limit_waits: number;
  /** The last rate-limit headers seen. */
  rateLimit: RateLimitState;
}

/** What one call has spent so far (one per `get`, across its retries and waits). */
export interface Attempt {
  /** Retries after 5xx / network errors. */
  retries: number;
  /** Rate-limited answers. */
  limitedWaits: number;
  /** Secondary-limit answers (the exponent of their backoff). */
  secondaryWaits: number;
}

/**
 * One call as the policy follows it, across its retries and waits (one per `get`): what every
 * method of {@linkcode RetryPolicy} takes first.
 */
export interface PolicyCall {
  /** The request in words (`GET /path?query`): messages and log lines name it. */
  what: string;
  /** The caller's signal: every wait ends when it aborts. */
  signal: AbortSignal;
  /** Longest single rate-limit wait of this call ({@linkcode RetryPolicy.waitBoundMs}). */
  maxWaitMs: number;
  /** Called before each wait for the gate with the instant (clock ms) requests resume. */
  onWait?: ((untilMs: number) => void) | undefined;
  /** What the call has spent so far (updated in place). */
  attempt: Attempt;
}

/** A refused answer with GitHub's message read from its body (cut and scrubbed). */
type Refusal = RawResponse & { message: string };

/** Whether `err` says GitHub gave no answer at all (a network error past the retries), not a refusal or a 5xx. */
export function isNoAnswer(err: unknown): boolean {
  return err instanceof AppError && err.code === "transient" && err.data?.["no_answer"] === true;
}

/** A call that has spent nothing yet. */
export function freshAttempt(): Attempt {
  return { retries: 0, limitedWaits: 0, secondaryWaits: 0 };
}

/** What a 401 to a request with a token adds: the settings a token comes from (src/cli/product_kinds.ts). */
export const TOKEN_REFUSED_HINT = "GitHub refused the token: check GITHUB_TOKEN, GH_TOKEN or " +
  "LONGCALL_GITHUB_TOKEN_FILE (the first one set is used), or unset them to run anonymously";

/**
 * When requests may resume (clock ms), shared by every client of one token in a process: one job
 * learning that the limit is spent holds the others too, instead of each spending a refused request
 * to learn it (GitHub asks integrations to stop while limited).
 */
export interface RateGate {
  blockedUntil: number;
}

/** A gate that holds nothing yet. */
export function newRateGate(): RateGate {
  return { blockedUntil: 0 };
}

/** Options of {@linkcode RetryPolicy}. */
export interface RetryPolicyOptions {
  clock: Clock;
  log: Logger;
  /** Updated in place. */
  stats: RetryStats;
  /** Removes the token from text that may reach a message or log line. */
  scrub: (text: string) => string;
  /** Whether requests carry a token: a 401 then says which setting to check. */
  authenticated?: boolean | undefined;
  /** Shared with the other clients of the same token (default: this policy's own). */
  gate?: RateGate | undefined;
  /** Longest single rate-limit wait before `rate_limited` (capped by {@linkcode GITHUB_RATE_LIMIT_WAIT_MS_MAX}). */
  maxRateLimitWaitMs?: number | undefined;
}

/** One client's policy: its rate-limit gate is shared by every call of that client. */
export class RetryPolicy {
  /** Longest single rate-limit wait of a call that sets no lower bound. */
  readonly maxWaitMs: number;

  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #stats: RetryStats;
  readonly #scrub: (text: string) => string;
  readonly #authenticated: boolean;
  /** No request is sent before its instant (clock ms): the limit is known to be hit. */
  readonly #gate: RateGate;

  /** @throws {RangeError} when `maxRateLimitWaitMs` is negative or not finite. */
  constructor(options: RetryPolicyOptions) {
    this.#clock = options.clock;
    this.#log = options.log;
    this.#stats = options.stats;
    this.#scrub = options.scrub;
    this.#authenticated = options.authenticated ?? false;
    this.#gate = options.gate ?? newRateGate();
    this.maxWaitMs = boundedMs("maxRateLimitWaitMs", options.maxRateLimitWaitMs, {
      cap: GITHUB_RATE_LIMIT_WAIT_MS_MAX,
    });
  }

  /**
   * A call's wait bound: its own when given (lower only), else the client's.
   *
   * @throws {RangeError} when `override` is negative or not finite.
   */
  waitBoundMs(override: number | undefined): number {
    return boundedMs("maxRateLimitWaitMs", override, { cap: this.maxWaitMs });
  }

  /**
   * Waits until the client's known limit has reset (at once when none is hit), calling `call.onWait`
   * before each wait with the instant (clock ms) requests resume.
   *
   * @throws {AppError} `rate_limited` when the wait is longer than `call.maxWaitMs`; the signal's reason.
   */
  async waitForGate(call: PolicyCall): Promise<void> {
    const { what, signal, maxWaitMs, onWait } = call;
    for (;;) {
      const waitMs = this.#gate.blockedUntil - this.#clock.now();
      if (waitMs <= 0) return;
      if (waitMs > maxWaitMs) throw this.#rateLimited(what, { kind: "known", waitMs, waits: 0 });
      this.#stats.rate_limit_waits++;
      this.#log.warn("rate limited; waiting", { path: what, wait_ms: waitMs });
      onWait?.(this.#gate.blockedUntil);
      await this.#clock.sleep(waitMs, signal);
    }
  }

  /** Records an answer's rate-limit headers; the last request of a window closes the gate until its reset. */
  observe(headers: Headers): void {
    const state = parseRateLimitHeaders(headers);
    if (state === undefined) return;
    this.#stats.rateLimit = state;
    if (state.remaining === 0 && state.reset_at !== null) {
      // The next request would be refused: hold everything until the window resets.
      this.#gate.blockedUntil = Math.max(this.#gate.blockedUntil, state.reset_at + GITHUB_RATE_LIMIT_RESET_SLACK_MS);
    }
  }

  /**
   * After a request of `call` that got no answer (`err`): returns (after the backoff) when it is to
   * be retried.
   *
   * @throws the signal's reason when aborted, an {@linkcode AppError} of the transport as is, and
   *   `transient` once {@linkcode GITHUB_RETRIES_MAX} retries are spent.
   */
  async afterNoAnswer(call: PolicyCall, err: unknown): Promise<void> {
    const { what, signal, attempt } = call;
    if (signal.aborted) throw signal.reason;
    if (err instanceof AppError) throw err;
    if (attempt.retries < GITHUB_RETRIES_MAX) {
      attempt.retries++;
      await this.#retryPause(call, describeError(err));
      return;
    }
    throw new AppError(
      "transient",
      this.#scrub(`Cannot ${what}: network error after ${attempt.retries} retries (${describeError(err)})`),
      {
        retryable: true,
        retryAfterMs: GITHUB_RETRY_BACKOFF_MS_MIN * 2 ** attempt.retries,
        data: { path: what, no_answer: true },
      },
    );
  }

  /**
   * After an answer `res` to a request of `call` that is neither a success nor a 304: returns when it
   * is to be retried (a rate limit closes the gate, which the next {@linkcode RetryPolicy.waitForGate}
   * waits out; a 5xx waits its backoff here).
   *
   * @throws {AppError} `rate_limited` for a limit longer than `call.maxWaitMs` or past
   *   {@linkcode GITHUB_RATE_LIMIT_WAITS_MAX} waits; `transient` for a 5xx past the retries;
   *   `not_found`, `access_denied`, `request_failed` for the rest.
   */
  async afterRefusal(call: PolicyCall, res: RawResponse): Promise<void> {
    const { what, maxWaitMs, attempt } = call;
    const refusal: Refusal = { ...res, message: this.#githubMessage(res.text) };
    if (res.status === 403 || res.status === 429) {
      const wait = rateLimitWait(refusal, this.#clock.now(), { secondaryWaits: attempt.secondaryWaits });
      if (wait !== undefined) {
        if (wait.kind === "secondary") attempt.secondaryWaits++;
        attempt.limitedWaits++;
        this.#gate.blockedUntil = Math.max(this.#gate.blockedUntil, this.#clock.now() + wait.waitMs);
        if (wait.waitMs > maxWaitMs || attempt.limitedWaits > GITHUB_RATE_LIMIT_WAITS_MAX) {
          throw this.#rateLimited(what, { kind: wait.kind, waitMs: wait.waitMs, waits: attempt.limitedWaits });
        }
        return;
      }
    }
    if (res.status >= 500 && attempt.retries < GITHUB_RETRIES_MAX) {
      attempt.retries++;
      await this.#retryPause(call, `${res.status} ${res.statusText}`);
      return;
    }
    throw this.#errorFor(call, refusal);
  }

  /** The backoff before retry `call.attempt.retries` (already counted), logged with `reason`. */
  async #retryPause(call: PolicyCall, reason: string): Promise<void> {
    const { what, signal } = call;
    const retry = call.attempt.retries;
    this.#stats.retries++;
    const delay = GITHUB_RETRY_BACKOFF_MS_MIN * 2 ** (retry - 1);
    this.#log.warn("transient GitHub failure; retrying", {
      path: what,
      retry,
      delay_ms: delay,
      reason: this.#scrub(reason),
    });
    await this.#clock.sleep(delay, signal);
  }

  #githubMessage(text: string): string {
    try {
      const body = JSON.parse(text) as unknown;
      if (typeof body === "object" && body !== null && "message" in body && typeof body.message === "string") {
        return this.#scrub(body.message.slice(0, GITHUB_ERROR_MESSAGE_CHARS_MAX));
      }
    } catch {
      // Not JSON: fall through to the raw text.
    }
    return this.#scrub(text.slice(0, GITHUB_ERROR_MESSAGE_CHARS_MAX));
  }

  /** `rate_limited` for a `limit.kind` limit of `limit.waitMs`, after `limit.waits` limited answers. */
  #rateLimited(what: string, limit: { kind: string; waitMs: number; waits: number }): AppError {
    const { kind, waitMs, waits } = limit;
    return new AppError(
      "rate_limited",
      `Cannot ${what}: GitHub rate limit (${kind}); retry after ${Math.ceil(waitMs / 1000)} s` +
        (waits > GITHUB_RATE_LIMIT_WAITS_MAX ? ` (gave up after ${waits - 1} waits)` : ""),
      {
        retryable: true,
        retryAfterMs: Math.ceil(waitMs),
        data: { retry_after_ms: Math.ceil(waitMs), kind, reset_at: this.#stats.rateLimit.reset_at },
      },
    );
  }

  #errorFor(call: PolicyCall, res: Refusal): AppError {
    const { what } = call;
    const { message } = res;
    const retries = call.attempt.retries;
    const detail = `GitHub answered ${res.status}${res.statusText === "" ? "" : ` ${res.statusText}`}` +
      (message === "" ? "" : `: ${message}`);
    const data = { status: res.status, path: what };
    if (res.status === 404) {
      // GitHub answers 404, not 403, for a private repository the caller may not see: say so, or a model concludes
      // the number or the name is wrong.
      const hidden = /\/repos\//.test(what)
        ? `; GitHub answers the same for a private repository ${
          this.#authenticated ? "this token cannot see" : "without a token (set GITHUB_TOKEN)"
        }`
        : "";
      return new AppError("not_found", `Cannot ${what}: ${detail}${hidden}`, { data });
    }
    if (res.status === 401 && this.#authenticated) {
      // GitHub refuses a bad token on every request, also those that need none: say where it came from.
      return new AppError("access_denied", `Cannot ${what}: ${detail}. ${TOKEN_REFUSED_HINT}`, { data });
    }
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
}
