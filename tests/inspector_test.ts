/**
 * The official MCP Inspector CLI (npm `@modelcontextprotocol/inspector@2.12.0`, `--cli --protocol-era
 * modern`) drives the shipped server (`src/main.ts serve` with the shipped permission flags and `--linger-ms 0`, from
 * shippedServeArgs) over
 * stdio and over `serve --http`: it calls `github.wait_pull_request_checks` as a task against the
 * fake GitHub, polls `tasks/get` itself and validates the completed result against the tool's
 * `outputSchema` with Ajv. It must print the verdict, not a schema error. `--strict` must find
 * nothing to warn about in our schemas.
 *
 * The Inspector is run with `npx --prefer-offline -y` (Node and npm on PATH; the package comes from
 * the npm cache, else from the npm registry). Without npx on PATH the tests are skipped with a reason.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/inspector_test.ts
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type FakeCheck, type FakeGitHub, SCENARIO_PULL, startFakeGitHub } from "../testing/fake_github.ts";
import { denoCacheEnv, spawnHttpServer } from "../testing/mcp_clients.ts";
import { shippedServeArgs } from "./helpers/longcall_procs.ts";
import { tempDir } from "../testing/temp.ts";

const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));
/** Simulated time rate of the server's job clock: a 5 s watch poll interval takes 0.5 s. */
const TIME_RATE = 10;
const HTTP_TOKEN = "inspector-test-token-0123456789abcdef";

/** A CI that is pending for the first ~1.5 s of real time, then green. */
const PENDING: FakeCheck[] = [{ name: "build", status: "in_progress" }, { name: "lint", status: "queued" }];
const GREEN: FakeCheck[] = [
  { name: "build", status: "completed", conclusion: "success" },
  { name: "lint", status: "completed", conclusion: "success" },
];

function npxPath(): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir === "") continue;
    try {
      const path = `${dir}/npx`;
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not here */ }
  }
  return undefined;
}

const NPX = npxPath();
/**
 * `-e` pairs that give the stdio server the Deno cache of this process: the Inspector starts it with only
 * HOME, LOGNAME, PATH, SHELL, TERM and USER of its own environment, plus these.
 */
