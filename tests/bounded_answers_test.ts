/**
 * Answers bounded per item (issue 12, finding 2): `jobs.get`, `tasks/get` and every corpus read
 * fit MCP_RESULT_BYTES_MAX by shortening their largest items (flagged `truncated: true` with
 * `omitted_bytes`) instead of failing the whole batch. Real watches of hundreds of long check
 * names run against the fake GitHub over a real SQLite store.
 */

import assert from "node:assert/strict";
import { jsonBytes, shrinkJson } from "../src/base/json_bound.ts";
import { JOB_RESULT_VIEW_BYTES_MAX, MCP_RESULT_BYTES_MAX } from "../src/base/limits.ts";
import { productTools } from "../src/mcp/product_tools.ts";
import { WATCH_KIND, type WatchResult } from "../src/github/watch_kind.ts";
import { fitItems, toolResultBytes } from "../src/mcp/fit_answer.ts";
import type { ToolDef } from "../src/mcp/tools.ts";
import { type ToolResult, withErrorOutput } from "../src/mcp/tool_kit.ts";
import { CorpusRows } from "../src/store/corpus_rows.ts";
import { getTaskResult } from "../src/tasks/task_projection.ts";
import { type GitHubHarness, openGitHubHarness, productRequest, TERMINAL } from "../testing/github_jobs.ts";
import { type FakeCheck, SCENARIO_PULL } from "../testing/fake_github.ts";
import { assertMatchesAdvertised } from "../testing/output_schemas.ts";
import { waitForStatus } from "../testing/temp.ts";

type Json = Record<string, unknown>;

Deno.test("shrinkJson() keeps a value of exactly bytesMax and shortens one byte more into valid JSON of the same shape", () => {
  const value = { id: "j1", names: Array.from({ length: 50 }, (_, i) => `check "${i}" ${"n".repeat(40)}`), n: 7 };
  const size = jsonBytes(value);
  assert.deepEqual(shrinkJson(value, size), { value, omittedBytes: 0 });
  const past = shrinkJson(value, size - 1);
  const shortened = past.value as typeof value;
  assert.ok(jsonBytes(shortened) <= size - 1);
  assert.equal(past.omittedBytes, size - jsonBytes(shortened));
  assert.equal(shortened.id, "j1", "small fields stay whole");
  assert.equal(shortened.n, 7);
  assert.deepEqual(shortened.names, value.names.slice(0, shortened.names.length), "a list keeps its first entries");
  for (const budget of [0, 1, 2, 10, 100, 1_000]) {
    const { value: v } = shrinkJson(value, budget);
    assert.ok(jsonBytes(v) <= Math.max(budget, 2), `budget ${budget}: ${JSON.stringify(v)}`);
  }
});

Deno.test("shrinkJson() never splits a surrogate pair and rejects a bad budget", () => {
  const s = "😀".repeat(100);
  for (let max = 2; max < 40; max++) {
    const { value } = shrinkJson(s, max);
    assert.ok(!/[\uD800-\uDBFF]$/.test(value as string), `max ${max}`);
    assert.ok(jsonBytes(value) <= max);
  }
  assert.throws(() => shrinkJson(s, -1), RangeError);
  assert.throws(() => shrinkJson(s, 1.5), RangeError);
});

Deno.test("fitItems() shortens only the items over the water level and leaves small ones whole", () => {
  const big = (i: number) => ({ key: `k${i}`, item_status: "complete", value: { id: i, blob: "b".repeat(150_000) } });
  const small = { key: "small", item_status: "complete", value: { id: "s" } };
  const missing = { key: "gone", item_status: "unavailable", reason: "not_found", message: "No job gone" };
  const answer = { batch_status: "partial", items: [big(0), small, big(1), missing, big(2)] };
  assert.ok(toolResultBytes(answer) > MCP_RESULT_BYTES_MAX);
  const fitted = fitItems(answer) as { items: Json[] };
  assert.ok(toolResultBytes(fitted) <= MCP_RESULT_BYTES_MAX);
  assert.deepEqual(fitted.items[1], small);
  assert.deepEqual(fitted.items[3], missing);
  for (const i of [0, 2, 4]) {
    const item = fitted.items[i]!;
    assert.equal(item["truncated"], true);
    assert.equal((item["value"] as Json)["id"], i / 2);
    assert.equal(item["omitted_bytes"], jsonBytes((answer.items[i] as Json)["value"]) - jsonBytes(item["value"]));
  }
  assert.equal(fitItems({ s: "x".repeat(MCP_RESULT_BYTES_MAX) }), undefined, "no items list: nothing to fit");
});

