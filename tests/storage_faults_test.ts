/**
 * Storage faults never lose a result (issue 12, finding 1), at the unit level: the store
 * connection's fault seam (`Connection.faults`) makes chosen write transactions fail at COMMIT
 * with the error node:sqlite raises for SQLITE_FULL (13) / SQLITE_IOERR (10) / SQLITE_CORRUPT
 * (11), and really rolls them back. Everything else is real: SQLite files, executors, tools.
 * The same promises on a real full filesystem are in tests/storage_full_disk_test.ts.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/storage_faults_test.ts
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { AppError } from "../src/base/errors.ts";
import {
  STORE_FAULT_BACKOFF_MS_MAX,
  STORE_FAULT_RETRY_AFTER_MS,
  STORE_FAULT_RETRY_MS_EXECUTION,
} from "../src/base/limits.ts";
import { CorpusRows } from "../src/store/corpus_rows.ts";
import { EtagRows } from "../src/store/etag_rows.ts";
import { isStorageFault, sqliteError } from "../src/store/tx.ts";
import { jobsTools, jobTool } from "../src/mcp/tools.ts";
import { errorResult } from "../src/mcp/tool_kit.ts";
import { createServerFactory } from "../src/mcp/server.ts";
import { silentLogger } from "../src/base/log.ts";
import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { tasksAdapter } from "../testing/tasks_adapter.ts";
import { modernEnvelope } from "../testing/mcp_clients/envelope.ts";
import { z } from "zod";
import { type Gate, gate, openHarness, openTempStore, tempDir, waitFor, waitForStatus } from "../testing/temp.ts";
import { type AnyJobKind, defineJobKind } from "../src/jobs/kinds.ts";
import { SCENARIO_PULL } from "../testing/fake_github.ts";
import { openGitHubHarness, runJob } from "../testing/github_jobs.ts";
import { WATCH_KIND, type WatchResult } from "../src/github/watch_kind.ts";

const SQLITE_FULL = 13;
const SQLITE_IOERR_WRITE = 10 | (3 << 8); // an extended I/O code: SQLITE_IOERR_WRITE
const SQLITE_CORRUPT = 11;

/** Whether a write transaction sets a job's terminal status (the executor's terminal write). */
const isTerminalWrite = (sql: readonly string[]) => sql.some((s) => s.includes("expires_at = ?5 + retention_ms"));

Deno.test("sqliteError is shaped exactly like node:sqlite's SQLITE_FULL, and isStorageFault knows extended codes", () => {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (x); PRAGMA max_page_count = 2");
  let real: unknown;
  try {
    for (let i = 0; i < 100; i++) db.prepare("INSERT INTO t VALUES (?)").run("x".repeat(1000));
  } catch (err) {
    real = err;
  }
  db.close();
  const fake = sqliteError(SQLITE_FULL) as unknown as Record<string, unknown>;
  const r = real as Record<string, unknown>;
  assert.deepEqual(
    { code: fake.code, errcode: fake.errcode, errstr: fake.errstr, message: (fake as unknown as Error).message },
    { code: r.code, errcode: r.errcode, errstr: r.errstr, message: (real as Error).message },
  );
  assert.equal(isStorageFault(real), true);
  assert.equal(isStorageFault(sqliteError(SQLITE_IOERR_WRITE)), true);
  assert.equal(isStorageFault(sqliteError(SQLITE_CORRUPT)), false);
  assert.equal(isStorageFault(new Error("x")), false);
});

