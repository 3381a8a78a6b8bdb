/**
 * Jobs outlive the session (issue 10), with real processes: the shipped server (src/main.ts serve,
 * network worker, explicit permission flags) over stdio against the fake GitHub on 127.0.0.1, and a
 * second server on the same database that follows and cancels what the first one still runs.
 *
 * The fake's CI stays in progress until a test advances the fake's clock, so a watch is running for
 * sure when the host goes away, and completes only when the test says so.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/linger_test.ts
 *
 * @module
 */

import assert from "node:assert/strict";
import { JOB_ADMITTED_MAX_MAX, JOB_RUNNING_MAX_DEFAULT, LINGER_MS_MAX } from "../src/base/limits.ts";
import { ENV_VARS } from "../src/cli/config.ts";
import { type FakeGitHub, type ScenarioStep, startFakeGitHub } from "../testing/fake_github.ts";
import {
  type Message,
  modernMeta,
  RawStdioServer,
  REPO_ROOT,
  spawnHttp,
  stdioServer,
} from "./helpers/longcall_procs.ts";
import { connectV2, denoExecPath, type StdioTarget } from "../testing/mcp_clients.ts";
import { openTempStore, tempDir, waitFor } from "../testing/temp.ts";

type Json = Record<string, unknown>;

/** Handler time runs this much faster than real time: a 5 s watch poll takes 250 ms. */
const RATE = 20;
/** The fake's CI completes this far into its timeline (reached only by `fake.advance`). */
const CI_DONE_AT_MS = 10 * 60_000;
const CI: readonly ScenarioStep[] = [
  { atMs: 0, checks: [{ name: "build", status: "in_progress" }] },
  {
    atMs: CI_DONE_AT_MS,
    checks: [{ name: "build", status: "completed", conclusion: "success" }],
    statuses: [{ context: "ci/legacy", state: "success" }],
  },
];
const WATCH_ARGS = { owner: "octo", repo: "widgets", number: 42, poll_interval_ms: 5_000 };
const LINGER_NOTICE = "the host went away";

/**
 * The shipped server over stdio on `setup.db` against `setup.fake`: read/write only its directory `setup.dir`
 * (and read src/ for the worker's code); `options.flags` and `options.env` add to its command line and environment.
 */
function productServer(
  setup: { dir: string; db: string; fake: FakeGitHub },
  options: { flags?: readonly string[]; env?: Record<string, string> } = {},
): StdioTarget {
  const { dir, db, fake } = setup;
  const { flags = [], env = {} } = options;
  return {
    command: denoExecPath(),
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      `--allow-read=${dir},${REPO_ROOT}src`,
      `--allow-write=${dir}`,
      `--allow-env=${ENV_VARS.join(",")}`,
      "--allow-net=127.0.0.1",
      `${REPO_ROOT}src/main.ts`,
      "serve",
      "--db",
      db,
      "--simulate-time-rate",
      String(RATE),
      ...flags,
    ],
    cwd: REPO_ROOT,
    env: {
      LONGCALL_GITHUB_API_URL: fake.url,
      LONGCALL_LOG: "info",
      LONGCALL_LINGER_MS: "",
      GITHUB_TOKEN: "",
      GH_TOKEN: "",
      LONGCALL_GITHUB_TOKEN_FILE: "",
      LONGCALL_HTTP_TOKEN: "",
      LONGCALL_DB: "",
      ...env,
    },
  };
}

function resultOf(m: Message): Json {
  assert.ok("result" in m, `a result: ${JSON.stringify(m)}`);
  return m["result"] as Json;
}

/** Starts a watch as a task (modern, tasks declared); returns the task (= job) id. */
async function startWatch(server: RawStdioServer): Promise<string> {
  const created = resultOf(
    await server.modern("tools/call", {
      name: "github.wait_pull_request_checks",
      arguments: WATCH_ARGS,
    }, { declareTasks: true }),
  );
  assert.equal(created["resultType"], "task", JSON.stringify(created));
  return created["taskId"] as string;
}

/** jobs.get (detailed) of one job through a server. */
async function jobView(server: RawStdioServer, id: string): Promise<Json> {
  const got = resultOf(
    await server.modern("tools/call", {
      name: "jobs.get",
      arguments: { ids: [id], response_format: "detailed" },
    }),
  );
  const item = ((got["structuredContent"] as Json)["items"] as Json[])[0];
  assert.ok(item?.["value"] !== undefined, `jobs.get found ${id}: ${JSON.stringify(got)}`);
  return item["value"] as Json;
}

