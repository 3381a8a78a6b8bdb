/**
 * Issue 4: the `io.modelcontextprotocol/tasks` adapter as real processes, driven by a
 * task-aware host (`@modelcontextprotocol/client` + `@modelcontextprotocol/ext-tasks`
 * `createTaskSessionFromClient`) over stdio and streamable HTTP. Every task wire object is
 * parsed with the official `core/v2` schemas.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/tasks_test.ts
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  CancelTaskResultV2Schema,
  type CreateTaskResultV2,
  CreateTaskResultV2Schema,
  type GetTaskResultV2,
  GetTaskResultV2Schema,
  TaskSubscriptionAcknowledgedNotificationsV2Schema,
  UpdateTaskResultV2Schema,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { POLL_INTERVAL_MS_MAX, POLL_INTERVAL_MS_MIN } from "../src/base/limits.ts";
import { openStore } from "../src/store/store.ts";
import { delay, modernMeta, RawStdioServer, spawnHttp, stdioServer } from "./helpers/longcall_procs.ts";
import {
  type Client,
  connectTaskHost,
  connectV2,
  type HttpTarget,
  type RawResponse,
  type StdioTarget,
  type TaskHost,
  TASKS_EXTENSION_ID,
  type V2Connection,
} from "../testing/mcp_clients.ts";
import { heartbeatsPass, openTempStore, tempDir } from "../testing/temp.ts";

type Json = Record<string, unknown>;

const JOB_ID = /^[0-9a-f]{12}-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const LEASE_FLAGS = ["--heartbeat-ms", "100", "--lease-ms", "400", "--reconcile-ms", "100"];

// ------------------------------------------------------------------ wire parsing

/** Old (2025-11-25 draft) names that must never appear on a 2026 task object. */
function assertNoOldNames(task: Json, what: string): void {
  for (const key of ["ttl", "pollInterval", "requestState", "task"]) {
    assert.equal(key in task, false, `${what} has no "${key}" key`);
  }
}

function assertPollInterval(task: { pollIntervalMs?: number | undefined }, what: string): void {
  const p = task.pollIntervalMs;
  assert.ok(
    p !== undefined && Number.isInteger(p) && p >= POLL_INTERVAL_MS_MIN && p <= POLL_INTERVAL_MS_MAX,
    `${what}: pollIntervalMs ${p} within [${POLL_INTERVAL_MS_MIN}, ${POLL_INTERVAL_MS_MAX}]`,
  );
}

/** Parses a CreateTaskResult (tools/call on a declaring request). */
function parseCreate(raw: RawResponse | Json | undefined, what: string): CreateTaskResultV2 {
  const result = raw !== undefined && "kind" in raw ? resultOf(raw as RawResponse, what) : raw;
  assert.ok(result !== undefined, `${what}: a result`);
  assert.equal(result["resultType"], "task", `${what} returned a task: ${JSON.stringify(result)}`);
  assertNoOldNames(result, what);
  const task = CreateTaskResultV2Schema.parse(result);
  assert.match(task.taskId, JOB_ID);
  assert.equal(task.status, "working");
  assertPollInterval(task, what);
  assert.ok(task.ttlMs !== null && task.ttlMs > 0, `${what}: ttlMs ${task.ttlMs}`);
  assert.ok(!Number.isNaN(Date.parse(task.createdAt)) && !Number.isNaN(Date.parse(task.lastUpdatedAt)));
  return task;
}

function resultOf(raw: RawResponse, what: string): Json {
  assert.equal(raw.kind, "result", `${what}: ${JSON.stringify(raw)}`);
  return (raw as { result: Json }).result;
}

function errorOf(raw: RawResponse, what: string): { code: number; message: string; data?: unknown } {
  assert.equal(raw.kind, "error", `${what} is a JSON-RPC error: ${JSON.stringify(raw)}`);
  return (raw as { error: { code: number; message: string; data?: unknown } }).error;
}

/** Parses a tasks/get answer. */
function parseGet(raw: RawResponse, what: string): GetTaskResultV2 {
  const result = resultOf(raw, what);
  assertNoOldNames(result, what);
  const task = GetTaskResultV2Schema.parse(result);
  if (task.status === "working") assertPollInterval(task, what);
  if (task.status === "completed") assert.equal(task.result["resultType"], "complete", `${what}: inlined result`);
  return task;
}