Deno.test("Connection.write answers a storage fault with retryable storage_unavailable and rolls the write back", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  store.conn.db.exec("CREATE TABLE t (x)");
  store.conn.faults = { errcode: SQLITE_FULL, count: 1 };
  const err = await store.conn.write(() => store.conn.stmt("INSERT INTO t VALUES (1)").run()).catch((e) => e);
  assert.ok(err instanceof AppError, String(err));
  assert.equal(err.code, "storage_unavailable");
  assert.equal(err.retryable, true);
  assert.equal(err.retryAfterMs, STORE_FAULT_RETRY_AFTER_MS);
  assert.match(err.message, /database or disk is full/);
  assert.equal((store.conn.db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n, 0, "rolled back");
  assert.equal(store.conn.db.isTransaction, false);
  // The fault is gone: the same write lands.
  await store.conn.write(() => store.conn.stmt("INSERT INTO t VALUES (1)").run());
  assert.equal((store.conn.db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n, 1);
});

Deno.test("Connection.write retries a storage fault within faultRetryMs and gives up past it", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  store.conn.db.exec("CREATE TABLE t (x)");
  // Three faults fit in the retry window: the write lands.
  store.conn.faults = { errcode: SQLITE_IOERR_WRITE, count: 3 };
  await store.conn.write(() => store.conn.stmt("INSERT INTO t VALUES (1)").run(), { faultRetryMs: 10_000 });
  assert.equal(store.conn.faults.count, 0);
  // A fault that outlasts the window: storage_unavailable, nothing written.
  store.conn.faults = { errcode: SQLITE_IOERR_WRITE, count: Infinity };
  const err = await store.conn.write(() => store.conn.stmt("INSERT INTO t VALUES (2)").run(), {
    faultRetryMs: STORE_FAULT_BACKOFF_MS_MAX,
  }).catch((e) => e);
  assert.equal((err as AppError).code, "storage_unavailable");
  assert.match((err as AppError).message, /disk I\/O error/);
  store.conn.faults = undefined;
  assert.equal((store.conn.db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n, 1);
});

Deno.test("Connection.write does not retry a non-transient SQLite error (it is thrown as is)", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  store.conn.faults = { errcode: SQLITE_CORRUPT, count: 1 };
  const err = await store.conn.write(() => 1, { faultRetryMs: 10_000 }).catch((e) => e);
  assert.equal((err as { errcode?: number }).errcode, SQLITE_CORRUPT);
  assert.ok(!(err instanceof AppError));
});

Deno.test("Corpus and ETag writes retry a storage fault within STORE_FAULT_RETRY_MS_EXECUTION, then give up", async () => {
  await using dir = await tempDir();
  using store = openTempStore(dir.file("a.db"));
  const corpus = new CorpusRows(store.conn);
  const repo = {
    owner: "octo",
    name: "widgets",
    description: null,
    topics: [],
    default_branch: "main",
    stargazers_count: 1,
    license: null,
    archived: false,
    observed_at: 1,
  };
  // Two faults clear inside the window: the write lands.
  store.conn.faults = { errcode: SQLITE_FULL, count: 2 };
  assert.equal(await corpus.repositoryUpsert(repo), true);
  assert.equal(store.conn.faults.count, 0);
  // A fault that lasts past the window: storage_unavailable after about the window, not before.
  const etags = new EtagRows(store.conn);
  store.conn.faults = { errcode: SQLITE_FULL, count: Infinity };
  const row = { url: "https://api.github.test/x", etag: '"e"', body: "{}", stored_at: 1 };
  const started = performance.now();
  const err = await etags.etagPut(row).catch((e) => e);
  const elapsed = performance.now() - started;
  store.conn.faults = undefined;
  assert.equal((err as AppError).code, "storage_unavailable");
  assert.ok(
    elapsed >= STORE_FAULT_RETRY_MS_EXECUTION - STORE_FAULT_BACKOFF_MS_MAX,
    `gave up after ${elapsed} ms, before the retry window`,
  );
  assert.equal(etags.etagCount(), 0);
});

Deno.test("errorResult types an unwrapped storage fault as retryable storage_unavailable, not internal", () => {
  const r = errorResult(sqliteError(SQLITE_IOERR_WRITE));
  const error = r.structuredContent?.error as Record<string, unknown>;
  assert.equal(error.code, "storage_unavailable");
  assert.equal(error.retryable, true);
  assert.equal(error.retry_after_ms, STORE_FAULT_RETRY_AFTER_MS);
  assert.match(String(error.message), /disk I\/O error/);
  assert.equal((errorResult(new Error("boom")).structuredContent?.error as { code: string }).code, "internal");
});

