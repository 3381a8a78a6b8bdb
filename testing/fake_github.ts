/**
 * A fake GitHub REST API: a real HTTP server on 127.0.0.1 for tests, the demo and
 * benchmarks. Payloads follow GitHub's documented shapes, built from the JSON fixtures in
 * `fixtures/github/`.
 *
 * - Endpoints: `GET /repos/{o}/{r}`, `/repos/{o}/{r}/pulls/{n}`,
 *   `/repos/{o}/{r}/commits/{ref}/check-runs`, `/repos/{o}/{r}/commits/{ref}/status` (paged at 30
 *   by default like GitHub), `/repos/{o}/{r}/commits/{ref}/check-suites`,
 *   `/repos/{o}/{r}/actions/runs?head_sha=`, `/repos/{o}/{r}/check-runs/{id}/annotations`,
 *   `/repos/{o}/{r}/rules/branches/{branch}`, `/repos/{o}/{r}/branches/{branch}` (classic protection summary),
 *   `/repos/{o}/{r}/issues` (state, since, sort, direction, per_page, page, `Link`),
 *   `/rate_limit`.
 * - Lists page as GitHub's do: `per_page` 30 by default, 100 at most, `Link` rels
 *   prev/next/last/first (the combined status pages its `statuses`; `total_count` and `state`
 *   cover all of them).
 * - Strong ETags per representation and token; `If-None-Match` -> `304`, free with a token,
 *   charged without one (as GitHub does; `counts.notModifiedCounted`, `counts.free`).
 * - With `validateOpenApi`, every answer is checked against GitHub's REST description
 *   (`@octokit/openapi`, see testing/openapi_check.ts) into `openApiViolations`.
 * - `x-ratelimit-*` headers with a per-token counter; primary exhaustion (403, remaining 0,
 *   reset), secondary limits (403/429, optional `retry-after`), injected 5xx, 404 for
 *   unknown repositories, 403 for the private `octo/secret`, 401 for tokens outside
 *   `validTokens` when that option is set.
 * - Scenarios: the checks of pull request `octo/widgets#42` follow a timeline keyed by
 *   milliseconds since the scenario started. Time is `now()` (inject a ManualClock's
 *   `now`) plus whatever `advance(ms)` added.
 * - Generated repositories (`generatedRepos: {"big/repo": 5000}`) for sync benchmarks.
 * - `counts`: requests by endpoint kind, charged vs 304, rate limited, max in flight.
 *
 * Parts (testing/fake_github/): model.ts (public types, constants, counters), timelines.ts (the
 * built-in scenarios), state.ts (a timeline replayed to a moment), world.ts (clock, scenario,
 * generated repositories, issue changes), payloads.ts (users, apps, repositories, generated
 * issues), repos.ts and checks.ts (the route handlers per endpoint group), routes.ts (path ->
 * handler), rate_limit.ts and conditional.ts (limits, ETags and 304s), handler.ts (one request
 * in GitHub's order, OpenAPI check included); this file starts and stops the server.
 *
 * Standalone: `deno run --allow-net=127.0.0.1 testing/fake_github.ts --scenario checks_pass
 * [--port N] [--generated owner/repo=N] [--latency-ms N] [--time-rate N]` prints `{"url": ...}` as one
 * JSON line on stdout and serves until SIGINT/SIGTERM. `--time-rate N` plays the scenario N times faster
 * than real time (1..SIMULATE_TIME_RATE_MAX), to pair with `--simulate-time-rate N` of `checks watch` or
 * `serve`.
 *
 * @module
 */

import { SIMULATE_TIME_RATE_MAX } from "../src/base/limits.ts";
import { loadOpenApiCheck } from "./openapi_check.ts";
import { type FakeContext, fakeHandler } from "./fake_github/handler.ts";
import {
  type FakeGitHub,
  type FakeGitHubOptions,
  newCounts,
  SCENARIO_PULL,
  type ScenarioName,
} from "./fake_github/model.ts";
import { RateLimits } from "./fake_github/rate_limit.ts";
import { SCENARIO_NAMES } from "./fake_github/timelines.ts";
import { FakeWorld } from "./fake_github/world.ts";

export {
  type EndpointKind,
  type FakeAnnotation,
  type FakeBranchProtection,
  type FakeCheck,
  type FakeCounts,
  type FakeGitHub,
  type FakeGitHubOptions,
  type FakeRequestRecord,
  type FakeStatus,
  type FakeSuite,
  FIXTURE_REPO,
  type Json,
  type JsonObject,
  PRIVATE_REPO,
  SCENARIO_PULL,
  SCENARIO_SHA_FIRST,
  SCENARIO_SHA_SECOND,
  type ScenarioName,
  type ScenarioStep,
} from "./fake_github/model.ts";
export { SCENARIO_NAMES, SCENARIOS } from "./fake_github/timelines.ts";