async function tasksGet(host: TaskHost, id: string): Promise<GetTaskResultV2> {
  return parseGet(await host.tasksGet(id), `tasks/get ${id}`);
}

/** Polls tasks/get every `options.everyMs` until the task leaves `working`, for at most `options.timeoutMs`. */
async function waitTask(
  host: TaskHost,
  id: string,
  options: { timeoutMs?: number; everyMs?: number } = {},
): Promise<GetTaskResultV2> {
  const { timeoutMs = 15_000, everyMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await tasksGet(host, id);
    if (task.status !== "working") return task;
    if (Date.now() > deadline) assert.fail(`task ${id} still working after ${timeoutMs} ms: ${JSON.stringify(task)}`);
    await delay(everyMs);
  }
}

/** A declaring raw tools/call of `call.name` with `call.args`: the CreateTaskResult. */
async function createTask(host: TaskHost, call: { name: string; args: Json }): Promise<CreateTaskResultV2> {
  const { name, args } = call;
  return parseCreate(await host.rawRequest("tools/call", { name, arguments: args }, { declareTasks: true }), name);
}

// ------------------------------------------------------------------ jobs.get through the same (non-declaring) client

interface JobValue extends Json {
  execution_state: string;
  outcome?: string;
  result?: unknown;
  error?: Json;
}

async function jobsGet(client: Client, ids: string[]): Promise<Array<JobValue | undefined>> {
  const res = await client.callTool({ name: "jobs.get", arguments: { ids, response_format: "detailed" } });
  assert.notEqual(res.isError, true, JSON.stringify(res));
  const items = (res.structuredContent as { items: Array<{ value?: JobValue }> }).items;
  return items.map((i) => i.value);
}

async function jobGet(client: Client, id: string): Promise<JobValue> {
  const [value] = await jobsGet(client, [id]);
  assert.ok(value !== undefined, `job ${id} is visible`);
  return value;
}

async function waitJobRunning(client: Client, id: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await jobGet(client, id)).execution_state !== "running") {
    if (Date.now() > deadline) assert.fail(`job ${id} never ran`);
    await delay(20);
  }
}

/** The terminal-result parity the issue asks for: a task and jobs.get's job tell the same story. */
function assertParity(pair: { task: GetTaskResultV2; job: JobValue }, what: string): void {
  const { task, job } = pair;
  assert.equal(job.execution_state, "terminal", `${what}: job terminal`);
  switch (task.status) {
    case "completed": {
      const sc = task.result["structuredContent"] as Json;
      assert.equal(sc["outcome"], job.outcome, `${what}: outcome`);
      if (task.result["isError"] === true) {
        assert.equal(job.outcome, "failed", `${what}: isError is a failed job`);
        assert.deepEqual(sc["error"], job.error, `${what}: typed error`);
      } else {
        assert.deepEqual(sc["result"], job.result, `${what}: typed result`);
      }
      break;
    }
    case "cancelled":
      assert.equal(job.outcome, "cancelled", `${what}: cancelled`);
      break;
    case "failed": {
      assert.equal(job.outcome, "failed", `${what}: failed`);
      assert.equal(task.error.code, -32603, `${what}: failed tasks carry -32603`);
      assert.deepEqual((task.error.data as Json)["error"], job.error, `${what}: typed error in data`);
      break;
    }
    default:
      assert.fail(`${what}: unexpected status ${task.status}`);
  }
}

/** Records every notification the client's transport receives (wraps onmessage after connect). */
function recordNotifications(client: Client): string[] {
  const seen: string[] = [];
  const transport = client.transport;
  assert.ok(transport !== undefined);
  const inner = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
    const m = message as Json;
    if (!("id" in m) && typeof m["method"] === "string") seen.push(m["method"]);
    (inner as ((m: JSONRPCMessage, e?: unknown) => void) | undefined)?.(message, extra);
  };
  return seen;
}

// ------------------------------------------------------------------ the task host, both transports

