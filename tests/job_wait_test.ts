/**
 * Bounded waits (`jobs.get` with `wait_ms`, issue 10; JobWaits' own deadlines, bound, shared probe,
 * notify and close are unit-tested beside it in src/jobs/wait_test.ts): the watch's material key
 * (a github/ policy read by jobs/), JobControl.wait over real SQLite files written by this process and by another one,
 * and the MCP surface through a real server process and the official v1 client: argument bounds,
 * early return, the waiter bound, cancellation by the client's request abort (notifications/cancelled)
 * and shutdown.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/job_wait_test.ts
 */
import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import { JOB_WAIT_MS_MAX, JOB_WAITERS_MAX } from "../src/base/limits.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { watchPolicy } from "../src/github/watch_kind.ts";
import { JobKindRegistry } from "../src/jobs/kinds.ts";
import { materialKey, type WaitEnd } from "../src/jobs/wait.ts";
import type { JobRow } from "../src/store/job_rows.ts";
import { changeStamp } from "../src/store/change_stamp.ts";
import { spawnExecutorChild } from "./helpers/executor_child.ts";
import { modernMeta, spawnHttp, stdioServer } from "./helpers/longcall_procs.ts";
import { connectLegacyV1, MODERN_PROTOCOL_VERSION, type V1Client } from "../testing/mcp_clients.ts";
import { openHarness, tempDir } from "../testing/temp.ts";

/** Lets timers of 0 ms and every queued microtask run. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(p: Promise<T>): { readonly settled: boolean; readonly value: T | undefined; promise: Promise<T> } {
  const state = { settled: false, value: undefined as T | undefined, promise: p };
  p.then((v) => {
    state.settled = true;
    state.value = v;
  }, () => state.settled = true);
  return state;
}

Deno.test("materialKey: a watch's poll counter is not material; its CI signature (transitions), counts and state are", () => {
  // The control side's registry: the watch's policy alone (no runner, no client).
  const registry = new JobKindRegistry([watchPolicy]);
  const row = {
    kind: "github.wait_pull_request_checks",
    status: "running",
    outcome: null,
    phase: "waiting_for_checks",
    cancel_requested_at: null,
    completed_items: 1,
    total_items: 3,
    error: null,
    progress_message: "4 polls, 2 transitions; 1 passed, 0 failed, 2 pending",
  } as unknown as JobRow;
  const key = materialKey(row, registry);
  const msg = (m: string) => materialKey({ ...row, progress_message: m }, registry);
  assert.equal(msg("9 polls, 2 transitions; 1 passed, 0 failed, 2 pending"), key, "another poll: same key");
  assert.notEqual(msg("5 polls, 3 transitions; 1 passed, 0 failed, 2 pending"), key, "a new CI signature");
  assert.notEqual(materialKey({ ...row, completed_items: 2 }, registry), key, "a new progress count");
  assert.notEqual(materialKey({ ...row, phase: "rate_limited" }, registry), key, "a new phase");
  assert.notEqual(materialKey({ ...row, status: "succeeded", outcome: "failed" }, registry), key, "the end");
  assert.notEqual(materialKey({ ...row, cancel_requested_at: 1 }, registry), key, "a cancellation request");
  assert.equal(materialKey(undefined, registry), "absent");
});

// ---------------------------------------------------------------- JobControl.wait on real SQLite

Deno.test("JobControl.wait: a deadline wait writes nothing and leaves the job row unchanged", async () => {
  await using dir = await tempDir();
  const clock = new ManualClock();
  await using h = await openHarness(dir.file("w.db"), { executor: false, clock });
  const id = (await h.control.submit("sleep", { ms: 10 })).id;
  const before = h.store.rows.jobGet(id);
  const stamp = changeStamp(h.store.conn);
  const w = track(h.control.wait([id], null, { ms: 5_000, until: "change" }));
  await tick();
  clock.advance(5_000);
  assert.deepEqual(await w.promise, { until: "change", ended: "deadline", waited_ms: 5_000 });
  assert.deepEqual(h.store.rows.jobGet(id), before);
  assert.equal(changeStamp(h.store.conn), stamp, "no commit by any connection during the wait");
});

Deno.test("JobControl.wait: wakes on a write by this connection that raised no event, and on an in-process cancel", async () => {
  await using dir = await tempDir();
  await using h = await openHarness(dir.file("w.db"), { executor: false });
  const id = (await h.control.submit("sleep", { ms: 10 })).id;
  // A raw write on the control's own connection: no notify; total_changes() moves the stamp.
  const w = h.control.wait([id], null, { ms: JOB_WAIT_MS_MAX, until: "change" });
  await tick();
  h.store.conn.db.prepare("UPDATE jobs SET phase = 'warming_up' WHERE id = ?").run(id);
  const r = await w;
  assert.equal(r.ended, "changed");
  assert.ok(r.waited_ms < JOB_WAIT_MS_MAX);
  // A cancel of a queued job ends it at once (its notify wakes the waiter); the wait sees it terminal.
  const t = h.control.wait([id], null, { ms: JOB_WAIT_MS_MAX, until: "terminal" });
  await tick();
  await h.control.cancel(id);
  assert.equal((await t).ended, "terminal");
  // An unknown id is settled: nothing to wait for.
  const unknown = "0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8";
  assert.equal((await h.control.wait([unknown], null, { ms: JOB_WAIT_MS_MAX, until: "change" })).ended, "terminal");
});

Deno.test("JobControl.wait: wakes on changes another process commits to the same database", async () => {
  await using dir = await tempDir();
  const db = dir.file("x.db");
  await using h = await openHarness(db, { executor: false });
  const id = (await h.control.submit("sleep", { ms: 300, steps: 3 })).id;
  const claimed = h.control.wait([id], null, { ms: JOB_WAIT_MS_MAX, until: "change" });
  await tick();
  await using child = spawnExecutorChild({ db, dir: dir.path });
  await child.ready;
  // The other process claims the job (queued -> running): only the shared data_version probe can see it.
  const first = await claimed;
  assert.equal(first.ended, "changed", child.stderr());
  assert.notEqual(h.store.rows.jobGet(id)?.status, "queued");
  const done = await h.control.wait([id], null, { ms: JOB_WAIT_MS_MAX, until: "terminal" });
  assert.equal(done.ended, "terminal");
  assert.equal(h.store.rows.jobGet(id)?.status, "succeeded");
  await child.stop();
});

// ---------------------------------------------------------------- jobs.get over MCP (real process, v1 client)

type Json = Record<string, unknown>;
interface CallResult {
  structuredContent?: Json;
  isError?: boolean;
}

/** tools/call of `tool.name` with `tool.args` (2-minute timeout), abandoned when `options.signal` aborts. */
async function call(
  client: V1Client,
  tool: { name: string; args: Json },
  options: { signal?: AbortSignal } = {},
): Promise<CallResult> {
  const { name, args } = tool;
  const { signal } = options;
  return await client.callTool(
    { name, arguments: args },
    undefined,
    signal === undefined ? { timeout: 120_000 } : { signal, timeout: 120_000 },
  ) as CallResult;
}

