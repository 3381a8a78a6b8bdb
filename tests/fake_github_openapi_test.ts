/**
 * The fake GitHub against GitHub's official REST description (npm `@octokit/openapi`, checked by
 * testing/openapi_check.ts): every endpoint longcall calls, through the real client, with and
 * without a token, fresh and conditional; error answers; GitHub's paging (30 by default, 100 at
 * most, `Link` with prev/next/last/first); ETags per token; anonymous 304s charged, authorized 304s
 * free. And the checker itself: it must reject what GitHub would not send.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/fake_github_openapi_test.ts
 */
import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import { silentLogger } from "../src/base/log.ts";
import { GitHubClient, MemoryEtagCache, type RepoRef } from "../src/github/client.ts";
import { parseLinkHeader } from "../src/github/link.ts";
import {
  type FakeGitHub,
  type FakeGitHubOptions,
  SCENARIO_SHA_FIRST,
  type ScenarioStep,
  startFakeGitHub,
} from "../testing/fake_github.ts";
import { type Exchange, loadOpenApiCheck } from "../testing/openapi_check.ts";

const TOKEN = "fake-token-a";
const OTHER_TOKEN = "fake-token-b";
const SHA = SCENARIO_SHA_FIRST;
/** The scenario repository. */
const WIDGETS: RepoRef = { owner: "octo", repo: "widgets" };
const BIG = "big/repo";

/**
 * A scenario with something on every endpoint: two apps' runs (one failed, with an annotation), so
 * two suites and one workflow run, a required check in the base branch's rules and two in its
 * classic protection, 40 statuses (two pages of 30).
 */
const RICH: ScenarioStep[] = [{
  atMs: 0,
  checks: [
    { name: "build", status: "completed", conclusion: "success" },
    {
      name: "lint",
      status: "completed",
      conclusion: "failure",
      annotations: [{
        path: "src/chart.ts",
        start_line: 12,
        message: "'x' is never reassigned",
        title: "prefer-const",
      }],
    },
    { name: "deploy", status: "in_progress", app: "vercel" },
  ],
  requiredChecks: [{ context: "build", integration_id: 15368 }],
  branchProtection: {
    enforcement_level: "non_admins",
    checks: [{ context: "ci/legacy" }, { context: "build", app_id: 15368 }],
  },
  statuses: Array.from({ length: 40 }, (_, i) => ({
    context: `ci/status-${String(i + 1).padStart(2, "0")}`,
    state: i === 34 ? "failure" as const : "success" as const,
  })),
}];

async function withFake(options: FakeGitHubOptions, fn: (fake: FakeGitHub) => Promise<void>): Promise<void> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const fake = await startFakeGitHub({
    now: () => clock.now(),
    scenario: RICH,
    generatedRepos: { [BIG]: 250 },
    ...options,
  });
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

/** A `fetch` that records every exchange for the checker. */
function recording(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const text = await res.clone().text();
    const url = new URL(input instanceof Request ? input.url : String(input));
    log.push({
      method: init?.method ?? "GET",
      url: url.pathname + url.search,
      conditional: new Headers(init?.headers).has("if-none-match"),
      status: res.status,
      headers: res.headers,
      body: text === "" ? undefined : JSON.parse(text),
    });
    return res;
  };
}

/** `?` or `&` to append a query parameter. */
function sep(path: string): string {
  return path.includes("?") ? "&" : "?";
}

function signal(): AbortSignal {
  return new AbortController().signal;
}

/**
 * Every endpoint longcall calls, by path template, through the client's own method for it; the
 * test below checks this table covers every path the client's endpoint modules build.
 */