/** The task flow every transport's host runs, as steps of `t` named after `flow.label`. */
async function hostFlow(t: Deno.TestContext, flow: { host: TaskHost; label: string }): Promise<void> {
  const { host, label } = flow;
  const notifications = recordNotifications(host.client);

  await t.step(`${label}: server/discover advertises the extension and the session runs tasks`, () => {
    assert.deepEqual(host.client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION_ID], {});
    assert.equal(host.session.capabilities.execution, true);
    assert.equal(host.session.capabilities.cancellation, true);
  });

  await t.step(`${label}: test.sleep completes; result equals jobs.get's typed result`, async () => {
    const call = await host.callToolAsTask("test.sleep", { ms: 300, steps: 3 });
    assert.equal(call.kind, "task");
    const created = parseCreate(call.initial, "test.sleep create");
    assert.equal(created.taskId, call.taskId);
    // The handle also carries the JobReference for the same job.
    assert.equal((call.initial?.["structuredContent"] as Json)["ref"], `job:${created.taskId}`);
    assert.equal(call.outcome.status, "completed");
    const result = (call.outcome as { result: Json }).result;
    assert.equal(result["resultType"], "complete");
    assert.deepEqual((result["structuredContent"] as Json)["result"], { slept_ms: 300 });
    assert.ok(call.polls >= 1, `the session polled tasks/get (${call.polls})`);
    const task = await tasksGet(host, created.taskId);
    assert.equal(task.status, "completed");
    assert.deepEqual(
      task.status === "completed" ? task.result["structuredContent"] : undefined,
      result["structuredContent"],
    );
    assert.equal(task.pollIntervalMs, undefined, "no poll hint once terminal");
    assertParity({ task, job: await jobGet(host.client, created.taskId) }, "sleep");
  });

  await t.step(`${label}: a working task has pollIntervalMs and a growing ttlMs`, async () => {
    const created = await createTask(host, { name: "test.sleep", args: { ms: 30_000, steps: 300 } });
    const first = await tasksGet(host, created.taskId);
    assert.equal(first.status, "working");
    assertPollInterval(first, "working task");
    await delay(120);
    const second = await tasksGet(host, created.taskId);
    assert.equal(second.status, "working");
    assert.ok(second.ttlMs !== null && first.ttlMs !== null && second.ttlMs > first.ttlMs, "ttlMs grows while running");
    CancelTaskResultV2Schema.parse(resultOf(await host.tasksCancel(created.taskId), "tasks/cancel"));
    const ended = await waitTask(host, created.taskId);
    assert.equal(ended.status, "cancelled");
    assert.equal(ended.pollIntervalMs, undefined, "no poll hint once terminal");
  });

  await t.step(`${label}: test.partial completes with outcome partial`, async () => {
    const call = await host.callToolAsTask("test.partial", {});
    assert.equal(call.outcome.status, "completed");
    const sc = (call.outcome as { result: Json }).result["structuredContent"] as Json;
    assert.equal(sc["outcome"], "partial");
    assert.deepEqual(sc["result"], { items: [1, 2], complete: false });
    assert.ok(call.taskId !== undefined);
    assertParity({ task: await tasksGet(host, call.taskId), job: await jobGet(host.client, call.taskId) }, "partial");
  });

  await t.step(`${label}: an operation error completes with isError and the typed error`, async () => {
    const call = await host.callToolAsTask("test.fail", { code: "access_denied", message: "denied by test" });
    assert.equal(call.outcome.status, "completed", "an operation error is not a failed task");
    const result = (call.outcome as { result: Json }).result;
    assert.equal(result["isError"], true);
    assert.deepEqual((result["structuredContent"] as Json)["error"], {
      code: "access_denied",
      message: "denied by test",
      retryable: false,
    });
    assert.ok(call.taskId !== undefined);
    assertParity({ task: await tasksGet(host, call.taskId), job: await jobGet(host.client, call.taskId) }, "fail");
  });

  await t.step(`${label}: the session's cancel sends tasks/cancel and settles cancelled`, async () => {
    const execution = await host.session.callTool("test.sleep", { ms: 60_000, steps: 600 });
    assert.equal(execution.kind, "task");
    const taskId = execution.kind === "task" ? execution.handle.taskId : "";
    await waitJobRunning(host.client, taskId);
    await execution.cancel();
    const settled = await execution.settle();
    assert.equal(settled.outcome.status, "cancelled");
    assert.ok(host.dispatched.some((d) => d.method === "tasks/cancel" && d.taskId === taskId), "tasks/cancel sent");
    const task = await tasksGet(host, taskId);
    assert.equal(task.status, "cancelled");
    assertParity({ task, job: await jobGet(host.client, taskId) }, "cancelled");
    // Idempotent: a cancel of a terminal task is an empty ack and changes nothing.
    const again = resultOf(await host.tasksCancel(taskId), "second tasks/cancel");
    CancelTaskResultV2Schema.parse(again);
    assert.deepEqual(Object.keys(again).filter((k) => k !== "_meta"), ["resultType"]);
    assert.equal((await tasksGet(host, taskId)).status, "cancelled");
  });

  await t.step(`${label}: tasks/* errors: -32021 undeclared, -32601 removed methods, -32602 unknown id`, async () => {
    const done = await createTask(host, { name: "test.echo", args: { v: 1 } });
    const finished = await waitTask(host, done.taskId);
    assert.equal(finished.status, "completed");
    const undeclared = errorOf(await host.tasksGet(done.taskId, { declareTasks: false }), "undeclared tasks/get");
    assert.equal(undeclared.code, -32021);
    assert.deepEqual(undeclared.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } });
    const undeclaredCancel = errorOf(await host.tasksCancel(done.taskId, { declareTasks: false }), "undeclared cancel");
    assert.equal(undeclaredCancel.code, -32021);
    // The declaration is checked before the params: bad params from an undeclared request still get -32021.
    for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
      for (const params of [{}, { taskId: "x".repeat(201) }, { taskId: 7 }]) {
        const what = `${method} ${JSON.stringify(params).slice(0, 30)}`;
        assert.equal(errorOf(await host.rawRequest(method, params, { declareTasks: false }), what).code, -32021, what);
        const declared = errorOf(await host.rawRequest(method, params, { declareTasks: true }), `declared ${what}`);
        assert.equal(declared.code, -32602, `declared ${what}`);
        assert.equal(declared.message, "Invalid params: taskId must be a string of 1 to 200 characters");
      }
    }
    for (const method of ["tasks/list", "tasks/result"]) {
      const params = method === "tasks/result" ? { taskId: done.taskId } : {};
      assert.equal(errorOf(await host.rawRequest(method, params, { declareTasks: true }), method).code, -32601);
    }
    const unknownId = crypto.randomUUID();
    const unknown = errorOf(await host.tasksGet(unknownId), "unknown tasks/get");
    assert.equal(unknown.code, -32602);
    assert.equal(unknown.message, "Failed to retrieve task: Task not found");
    assert.equal(errorOf(await host.tasksCancel(unknownId), "unknown tasks/cancel").code, -32602);
    assert.equal(
      errorOf(
        await host.rawRequest("tasks/update", { taskId: unknownId, inputResponses: {} }, { declareTasks: true }),
        "update",
      )
        .code,
      -32602,
    );
    const update = resultOf(
      await host.rawRequest("tasks/update", {
        taskId: done.taskId,
        inputResponses: { nothing_outstanding: { action: "accept", content: {} } },
      }, { declareTasks: true }),
      "tasks/update",
    );
    UpdateTaskResultV2Schema.parse(update);
    assert.deepEqual(Object.keys(update).filter((k) => k !== "_meta"), ["resultType"]);
    // Cancelling a completed task is an ack; it stays completed.
    CancelTaskResultV2Schema.parse(resultOf(await host.tasksCancel(done.taskId), "cancel completed"));
    assert.equal((await tasksGet(host, done.taskId)).status, "completed");
  });

  await t.step(`${label}: a non-declaring modern request gets a JobReference from the same tool`, async () => {
    const viaClient = await host.client.callTool({ name: "test.echo", arguments: { n: 2 } });
    const ref = viaClient.structuredContent as Json;
    assert.match(ref["id"] as string, JOB_ID);
    assert.equal(ref["ref"], `job:${ref["id"]}`);
    assert.equal("taskId" in (viaClient as Json), false);
    const raw = resultOf(await host.rawRequest("tools/call", { name: "test.echo", arguments: {} }), "raw undeclared");
    assert.equal(raw["resultType"], "complete");
    assert.equal("taskId" in raw, false);
    assert.match((raw["structuredContent"] as Json)["ref"] as string, /^job:/);
  });

  await t.step(`${label}: no notifications/tasks were sent; polling alone reached every terminal state`, () => {
    assert.deepEqual(notifications.filter((m) => m === "notifications/tasks"), []);
    assert.ok(host.tasksGetPolls >= 3, `the session polled (${host.tasksGetPolls})`);
  });
}