Deno.test("Executor retries a terminal write through SQLITE_FULL until it lands (result kept)", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("jobs.db"), {
    executor: { heartbeatMs: 50, leaseMs: 60_000, reconcileMs: 50, cancelPollMs: 50 },
  });
  // Only the terminal write fails: heartbeats keep the lease.
  h.store.conn.faults = { errcode: SQLITE_FULL, count: 3, when: isTerminalWrite };
  const job = await h.control.submit("echo", { verdict: "green" });
  const row = await waitForStatus(h.store, job.id, { status: ["succeeded", "failed", "cancelled"], timeoutMs: 30_000 });
  assert.equal(h.store.conn.faults.count, 0, "every injected fault was hit");
  assert.equal(row.status, "succeeded");
  assert.deepEqual(row.result, { verdict: "green" });
  assert.equal(h.store.rows.jobCountAdmitted(), 0, "the admission slot is free");
});

Deno.test("Executor releases a job whose terminal write cannot land; reconciliation records it", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("jobs.db"), {
    executor: { heartbeatMs: 50, leaseMs: 60_000, reconcileMs: 50, cancelPollMs: 50 },
  });
  // A non-transient error on the terminal write: no retry can help.
  h.store.conn.faults = { errcode: SQLITE_CORRUPT, count: 1, when: isTerminalWrite };
  const job = await h.control.submit("echo", { verdict: "green" });
  const row = await waitForStatus(h.store, job.id, { status: ["succeeded", "failed", "cancelled"], timeoutMs: 30_000 });
  assert.equal(row.status, "failed");
  assert.equal(row.error?.code, "process_lost");
  assert.equal(row.error?.retryable, true);
  assert.match(row.error?.message ?? "", /could not record this job's end/);
  assert.equal(h.store.rows.jobCountAdmitted(), 0, "the admission slot is free");
  assert.ok(h.terminal.includes(job.id), "onTerminal reported the recorded end");
});

Deno.test("Executor: a cancel request ends a job whose terminal write keeps failing", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("jobs.db"), {
    executor: { heartbeatMs: 50, leaseMs: 60_000, reconcileMs: 50, cancelPollMs: 50 },
  });
  // Every "succeeded" terminal write fails (the disk keeps being full for it), but the lease holds.
  const isSuccessWrite = (sql: readonly string[]) =>
    isTerminalWrite(sql) &&
    (h.store.conn.db.prepare("SELECT count(*) AS n FROM jobs WHERE status = 'succeeded'").get() as { n: number })
        .n > 0;
  const many = 1_000_000;
  h.store.conn.faults = { errcode: SQLITE_FULL, count: many, when: isSuccessWrite };
  const job = await h.control.submit("echo", { verdict: "green" });
  await waitFor("two failed terminal writes", () => (h.store.conn.faults?.count ?? many) <= many - 2);
  assert.equal(h.store.rows.jobGet(job.id)?.status, "running");
  const effect = await h.control.cancel(job.id);
  assert.equal(effect.effect, "requested");
  const row = await waitForStatus(h.store, job.id, { status: ["succeeded", "failed", "cancelled"], timeoutMs: 30_000 });
  assert.equal(row.status, "cancelled");
  assert.equal(h.store.rows.jobCountAdmitted(), 0);
});

/**
 * Two executors on one database: `h` runs `kind` and reconciles rarely; `other`, with its own healthy connection
 * (another process, as far as the store can tell), reconciles every 50 ms and claims nothing.
 */
async function ownerAndReconciler(
  path: string,
  kind: AnyJobKind,
  options: { heartbeatMs: number; leaseMs: number },
) {
  const timing = { heartbeatMs: options.heartbeatMs, leaseMs: options.leaseMs };
  const h = await openHarness(path, {
    extraKinds: [kind],
    executor: { ...timing, reconcileMs: 60_000, cancelPollMs: 50 },
  });
  try {
    const other = await openHarness(path, {
      executor: { ...timing, reconcileMs: 50, cancelPollMs: 50, claimPollMs: 60_000 },
      extraKinds: [],
    });
    return {
      h,
      other,
      async [Symbol.asyncDispose]() {
        await other[Symbol.asyncDispose]();
        await h[Symbol.asyncDispose]();
      },
    };
  } catch (err) {
    await h[Symbol.asyncDispose]();
    throw err;
  }
}

