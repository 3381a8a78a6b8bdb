/**
 * GitHub workload benchmarks against the fake GitHub (testing/fake_github.ts):
 *
 * (a) Watcher API economy: one 30-minute watch (simulated ManualClock, poll every 10 s) of a
 *     pull request whose CI state is unchanged on ~90% of polls, through the real job kind,
 *     client and ETag cache, with a token and anonymously. Counted requests (answers GitHub
 *     charges; 304s are free only with a token) against naive unconditional polling of the same
 *     four endpoints for the same polls, which is also measured, not only computed. Goal:
 *     counted <= 10% of naive.
 * (b) Sync ingest rate: `github.sync_threads` through the Executor from a fake GitHub in a
 *     child process (so its JSON generation does not share this event loop), 5 repositories x
 *     1,000 threads, pages of 100, into a fresh SQLite corpus with its full-text index.
 *     Goal: >= 2,000 threads/s.
 *
 * Standalone: `deno run --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 scripts/bench/github.ts`
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { ManualClock } from "../../src/base/clock.ts";
import { silentLogger } from "../../src/base/log.ts";
import { productRegistry } from "../../src/cli/product_runners.ts";
import { openRuntime } from "../../src/cli/runtime.ts";
import { syncSpec } from "../../src/github/sync_spec.ts";
import { parseJobInput } from "../../src/jobs/spec.ts";
import type { BenchSection } from "./store/harness.ts";
import { GitHubClient } from "../../src/github/client.ts";
import { SYNC_KIND, type SyncResult } from "../../src/github/sync_kind.ts";
import { WATCH_KIND, type WatchResult } from "../../src/github/watch_kind.ts";
import { type FakeCheck, SCENARIO_PULL, type ScenarioStep, startFakeGitHub } from "../../testing/fake_github.ts";
import { openGitHubHarness, runJob } from "../../testing/github_jobs.ts";

const WATCH_MS = 30 * 60_000;
const POLL_MS = 10_000;
/** CI changes once every this many polls (10: unchanged on 90% of polls). */
const CHANGE_EVERY_POLLS = 10;
const ECONOMY_GOAL = 0.10;

const SYNC_REPOS = 5;
const SYNC_THREADS_PER_REPO = 1_000;
const INGEST_GOAL_PER_S = 2_000;

/**
 * A CI that changes every CHANGE_EVERY_POLLS polls for the whole watch and never settles:
 * `e2e` runs throughout while shards complete one by one (a legacy status stays pending).
 */
function economyTimeline(): ScenarioStep[] {
  const steps: ScenarioStep[] = [];
  const changes = Math.floor(WATCH_MS / (POLL_MS * CHANGE_EVERY_POLLS));
  for (let k = 0; k < changes; k++) {
    const shards: FakeCheck[] = Array.from({ length: k }, (_, i) => ({
      name: `shard-${String(i + 1).padStart(2, "0")}`,
      status: "completed",
      conclusion: "success",
    }));
    steps.push({
      // Between two polls, so each change is seen by exactly one poll.
      atMs: k === 0 ? 0 : k * POLL_MS * CHANGE_EVERY_POLLS + POLL_MS / 2,
      checks: [{ name: "e2e", status: "in_progress" }, ...shards],
      ...(k === 0 ? { statuses: [{ context: "ci/legacy", state: "pending" as const }] } : {}),
    });
  }
  return steps;
}

/** One watch of the economy timeline; `anonymous` runs without a token against GitHub's 60/h limit. */
async function economyWatch(timeline: ScenarioStep[], anonymous: boolean) {
  await using h = await openGitHubHarness({
    scenario: timeline,
    ...(anonymous ? { rateLimit: { anonymousLimit: 60 } } : { token: "bench-token" }),
  });
  const realStart = performance.now();
  const { result } = await runJob<WatchResult>(h, {
    kind: WATCH_KIND,
    input: {
      ...SCENARIO_PULL,
      timeout_ms: WATCH_MS,
      poll_interval_ms: POLL_MS,
    },
  }, { timeoutMs: 120_000 });
  const realMs = performance.now() - realStart;
  if (result.outcome !== "timed_out") throw new Error(`expected timed_out, got ${result.outcome}`);
  // What GitHub charges: every answer but /rate_limit, and 304s too when no token was sent.
  const charged = h.fake.requests.filter((r) => r.kind !== "rate_limit" && (r.status !== 304 || !r.authenticated));
  if (result.requests !== charged.length) {
    throw new Error(`client counted ${result.requests}, GitHub's rules charge ${charged.length}`);
  }
  if (h.fake.counts.rateLimited !== 0) throw new Error(`the watch was rate limited ${h.fake.counts.rateLimited} times`);
  return { result, realMs };
}