/** A check name as long as GitHub allows in practice, with quotes that grow when escaped. */
const longName = (i: number) => `"matrix" build (${i}) / ${"linux-x86_64-".repeat(18)}${i}`;

async function watchAll(h: GitHubHarness, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const job = await h.control.submit(
      WATCH_KIND,
      productRequest(WATCH_KIND, {
        owner: SCENARIO_PULL.owner,
        repo: SCENARIO_PULL.repo,
        number: SCENARIO_PULL.number,
        timeout_ms: 600_000 + i, // distinct requests
      }),
    );
    ids.push(job.id);
  }
  for (const id of ids) {
    const row = await waitForStatus(h.store, id, { status: TERMINAL, timeoutMs: 60_000 });
    assert.equal(row.status, "succeeded", JSON.stringify(row.error));
  }
  return ids;
}

function tool(tools: ToolDef[], name: string): ToolDef {
  const t = tools.find((x) => x.name === name);
  assert.ok(t !== undefined, name);
  return t;
}

/** Calls a tool and checks the answer is a success within the bound; returns its structuredContent. */
async function callBounded(t: ToolDef, args: Json): Promise<{ items: Json[] } & Json> {
  const result = await t.call(args, { authority: null, tasksDeclared: false }) as ToolResult;
  assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent).slice(0, 500));
  assert.ok(jsonBytes(result) <= MCP_RESULT_BYTES_MAX, `${jsonBytes(result)} bytes`);
  assert.deepEqual(JSON.parse(result.content[0]!.text), result.structuredContent, "text and structured agree");
  // The shortened answer is still what the tool advertises: clients that validate must accept it.
  assert.ok(t.outputSchema !== undefined, `${t.name} advertises an outputSchema`);
  assertMatchesAdvertised(withErrorOutput(t.outputSchema()), result.structuredContent, { what: `${t.name} answer` });
  return result.structuredContent as { items: Json[] } & Json;
}

Deno.test("jobs.get detailed of 12 watches of 250 long-named checks answers every item within the bound", async () => {
  const checks: FakeCheck[] = Array.from({ length: 250 }, (_, i) => ({
    name: longName(i),
    status: "completed",
    conclusion: "success",
  }));
  await using h = await openGitHubHarness({ scenario: [{ atMs: 0, checks }] });
  const ids = await watchAll(h, 12);
  const one = h.store.rows.jobGet(ids[0]!);
  assert.ok(jsonBytes(one?.result) > 40_000, "each result is large");
  const tools = productTools(h.control, h.store);

  const batch = await callBounded(tool(tools, "jobs.get"), { ids, response_format: "detailed" });
  assert.equal(batch["batch_status"], "complete");
  assert.equal(batch.items.length, 12);
  for (const [i, item] of batch.items.entries()) {
    assert.equal(item["key"], ids[i]);
    assert.equal(item["item_status"], "complete");
    assert.equal(item["truncated"], true);
    assert.ok((item["omitted_bytes"] as number) > 0);
    const value = item["value"] as Json;
    assert.equal(value["id"], ids[i], "identity survives truncation");
    assert.equal(value["execution_state"], "terminal");
    assert.equal(value["outcome"], "succeeded");
  }
  // Concise needs no truncation; one detailed item alone fits whole (its result view is bounded).
  const concise = await callBounded(tool(tools, "jobs.get"), { ids });
  assert.ok(concise.items.every((item) => item["truncated"] === undefined));
  const single = await callBounded(tool(tools, "jobs.get"), { ids: [ids[0]], response_format: "detailed" });
  assert.equal(single.items[0]?.["truncated"], undefined);
  // Its result is over the per-job view bound, so the view itself says what it left out.
  const view = single.items[0]?.["value"] as Json;
  assert.equal(view["result_truncated"], true);
  assert.equal(view["result_omitted_bytes"], jsonBytes(one?.result) - jsonBytes(view["result"]));
  const stored = (one?.result as WatchResult).checks;
  const shown = (view["result"] as WatchResult).checks;
  assert.deepEqual(shown, stored.slice(0, shown.length), "the view keeps the first checks whole");

  // Cancelling them all (terminal items carry their concise view) fits as well.
  const cancel = await callBounded(tool(tools, "jobs.cancel"), { ids });
  assert.equal(cancel.items.length, 12);
});