/** Waits until the watch `watch.id` has polled GitHub (`watch.fake`): the job is running and mid-watch. */
async function waitMidWatch(server: RawStdioServer, watch: { id: string; fake: FakeGitHub }): Promise<void> {
  const { id, fake } = watch;
  await waitFor(
    "the watch to poll the fake",
    async () => {
      const v = await jobView(server, id);
      return v["execution_state"] === "running" && fake.counts.byKind.check_runs > 0;
    },
    { timeoutMs: LOADED_WAIT_MS, everyMs: 50 },
  );
}

/** The process's exit, or undefined if it is still running after `ms`. */
async function exitWithin(server: RawStdioServer, ms: number): Promise<Deno.CommandStatus | undefined> {
  return await statusWithin(server.child.status, ms);
}

/** An exit status, if it arrives within `ms`. */
async function statusWithin(
  exited: Promise<Deno.CommandStatus>,
  ms: number,
): Promise<Deno.CommandStatus | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const status = await Promise.race([
    exited,
    new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), ms)),
  ]);
  clearTimeout(timer);
  return status;
}

/** Whether the process is still running (no exit status yet). */
async function alive(server: RawStdioServer): Promise<boolean> {
  return (await exitWithin(server, 0)) === undefined;
}

/** Everything on stderr after the linger notice (the notice is the last line a lingering server writes). */
function stderrAfterNotice(server: RawStdioServer): string {
  const text = server.stderr();
  const at = text.indexOf(LINGER_NOTICE);
  assert.ok(at >= 0, `the server announced the linger on stderr:\n${text}`);
  return text.slice(text.indexOf("\n", at) + 1);
}

/** How long a step of these multi-process tests may take on a loaded 2-CPU machine (a deadline, never a speed
 * assertion: every wait below ends as soon as what it waits for is seen). */
const LOADED_WAIT_MS = 60_000;

/** These watches are anonymous, and an anonymous watch stretches its polls to fit GitHub's 60/h (issue 11):
 * at that limit the next poll a test waits for could be minutes away, so the fake allows more. */
const ROOMY_ANONYMOUS_LIMIT = { anonymousLimit: 5_000 };

for (const how of ["end of stdin", "SIGHUP"] as const) {
  Deno.test(`linger (${how}): the watch keeps running, a second server follows it to completed with the verdict, the first exits`, async () => {
    await using dir = await tempDir();
    const db = dir.file("jobs.db");
    const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
    const first = new RawStdioServer(productServer({ dir: dir.path, db, fake }));
    const second = new RawStdioServer(productServer({ dir: dir.path, db, fake }, { flags: ["--linger-ms", "0"] }));
    try {
      const id = await startWatch(first);
      await waitMidWatch(first, { id, fake });
      // The probe for "nothing more on stderr": a GitHub 5xx makes the worker log a warning.
      fake.failNext(1, { kind: "check_runs" });
      await waitFor(
        "the worker's retry warning",
        () => first.stderr().includes("transient GitHub failure"),
        { timeoutMs: LOADED_WAIT_MS },
      );
      const stdoutBefore = first.stdoutLines.length;

      if (how === "SIGHUP") first.child.kill("SIGHUP");
      else await first.endStdin();
      await waitFor("the linger notice", () => first.stderr().includes(LINGER_NOTICE), { timeoutMs: LOADED_WAIT_MS });
      assert.equal((await jobView(second, id))["execution_state"], "running", "the second server sees it running");
      {
        using store = openTempStore(db);
        const row = store.rows.jobGet(id);
        assert.equal(row?.status, "running");
        const live = store.rows.ownerListLive(Date.now()).map((o) => o.owner_id);
        assert.ok(row?.owner_id !== null && live.includes(row?.owner_id ?? ""), "under a live owner");
      }
      // A lingering worker still logs nothing: the same probe now reaches no stderr.
      const retriesBefore = fake.counts.injectedErrors;
      fake.failNext(1, { kind: "check_runs" });
      await waitFor(
        "the injected failure to be served",
        () => fake.counts.injectedErrors > retriesBefore,
        { timeoutMs: LOADED_WAIT_MS },
      );
      assert.ok(await alive(first), "the first server lingers while its job runs");

      fake.advance(CI_DONE_AT_MS);
      // The second server follows the task to completed with the CI verdict.
      const completed = await waitFor(
        "tasks/get completed on the second server",
        async () => {
          const got = resultOf(await second.modern("tasks/get", { taskId: id }, { declareTasks: true }));
          return got["status"] === "completed" ? got : undefined;
        },
        { timeoutMs: 30_000, everyMs: 100 },
      );
      const final = (completed["result"] as Json)["structuredContent"] as Json;
      assert.equal(final["outcome"], "succeeded", JSON.stringify(completed));
      assert.equal((await jobView(second, id))["outcome"], "succeeded", "jobs.get agrees");

      const status = await exitWithin(first, LOADED_WAIT_MS);
      assert.ok(status !== undefined, "the first server exits once its job has ended");
      assert.equal(status.code, 0, first.stderr());
      await first.exited();
      assert.equal(first.stdoutLines.length, stdoutBefore, "nothing written to stdout after the host went away");
      {
        using store = openTempStore(db);
        assert.equal(store.rows.jobGet(id)?.attempt, 1, "run once, never replayed");
      }
      assert.equal(stderrAfterNotice(first), "", "nothing written to stderr during the linger");
      first.assertStdoutPure();
    } finally {
      await first.close();
      await second.close();
      await fake.close();
    }
  });
}