const ENDPOINTS: ReadonlyArray<{ template: string; call: (c: GitHubClient) => Promise<unknown> }> = [
  { template: "GET /repos/{owner}/{repo}", call: (c) => c.getRepository(WIDGETS, { signal: signal() }) },
  {
    template: "GET /repos/{owner}/{repo}/pulls/{pull_number}",
    call: (c) => c.getPull(WIDGETS, 42, { signal: signal() }),
  },
  {
    template: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
    call: (c) => c.getCheckRuns(WIDGETS, SHA, { signal: signal() }),
  },
  {
    template: "GET /repos/{owner}/{repo}/commits/{ref}/status",
    call: (c) => c.getCombinedStatusAll(WIDGETS, SHA, { signal: signal() }),
  },
  {
    template: "GET /repos/{owner}/{repo}/issues",
    call: (c) =>
      c.listIssues({ owner: "big", repo: "repo" }, { signal: signal(), state: "all", since: "2024-01-02T00:00:00Z" }),
  },
  { template: "GET /rate_limit", call: (c) => c.getRateLimit({ signal: signal() }) },
  {
    template: "GET /repos/{owner}/{repo}/commits/{ref}/check-suites",
    call: async (c) => {
      const suites = await c.getCheckSuites(WIDGETS, SHA, { signal: signal() });
      assert.equal(suites.check_suites.length, 2, "one suite per app");
    },
  },
  {
    template: "GET /repos/{owner}/{repo}/actions/runs",
    call: async (c) => {
      const runs = await c.listWorkflowRuns(WIDGETS, SHA, { signal: signal() });
      assert.equal(runs.workflow_runs.length, 1, "the GitHub Actions suite has a workflow run");
    },
  },
  {
    template: "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations",
    call: async (c) => {
      const runs = await c.getCheckRuns(WIDGETS, SHA, { signal: signal() });
      const failed = runs.check_runs.find((r) => r.conclusion === "failure");
      assert.ok(failed !== undefined);
      const annotations = await c.getCheckRunAnnotations(WIDGETS, failed.id, { signal: signal(), perPage: 100 });
      assert.ok(annotations.length > 0, "the failed run has annotations");
    },
  },
  {
    template: "GET /repos/{owner}/{repo}/rules/branches/{branch}",
    call: async (c) => {
      const rules = await c.getBranchRules(WIDGETS, "main", { signal: signal() });
      assert.equal(rules.rules.length, 1, "the required status checks rule");
    },
  },
  {
    template: "GET /repos/{owner}/{repo}/branches/{branch}",
    call: async (c) => {
      const branch = await c.getBranchProtection(WIDGETS, "main", { signal: signal() });
      assert.ok(branch.readable);
      assert.deepEqual(branch.checks, [{ context: "ci/legacy", app_id: null }, { context: "build", app_id: 15368 }]);
      assert.equal(branch.enforcement_level, "non_admins");
    },
  },
];

Deno.test("fake GitHub: every endpoint longcall calls answers as GitHub documents (200 and 304, with and without a token)", async () => {
  const check = await loadOpenApiCheck();
  await withFake({}, async (fake) => {
    for (const token of [TOKEN, undefined]) {
      const log: Exchange[] = [];
      const c = new GitHubClient({
        baseUrl: fake.url,
        clock: new ManualClock(0),
        log: silentLogger,
        etagCache: new MemoryEtagCache(),
        fetch: recording(log),
        ...(token === undefined ? {} : { token }),
      });
      for (const e of ENDPOINTS) {
        await e.call(c); // fresh
        await e.call(c); // conditional: 304 where cacheable
      }
      const seen = new Map<string, Set<number>>();
      for (const x of log) {
        const op = check.operation(x.method, new URL(x.url, fake.url).pathname);
        assert.ok(op !== undefined, `${x.url} is a documented operation`);
        const statuses = seen.get(op.template) ?? new Set();
        statuses.add(x.status);
        seen.set(op.template, statuses);
        assert.deepEqual(check.check(x), [], `${token === undefined ? "anonymous" : "token"} ${x.status} ${x.url}`);
      }
      for (const e of ENDPOINTS) {
        const statuses = seen.get(e.template);
        assert.ok(statuses?.has(200), `${e.template} answered 200`);
        if (e.template !== "GET /rate_limit") {
          assert.ok(statuses?.has(304), `${e.template} answered 304 when unchanged`);
        }
      }
      assert.ok(log.some((x) => x.headers.get("link") !== null), "a paginated listing carried Link");
    }
  });
});

/** The client's endpoint modules: every path it requests is built in one of them. */
const ENDPOINT_SOURCES = ["../src/github/client.ts", "../src/github/check_endpoints.ts"];

Deno.test("fake GitHub: the endpoint table covers every path the client's endpoint modules request", async () => {
  const texts = await Promise.all(ENDPOINT_SOURCES.map((p) => Deno.readTextFile(new URL(p, import.meta.url))));
  const source = texts.join("\n");
  const shape = (t: string) => t.replace(/\{[^}]+\}/g, "{}");
  const requested = new Set<string>();
  for (const m of source.matchAll(/`(\$\{repoPath\([^)]*\)\}[^`?]*)/g)) {
    requested.add(
      shape(
        `GET ${(m[1] ?? "").replace(/\$\{repoPath\([^)]*\)\}/, "/repos/{owner}/{repo}").replace(/\$\{[^}]+\}/g, "{}")}`,
      ),
    );
  }
  for (const m of source.matchAll(/"(\/[a-z_]+)"/g)) requested.add(`GET ${m[1]}`);
  if (/\(\s*repoPath\([^)]*\),/.test(source)) requested.add("GET /repos/{}/{}");
  const table = new Set(ENDPOINTS.map((e) => shape(e.template)));
  assert.ok(requested.size >= 6, [...requested].join(", "));
  assert.deepEqual([...requested].filter((r) => !table.has(r)), [], "every endpoint the client calls is in ENDPOINTS");
});

