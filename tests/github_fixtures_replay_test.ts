/**
 * GitHub's recorded answers (npm `@octokit/fixtures`) replayed on 127.0.0.1 through longcall's
 * real REST client: a repository, a five-page issue listing that follows GitHub's own `Link`
 * (`/repositories/{id}/issues?page=N`), a combined status and the watcher's verdict on it, a
 * moved repository (301), a 404, classic branch protection's recorded required status checks read
 * through Get a branch, and conditional re-reads with GitHub's recorded ETags. The same
 * recordings also check the OpenAPI checker (testing/openapi_check.ts) against real answers.
 *
 * The fixtures hold no pull request, check-run or /rate_limit recording; those endpoints are
 * covered by the OpenAPI-checked fake (tests/fake_github_openapi_test.ts).
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/github_fixtures_replay_test.ts
 */
import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import { AppError } from "../src/base/errors.ts";
import { silentLogger } from "../src/base/log.ts";
import { normalizeChecks, summarize, verdictOf } from "../src/github/checks_state.ts";
import { GitHubClient, MemoryEtagCache } from "../src/github/client.ts";
import type { GitHubCombinedStatus } from "../src/github/types.ts";
import fixtures from "@octokit/fixtures";
import { recorded, type RecordedExchange, startReplay } from "./helpers/fixture_replay.ts";
import { loadOpenApiCheck } from "../testing/openapi_check.ts";

/** The recorded token (normalized by @octokit/fixtures); it only ever reaches the loopback replay. */
const TOKEN = "0000000000000000000000000000000000000001";
const ORG = "octokit-fixture-org";

function client(url: string): GitHubClient {
  return new GitHubClient({
    baseUrl: url,
    token: TOKEN,
    clock: new ManualClock(Date.UTC(2017, 9, 10, 16)),
    log: silentLogger,
    etagCache: new MemoryEtagCache(),
  });
}

const signal = () => new AbortController().signal;

Deno.test("replay get-repository: the client parses GitHub's recorded repository and its rate-limit headers", async () => {
  const exchanges = recorded("api.github.com/get-repository");
  await using replay = await startReplay(exchanges);
  const gh = client(replay.url);
  const repo = await gh.getRepository({ owner: ORG, repo: "hello-world" }, { signal: signal() });
  const body = exchanges[0]?.response as Record<string, unknown>;
  assert.equal(repo.status, 200);
  assert.equal(repo.data.full_name, `${ORG}/hello-world`);
  assert.equal(repo.data.default_branch, body.default_branch);
  assert.equal(repo.data.archived, false);
  assert.equal(repo.data.stargazers_count, body.stargazers_count);
  assert.equal(repo.etag, exchanges[0]?.headers.etag);
  const headers = exchanges[0]?.headers ?? {};
  assert.deepEqual(
    [gh.stats.rateLimit.limit, gh.stats.rateLimit.remaining, gh.stats.rateLimit.reset_at],
    [
      Number(headers["x-ratelimit-limit"]),
      Number(headers["x-ratelimit-remaining"]),
      Number(headers["x-ratelimit-reset"]) * 1000,
    ],
  );
  // A conditional re-read with GitHub's validator is a free 304 served from the cache.
  const again = await gh.getRepository({ owner: ORG, repo: "hello-world" }, { signal: signal() });
  assert.deepEqual([again.status, again.fromCache, again.data.full_name], [304, true, repo.data.full_name]);
  assert.equal(gh.stats.requests, 1);
  assert.deepEqual(replay.requests.map((r) => [r.status, r.conditional, r.authorized]), [[200, false, true], [
    304,
    true,
    true,
  ]]);
});

Deno.test("replay paginate-issues: the client follows GitHub's own Link through five pages, in order", async () => {
  const exchanges = recorded("api.github.com/paginate-issues");
  await using replay = await startReplay(exchanges);
  const gh = client(replay.url);
  const listing = await gh.listIssues({ owner: ORG, repo: "paginate-issues" }, { signal: signal(), perPage: 3 });
  const expected = exchanges.flatMap((x) => (x.response as Array<{ number: number }>).map((i) => i.number));
  assert.equal(listing.pages, 5);
  assert.equal(listing.complete, true);
  assert.deepEqual(listing.items.map((i) => i.number), expected);
  assert.ok(listing.items.every((i) => typeof i.title === "string" && typeof i.updated_at === "string"));
  assert.deepEqual(
    replay.requests.slice(1).map((r) => new URL(r.path, replay.url).pathname),
    Array(4).fill("/repositories/1000/issues"),
    "pages 2..5 are read where GitHub's Link points",
  );
  const again = await gh.listIssues({ owner: ORG, repo: "paginate-issues" }, { signal: signal(), perPage: 3 });
  assert.equal(again.notModified, true, "every page revalidated with GitHub's recorded ETag");
  assert.deepEqual(again.items.map((i) => i.number), expected, "the Link stored with each page still applies");
});

Deno.test("replay create-status: the combined status parses and the watcher's verdict on it is failed", async () => {
  const exchanges = recorded("api.github.com/create-status");
  await using replay = await startReplay(exchanges);
  const gh = client(replay.url);
  const sha = "0000000000000000000000000000000000000001";
  const combined = await gh.getCombinedStatusAll({ owner: ORG, repo: "create-status" }, sha, { signal: signal() });
  const recordedBody = exchanges.find((x) => x.path.endsWith("/status"))?.response as GitHubCombinedStatus;
  assert.equal(combined.state, "failure");
  assert.equal(combined.total_count, recordedBody.total_count);
  assert.equal(combined.statuses.length, recordedBody.statuses.length);
  const entries = normalizeChecks([], combined.statuses);
  const summary = summarize(entries);
  assert.equal(summary.total, combined.statuses.length);
  assert.ok(summary.failed >= 1, JSON.stringify(entries));
  assert.equal(verdictOf(entries, { coverageComplete: true, failFast: false }), "failed");
});