Deno.test("linger: a watch submitted right before the host leaves is claimed and run by the lingering server (its worker starts at the submission)", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
  const first = new RawStdioServer(productServer({ dir: dir.path, db, fake }));
  try {
    // The submission starts the worker (it had not started: less than NETWORK_WORKER_START_DELAY_MS since
    // serving); the host leaves at once, while the worker still loads its code.
    const id = await startWatch(first);
    await first.endStdin();
    await waitFor("the linger notice", () => first.stderr().includes(LINGER_NOTICE), { timeoutMs: LOADED_WAIT_MS });
    assert.match(first.stderr(), /the host went away: running jobs continue.*"running":1/, first.stderr());
    await waitFor("the watch to poll the fake", () => fake.counts.byKind.check_runs > 0, { timeoutMs: LOADED_WAIT_MS });
    fake.advance(CI_DONE_AT_MS);
    const status = await exitWithin(first, LOADED_WAIT_MS);
    assert.ok(status !== undefined, "the first server exits once its job has ended");
    assert.equal(status.code, 0, first.stderr());
    using store = openTempStore(db);
    const row = store.rows.jobGet(id);
    assert.equal(row?.status, "succeeded", `${JSON.stringify(row)}\n${first.stderr()}`);
    assert.equal(row?.attempt, 1, "run once, by the lingering server");
  } finally {
    await first.close();
    await fake.close();
  }
});

Deno.test("linger: the host closes its ends of stdout and stderr and exits; the lingering watch still completes", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
  const target = productServer({ dir: dir.path, db, fake });
  // A host that goes away for real: it stops reading (closing its read ends, as a dead process's
  // pipes close) and then its end of stdin: anything the lingering server wrote would meet a closed pipe.
  const child = new Deno.Command(target.command, {
    args: target.args,
    cwd: REPO_ROOT,
    env: target.env ?? {},
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    const writer = child.stdin.getWriter();
    const request = { name: "github.wait_pull_request_checks", arguments: WATCH_ARGS, _meta: modernMeta(true) };
    await writer.write(
      new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: request }) + "\n"),
    );
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      assert.equal(done, false, "the server answered the call");
      text += value;
    }
    const id = ((JSON.parse(text.slice(0, text.indexOf("\n"))) as Json)["result"] as Json)["taskId"] as string;
    using store = openTempStore(db);
    await waitFor(
      "the watch to run and poll",
      () => store.rows.jobGet(id)?.status === "running" && fake.counts.byKind.check_runs > 0,
      { timeoutMs: LOADED_WAIT_MS, everyMs: 20 },
    );
    await reader.cancel();
    await child.stderr.cancel();
    await writer.close();
    // Provoke a log line during the linger (a GitHub 5xx), then let CI finish.
    const injected = fake.counts.injectedErrors;
    fake.failNext(1, { kind: "check_runs" });
    await waitFor("the injected failure to be served", () => fake.counts.injectedErrors > injected, {
      timeoutMs: LOADED_WAIT_MS,
    });
    fake.advance(CI_DONE_AT_MS);
    const row = await waitFor(
      "the watch to end",
      () => {
        const r = store.rows.jobGet(id);
        return r !== undefined && r.status !== "running" ? r : undefined;
      },
      { timeoutMs: 30_000, everyMs: 50 },
    );
    assert.equal(row.status, "succeeded", JSON.stringify(row));
    assert.equal(row.outcome, "succeeded");
    const status = await child.status;
    assert.equal(status.code, 0, "exited normally after the job ended");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await fake.close();
  }
});

