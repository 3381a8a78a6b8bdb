/**
 * The shipped server's output schemas against what it really sends, over stdio and streamable HTTP,
 * with the product tools against the fake GitHub: every structuredContent (the JobReference, the
 * CreateTaskResult's copy, completed task results of every shape, the typed error, `jobs.get` and
 * `jobs.cancel` items) validates with Ajv 2020 against its tool's `outputSchema` from `tools/list`
 * (the helpers in mcp_clients.ts check each one on the wire; the v1 client checks again with its
 * own validator). Also: `_meta["anthropic/alwaysLoad"]`, the first poll guidance of a watch, and
 * text that still reads right when a host renames `jobs.get` to `mcp__longcall__jobs_get`.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/mcp_output_schemas_test.ts
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { Ajv2020 } from "ajv/dist/2020.js";
import { JOB_RESULT_VIEW_BYTES_MAX, POLL_INTERVAL_MS_MIN } from "../src/base/limits.ts";
import { watchResultOutput } from "../src/github/result_schemas.ts";
import { jobHandle } from "../src/jobs/projection.ts";
import { jobReference } from "../src/mcp/job_reference.ts";
import { INSTRUCTIONS } from "../src/mcp/server.ts";
import { withErrorOutput } from "../src/mcp/tool_kit.ts";
import { jobTool } from "../src/mcp/tools.ts";
import { terminalToolResult } from "../src/tasks/task_projection.ts";
import type { JobRow } from "../src/store/job_rows.ts";
import type { JobControl } from "../src/jobs/control.ts";
import { type FakeCheck, type FakeGitHub, SCENARIO_PULL, startFakeGitHub } from "../testing/fake_github.ts";
import {
  connectLegacyV1,
  connectTaskHost,
  denoExecPath,
  type ServerTarget,
  spawnHttpServer,
  type StdioTarget,
  type TaskHost,
} from "../testing/mcp_clients.ts";
import { observeTransport, OutputSchemaValidator } from "../testing/output_schemas.ts";
import { shippedServeArgs } from "./helpers/longcall_procs.ts";
import { tempDir } from "../testing/temp.ts";
import { jobRowOf } from "../testing/job_row.ts";

const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));
const TIME_RATE = 10;
const POLL_INTERVAL_MS = 5_000;
const HTTP_TOKEN = "output-schemas-test-token-0123456789";
const WATCH = "github.wait_pull_request_checks";
const SYNC = "github.sync_threads";

type Json = Record<string, unknown>;

const PENDING: FakeCheck[] = [{ name: "build", status: "in_progress" }];
const GREEN: FakeCheck[] = [{ name: "build", status: "completed", conclusion: "success" }];
const SHORT_CI = [{ atMs: 0, checks: PENDING }, { atMs: 1_000, checks: GREEN }];
const ENDLESS_CI = [{ atMs: 0, checks: PENDING }];

/** The shipped server's `serve` arguments against `fake` on `db`, `options.extra` appended. */
function serveArgs(fake: FakeGitHub, db: string, options: { extra?: readonly string[] } = {}): string[] {
  const { extra = [] } = options;
  return shippedServeArgs(new URL(fake.url).host, db, { timeRate: TIME_RATE, extra });
}

const SERVER_ENV = (fake: FakeGitHub): Record<string, string> => ({
  LONGCALL_LOG: "warn",
  LONGCALL_GITHUB_API_URL: fake.url,
  GITHUB_TOKEN: "",
  GH_TOKEN: "",
  LONGCALL_GITHUB_TOKEN_FILE: "",
  LONGCALL_DB: "",
  LONGCALL_HTTP_TOKEN: "",
});

const watchArgs = (over: Json = {}) => ({ ...SCENARIO_PULL, poll_interval_ms: POLL_INTERVAL_MS, ...over });

/** The real ms of a watch's first scheduled poll under the server's simulated time, plus the slack. */
const FIRST_POLL_GUIDANCE_MS = POLL_INTERVAL_MS / TIME_RATE + POLL_INTERVAL_MS_MIN;