/** A legacy v2 client on the same endpoint gets JobReferences and no tasks. */
async function legacyGetsJobReference(target: StdioTarget | HttpTarget): Promise<void> {
  const legacy: V2Connection = await connectV2(target, { era: "legacy" });
  try {
    assert.equal(legacy.client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION_ID], undefined);
    const res = await legacy.client.callTool({ name: "test.sleep", arguments: { ms: 1 } });
    const ref = res.structuredContent as Json;
    assert.equal(ref["ref"], `job:${ref["id"]}`);
    assert.equal("taskId" in (res as Json), false);
    // Even if a legacy request claims the extension, tasks are not enabled under 2025-11-25.
    const raw = await legacy.rawRequest("tools/call", { name: "test.sleep", arguments: { ms: 1 } }, {
      meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION_ID]: {} } } },
    });
    const result = resultOf(raw, "legacy tools/call claiming tasks");
    assert.equal("taskId" in result, false);
    assert.notEqual(result["resultType"], "task");
    assert.equal(errorOf(await legacy.rawRequest("tasks/get", { taskId: ref["id"] }), "legacy tasks/get").code, -32601);
  } finally {
    await legacy.close();
  }
}

Deno.test("task host over stdio: succeeded, partial, operation error, cancelled, interrupted; legacy gets JobReferences", async (t) => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const target = stdioServer(dir.path, db, { flags: ["--grace-ms", "100"] });
  let hangId = "";
  const host = await connectTaskHost(target);
  try {
    await hostFlow(t, { host, label: "stdio" });
    const hang = await createTask(host, { name: "test.hang", args: {} });
    hangId = hang.taskId;
    await waitJobRunning(host.client, hangId);
  } finally {
    await host.close(); // end of stdin: graceful shutdown records the hang as interrupted
  }

  await t.step(
    "stdio: after a graceful shutdown a new process reports the running task failed: interrupted",
    async () => {
      const next = await connectTaskHost(target);
      try {
        const task = await tasksGet(next, hangId);
        assert.equal(task.status, "failed");
        if (task.status === "failed") {
          assert.equal(task.error.code, -32603);
          assert.equal(((task.error.data as Json)["error"] as Json)["code"], "interrupted");
        }
        assertParity({ task, job: await jobGet(next.client, hangId) }, "interrupted");
      } finally {
        await next.close();
      }
    },
  );

  await t.step(
    "stdio: a legacy v2 client gets JobReferences from the same tools",
    () => legacyGetsJobReference(target),
  );
});