async function watcherEconomy(): Promise<{ rows: BenchSection["rows"]; notes: string[] }> {
  const timeline = economyTimeline();
  const auth = await economyWatch(timeline, false);
  const anon = await economyWatch(timeline, true);
  const { result, realMs } = auth;
  const changedPolls = result.transitions.length;

  // Naive polling of the same endpoints at the same interval for the same 30 minutes: no validators,
  // every answer charged.
  const naiveClock = new ManualClock(Date.UTC(2026, 0, 1));
  await using naiveFake = await startFakeGitHub({
    scenario: timeline,
    now: () => naiveClock.now(),
    rateLimit: { anonymousLimit: 100_000 },
  }).then((f) => Object.assign(f, { [Symbol.asyncDispose]: () => f.close() }));
  const naive = new GitHubClient({ baseUrl: naiveFake.url, clock: naiveClock, log: silentLogger });
  const signal = new AbortController().signal;
  const { owner, repo, number } = SCENARIO_PULL;
  for (let p = 0; p < result.polls; p++) {
    const pull = await naive.getPull({ owner, repo }, number, { signal });
    await naive.getCheckRuns({ owner, repo }, pull.data.head.sha, { signal });
    await naive.getCombinedStatusAll({ owner, repo }, pull.data.head.sha, { signal });
    await naive.getCheckSuites({ owner, repo }, pull.data.head.sha, { signal });
    if (p < result.polls - 1) naiveClock.advance(POLL_MS);
  }
  const naiveCounted = naiveFake.counts.counted;
  const ratio = result.requests / naiveCounted;
  const anonRatio = anon.result.requests / naiveCounted;
  return {
    rows: [
      {
        metric: "watcher: counted requests, 30-min watch, poll 10 s, with a token",
        value: `${result.requests} (of ${
          result.requests + result.not_modified
        } sent; ${result.not_modified} free 304s)`,
      },
      {
        metric: "watcher: naive unconditional polling, same polls",
        value: `${naiveCounted} (4 x ${result.polls} polls)`,
      },
      {
        metric: "watcher: counted / naive, with a token",
        value: `${(ratio * 100).toFixed(1)}%`,
        goal: `<= ${ECONOMY_GOAL * 100}%`,
        met: ratio <= ECONOMY_GOAL,
      },
      {
        metric: "watcher: counted requests, same watch, anonymous (60/h)",
        value: `${anon.result.requests} (${anon.result.not_modified_counted} of them counted 304s; ` +
          `${anon.result.polls} polls, ${anon.result.anonymous_cost?.paced_polls ?? 0} waits stretched)`,
      },
      {
        metric: "watcher: counted / naive, anonymous",
        value: `${(anonRatio * 100).toFixed(1)}%`,
        goal: `<= ${ECONOMY_GOAL * 100}%`,
        met: anonRatio <= ECONOMY_GOAL,
      },
      {
        metric: "watcher: polls seeing a CI change",
        value: `${changedPolls} of ${result.polls} (${((changedPolls / result.polls) * 100).toFixed(1)}%)`,
      },
      { metric: "watcher: wall time of the simulated 30 min, with a token", value: `${(realMs / 1000).toFixed(2)} s` },
    ],
    notes: [
      `Watcher: ${result.polls} polls (every 10 s for 30 min, outcome timed_out); each poll reads the pull request, ` +
      `its check runs, its combined status (every page) and its check suites with If-None-Match. A changed CI ` +
      `costs a counted check-runs and check-suites read; the rest stay 304. Counted requests follow GitHub's ` +
      `rules (a 304 is free only with Authorization) and equal the job's own count. Naive polling of the same ` +
      `four endpoints was run against the same timeline without validators. The anonymous watch pays for every ` +
      `304; it stays within GitHub's 60/h by stretching its poll waits (fewer polls, later answers), which is ` +
      `where its economy comes from.`,
    ],
  };
}