function completedResult(call: Awaited<ReturnType<TaskHost["callToolAsTask"]>>): Json {
  assert.equal(call.kind, "task", JSON.stringify(call.initial));
  assert.equal(call.outcome.status, "completed", JSON.stringify(call.outcome));
  return (call.outcome as { result: Json }).result;
}

/** The output-schema checks against `run.target` (its GitHub `run.fake`), as steps of `t` named after `run.label`. */
async function exercise(
  t: Deno.TestContext,
  run: { target: ServerTarget; fake: FakeGitHub; label: string },
): Promise<void> {
  const { target, fake, label } = run;
  const host = await connectTaskHost(target);
  try {
    await t.step(
      `${label}: tools/list sets alwaysLoad on the watch and jobs.get only; every schema compiles`,
      async () => {
        const { tools } = await host.client.listTools();
        const loaded = tools.filter((tool) => tool._meta?.["anthropic/alwaysLoad"] === true).map((tool) => tool.name);
        assert.deepEqual(loaded.sort(), ["github.wait_pull_request_checks", "jobs.get"]);
        for (const tool of tools) {
          if (tool.outputSchema !== undefined) assert.ok(host.outputSchemas.validatorOf(tool.name), tool.name);
        }
      },
    );

    await t.step(
      `${label}: a watch as a task: first pollIntervalMs is its first GitHub poll; the verdict validates`,
      async () => {
        fake.setScenario(SHORT_CI);
        const call = await host.callToolAsTask(WATCH, watchArgs());
        assert.equal(call.initial?.["pollIntervalMs"], FIRST_POLL_GUIDANCE_MS);
        const ref = call.initial?.["structuredContent"] as Json;
        assert.equal(ref["poll_after_ms"], FIRST_POLL_GUIDANCE_MS);
        const sc = completedResult(call)["structuredContent"] as Json;
        assert.equal(sc["outcome"], "succeeded");
        assert.equal((sc["result"] as Json)["outcome"], "succeeded");
        assert.equal(sc["result_truncated"], false);
      },
    );

    await t.step(
      `${label}: an operation error completes isError with {id, kind, outcome, error}, and validates`,
      async () => {
        const call = await host.callToolAsTask(WATCH, watchArgs({ number: 999 }));
        const result = completedResult(call);
        assert.equal(result["isError"], true);
        assert.equal(((result["structuredContent"] as Json)["error"] as Json)["code"], "not_found");
      },
    );

    await t.step(`${label}: sync tasks, complete and partial, validate`, async () => {
      const complete = completedResult(await host.callToolAsTask(SYNC, { repositories: ["octo/widgets"] }));
      assert.equal(((complete["structuredContent"] as Json)["result"] as Json)["batch_status"], "complete");
      const partial = completedResult(
        await host.callToolAsTask(SYNC, { repositories: ["octo/widgets", "octo/secret", "nobody/nothing"] }),
      );
      const sc = partial["structuredContent"] as Json;
      assert.equal(sc["outcome"], "partial");
      const statuses = ((sc["result"] as Json)["items"] as Json[]).map((i) => i["item_status"]);
      assert.deepEqual(statuses, ["complete", "unavailable", "unavailable"]);
    });

    await t.step(`${label}: corpus reads (found, not synced, bad input) validate`, async () => {
      const call = async (name: string, args: Json) => {
        const result = await host.client.callTool({ name, arguments: args });
        return result.structuredContent as Json;
      };
      const search = await call("corpus.search_threads", { query: "widgets OR crash", limit: 2 });
      assert.ok(Array.isArray(search["items"]) && Array.isArray(search["coverage"]), JSON.stringify(search));
      const missing = await call("corpus.search_threads", { query: "x", repositories: ["nobody/nothing"] });
      assert.equal((missing["coverage"] as Json[])[0]?.["status"], "not_synced");
      for (const view of ["compact", "full"]) {
        const threads = await call("corpus.get_threads", { threads: ["octo/widgets#1", "nobody/nothing#1"], view });
        assert.equal(threads["batch_status"], "partial");
      }
      const repos = await call("corpus.get_repositories", { repositories: ["octo/widgets", "octo/secret"] });
      assert.equal((repos["items"] as Json[])[0]?.["item_status"], "complete");
      const checks = await call("corpus.get_pull_request_checks", { pull_requests: ["octo/widgets#42"] });
      assert.equal((checks["items"] as Json[])[0]?.["item_status"], "complete", "the watch stored its observation");
      const bad = await call("corpus.get_threads", { threads: ["not a ref"] });
      assert.equal((bad["error"] as Json)["code"], "invalid_argument");
    });

    await t.step(
      `${label}: typed errors, jobs.get (concise, detailed, unknown, invalid) and jobs.cancel validate`,
      async () => {
        const bad = await host.client.callTool({
          name: WATCH,
          arguments: { owner: "octo", repo: "widgets", number: 0 },
        });
        assert.equal(bad.isError, true);
        assert.equal(((bad.structuredContent as Json)["error"] as Json)["code"], "invalid_argument");

        // A JobReference from a modern request that does not declare tasks.
        fake.setScenario(ENDLESS_CI);
        const started = await host.client.callTool({ name: WATCH, arguments: watchArgs() });
        const ref = started.structuredContent as Json;
        assert.equal(ref["poll_after_ms"], FIRST_POLL_GUIDANCE_MS);
        const id = ref["id"] as string;
        const ids = [id, `job:${id}`, "0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8", "not-an-id"];
        for (const response_format of ["concise", "detailed"]) {
          const got = await host.client.callTool({ name: "jobs.get", arguments: { ids, response_format } });
          const items = (got.structuredContent as { items: Json[] }).items;
          assert.deepEqual(items.map((i) => i["reason"] ?? i["item_status"]), [
            "complete",
            "complete",
            "not_found",
            "invalid_id",
          ]);
        }
        const cancelled = await host.client.callTool({ name: "jobs.cancel", arguments: { ids: [id, "not-an-id"] } });
        assert.equal((cancelled.structuredContent as { batch_status: string }).batch_status, "partial");
        const again = await host.client.callTool({ name: "jobs.cancel", arguments: { ids: [id] } });
        assert.equal((again.structuredContent as { items: Json[] }).items.length, 1);
      },
    );

    await t.step(`${label}: a detailed jobs.get of every finished job validates`, async () => {
      const ids = host.dispatched.filter((d) => d.method === "tasks/get" && d.taskId !== undefined)
        .map((d) => d.taskId as string);
      const unique = [...new Set(ids)];
      assert.ok(unique.length >= 4, `tasks seen: ${unique.length}`);
      const got = await host.client.callTool({
        name: "jobs.get",
        arguments: { ids: unique, response_format: "detailed" },
      });
      const items = (got.structuredContent as { items: Array<{ value: Json }> }).items;
      assert.ok(items.every((i) => (i.value["execution_state"] as string) === "terminal"));
    });

    await t.step(`${label}: every structuredContent was checked against a declared schema`, () => {
      assert.deepEqual(host.outputSchemas.violations, []);
      assert.ok(host.outputSchemas.checked["tasks/get"] >= 4, JSON.stringify(host.outputSchemas.checked));
      assert.ok(host.outputSchemas.checked["tools/call"] >= 18, JSON.stringify(host.outputSchemas.checked));
    });
  } finally {
    await host.close();
  }

  await t.step(
    `${label}: the v1 client (it validates structuredContent itself) reads a JobReference that names jobs_get`,
    async () => {
      const v1 = await connectLegacyV1(target);
      try {
        fake.setScenario(SHORT_CI);
        const started = await v1.callTool({ name: WATCH, arguments: watchArgs() });
        const ref = started.structuredContent as Json;
        assert.equal(ref["poll_after_ms"], FIRST_POLL_GUIDANCE_MS);
        assert.match(ref["message"] as string, /the jobs\.get tool \(jobs_get in hosts that rename tools\)/);
        assert.match(ref["message"] as string, /jobs\.cancel tool \(jobs_cancel\)/);
        assert.match(v1.getInstructions() ?? "", /jobs_get in hosts that rename tools, e\.g\. mcp__longcall__jobs_get/);
        const cancelled = await v1.callTool({ name: "jobs.cancel", arguments: { ids: [ref["id"] as string] } });
        assert.equal(cancelled.isError, undefined);
      } finally {
        await v1.close();
      }
    },
  );
}