Deno.test("corpus.get_pull_request_checks of 100 stored observations of long check names fits by truncating items", async () => {
  const checks: FakeCheck[] = Array.from({ length: 250 }, (_, i) => ({
    name: longName(i),
    status: "completed",
    conclusion: "success",
  }));
  await using h = await openGitHubHarness({ scenario: [{ atMs: 0, checks }] });
  await watchAll(h, 1);
  const tools = productTools(h.control, h.store);
  const ref = `${SCENARIO_PULL.owner}/${SCENARIO_PULL.repo}#${SCENARIO_PULL.number}`;
  const alone = await callBounded(tool(tools, "corpus.get_pull_request_checks"), { pull_requests: [ref] });
  const whole = alone.items[0]!["value"] as { checks: unknown[] };
  assert.equal(alone.items[0]!["truncated"], undefined);
  const answer = await callBounded(tool(tools, "corpus.get_pull_request_checks"), {
    pull_requests: Array(100).fill(ref),
  });
  assert.equal(answer.items.length, 100);
  for (const item of answer.items) {
    assert.equal(item["truncated"], true);
    const value = item["value"] as { ref: string; checks: unknown[] };
    assert.equal(value.ref, ref);
    assert.deepEqual(value.checks, whole.checks.slice(0, value.checks.length), "a prefix of the checks");
    assert.ok(value.checks.length < whole.checks.length);
  }
});

Deno.test("corpus.get_threads full, corpus.get_repositories and corpus.search_threads fit with truncated items", async () => {
  await using h = await openGitHubHarness({ scenario: [] });
  const corpus = new CorpusRows(h.store.conn);
  const now = Date.UTC(2026, 0, 1);
  const repository = "octo/widgets";
  await corpus.repositoryUpsert({
    owner: "octo",
    name: "widgets",
    description: "d".repeat(10_000),
    topics: Array.from({ length: 20 }, (_, i) => `topic-${i}`),
    default_branch: "main",
    stargazers_count: 1,
    license: "MIT",
    archived: false,
    observed_at: now,
  });
  await corpus.threadsUpsert(
    repository,
    Array.from({ length: 100 }, (_, i) => ({
      number: i + 1,
      kind: "issue" as const,
      state: "open" as const,
      title: `needle "quoted" title ${i} ${"t".repeat(900)}`,
      body: `body ${i} ${'"b" '.repeat(15_000)}`,
      labels: Array.from({ length: 100 }, (_, j) => `label-${j}-${"l".repeat(40)}`),
      author: "octocat",
      comments: 0,
      created_at: now,
      updated_at: now + i,
      closed_at: null,
      merged: null,
      html_url: `https://github.com/${repository}/issues/${i + 1}`,
    })),
    { observedAt: now },
  );
  const tools = productTools(h.control, h.store);
  const threads = await callBounded(tool(tools, "corpus.get_threads"), {
    threads: Array.from({ length: 100 }, (_, i) => `${repository}#${i + 1}`),
    view: "full",
  });
  assert.equal(threads.items.length, 100);
  for (const [i, item] of threads.items.entries()) {
    assert.equal(item["truncated"], true);
    assert.equal((item["value"] as Json)["number"], i + 1);
  }
  const repos = await callBounded(tool(tools, "corpus.get_repositories"), {
    repositories: Array(100).fill(repository),
  });
  assert.ok(repos.items.every((item) => item["item_status"] === "complete"));
  const search = await callBounded(tool(tools, "corpus.search_threads"), { query: "needle", limit: 50 });
  assert.equal(search.items.length, 50);
  assert.ok(typeof search["interpreted_query"] === "string", "the answer's own fields stay whole");
});

Deno.test("tasks/get of a job with a result far over the view bound answers within the bound with the truncation flags", async () => {
  const checks: FakeCheck[] = Array.from({ length: 250 }, (_, i) => ({
    name: `${longName(i)}${"\\".repeat(100)}`, // backslashes double when the text copy escapes them
    status: "completed",
    conclusion: "success",
  }));
  await using h = await openGitHubHarness({ scenario: [{ atMs: 0, checks }] });
  const [id] = await watchAll(h, 1);
  const row = h.store.rows.jobGet(id!)!;
  assert.ok(jsonBytes(row.result) > JOB_RESULT_VIEW_BYTES_MAX);
  const task = getTaskResult(row, h.control) as unknown as { status: string; result: Json };
  assert.equal(task.status, "completed");
  assert.ok(jsonBytes(task) <= MCP_RESULT_BYTES_MAX, `${jsonBytes(task)} bytes`);
  const structured = task.result["structuredContent"] as Json;
  assert.equal(structured["result_truncated"], true);
  assert.ok((structured["result_omitted_bytes"] as number) > 0);
  const result = structured["result"] as WatchResult;
  assert.equal(result.outcome, "succeeded", "the shortened result keeps its shape");
  assert.ok(result.checks.length > 0 && result.checks.length < (row.result as WatchResult).checks.length);
});
