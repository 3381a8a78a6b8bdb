/**
 * Input checked at admission (issue 12, finding 5): GitHub's owner and repository naming rules
 * (src/base/names.ts) for the watch and sync inputs, the corpus references and the CLI, each bad
 * value answered `invalid_argument` with its path before anything is written; and a malformed
 * value from GitHub (a head SHA that is not 40 hex) ends a watch as a typed `github_invalid`.
 * MCP calls go over the wire to a real server child (the shipped tools, `--product`). The rules
 * themselves, value by value, are unit-tested beside them (src/base/names_test.ts).
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/names_test.ts
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { GITHUB_NUMBER_MAX } from "../src/base/limits.ts";
import { parsePullRef } from "../src/cli/checks_watch_cmd.ts";
import { SYNC_KIND } from "../src/github/sync_kind.ts";
import { WATCH_KIND } from "../src/github/watch_kind.ts";
import { SCENARIO_PULL } from "../testing/fake_github.ts";
import { openGitHubHarness, productRequest, TERMINAL } from "../testing/github_jobs.ts";
import { REPO_ROOT, TEST_SERVER } from "./helpers/longcall_procs.ts";
import { connectLegacyV1, denoExecPath } from "../testing/mcp_clients.ts";
import { tempDir, waitForStatus } from "../testing/temp.ts";

/** Also in src/base/names_test.ts, value by value: here each must be refused over the wire. */
const BAD_OWNERS = [".", "..", "-", "_x", "a-", "-a", "a--b", "a_b", "a.b", "", "a/b", "é", "a".repeat(40)];
const BAD_REPOS = [".", "..", "-x", "", "a/b", "a b", "é", "a#1", "a".repeat(101)];

Deno.test("CLI parsePullRef refuses a bad reference with a usage error naming it", () => {
  for (const bad of ["acme/..#1", "_x/repo#1", "https://github.com/acme/./pull/1", "acme/repo#01"]) {
    assert.throws(() => parsePullRef(bad), (err: Error) => err.name === "UsageError" && err.message.includes(bad));
  }
  assert.deepEqual(parsePullRef("acme/repo#7"), { owner: "acme", repo: "repo", number: 7 });
});

type ToolAnswer = { isError?: boolean; structuredContent?: Record<string, unknown> };

Deno.test("MCP: every bad name is invalid_argument with its path, and nothing is written", async () => {
  await using dir = await tempDir();
  const db = dir.file("names.db");
  const client = await connectLegacyV1({
    command: denoExecPath(),
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir.path}`,
      `--allow-write=${dir.path}`,
      "--allow-env",
      "--allow-net=127.0.0.1",
      TEST_SERVER,
      "serve",
      "--product",
      "--db",
      db,
    ],
    cwd: REPO_ROOT,
    // Nothing may reach a GitHub: admission refuses first. Port 9 (discard) would refuse anyway.
    env: { LONGCALL_LOG: "error", LONGCALL_HTTP_TOKEN: "", LONGCALL_GITHUB_API_URL: "http://127.0.0.1:9" },
    stderr: "inherit",
  });
  try {
    const call = async (name: string, args: Record<string, unknown>) =>
      await client.callTool({ name, arguments: args }) as ToolAnswer;
    // The tool call `tool` is refused as invalid_argument at `path`.
    const expectInvalid = async (tool: { name: string; args: Record<string, unknown> }, path: string) => {
      const { name, args } = tool;
      const r = await call(name, args);
      const error = r.structuredContent?.error as Record<string, unknown> | undefined;
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r)}`);
      assert.equal(error?.code, "invalid_argument", `${name} ${JSON.stringify(args)}: ${JSON.stringify(error)}`);
      assert.equal(error?.path, path, `${name} ${JSON.stringify(args)}`);
    };
    for (const owner of BAD_OWNERS) {
      await expectInvalid({ name: WATCH_KIND, args: { owner, repo: "widgets", number: 1 } }, "$.owner");
    }
    for (const repo of BAD_REPOS) {
      await expectInvalid({ name: WATCH_KIND, args: { owner: "octo", repo, number: 1 } }, "$.repo");
    }
    for (const bad of ["acme/..", "acme/.", "-acme/x", "acme-/x", "acme/-x", "_x/y", "acme", "acme/x/y"]) {
      await expectInvalid({ name: SYNC_KIND, args: { repositories: ["octo/widgets", bad] } }, "$.repositories.1");
    }
    for (const bad of ["acme/..#1", "_x/y#1", "acme/x#0", "acme/x#01", `acme/x#${GITHUB_NUMBER_MAX + 1}`]) {
      await expectInvalid({ name: "corpus.get_threads", args: { threads: ["octo/widgets#1", bad] } }, "$.threads.1");
      await expectInvalid(
        { name: "corpus.get_pull_request_checks", args: { pull_requests: [bad] } },
        "$.pull_requests.0",
      );
    }
    for (const bad of ["acme/..", "-acme/x", "_x/y"]) {
      await expectInvalid({ name: "corpus.get_repositories", args: { repositories: [bad] } }, "$.repositories.0");
    }
    // A good value is admitted (the job is written), so the refusals above were not a broken server.
    const ok = await call(WATCH_KIND, { owner: "a".repeat(39), repo: "." + "b".repeat(99), number: 1 });
    assert.notEqual(ok.isError, true, JSON.stringify(ok));
  } finally {
    await client.close();
  }
  const check = new DatabaseSync(db, { readOnly: true });
  try {
    const n = (check.prepare("SELECT count(*) AS n FROM jobs").get() as { n: number }).n;
    assert.equal(n, 1, "only the good submission was written");
  } finally {
    check.close();
  }
});