Deno.test("task host over streamable HTTP: succeeded, partial, operation error, cancelled; legacy gets JobReferences", async (t) => {
  await using dir = await tempDir();
  const http = await spawnHttp(dir.path, dir.file("jobs.db"));
  try {
    const host = await connectTaskHost({ url: http.mcpUrl });
    try {
      await hostFlow(t, { host, label: "http" });
      await t.step("http: Mcp-Name must match the taskId (-32020)", async () => {
        const task = await createTask(host, { name: "test.echo", args: {} });
        const res = await fetch(http.mcpUrl, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tasks/get",
            "mcp-name": "someone-else",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 9,
            method: "tasks/get",
            params: { taskId: task.taskId, _meta: modernMeta(true) },
          }),
        });
        assert.equal(((await res.json()).error as Json)["code"], -32020);
      });
    } finally {
      await host.close();
    }
    await t.step(
      "http: legacy v2 client gets JobReferences from the same tools",
      () => legacyGetsJobReference({ url: http.mcpUrl }),
    );
  } finally {
    await http.close();
  }
});

// ------------------------------------------------------------------ pinning the SDK's listen router

Deno.test("subscriptions/listen with taskIds over stdio: the SDK acknowledges without taskIds (pinned)", async () => {
  await using dir = await tempDir();
  const server = new RawStdioServer(stdioServer(dir.path, dir.file("jobs.db")));
  try {
    const created = await server.modern("tools/call", { name: "test.sleep", arguments: { ms: 200 } }, {
      declareTasks: true,
    });
    const taskId = CreateTaskResultV2Schema.parse(created["result"]).taskId;
    const listenId = "listen-1";
    const ack = server.waitFor(
      "listen acknowledgement",
      (m) => m.method === "notifications/subscriptions/acknowledged",
    );
    await server.send({
      jsonrpc: "2.0",
      id: listenId,
      method: "subscriptions/listen",
      params: { notifications: { taskIds: [taskId], toolsListChanged: true }, _meta: modernMeta(true) },
    });
    const params = (await ack)["params"] as Json;
    assert.deepEqual((params["_meta"] as Json)["io.modelcontextprotocol/subscriptionId"], listenId);
    const honored = TaskSubscriptionAcknowledgedNotificationsV2Schema.parse(params["notifications"]);
    assert.equal(
      honored.taskIds,
      undefined,
      "if this fails, the SDK now routes taskIds: implement notifications/tasks (src/tasks/) and update docs/notes/sdk.md",
    );
    assert.deepEqual(params["notifications"], { toolsListChanged: true });
    // The task still reaches its terminal state through tasks/get, and nothing is pushed for it.
    for (;;) {
      const got = await server.modern("tasks/get", { taskId }, { declareTasks: true });
      const task = GetTaskResultV2Schema.parse(got["result"]);
      if (task.status !== "working") {
        assert.equal(task.status, "completed");
        break;
      }
      await delay(25);
    }
    assert.deepEqual(server.messages.filter((m) => m.method === "notifications/tasks"), []);
    server.assertStdoutPure();
  } finally {
    await server.close();
  }
});