for (const via of ["tasks/cancel", "jobs.cancel"] as const) {
  Deno.test(`linger: ${via} from a second server stops the lingering watch, and the first server exits`, async () => {
    await using dir = await tempDir();
    const db = dir.file("jobs.db");
    const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
    const first = new RawStdioServer(productServer({ dir: dir.path, db, fake }));
    const second = new RawStdioServer(productServer({ dir: dir.path, db, fake }, { flags: ["--linger-ms", "0"] }));
    try {
      const id = await startWatch(first);
      await waitMidWatch(first, { id, fake });
      using store = openTempStore(db);
      const owner = store.rows.jobGet(id)?.owner_id;
      await first.endStdin();
      await waitFor("the linger notice", () => first.stderr().includes(LINGER_NOTICE), { timeoutMs: LOADED_WAIT_MS });
      assert.ok(await alive(first), "lingering");
      const cancel = via === "tasks/cancel"
        ? await second.modern("tasks/cancel", { taskId: id }, { declareTasks: true })
        : await second.modern("tools/call", { name: "jobs.cancel", arguments: { ids: [id] } });
      assert.ok("result" in cancel && !(cancel["result"] as Json)["isError"], JSON.stringify(cancel));
      const task = await waitFor(
        "tasks/get cancelled",
        async () => {
          const got = resultOf(await second.modern("tasks/get", { taskId: id }, { declareTasks: true }));
          return got["status"] === "cancelled" ? got : undefined;
        },
        { timeoutMs: LOADED_WAIT_MS, everyMs: 50 },
      );
      assert.equal(task["status"], "cancelled");
      const status = await exitWithin(first, LOADED_WAIT_MS);
      assert.ok(status !== undefined, "the first server exits once the cancelled job has ended");
      assert.equal(status.code, 0);
      assert.equal((await jobView(second, id))["outcome"], "cancelled");
      const row = store.rows.jobGet(id);
      assert.equal(row?.status, "cancelled");
      assert.equal(row?.owner_id, owner, "ended by the lingering owner, not reconciled by another process");
    } finally {
      await first.close();
      await second.close();
      await fake.close();
    }
  });
}

Deno.test("linger: kill -9 of a lingering server is process_lost for a later server, never a replay", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const lease = ["--heartbeat-ms", "100", "--lease-ms", "400", "--reconcile-ms", "100"];
  const first = new RawStdioServer(
    stdioServer(dir.path, db, { flags: [...lease, "--linger-ms", "60000"], env: { LONGCALL_LOG: "info" } }),
  );
  let id = "";
  try {
    id = (resultOf(await first.modern("tools/call", { name: "test.sleep", arguments: { ms: 60_000, steps: 600 } }))[
      "structuredContent"
    ] as Json)["id"] as string;
    await waitFor("the sleep to run", async () => (await jobView(first, id))["execution_state"] === "running");
    await first.endStdin();
    await waitFor("the linger notice", () => first.stderr().includes(LINGER_NOTICE), { timeoutMs: LOADED_WAIT_MS });
    first.child.kill("SIGKILL");
    assert.equal((await first.exited()).signal, "SIGKILL");
  } finally {
    await first.close();
  }
  const later = new RawStdioServer(stdioServer(dir.path, db, { flags: lease }));
  try {
    const view = await waitFor(
      "the later server to record the loss",
      async () => {
        const v = await jobView(later, id);
        return v["execution_state"] === "terminal" ? v : undefined;
      },
      { timeoutMs: LOADED_WAIT_MS, everyMs: 50 },
    );
    assert.equal(view["outcome"], "failed");
    assert.equal((view["error"] as Json)["code"], "process_lost");
    using store = openTempStore(db);
    assert.equal(store.rows.jobGet(id)?.attempt, 1, "never replayed");
  } finally {
    await later.close();
  }
});

