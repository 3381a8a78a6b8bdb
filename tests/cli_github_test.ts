/**
 * `longcall checks watch`, `longcall sync` and `longcall search` as real child processes
 * (`deno run src/main.ts` with explicit permission flags) against the fake GitHub in this
 * process. `checks watch` runs on compressed time (`--simulate-time-rate`), and the fake's
 * clock runs at the same rate, so a 90-second CI timeline plays in seconds.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/cli_github_test.ts
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { silentLogger } from "../src/base/log.ts";
import { productPolicies } from "../src/cli/product_kinds.ts";
import { openRuntime } from "../src/cli/runtime.ts";
import { WATCH_KIND } from "../src/github/watch_kind.ts";
import { type FakeGitHub, SCENARIO_PULL, type ScenarioName, startFakeGitHub } from "../testing/fake_github.ts";
import { productRequest } from "../testing/github_jobs.ts";
import { tempDir } from "../testing/temp.ts";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
/** Simulated time rate of both the child's job clock and the fake. */
const RATE = 10;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `deno run` arguments of the CLI with `args`, reading and writing `dir`, on loopback unless `options.net` is false. */
function childArgs(dir: string, args: readonly string[], options: { net?: boolean } = {}): string[] {
  const { net = true } = options;
  return [
    "run",
    "--no-prompt",
    `--allow-read=${dir}`,
    `--allow-write=${dir}`,
    "--allow-env",
    net ? "--allow-net=127.0.0.1" : "--deny-net",
    MAIN,
    ...args,
  ];
}

function childEnv(fake: FakeGitHub | undefined): Record<string, string> {
  return {
    LONGCALL_LOG: "warn",
    GITHUB_TOKEN: "",
    GH_TOKEN: "",
    LONGCALL_GITHUB_TOKEN_FILE: "",
    LONGCALL_DB: "",
    ...(fake === undefined ? {} : { LONGCALL_GITHUB_API_URL: fake.url }),
  };
}