Deno.test("Executor: heartbeats that cannot be written lapse the lease; the owner then writes no terminal state", async () => {
  await using dir = await tempDir();
  const path = dir.file("jobs.db");
  // Like the stubborn test kind (it ignores its abort signal), but each job returns when the test says so.
  const finish = new Map<string, Gate>();
  const late = defineJobKind<null, { late: true }>({
    kind: "late",
    run: async (ctx) => {
      const g = gate();
      finish.set(ctx.id, g);
      await g.promise;
      return { late: true };
    },
  });
  await using pair = await ownerAndReconciler(path, late, { heartbeatMs: 50, leaseMs: 300 });
  const { h, other } = pair;
  const early = await h.control.submit("late", null);
  const fenced = await h.control.submit("late", null);
  for (const job of [early, fenced]) await waitForStatus(h.store, job.id, { status: ["running"] });
  const owner = h.store.rows.jobGet(early.id)?.owner_id;
  assert.equal(owner, h.executor?.ownerId, "the first process runs them");
  // Every write of the first process fails (its disk is full) for longer than its lease.
  h.store.conn.faults = { errcode: SQLITE_FULL, count: Infinity };
  for (const job of [early, fenced]) {
    const row = await waitForStatus(other.store, job.id, {
      status: ["succeeded", "failed", "cancelled"],
      timeoutMs: 30_000,
    });
    assert.equal(row.status, "failed");
    assert.equal(row.error?.code, "process_lost", "the other process recorded the lost owner's job");
  }
  // One handler finishes while the fault lasts: its end cannot be written and the lease is gone, so
  // the run is given up (it leaves the running set: no write of it is still to come).
  finish.get(early.id)?.open();
  await waitFor("the early run to end", () => !h.executor?.runningIds().includes(early.id), { timeoutMs: 30_000 });
  // Space returns; the first owner learns it lost its lease and registers afresh.
  h.store.conn.faults = undefined;
  await waitFor("the first owner to re-register", () => h.executor?.ownerId !== owner);
  // The other handler finishes now: its terminal write reaches the database and is fenced.
  finish.get(fenced.id)?.open();
  await waitFor("the fenced run to end", () => !h.executor?.runningIds().includes(fenced.id), { timeoutMs: 30_000 });
  for (const job of [early, fenced]) {
    const after = other.store.rows.jobGet(job.id);
    assert.equal(after?.status, "failed", "the fenced owner did not overwrite the recorded end");
    assert.equal(after?.error?.code, "process_lost");
  }
});

Deno.test("Executor: heartbeats failing for part of the lease are retried within it; the owner keeps its jobs", async () => {
  await using dir = await tempDir();
  const path = dir.file("jobs.db");
  const finish = gate();
  const held = defineJobKind<null, { held: true }>({
    kind: "held",
    run: async () => {
      await finish.promise;
      return { held: true };
    },
  });
  // A heartbeat every 1 s and a 3 s lease: four failed heartbeat writes span 1 s when retried every
  // OWNER_HEARTBEAT_RETRY_MS (the lease then holds with 1 s to spare), but 4 s, past the lease, when
  // retried a period later (as before).
  await using pair = await ownerAndReconciler(path, held, { heartbeatMs: 1_000, leaseMs: 3_000 });
  const { h, other } = pair;
  const job = await h.control.submit("held", null);
  await waitForStatus(h.store, job.id, { status: ["running"] });
  const owner = h.executor?.ownerId;
  const isHeartbeat = (sql: readonly string[]) => sql.some((q) => q.includes("UPDATE job_owners SET heartbeat_at"));
  const faults = { errcode: SQLITE_IOERR_WRITE, count: 4, when: isHeartbeat };
  h.store.conn.faults = faults;
  await waitFor("the four faults to be spent", () => faults.count === 0, { timeoutMs: 30_000 });
  const spentAt = Date.now();
  await waitFor("a heartbeat to land after them", () => {
    const mine = h.store.rows.ownerListLive(Date.now()).find((o) => o.owner_id === owner);
    return mine !== undefined && mine.heartbeat_at >= spentAt;
  }, { timeoutMs: 30_000 });
  assert.equal(h.executor?.ownerId, owner, "the lease held: no re-registration");
  assert.equal(other.store.rows.jobGet(job.id)?.status, "running", "nobody recorded the job lost");
  finish.open();
  const end = await waitForStatus(other.store, job.id, { status: ["succeeded", "failed", "cancelled"] });
  assert.equal(end.status, "succeeded", JSON.stringify(end.error));
});