Deno.test("linger: at --linger-ms the job is recorded interrupted (as today) and the process exits", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
  const first = new RawStdioServer(productServer({ dir: dir.path, db, fake }, { flags: ["--linger-ms", "1000"] }));
  try {
    const id = await startWatch(first);
    await waitMidWatch(first, { id, fake });
    await first.endStdin();
    const status = await exitWithin(first, 30_000);
    assert.ok(status !== undefined, "exits after the linger bound");
    assert.equal(status.code, 0);
    assert.match(first.stderr(), new RegExp(LINGER_NOTICE));
    using store = openTempStore(db);
    const row = store.rows.jobGet(id);
    assert.equal(row?.status, "failed");
    assert.equal(row?.error?.code, "interrupted");
    assert.equal(row?.attempt, 1);
  } finally {
    await first.close();
    await fake.close();
  }
});

for (const off of [["--linger-ms", "0"], ["env", "LONGCALL_LINGER_MS=0"]] as const) {
  Deno.test(`linger off (${off.join(" ")}): end of stdin records the running watch interrupted at once, as before`, async () => {
    await using dir = await tempDir();
    const db = dir.file("jobs.db");
    const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
    const first = new RawStdioServer(
      off[0] === "env"
        ? productServer({ dir: dir.path, db, fake }, { env: { LONGCALL_LINGER_MS: "0" } })
        : productServer({ dir: dir.path, db, fake }, { flags: [...off] }),
    );
    try {
      const id = await startWatch(first);
      await waitMidWatch(first, { id, fake });
      await first.endStdin();
      const status = await exitWithin(first, LOADED_WAIT_MS);
      assert.ok(status !== undefined, "exits without lingering");
      assert.equal(status.code, 0);
      assert.doesNotMatch(first.stderr(), new RegExp(LINGER_NOTICE));
      using store = openTempStore(db);
      const row = store.rows.jobGet(id);
      assert.equal(row?.status, "failed");
      assert.equal(row?.error?.code, "interrupted");
    } finally {
      await first.close();
      await fake.close();
    }
  });
}

Deno.test("linger: SIGTERM during a linger ends it with today's interrupt (exit 0, interrupted)", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
  const first = new RawStdioServer(productServer({ dir: dir.path, db, fake }));
  try {
    const id = await startWatch(first);
    await waitMidWatch(first, { id, fake });
    await first.endStdin();
    await waitFor("the linger notice", () => first.stderr().includes(LINGER_NOTICE), { timeoutMs: LOADED_WAIT_MS });
    first.child.kill("SIGTERM");
    const status = await exitWithin(first, LOADED_WAIT_MS);
    assert.ok(status !== undefined, "SIGTERM ends the linger");
    assert.equal(status.code, 0);
    using store = openTempStore(db);
    assert.equal(store.rows.jobGet(id)?.error?.code, "interrupted");
  } finally {
    await first.close();
    await fake.close();
  }
});

Deno.test("linger, measured with the official SDK's stdio transport: its close() SIGTERMs a lingering server 2 s after ending stdin, so the watch is recorded interrupted (hosts built on it need serve --http to keep jobs)", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
  try {
    // The default linger (LONGCALL_LINGER_MS empty): a Claude Code session's server would keep the watch.
    const conn = await connectV2(productServer({ dir: dir.path, db, fake }), { era: "legacy" });
    const called = await conn.client.callTool({ name: "github.wait_pull_request_checks", arguments: WATCH_ARGS });
    const id = (called.structuredContent as { id: string }).id;
    await waitFor("the watch to poll the fake", () => fake.counts.byKind.check_runs > 0, { timeoutMs: LOADED_WAIT_MS });
    const closing = Date.now();
    await conn.close(); // stdin ends, 2 s, SIGTERM (what the MCP Inspector CLI and v1/v2 SDK hosts do)
    using store = openTempStore(db);
    const row = await waitFor("the watch's end", () => {
      const r = store.rows.jobGet(id);
      return r?.status === "running" ? undefined : r;
    }, { timeoutMs: LOADED_WAIT_MS });
    assert.equal(row?.error?.code, "interrupted", "SIGTERM during the linger: today's interrupt");
    assert.ok(Date.now() - closing < 10_000, "within the transport's 2 s + 2 s escalation, not the 30-minute linger");
  } finally {
    await fake.close();
  }
});

