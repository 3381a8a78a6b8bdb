/**
 * Every watcher row of issue 11 through the terminal route: `longcall checks watch --json` as a
 * real child process (explicit permission flags) against the fake GitHub in this process, on
 * compressed time (`--simulate-time-rate`, the fake's clock at the same rate). Outcome, exit code
 * and the new result fields (reason, failures, required checks, anonymous cost).
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/cli_watch_rows_test.ts
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type FakeGitHub, type ScenarioName, startFakeGitHub } from "../testing/fake_github.ts";
import { tempDir } from "../testing/temp.ts";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const RATE = 10;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `args` in a child reading and writing `dir`, against `options.fake` with `options.token`. */
async function longcall(
  dir: string,
  args: readonly string[],
  options: { fake: FakeGitHub; token?: string },
): Promise<Run> {
  const { fake, token = "" } = options;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      "--allow-env",
      "--allow-net=127.0.0.1",
      MAIN,
      ...args,
    ],
    env: {
      LONGCALL_LOG: "warn",
      GITHUB_TOKEN: token,
      GH_TOKEN: "",
      LONGCALL_GITHUB_TOKEN_FILE: "",
      LONGCALL_DB: "",
      LONGCALL_GITHUB_API_URL: fake.url,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** `checks watch` of `scenario` with `flags`, `--json` unless `options.json` is false (then `json` is `{}`). */
async function watchCli(scenario: ScenarioName, flags: readonly string[], options: { json?: boolean } = {}) {
  const { json = true } = options;
  await using dir = await tempDir("longcall-cli-rows-");
  const t0 = Date.now();
  const fake = await startFakeGitHub({
    scenario,
    now: () => t0 + (Date.now() - t0) * RATE,
    rateLimit: { anonymousLimit: 5_000 },
  });
  try {
    const run = await longcall(dir.path, [
      "checks",
      "watch",
      "octo/widgets#42",
      ...(json ? ["--json"] : []),
      "--simulate-time-rate",
      String(RATE),
      "--db",
      dir.file("cli.db"),
      ...flags,
    ], { fake });
    let parsed: Record<string, unknown> = {};
    if (json) {
      try {
        parsed = JSON.parse(run.stdout);
      } catch {
        assert.fail(`stdout is not JSON (exit ${run.code}): ${run.stdout}\nstderr: ${run.stderr}`);
      }
    }
    return { ...run, json: parsed };
  } finally {
    await fake.close();
  }
}

interface Row {
  scenario: ScenarioName;
  flags: string[];
  outcome: string;
  code: number;
  check?: (json: Record<string, unknown>) => void;
}

const ROWS: Row[] = [
  {
    scenario: "statuses_paged",
    flags: [],
    outcome: "failed",
    code: 1,
    check: (j) => assert.equal((j.failures as Array<{ name: string }>)[0]?.name, "ci/shard-35"),
  },
  {
    scenario: "rerun_passed",
    flags: [],
    outcome: "succeeded",
    code: 0,
    check: (j) => assert.equal(j.duplicates_dropped, 1),
  },
  { scenario: "rerun_running", flags: ["--fail-fast"], outcome: "succeeded", code: 0 },
  {
    scenario: "late_dependent",
    flags: [],
    outcome: "succeeded",
    code: 0,
    check: (j) => assert.equal((j.summary as { total: number }).total, 2, "the late check is in the verdict"),
  },
  {
    scenario: "fork_approval",
    flags: [],
    outcome: "action_required",
    code: 1,
    check: (j) => assert.match(String(j.reason), /approv/),
  },
  { scenario: "null_conclusion", flags: ["--timeout-ms", "30000"], outcome: "timed_out", code: 8 },
  { scenario: "pr_closed", flags: [], outcome: "closed", code: 1 },
  { scenario: "pr_merged", flags: [], outcome: "merged", code: 1 },
  {
    scenario: "checks_pass",
    flags: [],
    outcome: "succeeded",
    code: 0,
    check: (j) => {
      assert.equal(j.authenticated, false);
      assert.ok(Number(j.not_modified_counted) > 0, "anonymous 304s are counted");
      assert.match(String((j.anonymous_cost as { note: string }).note), /GITHUB_TOKEN/);
    },
  },
  { scenario: "huge_outputs", flags: [], outcome: "succeeded", code: 0 },
  {
    scenario: "checks_fail",
    flags: [],
    outcome: "failed",
    code: 1,
    check: (j) => {
      const f = (j.failures as Array<{ title: string; annotations: unknown[]; html_url: string }>)[0];
      assert.equal(f?.title, "2 problems (2 errors)");
      assert.equal(f?.annotations.length, 2);
      assert.match(f?.html_url ?? "", /^https:\/\/github\.com\//);
    },
  },
  {
    scenario: "required_checks",
    flags: ["--required"],
    outcome: "succeeded",
    code: 0,
    check: (j) => assert.deepEqual(j.required_checks, ["build", "ci/legacy"]),
  },
];

Deno.test("checks watch --json: every watcher row of issue 11 gives the right outcome and exit code", async () => {
  // Four children at a time: the machine is shared.
  for (let i = 0; i < ROWS.length; i += 4) {
    const batch = ROWS.slice(i, i + 4);
    const runs = await Promise.all(batch.map((r) => watchCli(r.scenario, r.flags)));
    for (const [j, row] of batch.entries()) {
      const run = runs[j];
      assert.ok(run !== undefined);
      const context = `${row.scenario} ${row.flags.join(" ")}: ${run.stderr}`;
      assert.equal(run.json.outcome, row.outcome, context);
      assert.equal(run.code, row.code, context);
      assert.equal(run.json.exit_code, row.code, context);
      assert.equal(typeof run.json.reason, "string");
      row.check?.(run.json);
    }
  }
});

Deno.test("checks watch --required on unreadable branch rules exits 1 with required_checks_unavailable", async () => {
  const run = await watchCli("rules_forbidden", ["--required"]);
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.json.outcome, "error");
  assert.equal((run.json.error as { code: string }).code, "required_checks_unavailable");
});

Deno.test("checks watch: the human output names each failing check's URL, title, summary and annotations", async () => {
  const run = await watchCli("checks_fail", [], { json: false });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /^failed: some checks failed/);
  assert.match(run.stdout, /^failed: lint \(failure\) — 2 problems \(2 errors\)$/m);
  assert.match(run.stdout, /^ {2}https:\/\/github\.com\/octo\/widgets\/actions\/runs\/\d+\/job\/\d+$/m);
  assert.match(run.stdout, /^ {2}\| eslint found 2 errors in 1 file\.$/m);
  assert.match(run.stdout, /^ {2}src\/widget\.ts:12: 'x' is assigned a value but never used\.$/m);
  assert.match(run.stdout, /anonymous watch: GitHub counts every request/);
});

Deno.test("checks watch --help lists the new outcomes, their exit codes and --required", async () => {
  await using dir = await tempDir("longcall-cli-rows-");
  const fake = await startFakeGitHub({});
  try {
    const help = await longcall(dir.path, ["checks", "watch", "--help"], { fake });
    assert.equal(help.code, 0, help.stderr);
    for (const outcome of ["action_required", "closed", "merged"]) {
      assert.match(help.stdout, new RegExp(`^ {2}1 +${outcome}: `, "m"), outcome);
    }
    assert.match(help.stdout, /--required/);
    assert.match(help.stdout, /required_checks_unavailable/);
  } finally {
    await fake.close();
  }
});
