/**
 * The fake GitHub server: scenario timelines, fixtures, ETags, rate-limit accounting and
 * the standalone mode.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/fake_github_test.ts
 *
 * (Without --allow-run the standalone test is skipped.)
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ManualClock } from "../src/base/clock.ts";
import { silentLogger } from "../src/base/log.ts";
import { GitHubClient, MemoryEtagCache } from "../src/github/client.ts";
import {
  type FakeGitHub,
  type FakeGitHubOptions,
  SCENARIO_NAMES,
  SCENARIO_PULL,
  SCENARIO_SHA_FIRST,
  SCENARIO_SHA_SECOND,
  startFakeGitHub,
} from "../testing/fake_github.ts";

const { owner, repo, number } = SCENARIO_PULL;
const signal = () => new AbortController().signal;

/**
 * Runs `fn` on a fake GitHub started with `options` and a client of it; both on `options.clock` (default a new
 * ManualClock).
 */
async function withFake(
  options: FakeGitHubOptions & { clock?: ManualClock },
  fn: (fake: FakeGitHub, c: GitHubClient) => Promise<void>,
): Promise<void> {
  const { clock = new ManualClock(), ...fakeOptions } = options;
  const fake = await startFakeGitHub({ now: () => clock.now(), ...fakeOptions });
  try {
    const c = new GitHubClient({
      baseUrl: fake.url,
      token: "tok-fake-test",
      clock,
      log: silentLogger,
      etagCache: new MemoryEtagCache(),
    });
    await fn(fake, c);
  } finally {
    await fake.close();
  }
}

/** One poll as a watcher would do it: pull head, then its check runs and combined status. */
async function poll(c: GitHubClient) {
  const pull = await c.getPull({ owner, repo }, number, { signal: signal() });
  const sha = pull.data.head.sha;
  const runs = await c.getCheckRuns({ owner, repo }, sha, { signal: signal() });
  const status = await c.getCombinedStatusAll({ owner, repo }, sha, { signal: signal() });
  return {
    sha,
    state: pull.data.state,
    runs: runs.check_runs.map((r) => `${r.name}:${r.status}:${r.conclusion ?? "-"}`).sort(),
    status: `${status.state}/${status.total_count}`,
    unchanged: pull.status === 304 && runs.notModified && status.notModified,
  };
}

Deno.test("fake checks_pass: checks register late, progress, then pass (driven by a ManualClock)", async () => {
  const clock = new ManualClock();
  await withFake({ scenario: "checks_pass", clock }, async (fake) => {
    const c = new GitHubClient({ baseUrl: fake.url, clock, log: silentLogger, etagCache: new MemoryEtagCache() });
    const t0 = await poll(c);
    assert.deepEqual(t0, { sha: SCENARIO_SHA_FIRST, state: "open", runs: [], status: "pending/0", unchanged: false });
    clock.advance(10_000);
    assert.equal((await poll(c)).unchanged, true, "nothing changed, so every read is a free 304");
    clock.advance(10_000);
    assert.deepEqual((await poll(c)).runs, ["build:queued:-", "lint:queued:-"]);
    clock.advance(20_000);
    const running = await c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    assert.ok(running.check_runs.every((r) => r.status === "in_progress" && r.started_at === "2026-01-01T00:00:40Z"));
    clock.advance(20_000);
    assert.deepEqual((await poll(c)).runs, ["build:in_progress:-", "lint:completed:success"]);
    clock.advance(30_000);
    const end = await poll(c);
    assert.deepEqual(end.runs, ["build:completed:success", "lint:completed:success"]);
    assert.equal(end.status, "success/1");
    assert.equal(fake.scenarioElapsedMs(), 90_000);
    assert.equal(fake.counts.byKind.pull, 5);
    assert.equal(fake.counts.notModifiedByKind.pull, 4, "the pull never changed");
  });
});

Deno.test("fake checks_fail: lint fails at 60 s while build is still running", async () => {
  await withFake({ scenario: "checks_fail" }, async (fake, c) => {
    fake.advance(60_000);
    assert.deepEqual((await poll(c)).runs, ["build:in_progress:-", "lint:completed:failure"]);
    fake.advance(30_000);
    assert.deepEqual((await poll(c)).runs, ["build:completed:success", "lint:completed:failure"]);
  });
});