Deno.test('SIGINT (Claude Code\'s "Exit and stop tasks") cancels the jobs this server admitted, queued ones too', async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
  const server = new RawStdioServer(productServer({ dir: dir.path, db, fake }));
  try {
    // One more watch than run at once: the last stays queued, which a later server would otherwise run.
    const ids: string[] = [];
    for (let i = 0; i <= JOB_RUNNING_MAX_DEFAULT; i++) ids.push(await startWatch(server));
    await waitMidWatch(server, { id: ids[0] ?? "", fake });
    {
      using store = openTempStore(db);
      const states = ids.map((id) => store.rows.jobGet(id)?.status);
      assert.ok(states.includes("queued") && states.includes("running"), `before SIGINT: ${states.join(", ")}`);
    }
    server.child.kill("SIGINT");
    const status = await exitWithin(server, LOADED_WAIT_MS);
    assert.ok(status !== undefined, "SIGINT ends the server");
    assert.equal(status.code, 130);
    using store = openTempStore(db);
    for (const id of ids) assert.equal(store.rows.jobGet(id)?.status, "cancelled", id);
    assert.match(server.stderr(), /SIGINT: cancelled the jobs this server admitted.*"cancelled":5/);
  } finally {
    await server.close();
    await fake.close();
  }
});

Deno.test("linger: with no running job the server exits at once at end of stdin (default linger)", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
  const server = new RawStdioServer(
    productServer({ dir: dir.path, db, fake }, { flags: ["--linger-ms", String(LINGER_MS_MAX)] }),
  );
  try {
    assert.ok("result" in await server.modern("tools/list"));
    await server.endStdin();
    const status = await exitWithin(server, LOADED_WAIT_MS);
    assert.ok(status !== undefined, "exited");
    assert.equal(status.code, 0);
    assert.doesNotMatch(server.stderr(), new RegExp(LINGER_NOTICE));
  } finally {
    await server.close();
    await fake.close();
  }
});

Deno.test("SIGINT to an --http server (shared by its clients) stops it as SIGTERM does: its jobs are not cancelled", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const http = await spawnHttp(dir.path, db, { env: { LONGCALL_LOG: "info" } });
  let id = "";
  const c = await connectV2({ url: http.mcpUrl }, { era: "legacy" });
  try {
    const called = await c.client.callTool({ name: "test.sleep", arguments: { ms: 60_000, steps: 60 } });
    id = (called.structuredContent as { id: string }).id;
  } finally {
    await c.close();
  }
  using store = openTempStore(db);
  await waitFor("the sleep to run", () => store.rows.jobGet(id)?.status === "running", {
    timeoutMs: LOADED_WAIT_MS,
    everyMs: 20,
  });
  Deno.kill(http.pid, "SIGINT");
  const status = await statusWithin(http.status, LOADED_WAIT_MS);
  assert.equal(status?.code, 130);
  const row = store.rows.jobGet(id);
  assert.equal(row?.status, "failed", "recorded as interrupted, not cancelled");
  assert.equal(row?.error?.code, "interrupted");
  assert.doesNotMatch(http.stderr(), /SIGINT: cancelled/);
});

Deno.test("linger over --http: SIGHUP stops serving, the running job ends normally, then the process exits", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const http = await spawnHttp(dir.path, db, { flags: ["--linger-ms", "60000"], env: { LONGCALL_LOG: "info" } });
  try {
    const c = await connectV2({ url: http.mcpUrl }, { era: "modern" });
    let id = "";
    try {
      const raw = await c.rawRequest("tools/call", { name: "test.sleep", arguments: { ms: 1_500, steps: 15 } });
      assert.equal(raw.kind, "result", JSON.stringify(raw));
      id = ((raw as { result: Json }).result["structuredContent"] as Json)["id"] as string;
    } finally {
      await c.close();
    }
    using store = openTempStore(db);
    await waitFor("the sleep to run", () => store.rows.jobGet(id)?.status === "running", {
      timeoutMs: LOADED_WAIT_MS,
      everyMs: 20,
    });
    Deno.kill(http.pid, "SIGHUP");
    await waitFor("the linger notice", () => http.stderr().includes(LINGER_NOTICE), { timeoutMs: LOADED_WAIT_MS });
    const refused = await fetch(http.mcpUrl, { method: "POST", body: "{}" }).then(
      async (r) => `status ${r.status} ${await r.text()}`,
      (err) => `refused: ${err}`,
    );
    assert.match(refused, /^refused/, "no longer serving");
    const row = await waitFor(
      "the sleep to end",
      () => {
        const r = store.rows.jobGet(id);
        return r !== undefined && r.status !== "running" ? r : undefined;
      },
      { timeoutMs: LOADED_WAIT_MS, everyMs: 20 },
    );
    assert.equal(row.status, "succeeded", "the job ran to its end, not interrupted");
    // It exits by itself, without a signal from the test. (This used to wait for /proc/PID to go, but Deno.stat
    // of /proc needs --allow-all, so that wait ended at once and close() sent SIGTERM to a server still on its
    // way out: exit 0 while its signal listener was installed, 143 in a fresh whole-suite run where the signal
    // came after. Waiting for the exit status itself reads no /proc and sends nothing.)
    const status = await statusWithin(http.status, LOADED_WAIT_MS);
    assert.ok(status !== undefined, "the lingering process exits by itself");
    assert.equal(status.code, 0);
  } finally {
    await http.close();
  }
});