Deno.test("fake GitHub: error answers conform (404, 403 private, 401, 422, primary and secondary limits, 5xx)", async () => {
  const check = await loadOpenApiCheck();
  await withFake({ validTokens: [TOKEN], rateLimit: { anonymousLimit: 60 } }, async (fake) => {
    // GET `path` (as `token` when given), its exchange checked against the description (its query too,
    // unless `options.checkQuery` is false).
    const get = async (path: string, token?: string, options: { checkQuery?: boolean } = {}) => {
      const { checkQuery = true } = options;
      const headers = new Headers(token === undefined ? {} : { authorization: `Bearer ${token}` });
      const res = await fetch(`${fake.url}${path}`, { headers });
      const text = await res.text();
      const x: Exchange = {
        method: "GET",
        url: path,
        conditional: false,
        status: res.status,
        headers: res.headers,
        body: text === "" ? undefined : JSON.parse(text),
        checkQuery,
      };
      assert.deepEqual(check.check(x), [], `${res.status} ${path}`);
      return x;
    };
    assert.equal((await get("/repos/octo/missing", TOKEN)).status, 404);
    assert.equal((await get("/repos/octo/secret", TOKEN)).status, 403);
    assert.equal((await get("/repos/octo/widgets", "not-a-valid-token")).status, 401);
    assert.equal((await get(`/repos/octo/widgets/commits/${"f".repeat(40)}/status`, TOKEN)).status, 422);
    // A deliberately undocumented value: only the answer is checked.
    assert.equal((await get("/repos/octo/widgets/issues?state=bogus", TOKEN, { checkQuery: false })).status, 422);
    fake.limitSecondaryNext(1, { status: 429, retryAfterSec: 30 });
    const secondary = await get("/repos/octo/widgets/pulls/42", TOKEN);
    assert.equal(secondary.status, 429);
    assert.equal(secondary.headers.get("retry-after"), "30");
    fake.failNext(1, { status: 502 });
    assert.equal((await get("/repos/octo/widgets", TOKEN)).status, 502);
    fake.exhaustPrimary({ resetInMs: 60_000 });
    const primary = await get("/repos/octo/widgets", TOKEN);
    assert.equal(primary.status, 403);
    assert.equal(primary.headers.get("x-ratelimit-remaining"), "0");
  });
});