Deno.test("fake new_push: the head SHA changes mid-watch; the old SHA keeps its runs", async () => {
  await withFake({ scenario: "new_push" }, async (fake, c) => {
    fake.advance(30_000);
    assert.deepEqual(await poll(c), {
      sha: SCENARIO_SHA_FIRST,
      state: "open",
      runs: ["build:in_progress:-"],
      status: "pending/0",
      unchanged: false,
    });
    fake.advance(30_000);
    const pushed = await poll(c);
    assert.equal(pushed.sha, SCENARIO_SHA_SECOND);
    assert.deepEqual(pushed.runs, []);
    const old = await c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    assert.deepEqual(old.check_runs.map((r) => [r.head_sha, r.status]), [[SCENARIO_SHA_FIRST, "in_progress"]]);
    fake.advance(70_000);
    const end = await poll(c);
    assert.deepEqual(end.runs, ["build:completed:success"]);
    assert.equal(end.status, "success/1");
  });
});

Deno.test("fake no_checks and flaky_unchanged: long stretches cost only 304s", async () => {
  await withFake({ scenario: "no_checks" }, async (fake, c) => {
    await poll(c);
    for (let i = 0; i < 30; i++) {
      fake.advance(20_000);
      const p = await poll(c);
      assert.deepEqual([p.runs, p.status, p.unchanged], [[], "pending/0", true]);
    }
    assert.equal(fake.counts.counted, 3, "only the first poll was charged");
    assert.equal(fake.counts.notModified, 90);
  });
  await withFake({ scenario: "flaky_unchanged" }, async (fake, c) => {
    fake.advance(10_000);
    await poll(c);
    const charged = fake.counts.counted;
    for (let t = 20_000; t < 600_000; t += 10_000) {
      fake.advance(10_000);
      assert.equal((await poll(c)).unchanged, true, `unchanged at ${t} ms`);
    }
    assert.equal(fake.counts.counted, charged);
    fake.advance(10_000);
    assert.deepEqual((await poll(c)).runs, ["build:completed:success", "lint:completed:success"]);
  });
});

Deno.test("fake pr_closed and setScenario: the pull closes at 60 s; a new scenario restarts the timeline", async () => {
  await withFake({ scenario: "pr_closed" }, async (fake, c) => {
    fake.advance(60_000);
    const closed = await c.getPull({ owner, repo }, number, { signal: signal() });
    assert.equal(closed.data.state, "closed");
    assert.equal(closed.data.merged, false);
    assert.equal(closed.data.closed_at, "2026-01-01T00:01:00Z");
    fake.setScenario("no_checks");
    assert.equal(fake.scenarioElapsedMs(), 0);
    assert.equal((await c.getPull({ owner, repo }, number, { signal: signal() })).data.state, "open");
    fake.setScenario([{ atMs: 0, checks: [{ name: "custom", status: "completed", conclusion: "neutral" }] }]);
    const runs = await c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() });
    assert.deepEqual(runs.check_runs.map((r) => [r.name, r.conclusion]), [["custom", "neutral"]]);
  });
  assert.deepEqual([...SCENARIO_NAMES].sort(), [
    "checks_fail",
    "checks_pass",
    "flaky_unchanged",
    "fork_approval",
    "huge_outputs",
    "late_dependent",
    "many_checks",
    "new_push",
    "no_checks",
    "null_conclusion",
    "pr_closed",
    "pr_merged",
    "required_checks",
    "required_workflows",
    "rerun_passed",
    "rerun_running",
    "rules_forbidden",
    "statuses_paged",
  ]);
});

Deno.test("fake issues: fixture PRs carry pull_request; since, sort and touchIssue work", async () => {
  await withFake({}, async (fake, c) => {
    const all = await c.listIssues({ owner, repo }, { signal: signal() });
    assert.deepEqual(all.items.map((i) => i.number), [38, 39, 40, 41, 42]);
    assert.deepEqual(all.items.filter((i) => i.pull_request !== undefined).map((i) => i.number), [40, 42]);
    const open = await c.listIssues({ owner, repo }, { signal: signal(), state: "open", direction: "desc" });
    assert.deepEqual(open.items.map((i) => i.number), [42, 41, 39]);
    const since = await c.listIssues({ owner, repo }, { signal: signal(), since: "2025-12-03T11:00:00Z" });
    assert.deepEqual(since.items.map((i) => i.number), [40, 41, 42]);
    fake.touchIssue("octo/widgets", 38, { title: "Sparkline flickers on resize (again)", state: "open" });
    const after = await c.listIssues({ owner, repo }, { signal: signal(), since: "2025-12-03T11:00:00Z" });
    assert.equal(after.notModified, false);
    assert.deepEqual(after.items.map((i) => i.number), [40, 41, 42, 38]);
    assert.equal(after.items.at(-1)?.updated_at, "2026-01-01T00:00:00Z");
    const repository = await c.getRepository({ owner, repo }, { signal: signal() });
    assert.deepEqual(repository.data.topics, ["dashboard", "typescript", "widgets"]);
    assert.equal(repository.data.license?.spdx_id, "MIT");
  });
});