Deno.test("linger: queued jobs stay queued for a later server (the lingering one claims nothing)", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  // The test server (in-process executor): one slot, so the second job is queued.
  const first = new RawStdioServer(
    stdioServer(dir.path, db, { flags: ["--running-max", "1", "--linger-ms", "60000"] }),
  );
  let sleepId = "", queuedId = "";
  try {
    const call = async (name: string, args: Json) =>
      (resultOf(await first.modern("tools/call", { name, arguments: args }))["structuredContent"] as Json)[
        "id"
      ] as string;
    sleepId = await call("test.sleep", { ms: 1_500, steps: 15 });
    await waitFor("the sleep to run", async () => (await jobView(first, sleepId))["execution_state"] === "running");
    queuedId = await call("test.echo", { hello: 1 });
    await first.endStdin();
    const status = await exitWithin(first, LOADED_WAIT_MS);
    assert.ok(status !== undefined, "exits once the running job has ended");
    assert.equal(status.code, 0);
    using store = openTempStore(db);
    assert.equal(store.rows.jobGet(sleepId)?.status, "succeeded", "the running job finished during the linger");
    assert.equal(store.rows.jobGet(queuedId)?.status, "queued", "the queued job was left for a later server");
  } finally {
    await first.close();
  }
  const later = new RawStdioServer(stdioServer(dir.path, db));
  try {
    await waitFor("the later server to run the queued job", async () => (await jobView(later, queuedId))["outcome"]);
    assert.equal((await jobView(later, queuedId))["outcome"], "succeeded");
  } finally {
    await later.close();
  }
});

Deno.test(`serve --linger-ms: 0 and ${LINGER_MS_MAX} are accepted; -1, ${LINGER_MS_MAX + 1} and a non-integer are usage errors`, async () => {
  await using dir = await tempDir();
  const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
  try {
    for (const value of ["0", String(LINGER_MS_MAX)]) {
      const server = new RawStdioServer(
        productServer({ dir: dir.path, db: dir.file(`ok-${value}.db`), fake }, { flags: ["--linger-ms", value] }),
      );
      assert.ok("result" in await server.modern("tools/list"), `serves with --linger-ms ${value}`);
      assert.equal((await server.close()).code, 0);
    }
    for (const [how, value] of [["flag", "-1"], ["flag", String(LINGER_MS_MAX + 1)], ["flag", "1.5"], ["env", "abc"]]) {
      const target = how === "env"
        ? productServer({ dir: dir.path, db: dir.file("bad.db"), fake }, { env: { LONGCALL_LINGER_MS: value ?? "" } })
        : productServer({ dir: dir.path, db: dir.file("bad.db"), fake }, { flags: [`--linger-ms=${value}`] });
      const out = await runToExit(target);
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 2, `${how} ${value}: ${stderr}`);
      const named = how === "env" ? "LONGCALL_LINGER_MS" : "--linger-ms";
      assert.match(stderr, new RegExp(`Cannot use ${named}: expected an integer from 0 to ${LINGER_MS_MAX}`));
      assert.equal(out.stdout.length, 0);
    }
  } finally {
    await fake.close();
  }
});