Deno.test("fake GitHub: Get a branch answers each classic protection option as documented (unprotected, protected, 403, 404)", async () => {
  const check = await loadOpenApiCheck();
  const options: Array<{ step: Partial<ScenarioStep>; status: number }> = [
    { step: {}, status: 200 },
    { step: { branchProtection: { enforcement_level: "everyone", checks: [{ context: "build" }] } }, status: 200 },
    { step: { branchProtection: { enforcement_level: "off", checks: [] } }, status: 200 },
    { step: { branchProtection: "forbidden" }, status: 403 },
    { step: { branchProtection: "not_found" }, status: 404 },
  ];
  for (const o of options) {
    await withFake({ scenario: [{ atMs: 0, ...o.step }] }, async (fake) => {
      for (const path of ["/repos/octo/widgets/branches/main", "/repos/octo/widgets/branches/release/2.x"]) {
        const res = await fetch(`${fake.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
        const body = await res.json();
        const x: Exchange = {
          method: "GET",
          url: path,
          conditional: false,
          status: res.status,
          headers: res.headers,
          body,
        };
        assert.equal(res.status, o.status, `${JSON.stringify(o.step)} ${path}`);
        assert.deepEqual(check.check(x), [], `${res.status} ${path}`);
      }
    });
  }
});

Deno.test("fake GitHub: list endpoints page at 30 by default and 100 at most, with GitHub's Link rels", async () => {
  await withFake({}, async (fake) => {
    const page = async (path: string) => {
      const res = await fetch(`${fake.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.status, 200, path);
      const link = res.headers.get("link");
      return { body: await res.json(), link, rels: [...parseLinkHeader(link).keys()] };
    };
    const listings: Array<{ path: string; total: number; items: (b: never) => unknown[] }> = [
      { path: "/repos/big/repo/issues?state=all", total: 250, items: (b: unknown[]) => b },
      {
        path: `/repos/octo/widgets/commits/${SHA}/status`,
        total: 40,
        items: (b: { statuses: unknown[] }) => b.statuses,
      },
    ];
    for (const l of listings) {
      const first = await page(l.path);
      assert.equal(l.items(first.body as never).length, 30, `${l.path}: 30 by default`);
      assert.deepEqual(first.rels, ["next", "last"], `${l.path}: page 1 links next then last, as GitHub does`);
      const lastPage = Math.ceil(l.total / 30);
      assert.equal(new URL(parseLinkHeader(first.link).get("last") ?? "").searchParams.get("page"), String(lastPage));
      const next = new URL(parseLinkHeader(first.link).get("next") ?? "");
      assert.equal(next.searchParams.get("page"), "2");
      next.searchParams.delete("page");
      const asked = new URL(l.path, fake.url);
      assert.equal(
        `${next.pathname}${next.search}`,
        `${asked.pathname}${asked.search}`,
        "the other parameters are kept",
      );
      if (lastPage > 2) {
        const middle = await page(`${l.path}${sep(l.path)}page=2`);
        assert.deepEqual(middle.rels, ["prev", "next", "last", "first"]);
      }
      const last = await page(`${l.path}${sep(l.path)}page=${lastPage}`);
      assert.deepEqual(last.rels, ["prev", "first"]);
      assert.equal(l.items(last.body as never).length, l.total - 30 * (lastPage - 1));
      const max = await page(`${l.path}${sep(l.path)}per_page=500`);
      assert.equal(l.items(max.body as never).length, Math.min(100, l.total), `${l.path}: per_page is capped at 100`);
    }
    const status = await page(`/repos/octo/widgets/commits/${SHA}/status`);
    assert.equal((status.body as { total_count: number }).total_count, 40, "total_count covers every page");
    assert.equal((status.body as { state: string }).state, "failure", "the combined state covers status #35 on page 2");
    const runs = await page(`/repos/octo/widgets/commits/${SHA}/check-runs?per_page=2`);
    assert.deepEqual(runs.rels, ["next", "last"]);
  });
});

Deno.test("fake GitHub: ETags differ per token; a validator from another token is a counted 200", async () => {
  await withFake({}, async (fake) => {
    const get = (token: string | undefined, etag?: string) => {
      const headers = new Headers();
      if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
      if (etag !== undefined) headers.set("if-none-match", etag);
      return fetch(`${fake.url}/repos/octo/widgets`, { headers }).then(async (r) => {
        await r.body?.cancel();
        return { status: r.status, etag: r.headers.get("etag") ?? "" };
      });
    };
    const a = await get(TOKEN);
    const b = await get(OTHER_TOKEN);
    const anon = await get(undefined);
    assert.equal(new Set([a.etag, b.etag, anon.etag]).size, 3, "three tokens, three validators");
    assert.equal((await get(TOKEN, a.etag)).status, 304);
    fake.resetCounts();
    assert.equal((await get(OTHER_TOKEN, a.etag)).status, 200, "token A's validator does not match for token B");
    assert.equal(fake.counts.counted, 1);
  });
});

Deno.test("fake GitHub: anonymous 304s are counted against the anonymous limit; authorized 304s are free", async () => {
  await withFake({ rateLimit: { anonymousLimit: 60 } }, async (fake) => {
    const anonymous = new GitHubClient({
      baseUrl: fake.url,
      clock: new ManualClock(0),
      log: silentLogger,
      etagCache: new MemoryEtagCache(),
    });
    const authorized = new GitHubClient({
      baseUrl: fake.url,
      token: TOKEN,
      clock: new ManualClock(0),
      log: silentLogger,
      etagCache: new MemoryEtagCache(),
    });
    for (const c of [anonymous, authorized]) {
      for (let i = 0; i < 5; i++) await c.getPull(WIDGETS, 42, { signal: signal() });
    }
    const k = fake.counts;
    assert.equal(k.notModified, 8, "four 304s each");
    assert.equal(k.notModifiedCounted, 4, "the anonymous ones are charged");
    assert.equal(k.free, 4, "the authorized ones are not");
    assert.equal(k.counted, 2 + 4, "two 200s and four anonymous 304s");
    assert.equal(fake.remaining(), 60 - 5, "every anonymous request, 304 or not, spent the anonymous quota");
    assert.equal(fake.remaining(TOKEN), 5000 - 1, "only the authorized 200 spent the token's quota");
    assert.equal(k.total, k.counted + k.free);
  });
});

Deno.test("openapi check: rejects what GitHub would not send (required, type, enum, status, parameter, Link, 304)", async () => {
  const check = await loadOpenApiCheck();
  const headers = (extra: Record<string, string> = {}) =>
    new Headers({
      "content-type": "application/json; charset=utf-8",
      "x-ratelimit-limit": "5000",
      "x-ratelimit-remaining": "4999",
      "x-ratelimit-used": "1",
      "x-ratelimit-reset": "1767225600",
      ...extra,
    });
  const combined = {
    state: "success",
    sha: SHA,
    total_count: 0,
    statuses: [],
    repository: null,
    commit_url: "https://api.github.com/x",
    url: "https://api.github.com/x",
  };
  const status = `/repos/o/r/commits/${SHA}/status`;
  const x = (over: Partial<Exchange>): Exchange => ({
    method: "GET",
    url: status,
    conditional: false,
    status: 200,
    headers: headers(),
    body: combined,
    ...over,
  });
  // The real minimal-repository is required (not nullable) here: null must be refused.
  assert.match(check.check(x({})).join("; "), /repository/);
  const repoProblems = check.check(x({ url: "/repos/o/r", body: { id: 1 } })).join("; ");
  assert.match(repoProblems, /body of 200 GET \/repos\/\{owner\}\/\{repo\}: \/ must have required property/);
  const run = (await withRichRun()).check_runs[0] as Record<string, unknown>;
  const runsOf = (r: Record<string, unknown>) => ({ total_count: 1, check_runs: [r] });
  const runsUrl = `/repos/o/r/commits/${SHA}/check-runs`;
  assert.match(
    check.check(x({ url: runsUrl, body: runsOf({ ...run, status: "weird" }) })).join("; "),
    /check_runs\/0\/status must be equal to one of the allowed values/,
  );
  const { head_sha: _, ...headless } = run;
  assert.match(check.check(x({ url: runsUrl, body: runsOf(headless) })).join("; "), /required property 'head_sha'/);
  assert.match(check.check(x({ status: 418, body: { message: "teapot" } })).join("; "), /status 418 is not documented/);
  assert.match(
    check.check(x({ url: `${status}?filter=bogus` })).join("; "),
    /query parameter filter is not documented/,
  );
  assert.match(
    check.check(
      x({ url: `/repos/o/r/commits/${SHA}/check-runs?filter=newest`, body: { total_count: 0, check_runs: [] } }),
    )
      .join("; "),
    /filter=newest/,
  );
  assert.match(check.check(x({ url: `${status}?per_page=many` })).join("; "), /per_page=many/);
  assert.match(
    check.check(x({ headers: headers({ link: "<https://x/?page=2>; rel=next" }) })).join("; "),
    /Link entry/,
  );
  assert.match(
    check.check(x({ headers: headers({ link: '<https://x/?page=2>; rel="sideways"' }) })).join("; "),
    /rel sideways/,
  );
  assert.match(check.check(x({ status: 304, body: undefined })).join("; "), /304 to an unconditional request/);
  assert.match(check.check(x({ status: 304, conditional: true, body: {} })).join("; "), /304 with a body/);
  assert.match(
    check.check(x({ headers: new Headers({ "content-type": "application/json" }) })).join("; "),
    /x-ratelimit/,
  );
  assert.match(check.check(x({ url: "/repos/o/r/nonsense" })).join("; "), /not a documented operation/);
  // OpenAPI 3.0 `nullable`: a null conclusion of a queued run is fine; a null name is not.
  assert.deepEqual(check.check(x({ url: runsUrl, body: runsOf({ ...run, status: "queued", conclusion: null }) })), []);
  assert.match(
    check.check(x({ url: runsUrl, body: runsOf({ ...run, name: null }) })).join("; "),
    /\/name must be string/,
  );
});

/** One check-runs page from the fake (a complete, valid check run to mutate). */
async function withRichRun(): Promise<{ check_runs: unknown[] }> {
  let body: { check_runs: unknown[] } = { check_runs: [] };
  await withFake({}, async (fake) => {
    body = await (await fetch(`${fake.url}/repos/octo/widgets/commits/${SHA}/check-runs`)).json();
  });
  return body;
}