Deno.test("notifications/cancelled for the tools/call that created a task does not cancel the task (the spec's MUST NOT)", async () => {
  await using dir = await tempDir();
  const server = new RawStdioServer(stdioServer(dir.path, dir.file("jobs.db")));
  try {
    const callId = "call-to-cancel";
    const created = server.waitFor("the CreateTaskResult", (m) => m.id === callId && m.method === undefined);
    await server.send({
      jsonrpc: "2.0",
      id: callId,
      method: "tools/call",
      params: { name: "test.sleep", arguments: { ms: 300 }, _meta: modernMeta(true) },
    });
    const taskId = CreateTaskResultV2Schema.parse((await created)["result"]).taskId;
    await server.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: callId, reason: "the user moved on", _meta: modernMeta(true) },
    });
    for (;;) {
      const task = GetTaskResultV2Schema.parse(
        (await server.modern("tasks/get", { taskId }, { declareTasks: true }))["result"],
      );
      if (task.status !== "working") {
        assert.equal(task.status, "completed", "only tasks/cancel cancels a task");
        break;
      }
      await delay(25);
    }
  } finally {
    await server.close();
  }
});

// ------------------------------------------------------------------ TTL and overload

Deno.test("retention: a finished task is readable until createdAt + ttlMs, then -32602; overload creates no task", async (t) => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const RETENTION_MS = 1_500;
  const host = await connectTaskHost(
    stdioServer(dir.path, db, {
      flags: ["--retention-ms", String(RETENTION_MS), "--admitted-max", "2", "--grace-ms", "50"],
    }),
  );
  const known: string[] = [];
  try {
    await t.step("readable through its ttlMs, expired after it", async () => {
      const created = await createTask(host, { name: "test.sleep", args: { ms: 0 } });
      known.push(created.taskId);
      const done = await waitTask(host, created.taskId, { timeoutMs: 10_000, everyMs: 5 });
      assert.equal(done.status, "completed");
      assert.ok(done.ttlMs !== null);
      const expiresAt = Date.parse(done.createdAt) + done.ttlMs;
      // ttlMs is the retention measured from creation: completion + retention.
      assert.ok(
        Math.abs(expiresAt - (Date.parse(done.lastUpdatedAt) + RETENTION_MS)) <= 1,
        `createdAt + ttlMs (${expiresAt}) = completion + retention (${Date.parse(done.lastUpdatedAt) + RETENTION_MS})`,
      );
      let reads = 0;
      while (Date.now() < expiresAt - 150) {
        const again = await tasksGet(host, created.taskId);
        assert.equal(again.status, "completed");
        assert.equal(again.ttlMs, done.ttlMs, "a terminal task's ttlMs is fixed");
        reads++;
        await delay(100);
      }
      assert.ok(reads >= 3, `read ${reads} times before the deadline`);
      await delay(Math.max(0, expiresAt - Date.now()) + 100);
      const gone = errorOf(await host.tasksGet(created.taskId), "tasks/get after ttlMs");
      assert.equal(gone.code, -32602);
      assert.match(gone.message, /^Failed to retrieve task: Task (has expired|not found)$/);
      assert.equal(errorOf(await host.tasksCancel(created.taskId), "tasks/cancel after ttlMs").code, -32602);
      const [job] = await jobsGet(host.client, [created.taskId]);
      assert.equal(job, undefined, "jobs.get does not show it either");
    });

    await t.step("at the admission bound a declaring tools/call gets the overload error, not a task", async () => {
      for (let i = 0; i < 2; i++) known.push((await createTask(host, { name: "test.hang", args: {} })).taskId);
      const raw = resultOf(
        await host.rawRequest("tools/call", { name: "test.sleep", arguments: { ms: 1 } }, { declareTasks: true }),
        "overloaded tools/call",
      );
      assert.notEqual(raw["resultType"], "task");
      assert.equal("taskId" in raw, false);
      assert.equal(raw["isError"], true);
      const error = (raw["structuredContent"] as Json)["error"] as Json;
      assert.equal(error["code"], "overloaded");
      assert.equal(error["retryable"], true);
      assert.ok(Number.isInteger(error["retry_after_ms"]));
      // The task session sees an immediate (non-task) result too.
      const viaSession = await host.callToolAsTask("test.sleep", { ms: 1 });
      assert.equal(viaSession.kind, "immediate");
      const store = openStore(db);
      try {
        assert.deepEqual(store.rows.jobList({ limit: 100 }).map((r) => r.id).sort(), [...known].sort());
      } finally {
        store.close();
      }
    });
  } finally {
    await host.close();
  }
});