/** Starts the fake on 127.0.0.1 (a free port unless `port` is given). */
export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const openApi = options.validateOpenApi === true ? await loadOpenApiCheck() : undefined;
  const world = new FakeWorld(options);
  const limits = new RateLimits(() => world.now(), options.rateLimit);
  let latencyMs = options.latencyMs ?? 0;
  const counts = newCounts();
  const ctx: FakeContext = {
    world,
    limits,
    counts,
    requests: [],
    openApi,
    openApiViolations: [],
    failures: [],
    validTokens: options.validTokens === undefined ? undefined : new Set(options.validTokens),
    omitLinkOn304: options.omitLinkOn304 === true,
    latencyMs: () => latencyMs,
  };

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      onListen: (addr) => {
        const url = `http://127.0.0.1:${addr.port}`;
        resolve({
          url,
          counts,
          requests: ctx.requests,
          openApiViolations: ctx.openApiViolations,
          now: () => world.now(),
          advance: (ms) => world.advance(ms),
          setScenario: (scenario) => world.setScenario(scenario),
          scenarioElapsedMs: () => world.scenarioElapsedMs(),
          failNext: (count, o = {}) => {
            for (let i = 0; i < count; i++) ctx.failures.push({ status: o.status ?? 502, kind: o.kind });
          },
          limitSecondaryNext: (count, o = {}) => limits.limitSecondaryNext(count, o),
          exhaustPrimary: (o = {}) => limits.exhaust(o.resetInMs),
          remaining: (token) => limits.remaining(token),
          touchIssue: (fullName, number, options = {}) => world.touch(fullName, number, options),
          touchIssueAfterPage: (fullName, number, options) => world.touchAfterPage(fullName, number, options),
          setLatency: (ms) => {
            latencyMs = ms;
          },
          resetCounts: () => {
            Object.assign(counts, newCounts(), { inFlight: counts.inFlight });
          },
          close: () => server.shutdown(),
        });
      },
    }, fakeHandler(ctx));
  });
}

// ---------------------------------------------------------------- standalone

function parseArgs(args: string[]): { options: FakeGitHubOptions; timeRate: number } {
  const options: FakeGitHubOptions = {};
  const generatedRepos: Record<string, number> = {};
  let timeRate = 1;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1];
    const need = () => {
      if (value === undefined) throw new TypeError(`Cannot parse ${arg}: current value is missing`);
      i++;
      return value;
    };
    switch (arg) {
      case "--scenario": {
        const name = need();
        if (!(SCENARIO_NAMES as readonly string[]).includes(name)) {
          throw new TypeError(`Cannot use scenario ${name}: current value is not one of ${SCENARIO_NAMES.join(", ")}`);
        }
        options.scenario = name as ScenarioName;
        break;
      }
      case "--port":
        options.port = Number(need());
        break;
      case "--latency-ms":
        options.latencyMs = Number(need());
        break;
      case "--time-rate": {
        // For `checks watch --simulate-time-rate N` and `serve --simulate-time-rate N`, which run job time
        // as fast: the scenario's timeline then plays at the same pace.
        const raw = need();
        const rate = Number(raw);
        if (!Number.isInteger(rate) || rate < 1 || rate > SIMULATE_TIME_RATE_MAX) {
          throw new TypeError(
            `Cannot use --time-rate ${raw}: current value is not an integer from 1 to ${SIMULATE_TIME_RATE_MAX}`,
          );
        }
        const t0 = Date.now();
        options.now = () => t0 + (Date.now() - t0) * rate;
        timeRate = rate;
        break;
      }
      case "--generated": {
        const spec = need();
        const m = /^([^/=]+\/[^/=]+)=(\d+)$/.exec(spec);
        if (m === null) throw new TypeError(`Cannot parse --generated OWNER/REPO=N: current value is ${spec}`);
        generatedRepos[m[1] ?? ""] = Number(m[2]);
        break;
      }
      default:
        throw new TypeError(`Cannot parse the arguments: current value ${arg} is unknown`);
    }
  }
  if (Object.keys(generatedRepos).length > 0) options.generatedRepos = generatedRepos;
  return { options, timeRate };
}

if (import.meta.main) {
  const { options, timeRate } = parseArgs(Deno.args);
  const fake = await startFakeGitHub(options);
  console.log(JSON.stringify({
    url: fake.url,
    scenario: typeof options.scenario === "string" ? options.scenario : "checks_pass",
    time_rate: timeRate,
    pull: SCENARIO_PULL,
    generated: options.generatedRepos ?? {},
  }));
  const stop = () => {
    fake.close().then(() => Deno.exit(0));
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