function waitOf(r: CallResult): { until: string; ended: WaitEnd; waited_ms: number } {
  assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
  return r.structuredContent?.["wait"] as { until: string; ended: WaitEnd; waited_ms: number };
}

function itemOf(r: CallResult): Json {
  const items = r.structuredContent?.["items"] as Array<{ value?: Json }>;
  return items[0]?.value ?? {};
}

async function startSleep(client: V1Client, ms: number): Promise<string> {
  const r = await call(client, { name: "test.sleep", args: { ms, steps: 1 } });
  return r.structuredContent?.["id"] as string;
}

Deno.test("jobs.get wait_ms over MCP: bounds, early return at the end, and the JobReference suggests wait_ms", async () => {
  await using dir = await tempDir();
  const db = dir.file("m.db");
  const client = await connectLegacyV1(stdioServer(dir.path, db));
  try {
    const ref = await call(client, { name: "test.sleep", args: { ms: 400, steps: 2 } });
    const id = ref.structuredContent?.["id"] as string;
    const followUp = ref.structuredContent?.["follow_up"] as { action: { poll_job: Json } };
    assert.deepEqual(followUp.action.poll_job, { ids: [id], wait_ms: JOB_WAIT_MS_MAX });

    for (const bad of [-1, 1.5, JOB_WAIT_MS_MAX + 1, "100"]) {
      const r = await call(client, { name: "jobs.get", args: { ids: [id], wait_ms: bad } });
      assert.equal(r.isError, true, `wait_ms ${bad} is refused`);
      const error = r.structuredContent?.["error"] as Json;
      assert.equal(error["code"], "invalid_argument");
      assert.equal(error["path"], "$.wait_ms");
    }
    // At the bound, until terminal: returns when the job ends, long before wait_ms.
    const r = await call(client, {
      name: "jobs.get",
      args: { ids: [id], wait_ms: JOB_WAIT_MS_MAX, until: "terminal" },
    });
    assert.equal(waitOf(r).ended, "terminal");
    assert.ok(waitOf(r).waited_ms < JOB_WAIT_MS_MAX);
    assert.equal(itemOf(r)["execution_state"], "terminal");
    assert.equal(itemOf(r)["outcome"], "succeeded");
    // A terminal job answers at once; without wait_ms the answer carries no wait report (today's shape).
    const again = await call(client, { name: "jobs.get", args: { ids: [id], wait_ms: JOB_WAIT_MS_MAX } });
    const { waited_ms: waited, ...how } = waitOf(again);
    assert.deepEqual(how, { until: "change", ended: "terminal" });
    assert.ok(waited < JOB_WAIT_MS_MAX / 10, `answered without waiting (${waited} ms)`);
    const plain = await call(client, { name: "jobs.get", args: { ids: [id] } });
    assert.equal(plain.structuredContent?.["wait"], undefined);
  } finally {
    await client.close();
  }
});

