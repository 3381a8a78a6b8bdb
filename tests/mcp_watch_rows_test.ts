/**
 * Every watcher row of issue 11 through MCP: the shipped server (`src/main.ts serve`, a real child
 * process with explicit permission flags, on compressed time) with an official task-aware client.
 * Each watch is a task: its `tasks/get` result and the detailed `jobs.get` view of the same job
 * must both carry the right outcome and the new result fields. The fake GitHub runs in this
 * process at the same time rate; rows run one after another on its pull request.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/mcp_watch_rows_test.ts
 */
import assert from "node:assert/strict";
import { ENV_VARS } from "../src/cli/config.ts";
import { WATCH_KIND } from "../src/github/watch_kind.ts";
import { type ScenarioName, startFakeGitHub } from "../testing/fake_github.ts";
import { REPO_ROOT } from "./helpers/longcall_procs.ts";
import { connectTaskHost, denoExecPath, type StdioTarget } from "../testing/mcp_clients.ts";
import { tempDir } from "../testing/temp.ts";

const RATE = 20;
type Json = Record<string, unknown>;

interface Row {
  scenario: ScenarioName;
  args: Json;
  outcome: string;
  check?: (result: Json) => void;
}

const ROWS: Row[] = [
  { scenario: "statuses_paged", args: {}, outcome: "failed" },
  { scenario: "rerun_passed", args: {}, outcome: "succeeded", check: (r) => assert.equal(r.duplicates_dropped, 1) },
  { scenario: "rerun_running", args: { fail_fast: true }, outcome: "succeeded" },
  {
    scenario: "late_dependent",
    args: {},
    outcome: "succeeded",
    check: (r) => assert.equal((r.summary as { total: number }).total, 2),
  },
  {
    scenario: "fork_approval",
    args: {},
    outcome: "action_required",
    check: (r) => assert.match(String(r.reason), /approv/),
  },
  { scenario: "null_conclusion", args: { timeout_ms: 30_000 }, outcome: "timed_out" },
  { scenario: "pr_closed", args: {}, outcome: "closed" },
  { scenario: "pr_merged", args: {}, outcome: "merged" },
  {
    scenario: "checks_pass",
    args: {},
    outcome: "succeeded",
    check: (r) => {
      assert.equal(r.authenticated, false);
      assert.ok(Number(r.not_modified_counted) > 0);
      assert.ok(r.anonymous_cost !== undefined, "an anonymous watch says what it costs");
    },
  },
  { scenario: "huge_outputs", args: {}, outcome: "succeeded" },
  {
    scenario: "checks_fail",
    args: {},
    outcome: "failed",
    check: (r) => {
      const f = (r.failures as Array<{ name: string; title: string; annotations: unknown[] }>)[0];
      assert.equal(f?.name, "lint");
      assert.equal(f?.title, "2 problems (2 errors)");
      assert.equal(f?.annotations.length, 2);
    },
  },
  {
    scenario: "required_checks",
    args: { required_only: true },
    outcome: "succeeded",
    check: (r) => assert.deepEqual(r.required_checks, ["build", "ci/legacy"]),
  },
];

Deno.test("MCP: every watcher row of issue 11 through tasks/get and jobs.get (detailed)", async () => {
  await using dir = await tempDir("longcall-mcp-rows-");
  const t0 = Date.now();
  const fake = await startFakeGitHub({
    now: () => t0 + (Date.now() - t0) * RATE,
    rateLimit: { anonymousLimit: 5_000 },
  });
  const target: StdioTarget = {
    command: denoExecPath(),
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      `--allow-read=${dir.path},${REPO_ROOT}src`,
      `--allow-write=${dir.path}`,
      `--allow-env=${ENV_VARS.join(",")}`,
      "--allow-net=127.0.0.1",
      `${REPO_ROOT}src/main.ts`,
      "serve",
      "--db",
      dir.file("mcp.db"),
      "--simulate-time-rate",
      String(RATE),
      "--linger-ms",
      "0", // a watch still running at close must not outlive the test
    ],
    cwd: REPO_ROOT,
    env: {
      LONGCALL_GITHUB_API_URL: fake.url,
      LONGCALL_LOG: "error",
      GITHUB_TOKEN: "",
      GH_TOKEN: "",
      LONGCALL_GITHUB_TOKEN_FILE: "",
      LONGCALL_HTTP_TOKEN: "",
      LONGCALL_DB: "",
    },
  };
  const host = await connectTaskHost(target, { clientInfo: { name: "watch-rows", version: "1.0.0" } });
  try {
    const pr = { owner: "octo", repo: "widgets", number: 42 };
    for (const row of ROWS) {
      fake.setScenario(row.scenario);
      const what = `${row.scenario} ${JSON.stringify(row.args)}`;
      const call = await host.callToolAsTask(WATCH_KIND, { ...pr, ...row.args } as never);
      assert.equal(call.outcome.status, "completed", `${what}: ${JSON.stringify(call.outcome)}`);
      const taskId = call.taskId ?? "";
      // tasks/get, as a host reads it.
      const got = await host.tasksGet(taskId);
      assert.equal(got.kind, "result", what);
      const task = (got as { result: Json }).result;
      assert.equal(task.status, "completed", what);
      const sc = (task.result as Json).structuredContent as Json;
      assert.equal(sc.outcome, row.outcome, `${what}: tasks/get outcome`);
      const taskResult = sc.result as Json;
      assert.equal(taskResult.outcome, row.outcome, what);
      assert.equal(typeof taskResult.reason, "string");
      row.check?.(taskResult);
      // jobs.get detailed, as a polling model reads it: the same job, the same result.
      const res = await host.client.callTool({
        name: "jobs.get",
        arguments: { ids: [taskId], response_format: "detailed" },
      });
      const item = (res.structuredContent as { items: Array<{ value?: Json }> }).items[0]?.value;
      assert.ok(item !== undefined, what);
      assert.equal(item.outcome, row.outcome, `${what}: jobs.get outcome`);
      assert.deepEqual(item.result, taskResult, `${what}: jobs.get and tasks/get agree`);
    }

    // Unreadable branch rules with required_only: a typed error, never a silent watch of all checks.
    fake.setScenario("rules_forbidden");
    const call = await host.callToolAsTask(WATCH_KIND, { ...pr, required_only: true } as never);
    assert.equal(call.outcome.status, "completed");
    const result = (call.outcome as { result: Json }).result;
    assert.equal(result.isError, true);
    assert.equal(((result.structuredContent as Json).error as Json).code, "required_checks_unavailable");
    const res = await host.client.callTool({
      name: "jobs.get",
      arguments: { ids: [call.taskId ?? ""], response_format: "detailed" },
    });
    const item = (res.structuredContent as { items: Array<{ value?: Json }> }).items[0]?.value;
    assert.equal((item?.error as Json).code, "required_checks_unavailable");
  } finally {
    await host.close();
    await fake.close();
  }
});