Deno.test("A head SHA from GitHub that is not 40 hex ends the watch as github_invalid", async () => {
  for (const headSha of ["not-a-sha", "A".repeat(40), "a".repeat(41)]) {
    await using h = await openGitHubHarness({
      scenario: [{ atMs: 0, headSha, checks: [{ name: "build", status: "completed", conclusion: "success" }] }],
    });
    const job = await h.control.submit(WATCH_KIND, productRequest(WATCH_KIND, { ...SCENARIO_PULL }));
    const row = await waitForStatus(h.store, job.id, { status: TERMINAL, timeoutMs: 30_000 });
    assert.equal(row.status, "failed", headSha);
    assert.equal(row.error?.code, "github_invalid", JSON.stringify(row.error));
    assert.equal(row.error?.retryable, false);
    // With the SHA given by the client, the pull request's answer is still checked.
    const pinned = await h.control.submit(
      WATCH_KIND,
      productRequest(WATCH_KIND, { ...SCENARIO_PULL, expected_head_sha: "c".repeat(40) }),
    );
    const pinnedRow = await waitForStatus(h.store, pinned.id, { status: TERMINAL, timeoutMs: 30_000 });
    assert.equal(pinnedRow.error?.code, "github_invalid", JSON.stringify(pinnedRow.error));
  }
});

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));

async function cli(dir: string, args: readonly string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      "--allow-env",
      "--deny-net",
      MAIN,
      ...args,
    ],
    env: { LONGCALL_LOG: "warn", LONGCALL_DB: "", LONGCALL_GITHUB_API_URL: "http://127.0.0.1:9" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("CLI: checks watch and sync refuse bad names before anything is written", async () => {
  await using dir = await tempDir();
  const db = dir.file("cli.db");
  for (const ref of ["acme/..#1", "_x/y#1", "https://github.com/acme/../pull/1"]) {
    const r = await cli(dir.path, ["checks", "watch", ref, "--db", db]);
    assert.notEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /Cannot watch a pull request/);
    assert.doesNotMatch(r.stderr, /internal/i);
  }
  const r = await cli(dir.path, ["sync", "acme/..", "--db", db]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /Cannot sync: expected OWNER\/REPO .*current value is "acme\/\.\."/);
  assert.doesNotMatch(r.stderr, /internal/i);
  let jobs = 0;
  try {
    const check = new DatabaseSync(db, { readOnly: true });
    jobs = (check.prepare("SELECT count(*) AS n FROM jobs").get() as { n: number }).n;
    check.close();
  } catch {
    jobs = 0; // never created: nothing was written either
  }
  assert.equal(jobs, 0);
});