Deno.test("Executor keeps progress that a storage fault stopped and writes it with the next update or with the end", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("jobs.db"), {
    executor: { heartbeatMs: 50, leaseMs: 60_000, reconcileMs: 50, cancelPollMs: 50 },
  });
  // A progress write, not the terminal write (which also sets progress columns, see below).
  const isProgressWrite = (sql: readonly string[]) =>
    sql.some((s) => s.includes("progress_message = CASE") && !s.includes("status = ?1"));
  // More faults than one progress write retries through (STORE_FAULT_RETRY_MS_EXECUTION).
  h.store.conn.faults = { errcode: SQLITE_FULL, count: Infinity, when: isProgressWrite };
  const job = await h.control.submit("sleep", { ms: 300, steps: 3 });
  await waitForStatus(h.store, job.id, { status: ["running"] });
  await new Promise((resolve) => setTimeout(resolve, STORE_FAULT_RETRY_MS_EXECUTION + 500));
  h.store.conn.faults = undefined;
  const row = await waitForStatus(h.store, job.id, { status: ["succeeded", "failed", "cancelled"], timeoutMs: 30_000 });
  assert.equal(row.status, "succeeded");
  assert.equal(row.completed_items, 3, "the last progress was written after the fault (at the latest with the end)");
  assert.equal(row.total_items, 3);
});

Deno.test("Submissions during a storage fault get storage_unavailable with retry_after_ms; reads keep working", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("jobs.db"), { executor: false });
  const done = await h.control.submit("echo", { n: 1 });
  const tools = [
    ...jobsTools(h.control),
    jobTool(h.control, {
      name: "test.echo",
      kind: "echo",
      description: "echo",
      inputSchema: z.object({}).passthrough(),
      annotations: {
        title: "Echo",
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    }),
  ];
  // As the MCP server calls a tool: anything thrown becomes the typed error result.
  const call = (name: string, args: unknown) =>
    (tools.find((t) => t.name === name)!.call(args, { authority: null, tasksDeclared: false }).catch(
      errorResult,
    )) as Promise<{ isError?: boolean; structuredContent: Record<string, unknown> }>;
  h.store.conn.faults = { errcode: SQLITE_FULL, count: Infinity };
  const refused = await call("test.echo", { n: 2 });
  assert.equal(refused.isError, true);
  assert.deepEqual(refused.structuredContent.error, {
    code: "storage_unavailable",
    message: (refused.structuredContent.error as { message: string }).message,
    retryable: true,
    retry_after_ms: STORE_FAULT_RETRY_AFTER_MS,
  });
  assert.doesNotMatch(JSON.stringify(refused), /internal/);
  // A cancel is a write too: typed, not internal.
  const cancel = await call("jobs.cancel", { ids: [done.id] });
  assert.equal((cancel.structuredContent.error as { code: string }).code, "storage_unavailable");
  // Reads keep working.
  const read = await call("jobs.get", { ids: [done.id] });
  assert.notEqual(read.isError, true);
  assert.match(JSON.stringify(read.structuredContent), new RegExp(done.id));
  h.store.conn.faults = undefined;
  const admitted = await call("test.echo", { n: 3 });
  assert.notEqual(admitted.isError, true, "admitted once the fault is gone");
});

