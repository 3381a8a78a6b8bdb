/**
 * One request through the fake, in GitHub's order: method and credentials, `/rate_limit`, queued
 * secondary limits, the primary limit, injected 5xx, the route, then ETag/304 and the charge. Every
 * answer is recorded, counted and (with `validateOpenApi`) checked against GitHub's REST description.
 *
 * @module
 */

import type { OpenApiCheck } from "../openapi_check.ts";
import { cacheControlOf, etagMatches, etagOf, tokenOf } from "./conditional.ts";
import type { EndpointKind, FakeCounts, FakeRequestRecord, Json } from "./model.ts";
import { primaryLimitBody, type RateLimits, secondaryLimitBody } from "./rate_limit.ts";
import { classify, route } from "./routes.ts";
import type { FakeWorld } from "./world.ts";

/** The most requests {@linkcode FakeContext.requests} keeps. */
const REQUESTS_KEPT = 10_000;
/** The most violations {@linkcode FakeContext.openApiViolations} keeps. */
const VIOLATIONS_KEPT = 1_000;

/** What the handler reads and updates: the fake's state, its counters and logs, and the injected faults. */
export interface FakeContext {
  world: FakeWorld;
  limits: RateLimits;
  counts: FakeCounts;
  requests: FakeRequestRecord[];
  openApi: OpenApiCheck | undefined;
  openApiViolations: string[];
  /** Injected 5xx answers still to give (`kind` undefined: any request). */
  failures: Array<{ status: number; kind: EndpointKind | undefined }>;
  validTokens: ReadonlySet<string> | undefined;
  omitLinkOn304: boolean;
  latencyMs(): number;
}

/** A response with `body` as JSON (none when undefined), like `new Response(body, init)`. */
function json(body: Json | undefined, init: { status: number; headers: Headers }): Response {
  const { status, headers } = init;
  if (body !== undefined) headers.set("content-type", "application/json; charset=utf-8");
  return new Response(body === undefined ? null : JSON.stringify(body), { status, headers });
}

function record(requests: FakeRequestRecord[], r: FakeRequestRecord): void {
  requests.push(r);
  if (requests.length > REQUESTS_KEPT) requests.splice(0, requests.length - REQUESTS_KEPT);
}

/** The request handler of a fake over `ctx`. */
export function fakeHandler(ctx: FakeContext): (req: Request) => Promise<Response> {
  const { world, limits, counts, openApi, openApiViolations, failures, validTokens } = ctx;
  const now = () => world.now();
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const { kind, parts } = classify(url.pathname);
    const token = tokenOf(req);
    const conditional = req.headers.has("if-none-match");
    counts.total++;
    counts.byKind[kind]++;
    counts.inFlight++;
    counts.maxInFlight = Math.max(counts.maxInFlight, counts.inFlight);
    try {
      const latencyMs = ctx.latencyMs();
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const headers = new Headers({ "x-github-media-type": "github.v3; format=json", "vary": "Accept, Authorization" });
      const finish = (status: number, body: Json | undefined) => {
        record(ctx.requests, {
          kind,
          path: url.pathname + url.search,
          status,
          conditional,
          authenticated: token !== undefined,
          at: now(),
        });
        if (body !== undefined) headers.set("content-type", "application/json; charset=utf-8");
        if (openApi !== undefined && kind !== "unknown" && req.method === "GET") {
          for (
            const problem of openApi.check({
              method: req.method,
              url: url.pathname + url.search,
              conditional,
              status,
              headers,
              body,
            })
          ) {
            if (openApiViolations.length < VIOLATIONS_KEPT) {
              openApiViolations.push(`GET ${url.pathname}${url.search}: ${problem}`);
            }
          }
        }
        return json(body, { status, headers });
      };
      if (req.method !== "GET" && req.method !== "HEAD") {
        return finish(404, { message: "Not Found", status: "404" });
      }
      if (validTokens !== undefined && token !== undefined && !validTokens.has(token)) {
        limits.setHeaders(headers, undefined);
        return finish(401, {
          message: "Bad credentials",
          documentation_url: "https://docs.github.com/rest",
          status: "401",
        });
      }
      if (kind === "rate_limit") {
        const body = limits.rateLimitBody(token);
        limits.setHeaders(headers, token);
        counts.free++;
        return finish(200, body);
      }
      const sec = limits.takeSecondary();
      if (sec !== undefined) {
        counts.rateLimited++;
        limits.setHeaders(headers, token);
        if (sec.retryAfterSec !== undefined) headers.set("retry-after", String(sec.retryAfterSec));
        return finish(sec.status, secondaryLimitBody(sec.status));
      }
      const b = limits.bucket(token);
      if (limits.exhausted() || b.used >= limits.limitOf(token)) {
        counts.rateLimited++;
        limits.setHeaders(headers, token);
        return finish(403, primaryLimitBody(token));
      }
      const failIndex = failures.findIndex((f) => f.kind === undefined || f.kind === kind);
      if (failIndex >= 0) {
        const [failure] = failures.splice(failIndex, 1);
        counts.injectedErrors++;
        limits.setHeaders(headers, token);
        return finish(failure?.status ?? 502, { message: "Server Error", status: String(failure?.status ?? 502) });
      }
      const answer = route(world, { kind, parts, url });
      if (kind === "issues") world.applyMoves(`${parts[0]}/${parts[1]}`, Number(url.searchParams.get("page") ?? "1"));
      const text = JSON.stringify(answer.body);
      if (answer.link !== undefined) headers.set("link", answer.link);
      if (answer.status === 200 && answer.cacheable) {
        const etag = etagOf({ text, link: answer.link }, token);
        headers.set("etag", etag);
        headers.set("cache-control", cacheControlOf(token));
        if (etagMatches(req.headers.get("if-none-match"), etag)) {
          counts.notModified++;
          counts.notModifiedByKind[kind]++;
          if (ctx.omitLinkOn304) headers.delete("link");
          if (token === undefined) {
            // GitHub charges a 304 only when the request carried no `Authorization`.
            b.used++;
            counts.counted++;
            counts.countedByKind[kind]++;
            counts.notModifiedCounted++;
          } else {
            counts.free++;
          }
          limits.setHeaders(headers, token);
          return finish(304, undefined);
        }
      }
      b.used++;
      counts.counted++;
      counts.countedByKind[kind]++;
      limits.setHeaders(headers, token);
      return finish(answer.status, answer.body);
    } finally {
      counts.inFlight--;
    }
  };
}
