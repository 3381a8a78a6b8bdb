/**
 * The official Python MCP client (`mcp` 2.3.0, `mcp.Client`) against the shipped server over stdio, in
 * both of its eras: `legacy` (initialize, 2025-11-25) and `auto` (server/discover, 2026-07-28). Its
 * `call_tool` validates each result's `structuredContent` against the tool's `outputSchema` with Python's
 * `jsonschema` and raises on a mismatch, so every tool result longcall sends (JobReferences, `jobs.get`
 * concise and detailed with the watch's and the sync's typed results, the corpus reads, `jobs.cancel`, a
 * refused argument's typed error) is checked by a validator nobody here wrote. The client declares no
 * Tasks extension, so the script follows each job with `jobs.get` `wait_ms` as a host without tasks does
 * (tests/helpers/python_client.py).
 *
 * Needs the client's environment (`deno task python-client`, testing/python_mcp.ts); without it the tests
 * are skipped and say why. They install nothing themselves.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/python_client_test.ts
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type FakeCheck, startFakeGitHub } from "../testing/fake_github.ts";
import { denoCacheEnv } from "../testing/mcp_clients.ts";
import { PYTHON_MCP_REQUIREMENT, pythonWithMcp } from "../testing/python_mcp.ts";
import { tempDir } from "../testing/temp.ts";
import { shippedServeArgs } from "./helpers/longcall_procs.ts";

const DRIVER = fileURLToPath(new URL("./helpers/python_client.py", import.meta.url));
/** The server's job clock runs this much faster: the watch's 5 s polls take 0.1 s. */
const TIME_RATE = 50;
const PENDING: FakeCheck[] = [{ name: "build", status: "in_progress" }];
const GREEN: FakeCheck[] = [{ name: "build", status: "completed", conclusion: "success" }];

const python = pythonWithMcp();
if ("reason" in python) console.log(`python_client_test: skipping: ${python.reason}`);

interface DriverOutput {
  mode: string;
  protocol_version: string;
  tools: string[];
  calls: { tool: string; is_error: boolean; keys: string[] }[];
  watch_reference: string;
  watch: { outcome: string; result: { outcome: string; summary: Record<string, number> } };
  sync: { outcome: string; result: { items: { key: string; item_status: string; reason?: string }[] } };
  refused: { error: { code: string; path?: string } };
}

async function drive(mode: "legacy" | "auto"): Promise<DriverOutput> {
  if ("reason" in python) throw new Error(python.reason);
  await using dir = await tempDir("longcall-python-");
  const fake = await startFakeGitHub({
    scenario: [{ atMs: 0, checks: PENDING }, { atMs: 1_500, checks: GREEN }],
    generatedRepos: { "a/one": 5 },
  });
  try {
    const server = {
      command: Deno.execPath(),
      args: shippedServeArgs(new URL(fake.url).host, dir.file("jobs.db"), { timeRate: TIME_RATE }),
      // The Python client gives the server only HOME, LOGNAME, PATH, SHELL, TERM and USER of its own
      // environment, plus these: no GitHub token of this machine reaches the server.
      env: {
        ...denoCacheEnv(),
        LONGCALL_GITHUB_API_URL: fake.url,
        LONGCALL_LOG: "warn",
        GITHUB_TOKEN: "",
        GH_TOKEN: "",
        LONGCALL_GITHUB_TOKEN_FILE: "",
        LONGCALL_DB: "",
      },
    };
    const out = await new Deno.Command(python.python, {
      args: [DRIVER, mode, JSON.stringify(server)],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, `the Python client failed (exit ${out.code}):\n${stderr.slice(-4_000)}`);
    assert.ok(fake.counts.total > 0, "the server polled the fake GitHub");
    return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as DriverOutput;
  } finally {
    await fake.close();
  }
}

for (const [mode, version] of [["legacy", "2025-11-25"], ["auto", "2026-07-28"]] as const) {
  Deno.test({
    name: `${PYTHON_MCP_REQUIREMENT} (${mode}, ${version}): every result validates against its outputSchema, and a ` +
      "watch and a sync followed with jobs.get end with their verdicts",
    ignore: "reason" in python,
    fn: async () => {
      const out = await drive(mode);
      assert.equal(out.protocol_version, version);
      assert.deepEqual(out.tools, [
        "corpus.get_pull_request_checks",
        "corpus.get_repositories",
        "corpus.get_threads",
        "corpus.search_threads",
        "github.sync_threads",
        "github.wait_pull_request_checks",
        "jobs.cancel",
        "jobs.get",
      ]);
      // The driver reached its last call, so the client accepted every result before it.
      assert.equal(out.calls.length, 13);
      assert.deepEqual(out.calls.filter((c) => c.is_error).map((c) => c.tool), ["github.wait_pull_request_checks"]);
      assert.match(out.watch_reference, /^job:/, "a client without tasks gets a JobReference");
      assert.equal(out.watch.outcome, "succeeded");
      assert.equal(out.watch.result.outcome, "succeeded");
      assert.deepEqual(out.watch.result.summary, { total: 1, pending: 0, passed: 1, failed: 0 });
      assert.equal(out.sync.outcome, "partial");
      assert.deepEqual(
        out.sync.result.items.map((i) => [i.key, i.item_status, i.reason]),
        [["a/one", "complete", undefined], ["octo/absent", "unavailable", "not_found"]],
      );
      assert.equal(out.refused.error.code, "invalid_argument");
    },
  });
}