Deno.test("jobs.get wait_ms over MCP: past JOB_WAITERS_MAX answers at once; a client's request abort frees its waiter", async () => {
  await using dir = await tempDir();
  const db = dir.file("c.db");
  const client = await connectLegacyV1(stdioServer(dir.path, db));
  try {
    const id = await startSleep(client, 120_000);
    const aborts = Array.from({ length: JOB_WAITERS_MAX }, () => new AbortController());
    // A parked call that lost the race for a slot to a probe (waiters_full) parks again.
    const park = async (signal: AbortSignal): Promise<string> => {
      try {
        for (;;) {
          const r = await call(client, {
            name: "jobs.get",
            args: { ids: [id], wait_ms: JOB_WAIT_MS_MAX, until: "terminal" },
          }, { signal });
          if (waitOf(r).ended !== "waiters_full") return "answered";
        }
      } catch (err) {
        return err instanceof Error ? err.name : String(err);
      }
    };
    const parked = aborts.map((a) => park(a.signal));
    // Requests on one stdio connection are handled in order: once this answers, all are parked.
    const full = await call(client, {
      name: "jobs.get",
      args: { ids: [id], wait_ms: JOB_WAIT_MS_MAX, until: "terminal" },
    });
    assert.equal(waitOf(full).ended, "waiters_full");
    assert.equal(itemOf(full)["execution_state"], "running", "the current view, at once");
    // The official client's abort sends notifications/cancelled for each request.
    for (const a of aborts) a.abort();
    const outcomes = await Promise.all(parked);
    assert.ok(outcomes.every((o) => o !== "answered"), `aborted calls get no answer: ${outcomes.join(",")}`);
    // Every slot is free again: a new wait parks and ends at its own (short) deadline.
    const next = await call(client, { name: "jobs.get", args: { ids: [id], wait_ms: 300, until: "terminal" } });
    assert.equal(waitOf(next).ended, "deadline");
    await call(client, { name: "jobs.cancel", args: { ids: [id] } });
  } finally {
    await client.close();
  }
});

Deno.test("jobs.get wait_ms over MCP: a shutdown (SIGTERM) answers a waiting call at once with the current view", async () => {
  await using dir = await tempDir();
  const db = dir.file("s.db");
  const client = await connectLegacyV1(stdioServer(dir.path, db, { flags: ["--grace-ms", "200"] }));
  try {
    const id = await startSleep(client, 120_000);
    const waiting = call(client, {
      name: "jobs.get",
      args: { ids: [id], wait_ms: JOB_WAIT_MS_MAX, until: "terminal" },
    });
    await call(client, { name: "jobs.get", args: { ids: [id] } }); // handled after the wait parked (in-order handling)
    const pid = (client.transport as unknown as { pid: number | null }).pid;
    assert.ok(typeof pid === "number");
    Deno.kill(pid, "SIGTERM");
    const r = await waiting;
    assert.equal(waitOf(r).ended, "shutdown");
    assert.equal(itemOf(r)["execution_state"], "running");
  } finally {
    await client.close();
  }
});

// ---------------------------------------------------------------- longcall jobs get --wait-ms (real CLI process)

const MAIN = new URL("../src/main.ts", import.meta.url).pathname;

function longcallCli(args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags(), MAIN, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

Deno.test("longcall jobs get --wait-ms: refuses past the bound; another process's cancel ends the wait early", async () => {
  await using dir = await tempDir();
  const db = dir.file("cli.db");
  await using h = await openHarness(db, { executor: false });
  const id = (await h.control.submit("sleep", { ms: 10 })).id;

  const bad = await longcallCli(["jobs", "get", id, "--wait-ms", String(JOB_WAIT_MS_MAX + 1), "--db", db]).output();
  assert.equal(bad.code, 2);
  assert.match(new TextDecoder().decode(bad.stderr), /--wait-ms: expected an integer from 0 to 45000/);

  const child = longcallCli([
    "jobs",
    "get",
    id,
    "--wait-ms",
    String(JOB_WAIT_MS_MAX),
    "--until",
    "terminal",
    "--json",
    "--db",
    db,
  ]);
  await h.control.cancel(id); // this process writes; the CLI process sees it through data_version
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const answer = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    items: { value: { outcome: string } }[];
    wait: { until: string; ended: string; waited_ms: number };
  };
  assert.equal(answer.wait.ended, "terminal");
  assert.ok(answer.wait.waited_ms < JOB_WAIT_MS_MAX);
  assert.equal(answer.items[0]?.value.outcome, "cancelled");
});