/** Starts the fake GitHub as a child process; resolves with its URL. */
async function childFake(generated: Record<string, number>) {
  const script = fileURLToPath(new URL("../../testing/fake_github.ts", import.meta.url));
  const args = ["run", "--allow-net=127.0.0.1", "--allow-read", script, "--scenario", "checks_pass"];
  for (const [name, n] of Object.entries(generated)) args.push("--generated", `${name}=${n}`);
  const child = new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "inherit", stdin: "null" })
    .spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the fake GitHub exited before printing its URL: ${text}`);
    text += value;
  }
  reader.releaseLock();
  const url = (JSON.parse(text.slice(0, text.indexOf("\n"))) as { url: string }).url;
  return {
    url,
    [Symbol.asyncDispose]: async () => {
      child.kill("SIGTERM");
      await child.stdout.cancel().catch(() => {});
      await child.status;
    },
  };
}

async function syncIngest(): Promise<{ rows: BenchSection["rows"]; notes: string[] }> {
  const generated: Record<string, number> = {};
  for (let r = 0; r < SYNC_REPOS; r++) generated[`bench/repo${r + 1}`] = SYNC_THREADS_PER_REPO;
  await using fake = await childFake(generated);
  const dir = await Deno.makeTempDir({ prefix: "longcall-bench-github-" });
  try {
    // A token lifts the fake's anonymous limit (60/h); loopback http may carry one.
    const runtime = openRuntime({
      db: `${dir}/sync.db`,
      kinds: { product: { github: { baseUrl: fake.url, token: "bench-token" }, runners: productRegistry } },
      log: silentLogger,
      execution: "in_process",
    });
    try {
      const { control, store } = runtime;
      await runtime.execution.start();
      // Normalized with the kind's spec, as the MCP tool and the CLI do before submitting.
      const input = parseJobInput(syncSpec, {
        repositories: Object.keys(generated),
        limit_per_repository: SYNC_THREADS_PER_REPO,
        max_requests: 1_000,
      });
      const runOnce = async () => {
        const started = performance.now();
        const job = await control.submit(SYNC_KIND, input);
        for (;;) {
          const row = store.rows.jobGet(job.id);
          if (row !== undefined && row.status !== "queued" && row.status !== "running") {
            if (row.status !== "succeeded") throw new Error(`sync ended ${row.status}: ${JSON.stringify(row.error)}`);
            return { ms: performance.now() - started, result: row.result as SyncResult };
          }
          await new Promise((r) => setTimeout(r, 2));
        }
      };
      const first = await runOnce();
      const total = SYNC_REPOS * SYNC_THREADS_PER_REPO;
      const inserted = first.result.items.reduce((n, i) => n + (i.value?.inserted ?? 0), 0);
      if (first.result.batch_status !== "complete" || inserted !== total) {
        throw new Error(`first sync stored ${inserted} of ${total} threads (${first.result.batch_status})`);
      }
      const rate = total / (first.ms / 1000);
      const second = await runOnce();
      const rate2 = total / (second.ms / 1000);
      return {
        rows: [
          {
            metric: `sync: ingest of ${total.toLocaleString("en-US")} new threads (${SYNC_REPOS} repos)`,
            value: `${Math.round(rate).toLocaleString("en-US")} threads/s (${(first.ms / 1000).toFixed(2)} s, ` +
              `${first.result.requests} requests)`,
            goal: `>= ${INGEST_GOAL_PER_S.toLocaleString("en-US")} threads/s`,
            met: rate >= INGEST_GOAL_PER_S,
          },
          {
            metric: "sync: unchanged re-sync (all 304)",
            value: `${Math.round(rate2).toLocaleString("en-US")} threads/s (${(second.ms / 1000).toFixed(2)} s, ` +
              `${second.result.requests} counted, ${second.result.not_modified} free)`,
          },
        ],
        notes: [
          "Sync: wall time from submission to the terminal row, through JobControl, the Executor, the GitHub " +
          "client (pages of 100, ETags stored in SQLite) and CorpusRows.threadsUpsert with its FTS5 index; the " +
          "fake GitHub runs in a child process on loopback.",
        ],
      };
    } finally {
      await runtime.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Both GitHub benchmarks as one section. */
export async function benchGitHub(): Promise<BenchSection> {
  const economy = await watcherEconomy();
  const ingest = await syncIngest();
  return {
    title: "GitHub workloads (fake GitHub on loopback)",
    rows: [...economy.rows, ...ingest.rows],
    notes: [...economy.notes, ...ingest.notes],
  };
}

if (import.meta.main) {
  console.log(JSON.stringify(await benchGitHub(), null, 2));
}
