/**
 * The HTTP transport of the GitHub client: the one `fetch` call in longcall.
 *
 * - Where requests may go: the configured API root only (a `Link` header pointing elsewhere is
 *   refused), and a token never over plain http off loopback.
 * - One GET: GitHub's headers, the token as `Authorization: Bearer`, an `If-None-Match`
 *   validator, a per-request timeout combined with the caller's signal, at most
 *   {@linkcode GITHUB_CONCURRENCY_MAX} requests in flight.
 * - Bounded bodies: a success over {@linkcode GITHUB_RESPONSE_BYTES_MAX} is refused
 *   (`request_failed`, reason {@linkcode RESPONSE_TOO_LARGE}); an error body is cut at
 *   {@linkcode GITHUB_ERROR_BODY_BYTES_MAX}.
 * - The token lives in a private field and is only ever put in a header; {@linkcode Transport.scrub}
 *   removes it from any text that may reach a message or a log line.
 *
 * Retries, rate limits and the ETag cache are the callers' (retry_policy.ts, requester.ts).
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { redact } from "../base/log.ts";
import {
  GITHUB_CONCURRENCY_MAX,
  GITHUB_ERROR_BODY_BYTES_MAX,
  GITHUB_REQUEST_TIMEOUT_MS,
  GITHUB_RESPONSE_BYTES_MAX,
  GITHUB_TOKEN_SCRUB_ANYWHERE_CHARS_MIN,
} from "../base/limits.ts";
import { apiRoot } from "./api_root.ts";
import { Semaphore } from "./semaphore.ts";

/** One answer, its body read in full (within the bounds). */
export interface RawResponse {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/** Options of {@linkcode Transport}. */
export interface TransportOptions {
  /** API root (GHES: `https://host/api/v3`): http or https, no query, fragment or credentials. */
  baseUrl: string;
  /** Token sent as `Authorization: Bearer`; anonymous when absent or empty. */
  token?: string | undefined;
  /** Injected transport (tests); default the global `fetch`. */
  fetch?: typeof fetch | undefined;
  /** Default `longcall`. */
  userAgent?: string | undefined;
  /** Per-request timeout (default and cap {@linkcode GITHUB_REQUEST_TIMEOUT_MS}). */
  requestTimeoutMs?: number | undefined;
  /** Requests in flight (default and cap {@linkcode GITHUB_CONCURRENCY_MAX}). */
  concurrencyMax?: number | undefined;
}

/** Options of {@linkcode Transport.send}. */
export interface SendOptions {
  /** Sent as `If-None-Match` when given. */
  etag?: string | undefined;
  signal: AbortSignal;
}

/** `data.reason` of the `request_failed` error for a body over {@linkcode GITHUB_RESPONSE_BYTES_MAX}. */
export const RESPONSE_TOO_LARGE = "response_too_large";

/** Whether `err` is the error of a response body over the byte bound. */
export function isResponseTooLarge(err: unknown): boolean {
  return err instanceof AppError && err.code === "request_failed" && err.data?.reason === RESPONSE_TOO_LARGE;
}

/** An error as `Name: message`, for messages and log lines (scrub it before it leaves). */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/** Options of {@linkcode boundedMs}. */
export interface BoundedMsOptions {
  /** The largest value kept (a larger one is cut to it). */
  cap: number;
  /** The value when none is given (default `cap`). */
  fallback?: number;
}

/**
 * A duration option `name`: `options.fallback` when `value` is absent, at most `options.cap`.
 *
 * @throws {RangeError} when `value` is negative or not finite.
 */
export function boundedMs(name: string, value: number | undefined, options: BoundedMsOptions): number {
  const { cap, fallback = cap } = options;
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`Cannot use ${name}: current value is ${value}`);
  }
  return Math.min(value, cap);
}

/** Options of {@linkcode readBounded}. */
export interface ReadBoundedOptions {
  /** Cut a body over the bound there instead of refusing it (default false). */
  truncate?: boolean;
}

/**
 * Reads a body of at most `max` bytes. Over the bound it is cut there when `options.truncate`, else
 * refused (`request_failed`, reason {@linkcode RESPONSE_TOO_LARGE}) — at once when
 * `content-length` already declares more, without reading it.
 */
export async function readBounded(res: Response, max: number, options: ReadBoundedOptions = {}): Promise<string> {
  const truncate = options.truncate ?? false;
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

/** Sends GETs to one API root. Safe to share: every request takes a permit of its own. */
export class Transport {
  /** Whether requests carry a token. */
  readonly authenticated: boolean;
  /** The API root, without a trailing slash. */
  readonly baseUrl: string;
  /** The API root's path, without a trailing slash (`""` for api.github.com). */
  readonly basePath: string;

  readonly #token: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #semaphore: Semaphore;

  /**
   * @throws {TypeError} for an API URL that is not http(s), has a query, fragment or credentials, or
   *   is plain http off loopback while a token is set.
   * @throws {RangeError} for a timeout or a concurrency outside its bounds.
   */
  constructor(options: TransportOptions) {
    const token = options.token === undefined || options.token === "" ? undefined : options.token;
    const base = apiRoot(options.baseUrl, { token });
    this.baseUrl = base.href.replace(/\/+$/, "");
    this.basePath = base.pathname.replace(/\/+$/, "");
    this.#token = token;
    this.authenticated = token !== undefined;
    this.#fetch = options.fetch ?? fetch;
    this.#userAgent = options.userAgent ?? "longcall";
    this.#timeoutMs = boundedMs("requestTimeoutMs", options.requestTimeoutMs, { cap: GITHUB_REQUEST_TIMEOUT_MS });
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
   * The absolute URL of `path` (relative to the API root, or an absolute URL under it).
   *
   * @throws {TypeError} for a relative path without a leading `/` or an unparsable URL.
   * @throws {AppError} `request_failed` for a URL outside the API root.
   */
  resolve(path: string): string {
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

  /**
   * One GET of `url` (from {@linkcode Transport.resolve}), its body read within the bounds;
   * `options.etag`, when given, is sent as `If-None-Match`.
   *
   * @throws what `fetch` throws (network errors, the signal's reason, a `TimeoutError`), and
   *   `request_failed` ({@linkcode RESPONSE_TOO_LARGE}) for a success body over the bound.
   */
  async send(url: string, options: SendOptions): Promise<RawResponse> {
    const { etag, signal } = options;
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
        ? await readBounded(res, 0, { truncate: true })
        : await readBounded(res, ok ? GITHUB_RESPONSE_BYTES_MAX : GITHUB_ERROR_BODY_BYTES_MAX, { truncate: !ok });
      return { status: res.status, statusText: res.statusText, headers: res.headers, text };
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /** Removes the token (and anything token-shaped) from text that may reach a message or log. */
  scrub(text: string): string {
    const token = this.#token;
    let plain = text;
    if (token !== undefined && token.length >= GITHUB_TOKEN_SCRUB_ANYWHERE_CHARS_MIN) {
      plain = text.split(token).join("[redacted]");
    } else if (token !== undefined && token !== "") {
      const escaped = token.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
      plain = text.replace(new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`, "g"), "[redacted]");
    }
    return redact(plain);
  }
}