// ------------------------------------------------------------------ process loss, restart, cross-process

Deno.test("kill -9 while a task runs: a new process reports process_lost and still runs the dead process's queued task; tasks cross processes", async (t) => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  let hangId = "", queuedId = "";

  await t.step("server A (HTTP) runs a task and queues another, then is SIGKILLed", async () => {
    const a = await spawnHttp(dir.path, db, { flags: [...LEASE_FLAGS, "--running-max", "1"] });
    try {
      const host = await connectTaskHost({ url: a.mcpUrl });
      try {
        hangId = (await createTask(host, { name: "test.hang", args: {} })).taskId;
        await waitJobRunning(host.client, hangId);
        const queued = await createTask(host, { name: "test.sleep", args: { ms: 50 } });
        queuedId = queued.taskId;
        assert.equal((await jobGet(host.client, queuedId)).execution_state, "queued");
        assertPollInterval(await tasksGet(host, queuedId), "queued task");
      } finally {
        Deno.kill(a.pid, "SIGKILL");
        await host.close();
      }
    } finally {
      const status = await a.close();
      assert.equal(status.signal, "SIGKILL");
    }
  });

  const target = stdioServer(dir.path, db, { flags: LEASE_FLAGS });
  const b = await connectTaskHost(target);
  try {
    await t.step("server B: the running task failed with -32603 / process_lost", async () => {
      const task = await waitTask(b, hangId);
      assert.equal(task.status, "failed");
      if (task.status === "failed") {
        assert.equal(task.error.code, -32603);
        assert.equal(((task.error.data as Json)["error"] as Json)["code"], "process_lost");
      }
      assertParity({ task, job: await jobGet(b.client, hangId) }, "process_lost");
    });

    await t.step("server B: the dead process's queued task completes", async () => {
      const task = await waitTask(b, queuedId);
      assert.equal(task.status, "completed");
      assert.deepEqual(task.status === "completed" ? (task.result["structuredContent"] as Json)["result"] : 0, {
        slept_ms: 50,
      });
      assertParity({ task, job: await jobGet(b.client, queuedId) }, "queued after restart");
    });

    await t.step("a task created through server A2 is read and cancelled through server B", async () => {
      const a2 = await spawnHttp(dir.path, db, { flags: [...LEASE_FLAGS, "--grace-ms", "100"] });
      try {
        const hostA2 = await connectTaskHost({ url: a2.mcpUrl });
        try {
          const created = await createTask(hostA2, { name: "test.sleep", args: { ms: 60_000, steps: 600 } });
          const seen = await tasksGet(b, created.taskId);
          assert.equal(seen.status, "working");
          assert.equal(seen.createdAt, created.createdAt);
          await waitJobRunning(b.client, created.taskId);
          CancelTaskResultV2Schema.parse(resultOf(await b.tasksCancel(created.taskId), "cross-process cancel"));
          const viaB = await waitTask(b, created.taskId);
          assert.equal(viaB.status, "cancelled");
          const viaA2 = await tasksGet(hostA2, created.taskId);
          assert.equal(viaA2.status, "cancelled");
          assert.equal(viaA2.lastUpdatedAt, viaB.lastUpdatedAt);
        } finally {
          await hostA2.close();
        }
      } finally {
        await a2.close();
      }
    });
  } finally {
    await b.close();
  }
});