const denoCacheArgs = Object.entries(denoCacheEnv()).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
if (NPX === undefined) {
  console.log(`inspector_test: skipping: npx (Node.js/npm) is not on PATH, so ${INSPECTOR} cannot run`);
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the Inspector CLI with a minimal environment (no GitHub token of this machine leaks through). */
async function inspector(args: readonly string[]): Promise<Run> {
  const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1" };
  for (const name of ["HOME", "npm_config_cache", "NPM_CONFIG_CACHE", "npm_config_registry", "TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const out = await new Deno.Command(NPX as string, {
    args: ["--prefer-offline", "-y", INSPECTOR, "--cli", "--protocol-era", "modern", ...args],
    cwd: REPO_ROOT,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** The shipped server's `serve` arguments against `fake` on `db`, `options.extra` appended. */
function serveArgs(fake: FakeGitHub, db: string, options: { extra?: readonly string[] } = {}): string[] {
  const { extra = [] } = options;
  return shippedServeArgs(new URL(fake.url).host, db, { timeRate: TIME_RATE, extra });
}

const WATCH_ARGS = JSON.stringify({ ...SCENARIO_PULL, poll_interval_ms: 5_000, timeout_ms: 600_000 });

/** Asserts the Inspector printed the watch's completed task result with the CI verdict. */
function assertVerdict(run: Run, what: string): void {
  const context = `${what}: exit ${run.code}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
  assert.equal(run.code, 0, context);
  assert.doesNotMatch(run.stdout + run.stderr, /must match a schema|must have required property|outputSchema/, context);
  // `--format json` wraps the CallToolResult in {result}. A JobReference (the legacy answer) has no
  // `result`: seeing the job's result proves the Inspector followed the task to completion.
  const printed = (JSON.parse(run.stdout) as { result: unknown }).result as {
    structuredContent?: { kind?: string; outcome?: string; result?: { outcome?: string; summary?: unknown } };
    isError?: boolean;
  };
  assert.notEqual(printed.isError, true, context);
  assert.equal(printed.structuredContent?.kind, "github.wait_pull_request_checks", context);
  assert.equal(printed.structuredContent?.outcome, "succeeded", context);
  assert.equal(printed.structuredContent?.result?.outcome, "succeeded", context);
  assert.deepEqual(printed.structuredContent?.result?.summary, { total: 2, pending: 0, passed: 2, failed: 0 }, context);
}

async function withFake(fn: (fake: FakeGitHub) => Promise<void>): Promise<void> {
  const fake = await startFakeGitHub({ scenario: [{ atMs: 0, checks: PENDING }, { atMs: 1_500, checks: GREEN }] });
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

const common = { ignore: NPX === undefined, sanitizeResources: true, sanitizeOps: true };

Deno.test({
  name: "MCP Inspector CLI over stdio: a watch called as a task prints the CI verdict, no schema error",
  ...common,
  fn: async () => {
    await using dir = await tempDir("longcall-inspector-");
    await withFake(async (fake) => {
      const run = await inspector([
        "--format",
        "json",
        "-e",
        `LONGCALL_GITHUB_API_URL=${fake.url}`,
        "-e",
        "LONGCALL_LOG=warn",
        ...denoCacheArgs,
        "--method",
        "tools/call",
        "--tool-name",
        "github.wait_pull_request_checks",
        "--tool-args-json",
        WATCH_ARGS,
        Deno.execPath(),
        ...serveArgs(fake, dir.file("jobs.db")),
      ]);
      assertVerdict(run, "stdio");
      // It really polled GitHub until the verdict (the pending phase was observed, then the green one).
      assert.ok(fake.counts.total >= 3, `GitHub requests: ${JSON.stringify(fake.counts)}`);
    });
  },
});

Deno.test({
  name: "MCP Inspector CLI over serve --http with a bearer token: a watch called as a task prints the CI verdict",
  ...common,
  fn: async () => {
    await using dir = await tempDir("longcall-inspector-");
    await withFake(async (fake) => {
      await using server = await spawnHttpServer({
        command: Deno.execPath(),
        args: serveArgs(fake, dir.file("jobs.db"), { extra: ["--http", "--listen", "127.0.0.1:0"] }),
        cwd: REPO_ROOT,
        env: {
          LONGCALL_LOG: "warn",
          LONGCALL_HTTP_TOKEN: HTTP_TOKEN,
          LONGCALL_GITHUB_API_URL: fake.url,
          GITHUB_TOKEN: "",
          GH_TOKEN: "",
          LONGCALL_GITHUB_TOKEN_FILE: "",
          LONGCALL_DB: "",
        },
      }, { path: "/mcp" });
      const run = await inspector([
        "--format",
        "json",
        "--transport",
        "http",
        "--server-url",
        server.url.href,
        "--header",
        `Authorization: Bearer ${HTTP_TOKEN}`,
        "--method",
        "tools/call",
        "--tool-name",
        "github.wait_pull_request_checks",
        "--tool-args-json",
        WATCH_ARGS,
      ]);
      assertVerdict(run, "http");
    });
  },
});

Deno.test({
  name: "MCP Inspector CLI --strict finds no portability problem in any tool schema",
  ...common,
  fn: async () => {
    await using dir = await tempDir("longcall-inspector-");
    await withFake(async (fake) => {
      const run = await inspector([
        "--strict",
        "-e",
        `LONGCALL_GITHUB_API_URL=${fake.url}`,
        "-e",
        "LONGCALL_LOG=warn",
        ...denoCacheArgs,
        "--method",
        "tools/list",
        Deno.execPath(),
        ...serveArgs(fake, dir.file("jobs.db")),
      ]);
      const context = `exit ${run.code}\n--- stderr ---\n${run.stderr}`;
      assert.equal(run.code, 0, context);
      const tools = (JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
      assert.ok(tools.includes("github.wait_pull_request_checks"), run.stdout);
      assert.doesNotMatch(run.stderr, /Warning: tool|Error: tool|\d+ warnings? across/, context);
    });
  },
});