Deno.test("product server over stdio: every structuredContent validates against its tool's outputSchema", async (t) => {
  await using dir = await tempDir("longcall-schemas-");
  const fake = await startFakeGitHub({ scenario: SHORT_CI });
  try {
    const target: StdioTarget = {
      command: denoExecPath(),
      args: serveArgs(fake, dir.file("jobs.db")),
      cwd: REPO_ROOT,
      env: SERVER_ENV(fake),
    };
    await exercise(t, { target, fake, label: "stdio" });
  } finally {
    await fake.close();
  }
});

Deno.test("product server over streamable HTTP: every structuredContent validates against its tool's outputSchema", async (t) => {
  await using dir = await tempDir("longcall-schemas-");
  const fake = await startFakeGitHub({ scenario: SHORT_CI });
  try {
    await using server = await spawnHttpServer({
      command: denoExecPath(),
      args: serveArgs(fake, dir.file("jobs.db"), { extra: ["--http", "--listen", "127.0.0.1:0"] }),
      cwd: REPO_ROOT,
      env: { ...SERVER_ENV(fake), LONGCALL_HTTP_TOKEN: HTTP_TOKEN },
    }, { path: "/mcp" });
    await exercise(t, { target: { url: server.url, bearerToken: HTTP_TOKEN }, fake, label: "http" });
  } finally {
    await fake.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Shapes the end-to-end runs cannot reach cheaply, checked against the advertised JSON Schema
// ---------------------------------------------------------------------------------------------------------------

/** The JSON Schema the SDK advertises for a tool (the same `~standard.jsonSchema` conversion). */
function advertised(schema: z.ZodType): Record<string, unknown> {
  const std = schema["~standard"] as unknown as {
    jsonSchema: { output(o: { target: string }): Record<string, unknown> };
  };
  return JSON.parse(JSON.stringify(std.jsonSchema.output({ target: "draft-2020-12" })));
}

function row(over: Partial<JobRow>): JobRow {
  const now = Date.UTC(2026, 0, 1);
  return jobRowOf({
    id: "0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8",
    kind: WATCH,
    status: "succeeded",
    outcome: "succeeded",
    created_at: now - 10_000,
    started_at: now - 5_000,
    updated_at: now,
    completed_at: now,
    attempt: 1,
    retention_ms: 1000,
    expires_at: now + 1000,
    ...over,
  });
}

const fakeControl = { pollAfterMs: () => 1_250 } as unknown as JobControl;

Deno.test("jobTool outputSchema: a result past the view bound (truncated), a failed job and the JobReference validate; a bare job view of another kind does not", () => {
  const tool = jobTool(fakeControl, {
    name: WATCH,
    kind: WATCH,
    description: "",
    inputSchema: z.object({}),
    resultSchema: watchResultOutput,
    annotations: { title: "", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  });
  const validator = new OutputSchemaValidator();
  validator.registerTools([{
    name: WATCH,
    outputSchema: advertised(withErrorOutput((tool.outputSchema as () => z.ZodType)())),
  }]);

  const huge = { outcome: "succeeded", padding: "x".repeat(JOB_RESULT_VIEW_BYTES_MAX) };
  const truncated = terminalToolResult(row({ result: huge })).structuredContent;
  assert.equal(truncated["result_truncated"], true);
  assert.equal(validator.check(WATCH, { structuredContent: truncated, source: "tasks/get" }), undefined);

  const failed = terminalToolResult(row({
    status: "failed",
    outcome: "failed",
    error: {
      code: "not_found",
      message: "Cannot read pull request: Not Found",
      retryable: false,
      data: { status: 404 },
    },
  })).structuredContent;
  assert.equal(validator.check(WATCH, { structuredContent: failed, source: "tasks/get" }), undefined);

  const queued = row({ status: "queued", completed_at: null, expires_at: null });
  const ref = jobReference(jobHandle(queued, { pollMs: 1_250, ttlMs: 86_400_000 }));
  assert.equal(validator.check(WATCH, { structuredContent: ref, source: "tools/call" }), undefined);

  // Negative controls: the checker really rejects what a strict client would.
  const otherKind = { ...truncated, kind: "github.sync_threads" };
  assert.notEqual(validator.check(WATCH, { structuredContent: otherKind, source: "tasks/get" }), undefined);
  const notAWatch = terminalToolResult(row({ result: { slept_ms: 3 } })).structuredContent;
  assert.notEqual(validator.check(WATCH, { structuredContent: notAWatch, source: "tasks/get" }), undefined);
  assert.notEqual(validator.check("unknown.tool", { structuredContent: ref, source: "tools/call" }), undefined);
  assert.equal(validator.violations.length, 3);
});

Deno.test("advertised schemas carry validation keywords: no empty {} and no type arrays anywhere", () => {
  const tool = jobTool(fakeControl, {
    name: WATCH,
    kind: WATCH,
    description: "",
    inputSchema: z.object({}),
    resultSchema: watchResultOutput,
    annotations: { title: "", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  });
  const walk = (node: unknown, path: string): string[] => {
    if (node === null || typeof node !== "object") return [];
    if (!Array.isArray(node) && Object.keys(node).length === 0) return [path];
    const problems = !Array.isArray(node) && Array.isArray((node as Json)["type"]) ? [`${path}.type`] : [];
    return [
      ...problems,
      ...Object.entries(node as Json).flatMap(([k, v]) =>
        k === "required" || k === "enum" ? [] : walk(v, `${path}.${k}`)
      ),
    ];
  };
  const schema = advertised(withErrorOutput((tool.outputSchema as () => z.ZodType)()));
  assert.deepEqual(walk(schema, "outputSchema"), []);
  // Ajv in strict mode compiles it (no unknown keyword, no union type).
  new Ajv2020({ strict: true }).compile(schema);
});

Deno.test("INSTRUCTIONS name each tool also as a host that renames tools spells it", () => {
  assert.match(INSTRUCTIONS, /jobs\.get tool \(jobs_get in hosts that rename tools, e\.g\. mcp__longcall__jobs_get\)/);
  assert.match(INSTRUCTIONS, /jobs\.cancel tool \(jobs_cancel\)/);
  assert.match(INSTRUCTIONS, /github\.\* \(github_\* in hosts that rename tools\)/);
});

Deno.test("observeTransport() checks tools/call and completed tasks/get results on the wire, attributed to their tool", async () => {
  const sent: unknown[] = [];
  const seen: unknown[] = [];
  const transport = {
    send: (message: unknown) => {
      sent.push(message);
      return Promise.resolve();
    },
    onmessage: (message: unknown) => void seen.push(message),
  };
  const validator = observeTransport(transport);
  const schema = {
    type: "object",
    properties: { n: { type: "integer" } },
    required: ["n"],
    additionalProperties: false,
  };
  const deliver = (message: unknown) => (transport.onmessage as (m: unknown) => void)(message);
  await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  deliver({ jsonrpc: "2.0", id: 1, result: { tools: [{ name: "t", outputSchema: schema }, { name: "free" }] } });
  await transport.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t", arguments: {} } });
  deliver({ jsonrpc: "2.0", id: 2, result: { content: [], structuredContent: { n: 1 } } });
  await transport.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "t", arguments: {} } });
  deliver({ jsonrpc: "2.0", id: 3, result: { resultType: "task", taskId: "task-1", structuredContent: { n: 2 } } });
  await transport.send({ jsonrpc: "2.0", id: 4, method: "tasks/get", params: { taskId: "task-1" } });
  deliver({ jsonrpc: "2.0", id: 4, result: { status: "completed", result: { structuredContent: { n: "three" } } } });
  await transport.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "free", arguments: {} } });
  deliver({ jsonrpc: "2.0", id: 5, result: { content: [], structuredContent: { anything: true } } });
  assert.equal(seen.length, 5, "every message still reaches the client");
  assert.deepEqual(validator.checked, { "tools/call": 2, "tasks/get": 1 });
  assert.equal(validator.violations.length, 1);
  assert.equal(validator.violations[0]?.tool, "t");
  assert.equal(validator.violations[0]?.source, "tasks/get");
  assert.throws(() => validator.assertNoViolations(), /did not validate/);
});