// ------------------------------------------------------------------ cancellation races

Deno.test("cancel racing completion, 200 times: tasks/get and jobs.get always agree and never change afterwards", async () => {
  await using dir = await tempDir();
  const host = await connectTaskHost(stdioServer(dir.path, dir.file("jobs.db")));
  const ITERATIONS = 200, CONCURRENCY = 8;
  const outcomes = new Map<string, { status: string; ms: number }>();
  try {
    let next = 0;
    const worker = async () => {
      while (next < ITERATIONS) {
        const ms = next++ % 6;
        const created = await createTask(host, { name: "test.sleep", args: { ms } });
        CancelTaskResultV2Schema.parse(resultOf(await host.tasksCancel(created.taskId), "racing cancel"));
        const task = await waitTask(host, created.taskId, { timeoutMs: 10_000, everyMs: 5 });
        assert.ok(task.status === "completed" || task.status === "cancelled", `status ${task.status}`);
        const job = await jobGet(host.client, created.taskId);
        assertParity({ task, job }, `race ${created.taskId}`);
        if (task.status === "completed") assert.deepEqual(job.result, { slept_ms: ms });
        outcomes.set(created.taskId, { status: task.status, ms });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    assert.equal(outcomes.size, ITERATIONS);

    // Re-read everything later: terminal states never change. "Later" is two heartbeats of the
    // server's executor (read from its database): its cancel polls and any write still in flight have run.
    {
      using store = openTempStore(dir.file("jobs.db"));
      const [owner] = store.rows.ownerListLive(Date.now());
      assert.ok(owner !== undefined, "the server's executor is live");
      await heartbeatsPass(store, owner.owner_id, { count: 2, timeoutMs: 30_000 });
    }
    const ids = [...outcomes.keys()];
    for (let i = 0; i < ids.length; i += 100) {
      const chunk = ids.slice(i, i + 100);
      const jobs = await jobsGet(host.client, chunk);
      for (const [j, id] of chunk.entries()) {
        const task = await tasksGet(host, id);
        assert.equal(task.status, outcomes.get(id)?.status, `task ${id} changed after the race`);
        const job = jobs[j];
        assert.ok(job !== undefined);
        assertParity({ task, job }, `re-read ${id}`);
      }
    }
  } finally {
    await host.close();
  }
});