/** Runs the CLI with `args` in a child reading and writing `dir`, against `options.fake` when given. */
async function longcall(
  dir: string,
  args: readonly string[],
  options: { fake?: FakeGitHub; env?: Record<string, string> } = {},
): Promise<Run> {
  const { fake, env = {} } = options;
  const out = await new Deno.Command(Deno.execPath(), {
    args: childArgs(dir, args),
    env: { ...childEnv(fake), ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** A fake whose clock runs RATE x faster than real time, from now. */
function scaledFake(scenario: ScenarioName, extra: { generatedRepos?: Record<string, number> } = {}) {
  const t0 = Date.now();
  return startFakeGitHub({
    scenario,
    now: () => t0 + (Date.now() - t0) * RATE,
    rateLimit: { anonymousLimit: 5_000 },
    ...extra,
  });
}

/** `checks watch` of the scenario's pull request on `db`, with --json, at the simulated time rate. */
function watchArgs(db: string): string[] {
  return ["checks", "watch", "octo/widgets#42", "--json", "--simulate-time-rate", String(RATE), "--db", db];
}

async function watchCli(scenario: ScenarioName, flags: readonly string[]) {
  await using dir = await tempDir("longcall-cli-");
  const fake = await scaledFake(scenario);
  try {
    const run = await longcall(dir.path, [...watchArgs(dir.file("cli.db")), ...flags], { fake });
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(run.stdout);
    } catch {
      assert.fail(`stdout is not JSON (exit ${run.code}): ${run.stdout}\nstderr: ${run.stderr}`);
    }
    return { ...run, json };
  } finally {
    await fake.close();
  }
}

Deno.test("checks watch: exit codes and --json outcome for every scripted outcome", async () => {
  const cases: Array<{ scenario: ScenarioName; flags: string[]; outcome: string; code: number }> = [
    { scenario: "checks_pass", flags: [], outcome: "succeeded", code: 0 },
    { scenario: "checks_pass", flags: ["--until", "change"], outcome: "changed", code: 0 },
    { scenario: "checks_fail", flags: ["--fail-fast"], outcome: "failed", code: 1 },
    { scenario: "new_push", flags: [], outcome: "superseded", code: 1 },
    { scenario: "no_checks", flags: ["--first-check-grace-ms", "30000"], outcome: "no_checks", code: 1 },
    { scenario: "flaky_unchanged", flags: ["--timeout-ms", "60000"], outcome: "timed_out", code: 8 },
  ];
  const runs = await Promise.all(cases.map((c) => watchCli(c.scenario, c.flags)));
  for (const [i, c] of cases.entries()) {
    const run = runs[i];
    assert.ok(run !== undefined);
    const context = `${c.scenario} ${c.flags.join(" ")}: ${run.stderr}`;
    assert.equal(run.json.outcome, c.outcome, context);
    assert.equal(run.code, c.code, context);
    assert.equal(run.json.exit_code, c.code);
    assert.match(String(run.json.job_id), /^[0-9a-f]{32}$|^[0-9a-z-]{8,}$/);
    assert.equal(run.json.repository, "octo/widgets");
    assert.ok(typeof run.json.polls === "number" && run.json.polls >= 1);
    assert.ok(typeof run.json.requests === "number" && typeof run.json.not_modified === "number");
    // Not a terminal: plain progress lines on stderr.
    // A watch that ends at its first poll shows "1 poll" (singular).
    assert.match(run.stderr, /octo\/widgets#42: \d+ polls?\b/, context);
    assert.ok(!run.stderr.includes("\x1b["), "no terminal control codes when stderr is not a terminal");
  }
});

Deno.test("checks watch: human output lists every check; not found exits 3; a bad reference exits 2", async () => {
  await using dir = await tempDir("longcall-cli-");
  const fake = await scaledFake("checks_pass");
  try {
    const db = dir.file("cli.db");
    const ok = await longcall(dir.path, [
      "checks",
      "watch",
      "https://github.com/octo/widgets/pull/42",
      "--simulate-time-rate",
      String(RATE),
      "--db",
      db,
    ], { fake });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^succeeded: all checks passed/);
    assert.match(ok.stdout, /build\s+pass/);
    assert.match(ok.stdout, /ci\/legacy\s+pass/);

    const missing = await longcall(dir.path, ["checks", "watch", "octo/widgets#999", "--db", db], { fake });
    assert.equal(missing.code, 3, missing.stderr);
    assert.match(missing.stderr, /404|not found/i);

    const bad = await longcall(dir.path, ["checks", "watch", "octo/widgets", "--db", db], { fake });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /OWNER\/REPO#NUMBER/);
    const badFlag = await longcall(dir.path, ["checks", "watch", "octo/widgets#42", "--until", "soon"], { fake });
    assert.equal(badFlag.code, 2);
  } finally {
    await fake.close();
  }
});

Deno.test("checks watch: SIGINT cancels the job cooperatively and exits 130", async () => {
  await using dir = await tempDir("longcall-cli-");
  const fake = await scaledFake("flaky_unchanged");
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: childArgs(dir.path, [
        "checks",
        "watch",
        "octo/widgets#42",
        "--json",
        "--simulate-time-rate",
        String(RATE),
        "--db",
        dir.file("cli.db"),
      ]),
      env: childEnv(fake),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderrChunks: string[] = [];
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    const pump = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        stderrChunks.push(value);
      }
    })();
    const deadline = Date.now() + 20_000;
    while (!/\d+ polls?\b/.test(stderrChunks.join(""))) {
      assert.ok(Date.now() < deadline, `no progress line: ${stderrChunks.join("")}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const before = fake.counts.total;
    const sentAt = Date.now();
    child.kill("SIGINT");
    const [status, stdout] = await Promise.all([child.status, new Response(child.stdout).text()]);
    await pump;
    assert.equal(status.code, 130, stderrChunks.join(""));
    assert.ok(Date.now() - sentAt < 5_000, "cancelled promptly");
    const json = JSON.parse(stdout);
    assert.equal(json.outcome, "cancelled");
    assert.equal(json.exit_code, 130);
    assert.ok(fake.counts.total - before <= 3, "at most the poll in flight finished after the signal");
  } finally {
    await fake.close();
  }
});

Deno.test("sync then search: partial outcome exits 1 with a per-repository summary; search finds threads offline", async () => {
  await using dir = await tempDir("longcall-cli-");
  const fake = await startFakeGitHub({ generatedRepos: { "big/repo": 250 }, rateLimit: { anonymousLimit: 5_000 } });
  try {
    const db = dir.file("cli.db");
    const partial = await longcall(dir.path, [
      "sync",
      "big/repo",
      "octo/widgets",
      "octo/missing",
      "--limit",
      "1000",
      "--db",
      db,
    ], { fake });
    assert.equal(partial.code, 1, partial.stderr);
    assert.match(partial.stdout, /big\/repo\s+complete\s+250 threads \(250 new/);
    assert.match(partial.stdout, /octo\/widgets\s+complete/);
    assert.match(partial.stdout, /octo\/missing\s+unavailable\s+not_found/);
    assert.match(partial.stdout, /^partial: 2\/3 repositories/m);
    assert.match(partial.stderr, /3\/3 repositories/, "progress on stderr");

    const again = await longcall(dir.path, ["sync", "big/repo", "--limit", "1000", "--json", "--db", db], { fake });
    assert.equal(again.code, 0, again.stderr);
    const json = JSON.parse(again.stdout);
    assert.equal(json.batch_status, "complete");
    assert.equal(json.exit_code, 0);
    assert.equal(json.items[0].value.unchanged, 250);
    assert.ok(json.not_modified > 0);
    // Anonymous: GitHub counts the 304s too, so every counted request is one of them.
    assert.equal(json.requests, json.not_modified, "an unchanged re-sync costs only 304s");

    const usage = await longcall(dir.path, ["sync", "--kind", "gist", "big/repo", "--db", db], { fake });
    assert.equal(usage.code, 2);
    const badName = await longcall(dir.path, ["sync", "big/repo", "not/a/repo", "--db", db], { fake });
    assert.equal(badName.code, 2);
    assert.match(
      badName.stderr,
      /^longcall sync: Cannot sync: expected OWNER\/REPO .*current value is "not\/a\/repo"$/m,
    );

    await fake.close();
    const human = await longcall(dir.path, ["search", "layout", "shifts", "--repo", "big/repo", "--db", db]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^big\/repo#\d+\s+(open|closed) (issue|pr)\s+\S.*layout shifts/m);
    const found = await longcall(dir.path, [
      "search",
      "layout",
      "--kind",
      "issue",
      "--label",
      "bug",
      "--limit",
      "5",
      "--json",
      "--db",
      db,
    ]);
    assert.equal(found.code, 0, found.stderr);
    const answer = JSON.parse(found.stdout);
    assert.equal(answer.items.length, 5);
    assert.ok(
      answer.items.every((i: { kind: string; labels: string[] }) => i.kind === "issue" && i.labels.includes("bug")),
    );
    assert.equal(typeof answer.next_cursor, "string");
    const unsynced = await longcall(dir.path, ["search", "layout", "--repo", "never/synced", "--db", db]);
    assert.equal(unsynced.code, 0);
    assert.match(unsynced.stderr, /never\/synced was never synced/);
  } finally {
    await fake.close().catch(() => {});
  }
});

Deno.test("sync and checks watch run only the job they submit: work another process queued stays queued", async () => {
  await using dir = await tempDir("longcall-cli-");
  const fake = await scaledFake("checks_pass");
  try {
    const db = dir.file("shared.db");
    // Another process's queued work (a server that admitted it and has not claimed it yet), of a kind the
    // command's executor can run.
    const other = openRuntime({ db, kinds: { policies: productPolicies() }, log: silentLogger, execution: "none" });
    const queued: string[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const request = productRequest(WATCH_KIND, { ...SCENARIO_PULL, timeout_ms: 600_000 + i });
        queued.push((await other.control.submit(WATCH_KIND, request)).id);
      }
    } finally {
      await other.close();
    }
    const sync = await longcall(dir.path, ["sync", "octo/widgets", "--json", "--db", db], { fake });
    assert.equal(sync.code, 0, sync.stderr);
    const watch = await longcall(dir.path, watchArgs(db), { fake });
    assert.equal(watch.code, 0, watch.stderr);
    const list = await longcall(dir.path, ["jobs", "get", ...queued, "--json", "--db", db]);
    assert.equal(list.code, 0, list.stderr);
    const items = JSON.parse(list.stdout).items as { value: { execution_state: string; started_at?: string } }[];
    assert.deepEqual(
      items.map((i) => [i.value.execution_state, i.value.started_at]),
      queued.map(() => ["queued", undefined]),
      "never claimed by either command",
    );
  } finally {
    await fake.close();
  }
});

Deno.test("GitHub configuration is checked at start: a bad API URL, token file or token exits 2 naming the variable, admits nothing, shows no secret", async () => {
  await using dir = await tempDir("longcall-cli-");
  const db = dir.file("config.db");
  const tokenFile = dir.file("token");
  await Deno.writeTextFile(tokenFile, "ghp_first\nghp_second\n");
  const cases: { env: Record<string, string>; message: RegExp }[] = [
    {
      env: { LONGCALL_GITHUB_API_URL: "http://user:hunter2@127.0.0.1:9" },
      message:
        /Cannot use LONGCALL_GITHUB_API_URL: it holds credentials .*current value is "http:\/\/\*\*\*@127\.0\.0\.1:9\/"/,
    },
    { env: { LONGCALL_GITHUB_API_URL: "notaurl" }, message: /Cannot use LONGCALL_GITHUB_API_URL: it is not a URL/ },
    {
      env: { LONGCALL_GITHUB_API_URL: "http://api.example", GITHUB_TOKEN: "ghp_hunter2" },
      message: /Cannot use LONGCALL_GITHUB_API_URL: a token is never sent over plain http off loopback/,
    },
    {
      env: { LONGCALL_GITHUB_TOKEN_FILE: dir.file("missing") },
      message: /Cannot read the GitHub token from the file LONGCALL_GITHUB_TOKEN_FILE names: .*missing/,
    },
    {
      env: { LONGCALL_GITHUB_TOKEN_FILE: tokenFile },
      message: /Cannot use the GitHub token from LONGCALL_GITHUB_TOKEN_FILE: it holds a character .*not shown/,
    },
    { env: { GH_TOKEN: "ghp_hunter2 é" }, message: /Cannot use the GitHub token from GH_TOKEN/ },
  ];
  const commands = [
    ["sync", "octo/widgets", "--db", db],
    ["checks", "watch", "octo/widgets#42", "--db", db],
    ["permissions", "--db", db],
    ["serve", "--db", db],
  ];
  for (const { env, message } of cases) {
    for (const args of commands) {
      const run = await longcall(dir.path, args, { env: { LONGCALL_GITHUB_API_URL: "http://127.0.0.1:9", ...env } });
      const what = `${args[0]} with ${JSON.stringify(env)}`;
      assert.equal(run.code, 2, `${what}: ${run.stderr}`);
      assert.match(run.stderr, message, what);
      assert.equal(run.stderr.trim().split("\n").length, 1, `${what}: one line\n${run.stderr}`);
      assert.ok(!/hunter2|ghp_(first|second)/.test(run.stderr + run.stdout), `${what}: no secret shown`);
    }
  }
  assert.equal(await Deno.stat(db).then(() => true, () => false), false, "no command opened the database");
  const fake = await startFakeGitHub({});
  const fine = await longcall(dir.path, ["sync", "octo/widgets", "--json", "--db", db], {
    fake,
    env: { GITHUB_TOKEN: " ghp_padded\r\n" },
  });
  // A host's unfilled placeholder (an .mcpb bundle's, its optional token left empty) is no token: anonymous.
  const placeholder = await longcall(dir.path, ["sync", "octo/widgets", "--json", "--db", db], {
    fake,
    env: { GITHUB_TOKEN: "${user_config.github_token}" },
  }).finally(() => fake.close());
  assert.equal(placeholder.code, 0, placeholder.stderr);
  assert.equal(JSON.parse(placeholder.stdout).authenticated, false, "the placeholder was not sent as a token");
  assert.equal(fine.code, 0, `surrounding whitespace is dropped, as HTTP drops it: ${fine.stderr}`);
});

Deno.test("a bad setting in the environment is named as the variable, never as a flag nobody gave: exit 2 at start", async () => {
  await using dir = await tempDir("longcall-cli-");
  const cases: [Record<string, string>, RegExp][] = [
    [{ LONGCALL_RETENTION_MS: "abc" }, /^longcall serve: Cannot use LONGCALL_RETENTION_MS: expected an integer/],
    [{ LONGCALL_LINGER_MS: "-1" }, /^longcall serve: Cannot use LONGCALL_LINGER_MS: expected an integer/],
    [{ LONGCALL_SYNCHRONOUS: "OFF" }, /^longcall serve: Cannot use LONGCALL_SYNCHRONOUS: expected NORMAL or FULL/],
    [
      { LONGCALL_LOG: "verbose" },
      /^longcall serve: Cannot use LONGCALL_LOG: expected silent, error, warn, info or debug/,
    ],
  ];
  for (const [env, message] of cases) {
    const run = await longcall(dir.path, ["serve", "--db", dir.file("x.db")], { env });
    assert.equal(run.code, 2, `${JSON.stringify(env)}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
  const flag = await longcall(dir.path, ["serve", "--retention-ms", "abc", "--db", dir.file("x.db")], {
    env: { LONGCALL_RETENTION_MS: "5000" },
  });
  assert.match(flag.stderr, /Cannot use --retention-ms: expected an integer/, "the flag, when it was the flag");
});

Deno.test("--help of checks watch, sync and search exits 0 with usage and an example", async () => {
  await using dir = await tempDir("longcall-cli-");
  const helps = await Promise.all([
    longcall(dir.path, ["checks", "watch", "--help"]),
    longcall(dir.path, ["sync", "--help"]),
    longcall(dir.path, ["search", "--help"]),
  ]);
  const names = ["checks watch", "sync", "search"];
  for (const [i, h] of helps.entries()) {
    assert.equal(h.code, 0, h.stderr);
    assert.match(h.stdout, new RegExp(`^Usage: longcall ${names[i]}`));
    assert.match(h.stdout, new RegExp(`Examples:\\n  longcall ${names[i]} `));
  }
  assert.match(helps[0]?.stdout ?? "", /8 +timed_out/);
  const top = await longcall(dir.path, ["--help"]);
  assert.equal(top.code, 0);
  assert.match(top.stdout, /checks watch/);
});
