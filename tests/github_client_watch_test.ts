/**
 * The REST client's parts the watcher's verdicts rest on (issue 11), against the real fake
 * GitHub on loopback: anonymous 304s booked as counted (stats and budgets), the byte bound's
 * typed reason, every page of the combined status, check suites, workflow runs, annotations and
 * branch rules.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-net=127.0.0.1 tests/github_client_watch_test.ts
 */
import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import { AppError } from "../src/base/errors.ts";
import { GITHUB_PER_PAGE_MAX } from "../src/base/limits.ts";
import { silentLogger } from "../src/base/log.ts";
import {
  GitHubClient,
  isResponseTooLarge,
  MemoryEtagCache,
  RequestBudget,
  RESPONSE_TOO_LARGE,
} from "../src/github/client.ts";
import {
  SCENARIO_PULL,
  SCENARIO_SHA_FIRST,
  type ScenarioName,
  type ScenarioStep,
  startFakeGitHub,
} from "../testing/fake_github.ts";

const { owner, repo, number } = SCENARIO_PULL;
const signal = () => new AbortController().signal;

/** Runs `fn` on a client (as `setup.token`, anonymous without one) of a fake GitHub playing `setup.scenario`. */
async function withClient(
  setup: { scenario: ScenarioName | ScenarioStep[]; token?: string },
  fn: (c: GitHubClient, fake: Awaited<ReturnType<typeof startFakeGitHub>>) => Promise<void>,
): Promise<void> {
  const { scenario, token } = setup;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const fake = await startFakeGitHub({ scenario, now: () => clock.now(), rateLimit: { anonymousLimit: 5_000 } });
  try {
    const c = new GitHubClient({
      baseUrl: fake.url,
      clock,
      log: silentLogger,
      etagCache: new MemoryEtagCache(),
      ...(token === undefined ? {} : { token }),
    });
    await fn(c, fake);
  } finally {
    await fake.close();
  }
}

Deno.test("GitHubClient: an anonymous 304 is counted (stats and budget); an authorized 304 is free", async () => {
  await withClient({ scenario: "checks_pass" }, async (c) => {
    const budget = new RequestBudget(10);
    await c.getPull({ owner, repo }, number, { signal: signal(), budget });
    const again = await c.getPull({ owner, repo }, number, { signal: signal(), budget });
    assert.equal(again.status, 304);
    assert.equal(c.stats.requests, 2, "GitHub counts a 304 without Authorization");
    assert.equal(c.stats.not_modified, 1);
    assert.equal(c.stats.not_modified_counted, 1);
    assert.equal(budget.used, 2, "the budget pays for it too");
  });
  await withClient({ scenario: "checks_pass", token: "test-token" }, async (c) => {
    const budget = new RequestBudget(10);
    await c.getPull({ owner, repo }, number, { signal: signal(), budget });
    await c.getPull({ owner, repo }, number, { signal: signal(), budget });
    assert.equal(c.stats.requests, 1);
    assert.equal(c.stats.not_modified, 1);
    assert.equal(c.stats.not_modified_counted, 0);
    assert.equal(budget.used, 1);
  });
});

Deno.test("GitHubClient: a page over the byte bound fails with reason response_too_large; smaller pages fit", async () => {
  await withClient({ scenario: "huge_outputs", token: "test-token" }, async (c) => {
    const err = await c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof AppError && isResponseTooLarge(err), String(err));
    assert.equal(err.data?.reason, RESPONSE_TOO_LARGE);
    const half = await c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal(), perPage: 50 });
    assert.equal(half.check_runs.length, 100);
    assert.equal(half.pages, 2);
    assert.equal(half.complete, true);
    await assert.rejects(
      c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal(), perPage: GITHUB_PER_PAGE_MAX + 1 }),
      RangeError,
    );
    await assert.rejects(
      c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal(), perPage: 0 }),
      RangeError,
    );
  });
  assert.equal(isResponseTooLarge(new AppError("request_failed", "x")), false);
});

Deno.test("GitHubClient.getCombinedStatusAll: every page at per_page=100; total_count and state cross-checked", async () => {
  const steps: ScenarioStep[] = [{
    atMs: 0,
    statuses: Array.from({ length: 130 }, (_, i) => ({ context: `ci/${i}`, state: i === 120 ? "failure" : "success" })),
  }];
  await withClient({ scenario: steps, token: "test-token" }, async (c, fake) => {
    const all = await c.getCombinedStatusAll({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    assert.equal(all.statuses.length, 130);
    assert.equal(all.total_count, 130);
    assert.equal(all.state, "failure");
    assert.equal(all.pages, 2);
    assert.equal(all.complete, true);
    assert.equal(all.consistent, true);
    assert.ok(fake.requests.every((r) => r.kind !== "status" || r.path.includes("per_page=100")));
  });
  await withClient({ scenario: "no_checks", token: "test-token" }, async (c) => {
    const none = await c.getCombinedStatusAll({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    assert.deepEqual([none.state, none.total_count, none.complete], ["pending", 0, true], "no statuses: pending");
  });
});

Deno.test("GitHubClient: check suites, workflow runs, annotations and branch rules in GitHub's shapes", async () => {
  await withClient({ scenario: "rerun_passed", token: "test-token" }, async (c) => {
    const suites = await c.getCheckSuites({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    assert.equal(suites.complete, true);
    assert.ok(suites.check_suites.some((s) => s.status === "queued" && s.app?.slug === "github-actions"));
    const runs = await c.listWorkflowRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    assert.equal(runs.complete, true);
    const ids = new Set(suites.check_suites.map((s) => s.id));
    assert.ok(runs.workflow_runs.every((w) => w.check_suite_id !== undefined && ids.has(w.check_suite_id)));
    await assert.rejects(c.listWorkflowRuns({ owner, repo }, "main", { signal: signal() }), TypeError);
  });
  await withClient({ scenario: "checks_fail", token: "test-token" }, async (c, fake) => {
    fake.advance(90_000);
    const runs = await c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    const lint = runs.check_runs.find((r) => r.name === "lint");
    assert.ok(lint !== undefined);
    assert.equal(lint.output?.annotations_count, 2);
    const one = await c.getCheckRunAnnotations({ owner, repo }, lint.id, { signal: signal(), perPage: 1 });
    assert.deepEqual(one.map((a) => [a.path, a.start_line, a.annotation_level]), [["src/widget.ts", 12, "failure"]]);
    await assert.rejects(
      c.getCheckRunAnnotations({ owner, repo }, 1, { signal: signal(), perPage: 5 }),
      (e: unknown) => e instanceof AppError && e.code === "not_found",
    );
    await assert.rejects(c.getCheckRunAnnotations({ owner, repo }, 0, { signal: signal(), perPage: 5 }), RangeError);
    await assert.rejects(
      c.getCheckRunAnnotations({ owner, repo }, lint.id, { signal: signal(), perPage: 101 }),
      RangeError,
    );
  });
  await withClient({ scenario: "required_checks", token: "test-token" }, async (c) => {
    const rules = await c.getBranchRules({ owner, repo }, "main", { signal: signal() });
    assert.equal(rules.complete, true);
    assert.deepEqual(rules.rules.map((r) => r.type), ["required_status_checks"]);
    assert.deepEqual(rules.rules[0]?.parameters?.required_status_checks?.map((x) => x.context), ["build", "ci/legacy"]);
  });
  await withClient({ scenario: "rules_forbidden", token: "test-token" }, async (c) => {
    await assert.rejects(
      c.getBranchRules({ owner, repo }, "main", { signal: signal() }),
      (e: unknown) => e instanceof AppError && e.code === "access_denied",
    );
  });
});