Deno.test("replay rename-repository and branch-protection: a 301 is followed, a 404 is a typed not_found", async () => {
  const moved = recorded("api.github.com/rename-repository");
  const missing = recorded("api.github.com/branch-protection");
  await using replay = await startReplay([...moved, ...missing]);
  const gh = client(replay.url);
  const repo = await gh.getRepository({ owner: ORG, repo: "rename-repository" }, { signal: signal() });
  assert.equal(repo.data.full_name, `${ORG}/rename-repository-newname`, "the Location of GitHub's 301 was followed");
  const err = await gh.get(`/repos/${ORG}/branch-protection/branches/main/protection`, { signal: signal() }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof AppError, String(err));
  assert.equal(err.code, "not_found");
  assert.match(err.message, /Branch not protected/, "GitHub's own message is quoted");
});

Deno.test("replay branch-protection: GitHub's recorded required_status_checks read through Get a branch; a 404 is unreadable", async () => {
  // The fixtures record classic protection only through the admin endpoint (PUT /protection); its
  // `required_status_checks` has the schema Get a branch summarizes (protected-branch-required-status-check),
  // here with `checks[].app_id: null` and without `enforcement_level`. It is served as the branch's
  // protection, with the recording's own headers; the recorded 404 stands for an unreadable branch.
  const all = fixtures.get("api.github.com/branch-protection") as RecordedExchange[];
  const put = all.find((x) =>
    x.method.toLowerCase() === "put" && (x.response as Record<string, unknown>).required_status_checks !== undefined
  );
  const notProtected = recorded("api.github.com/branch-protection")[0];
  assert.ok(put !== undefined && notProtected !== undefined);
  const rsc = (put.response as { required_status_checks: { contexts: string[] } }).required_status_checks;
  const path = `/repos/${ORG}/branch-protection/branches/main`;
  const branch: RecordedExchange = {
    method: "get",
    path,
    status: 200,
    headers: { ...put.headers, etag: '"branch-main"' },
    response: {
      name: "main",
      protected: true,
      protection: { enabled: true, required_status_checks: rsc },
      protection_url: `https://api.github.com${path}/protection`,
    },
  };
  const missing: RecordedExchange = { ...notProtected, path: `/repos/${ORG}/hello-world/branches/main` };
  const garbled: RecordedExchange = {
    ...branch,
    path: `/repos/${ORG}/garbled/branches/main`,
    response: { name: "main", protected: true, protection: { required_status_checks: { contexts: "foo/bar" } } },
  };
  await using replay = await startReplay([branch, missing, garbled]);
  const gh = client(replay.url);
  const read = await gh.getBranchProtection({ owner: ORG, repo: "branch-protection" }, "main", { signal: signal() });
  assert.ok(read.readable);
  assert.equal(read.enforcement_level, undefined, "the recording carries no enforcement_level: not off");
  assert.deepEqual(read.checks, rsc.contexts.map((context) => ({ context, app_id: null })));
  assert.deepEqual(read.checks.map((c) => c.context), ["foo/bar"]);
  const again = await gh.getBranchProtection({ owner: ORG, repo: "branch-protection" }, "main", { signal: signal() });
  assert.ok(again.readable && again.notModified, "a conditional re-read is a 304");
  assert.equal(replay.requests[1]?.conditional, true);
  const refused = await gh.getBranchProtection({ owner: ORG, repo: "hello-world" }, "main", { signal: signal() });
  assert.deepEqual(refused.readable ? undefined : refused.cause, "not_found");
  assert.match(refused.readable ? "" : refused.message, /Branch not protected/, "GitHub's own message is quoted");
  await assert.rejects(
    gh.getBranchProtection({ owner: ORG, repo: "garbled" }, "main", { signal: signal() }),
    (e: unknown) => e instanceof AppError && e.code === "request_failed",
    "a protection summary of another shape is not read as no checks",
  );
  await assert.rejects(
    gh.getBranchProtection({ owner: ORG, repo: "branch-protection" }, "", { signal: signal() }),
    TypeError,
  );
});

Deno.test("openapi check: GitHub's recorded GET answers conform, but for fields the description added later", async () => {
  const check = await loadOpenApiCheck();
  /** Fields required by today's description that the 2017 recordings predate. */
  const drift = [/must have required property 'has_discussions'/];
  const names = ["get-repository", "paginate-issues", "create-status", "rename-repository", "branch-protection"];
  let checked = 0;
  for (const name of names) {
    for (const x of recorded(`api.github.com/${name}`)) {
      const problems = check.check({
        method: "GET",
        url: x.path,
        conditional: false,
        status: x.status,
        headers: new Headers(x.headers),
        body: x.response,
      }).flatMap((p) => p.split("; ").filter((part) => !drift.some((d) => d.test(part))))
        .filter((p) => !/^body of \d+ [^:]+:\s*$/.test(p));
      assert.deepEqual(problems, [], `${name} ${x.status} ${x.path}`);
      checked++;
    }
  }
  assert.ok(checked >= 10, `checked ${checked} recorded answers`);
});