Deno.test("tasks/cancel during a storage fault: -32603 carrying the typed, retryable storage_unavailable; tasks/get keeps reading", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("jobs.db"), { executor: false });
  const queued = await h.control.submit("echo", { n: 1 }); // no executor: it stays queued
  const factory = createServerFactory({
    control: h.control,
    tools: jobsTools(h.control),
    log: silentLogger,
    tasks: tasksAdapter,
  });
  const [client, server] = InMemoryTransport.createLinkedPair();
  const inbox: JSONRPCMessage[] = [];
  client.onmessage = (m) => void inbox.push(m);
  await client.start();
  const instance = await factory({ era: "modern" } as Parameters<typeof factory>[0]);
  await instance.connect(server);
  const ask = async (id: number, method: string) => {
    await client.send({
      jsonrpc: "2.0",
      id,
      method,
      params: { taskId: queued.id, _meta: modernEnvelope({ name: "t", version: "0" }, {}, { declareTasks: true }) },
    });
    return await waitFor(`the answer to ${method}`, () => inbox.find((m) => "id" in m && m.id === id));
  };
  try {
    h.store.conn.faults = { errcode: SQLITE_FULL, count: Infinity };
    const refused = await ask(1, "tasks/cancel") as { error?: { code: number; message: string; data?: unknown } };
    assert.equal(refused.error?.code, -32603);
    assert.match(refused.error?.message ?? "", /database or disk is full/);
    assert.deepEqual(refused.error?.data, {
      error: {
        code: "storage_unavailable",
        message: refused.error?.message,
        retryable: true,
        retry_after_ms: STORE_FAULT_RETRY_AFTER_MS,
      },
    });
    const read = await ask(2, "tasks/get") as { result?: { status?: string } };
    assert.equal(read.result?.status, "working", "reads keep working, and the job was not cancelled");
    h.store.conn.faults = undefined;
    assert.ok("result" in (await ask(3, "tasks/cancel")), "cancelled once the fault is gone");
  } finally {
    await client.close();
  }
});

Deno.test("A storage fault while writing ETags and corpus rows does not fail a watch's verdict", async () => {
  await using h = await openGitHubHarness({ scenario: "many_checks" });
  const isCacheOrCorpusWrite = (sql: readonly string[]) =>
    sql.some((s) => s.includes("http_etags") || s.includes("pull_request_checks"));
  h.store.conn.faults = { errcode: SQLITE_FULL, count: Infinity, when: isCacheOrCorpusWrite };
  const { row, result } = await runJob<WatchResult>(h, {
    kind: WATCH_KIND,
    input: { ...SCENARIO_PULL, poll_interval_ms: 5_000 },
  });
  assert.equal(row.outcome, "succeeded");
  assert.equal(result.outcome, "succeeded");
  assert.equal(new EtagRows(h.store.conn).etagCount(), 0, "no ETag was stored (the fault held)");
  const corpus = new CorpusRows(h.store.conn);
  assert.deepEqual(corpus.pullRequestChecksGet([{ repository: "octo/widgets", number: 42 }]), [undefined]);
});

Deno.test("A storage fault while writing corpus rows makes a sync item retryable, not failed", async () => {
  await using h = await openGitHubHarness({});
  const isCorpusWrite = (sql: readonly string[]) => sql.some((s) => s.includes("INSERT INTO repositories"));
  h.store.conn.faults = { errcode: SQLITE_FULL, count: Infinity, when: isCorpusWrite };
  const { result } = await runJob<{ items: { item_status: string; reason?: string; retry_after_ms?: number }[] }>(
    h,
    { kind: "github.sync_threads", input: { repositories: ["octo/widgets"] } },
  );
  assert.equal(result.items[0]?.item_status, "retryable");
  assert.equal(result.items[0]?.reason, "storage_unavailable");
  assert.equal(result.items[0]?.retry_after_ms, STORE_FAULT_RETRY_AFTER_MS);
});