Deno.test("jobs.get wait_ms over streamable HTTP: the waiter bound holds and a client's request abort frees its waiter", async () => {
  await using dir = await tempDir();
  const db = dir.file("h.db");
  await using server = await spawnHttp(dir.path, db);
  const client = await connectLegacyV1({ url: server.mcpUrl });
  try {
    const id = await startSleep(client, 120_000);
    const aborts = Array.from({ length: JOB_WAITERS_MAX }, () => new AbortController());
    // A parked call that lost the race for a slot to a probe (waiters_full) parks again.
    const park = async (signal: AbortSignal): Promise<string> => {
      try {
        for (;;) {
          const r = await call(client, {
            name: "jobs.get",
            args: { ids: [id], wait_ms: JOB_WAIT_MS_MAX, until: "terminal" },
          }, { signal });
          if (waitOf(r).ended !== "waiters_full") return "answered";
        }
      } catch (err) {
        return err instanceof Error ? err.name : String(err);
      }
    };
    const parked = aborts.map((a) => park(a.signal));
    // HTTP requests race each other: probe with 1-ms waits until the bound is reached (bounded in
    // time, not in probes, so a slow machine that registers the parked calls late still gets there).
    let ended: WaitEnd | undefined;
    for (const until = Date.now() + 20_000; Date.now() < until && ended !== "waiters_full";) {
      ended = waitOf(await call(client, { name: "jobs.get", args: { ids: [id], wait_ms: 1 } })).ended;
      if (ended !== "waiters_full") await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(ended, "waiters_full");
    for (const a of aborts) a.abort();
    const outcomes = await Promise.all(parked);
    assert.ok(outcomes.every((o) => o !== "answered"), `aborted calls get no answer: ${outcomes.join(",")}`);
    // Cancellation notifications travel on their own requests: once processed, every slot is free again.
    let next: WaitEnd | undefined;
    for (const until = Date.now() + 20_000; Date.now() < until && next !== "deadline";) {
      next = waitOf(await call(client, { name: "jobs.get", args: { ids: [id], wait_ms: 1 } })).ended;
      if (next !== "deadline") await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(next, "deadline", "the aborted waiters were released");
    await call(client, { name: "jobs.cancel", args: { ids: [id] } });
  } finally {
    await client.close();
  }
});

Deno.test("jobs.get wait_ms over streamable HTTP: a client that drops its connection frees its waiter", async () => {
  await using dir = await tempDir();
  const db = dir.file("d.db");
  await using server = await spawnHttp(dir.path, db);
  const client = await connectLegacyV1({ url: server.mcpUrl });
  try {
    const id = await startSleep(client, 120_000);
    // Modern-era requests (one HTTP request per call, no session), each on a connection the test then drops.
    const drops = Array.from({ length: JOB_WAITERS_MAX }, () => new AbortController());
    // Each parks on a connection of its own; one that lost the race for a slot to a probe (answered
    // at once with waiters_full) parks again, so all of them end up holding a slot.
    const parkRaw = async (d: AbortController, i: number): Promise<string> => {
      try {
        for (;;) {
          const r = await fetch(server.mcpUrl, {
            method: "POST",
            signal: d.signal,
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
              "mcp-method": "tools/call",
              "mcp-name": "jobs.get",
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1000 + i,
              method: "tools/call",
              params: {
                name: "jobs.get",
                arguments: { ids: [id], wait_ms: JOB_WAIT_MS_MAX, until: "terminal" },
                _meta: modernMeta(),
              },
            }),
          });
          const text = await r.text();
          if (!text.includes('"waiters_full"')) return "answered";
        }
      } catch {
        return "dropped";
      }
    };
    const sent = drops.map((d, i) => parkRaw(d, i));
    let ended: WaitEnd | undefined;
    for (const until = Date.now() + 20_000; Date.now() < until && ended !== "waiters_full";) {
      ended = waitOf(await call(client, { name: "jobs.get", args: { ids: [id], wait_ms: 1 } })).ended;
      if (ended !== "waiters_full") await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(ended, "waiters_full");
    for (const d of drops) d.abort();
    await Promise.all(sent);
    let next: WaitEnd | undefined;
    for (const until = Date.now() + 20_000; Date.now() < until && next !== "deadline";) {
      next = waitOf(await call(client, { name: "jobs.get", args: { ids: [id], wait_ms: 1 } })).ended;
      if (next !== "deadline") await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(next, "deadline", "the dropped connections' waiters were released");
    await call(client, { name: "jobs.cancel", args: { ids: [id] } });
  } finally {
    await client.close();
  }
});