/** Runs a server target with no stdin to its exit (a refused start). */
function runToExit(target: StdioTarget): Promise<Deno.CommandOutput> {
  return new Deno.Command(target.command, {
    args: target.args,
    cwd: REPO_ROOT,
    env: target.env ?? {},
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

/**
 * Every place in tests/, scripts/ and testing/ that starts a server must not leave a lingering process behind:
 * it turns the linger off (`--linger-ms 0` / `LONGCALL_LINGER_MS`), spawns a server built on runServer
 * (no linger unless asked), or is listed here with the reason its servers never linger.
 */
const NEVER_LINGERS: Record<string, string> = {
  "scripts/bench/mcp.ts": "its product servers answer tools/list and jobs.get over finished jobs: no job runs at close",
  "scripts/conformance.ts": "the product server runs over --http and is stopped with SIGTERM (no linger)",
  "scripts/conformance/options.ts":
    "holds the runner's product server command (--http, stopped with SIGTERM: no linger)",
  "scripts/lib/report/markdown_report.ts": "names the server in the evaluation report's prose; starts none",
  "tests/cli_jobs_test.ts": "`serve --help`, and `serve` with an argument (refused before serving)",
  "tests/cli_github_test.ts": "its `serve` is refused at start (a bad GitHub setting) and exits before serving",
  "scripts/smoke.ts": "its servers answer tools/list only: no job runs at close",
  "tests/distribution_test.ts": "its servers answer tools/list only: no job runs at close",
  "tests/release_test.ts": "its server answers tools/list only: no job runs at close",
  "tests/diagnostics_test.ts": "its `serve` runs against an unusable database and exits before serving",
  "tests/http_hardening_test.ts": "its servers serve --http and are stopped with SIGTERM (no linger)",
  "tests/names_test.ts": "its server is testing/test_server.ts (runServer: no linger unless asked)",
  "tests/storage_full_disk_test.ts": "its server is testing/test_server.ts (runServer: no linger unless asked)",
  "testing/mcp_clients/targets.ts": "names deno subcommands; starts no server",
  "tests/permissions_test.ts": "its servers answer initialize and tools/list only: no job runs at close",
};

Deno.test("spawn sites: every server started by tests/ and scripts/ turns the linger off or never has a running job at close", async () => {
  const offenders: string[] = [];
  const seen: string[] = [];
  for (const top of ["tests", "scripts", "testing"]) {
    const stack = [`${REPO_ROOT}${top}`];
    while (stack.length > 0) {
      const at = stack.pop() ?? "";
      for await (const entry of Deno.readDir(at)) {
        const path = `${at}/${entry.name}`;
        if (entry.isDirectory) stack.push(path);
        if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
        const text = await Deno.readTextFile(path);
        if (!/"serve"|main\.ts serve/.test(text)) continue;
        const rel = path.slice(REPO_ROOT.length);
        seen.push(rel);
        const off = text.includes("--linger-ms") || text.includes("LONGCALL_LINGER_MS") || rel in NEVER_LINGERS;
        const runServerOnly = /TEST_SERVER|BENCH_SERVER/.test(text) && !/main\.ts|MAIN\b/.test(text);
        if (!off && !runServerOnly) offenders.push(rel);
      }
    }
  }
  assert.ok(seen.includes("testing/hosts/plumbing.ts"), `the scan finds the known spawn sites: ${seen.join(", ")}`);
  assert.deepEqual(offenders, [], "spawn sites that may leave a lingering server behind");
});

Deno.test(`serve --admitted-max: 1 and ${JOB_ADMITTED_MAX_MAX} are accepted; 0 and ${JOB_ADMITTED_MAX_MAX + 1} are usage errors`, async () => {
  await using dir = await tempDir();
  const fake = await startFakeGitHub({ scenario: CI, rateLimit: ROOMY_ANONYMOUS_LIMIT });
  try {
    for (const value of ["1", String(JOB_ADMITTED_MAX_MAX)]) {
      const server = new RawStdioServer(
        productServer({ dir: dir.path, db: dir.file(`ok-${value}.db`), fake }, {
          flags: ["--linger-ms", "0", "--admitted-max", value],
        }),
      );
      assert.ok("result" in await server.modern("tools/list"), `serves with --admitted-max ${value}`);
      assert.equal((await server.close()).code, 0);
    }
    for (const value of ["0", String(JOB_ADMITTED_MAX_MAX + 1)]) {
      const target = productServer({ dir: dir.path, db: dir.file("bad.db"), fake }, {
        flags: ["--linger-ms", "0", `--admitted-max=${value}`],
      });
      const out = await runToExit(target);
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 2, `--admitted-max ${value}: ${stderr}`);
      assert.match(
        stderr,
        new RegExp(`Cannot use --admitted-max: expected an integer from 1 to ${JOB_ADMITTED_MAX_MAX}`),
      );
    }
  } finally {
    await fake.close();
  }
});