Deno.test("fake rate limits: per-token counters, anonymous 60/h, /rate_limit is free", async () => {
  const clock = new ManualClock();
  await withFake({ clock }, async (fake, c) => {
    await c.getRepository({ owner, repo }, { signal: signal() });
    assert.equal(fake.remaining("tok-fake-test"), 4999);
    assert.equal(fake.remaining(), 60);
    const anon = new GitHubClient({ baseUrl: fake.url, clock, log: silentLogger });
    const res = await anon.getRepository({ owner, repo }, { signal: signal() });
    assert.equal(res.rateLimit.limit, 60);
    assert.equal(res.rateLimit.remaining, 59);
    const rate = await c.getRateLimit({ signal: signal() });
    assert.equal(rate.data.rate.remaining, 4999);
    assert.equal(fake.remaining("tok-fake-test"), 4999);
    assert.equal(fake.counts.countedByKind.rate_limit, 0);
    clock.advance(3_600_000);
    assert.equal(fake.remaining(), 60, "the window resets on the fake's clock");
  });
});

const STANDALONE = fileURLToPath(new URL("../testing/fake_github.ts", import.meta.url));
const CAN_RUN = (await Deno.permissions.query({ name: "run" })).state === "granted";
if (!CAN_RUN) console.error("fake standalone tests skipped: they need --allow-run to start the fake as a process");

/** Starts the standalone fake with `args`, hands its first stdout line to `fn`, then stops it (exit 0). */
async function withStandalone(args: string[], fn: (line: Record<string, unknown>) => Promise<void>): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--allow-net=127.0.0.1", STANDALONE, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    reader.releaseLock();
    await fn(JSON.parse(text.split("\n")[0] ?? "") as Record<string, unknown>);
  } finally {
    child.kill("SIGTERM");
    await child.stdout.cancel().catch(() => {});
    const status = await child.status;
    assert.equal(status.code, 0);
  }
}

Deno.test({
  name: "fake standalone: prints its URL as one JSON line and serves the scenario",
  ignore: !CAN_RUN,
  fn: () =>
    withStandalone(["--scenario", "no_checks", "--generated", "a/b=7"], async (line) => {
      assert.equal(line["scenario"], "no_checks");
      assert.equal(line["time_rate"], 1);
      assert.match(String(line["url"]), /^http:\/\/127\.0\.0\.1:\d+$/);
      const c = new GitHubClient({ baseUrl: String(line["url"]), clock: new ManualClock(), log: silentLogger });
      const issues = await c.listIssues({ owner: "a", repo: "b" }, { signal: signal() });
      assert.equal(issues.items.length, 7);
    }),
});

Deno.test({
  name: "fake standalone: --time-rate plays the scenario that many times faster than real time",
  ignore: !CAN_RUN,
  fn: () =>
    withStandalone(["--scenario", "checks_pass", "--time-rate", "1000"], async (line) => {
      assert.equal(line["time_rate"], 1000);
      const c = new GitHubClient({ baseUrl: String(line["url"]), clock: new ManualClock(), log: silentLogger });
      // checks_pass turns green 90 simulated seconds in: at 1000x within a second, at 1x after 90.
      const deadline = Date.now() + 20_000;
      for (;;) {
        const runs = (await c.getCheckRuns({ owner, repo }, SCENARIO_SHA_FIRST, { signal: signal() })).check_runs;
        if (runs.length > 0 && runs.every((r) => r.conclusion === "success")) break;
        assert.ok(Date.now() < deadline, `still not green after 20 s: ${JSON.stringify(runs.map((r) => r.status))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }),
});

Deno.test({
  name: "fake standalone: --time-rate outside 1..SIMULATE_TIME_RATE_MAX or not an integer is refused",
  ignore: !CAN_RUN,
  fn: async () => {
    for (const bad of ["0", "1001", "2.5", "x"]) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-prompt", "--allow-net=127.0.0.1", STANDALONE, "--time-rate", bad],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 1, `--time-rate ${bad}`);
      assert.equal(new TextDecoder().decode(out.stdout), "", "no URL line");
      assert.match(
        new TextDecoder().decode(out.stderr),
        new RegExp(`Cannot use --time-rate ${bad.replace(".", "\\.")}: current value is not an integer from 1 to 1000`),
      );
    }
  },
});
