/**
 * MCP server benchmarks (issues 3, 4 and 6), in one run:
 *
 * 1. `jobs.get` round trips over stdio (legacy connection, v2 Client) for 1 id and for 100 ids,
 *    with 1,000 jobs stored and 100 running, against a plain `bench.echo` tool on the same
 *    connection (scripts/bench/bench_server.ts: the real `runServer` wiring plus test kinds).
 * 2. `tasks/get` round trips over stdio on a modern, task-declaring connection to the same
 *    database, against `bench.echo` on that connection; then the time from a task's completion
 *    (its `completed_at`) to a polling host (ext-tasks session) observing it at the advertised
 *    `pollIntervalMs`.
 * 3. Start-up: process spawn to the first `tools/list` answer, and RSS, for the product server
 *    (`deno run <launchFlags()> src/main.ts serve`) against a minimal SDK server
 *    (scripts/bench/hello_server.ts) started with the same flags; then the same from bundles:
 *    the shipped one (scripts/build.ts `bundleTo`, network worker embedded) against
 *    `deno bundle` of the hello server, plus RSS after 1,000 calls of each, alternating, and the
 *    floor of that RSS ratio: the hello server plus one idle Worker
 *    (scripts/bench/hello_worker_server.ts) beside the hello server, the same way, and longcall
 *    beside a hello server that collects when idle as longcall does (scripts/bench/hello_collect_server.ts).
 *    Then the price of that idle collection (src/base/idle_collect.ts): the serving thread's pause, and the
 *    first call after a quiet time, against the bundle launched without `--expose-gc` (which never collects).
 *
 * Standalone: `deno run --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 scripts/bench/mcp.ts`
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { ENDED_ROWS_CACHED_MAX, IDLE_COLLECT_AFTER_MS } from "../../src/base/limits.ts";
import { launchFlags, RESOLUTION_FLAGS, V8_FLAGS } from "../../src/cli/permissions.ts";
import type { startUp } from "../../src/cli/serve.ts";
import { BUNDLE_FLAGS, bundleTo } from "../build.ts";
import {
  connectTaskHost,
  connectV2,
  type RawResponse,
  type StdioTarget,
  type TaskHost,
  type V2Connection,
} from "../../testing/mcp_clients.ts";
import { logLines } from "../../testing/log_lines.ts";
import { loadAverages } from "./load.ts";
import { previousConciseAnswer } from "./previous_shape.ts";
import { freshSeed, ratioInterval, RESAMPLES_DEFAULT, slowCallClustering, type TimedCall } from "./resample.ts";
import { measureModuleLoad, type ModuleLoad } from "./module_load.ts";
import { splitRoundTrips, tailParts } from "./line_split.ts";
import { denoSearchMs, nodeSearchMs, readBufferMs, readsOf, searchedBytes } from "./client_framing.ts";
import { installNodeSdk } from "./node_sdk.ts";
import { nodeJson } from "./node_run.ts";
import { BATCH_VS_ONE_GOAL, BATCH_VS_ONE_P50_GOAL } from "./goals.ts";
import type { LineTime } from "./bench_server.ts";
import { rememberTaskTool } from "../../testing/output_schemas.ts";
import { MODERN_PROTOCOL_VERSION, TASKS_EXTENSION_ID } from "../../testing/mcp_clients/envelope.ts";
import { type BenchSection, mb, median, percentile, ratioFmt, sleep } from "./store/harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BENCH_SERVER = fileURLToPath(new URL("./bench_server.ts", import.meta.url));
const HELLO_SERVER = fileURLToPath(new URL("./hello_server.ts", import.meta.url));
const HELLO_WORKER_SERVER = fileURLToPath(new URL("./hello_worker_server.ts", import.meta.url));
const HELLO_COLLECT_SERVER = fileURLToPath(new URL("./hello_collect_server.ts", import.meta.url));
const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const NODE_HOST_CLIENT = fileURLToPath(new URL("./node_host_client.mjs", import.meta.url));

const TERMINAL_JOBS = 900;
const RUNNING_JOBS = 100;
const RUNNING_MAX = 150; // room for the poll-observation tasks next to the 100 hanging jobs
const WARMUP_ROUNDS = 100;
// A p99 is the ROUNDS/100-th slowest call. The 100/1 p99 ratio's resampling interval was 1.2-1.8x wide at 1,500
// rounds (three runs) and 0.7-1.4x at 4,000 (three runs), for about 30 s more per run.
const ROUNDS = 4_000;
const POLL_SAMPLES = 16;
/** Slow calls this close in time count as one burst (a round of seven calls takes a few ms). */
const SLOW_CALL_WINDOW_MS = 10;
// Start-ups vary by tens of ms with the machine (the floor row alone has measured 1.14-1.35x): 20 rounds keep
// one slow round from moving a median.
const START_RUNS = 20;
const RSS_CALLS = 1_000;
// Idle RSS is read this long after the last call: past the quiet time after which each of longcall's isolates
// collects once (src/base/idle_collect.ts), with a second for the collections themselves.
const RSS_IDLE_MS = IDLE_COLLECT_AFTER_MS + 1_000;
// The idle collection's price: this many bursts of RSS_CALLS calls, each followed by RSS_IDLE_MS of quiet and
// one timed call (a median of three, so one slow call does not make the row).
const IDLE_PRICE_CYCLES = 3;
/** After the idle RSS is read, the CPU both servers use is read over this much more quiet. */
const IDLE_CPU_WINDOW_MS = 10_000;

/** A pipe's capacity on Linux unless its owner raises it (F_SETPIPE_SZ): a stdio line longer than this is
 * written in two fills, the second only once the client has read the first. */
const PIPE_CAPACITY_BYTES = 64 * 1024;
/** Timed framings of one 100-id line by the client's ReadBuffer (each well under a millisecond). */
const FRAMING_SAMPLES = 200;

const JOBS_GET_VS_ECHO_GOAL = 1.5;
const TASKS_GET_VS_ECHO_GOAL = 1.5;
const START_BUNDLE_VS_HELLO_GOAL = 1.3;
const START_SOURCE_VS_HELLO_GOAL = 1.5;
/** Claude Code waits min(3000 ms, MCP_TIMEOUT / 3) for its server/discover probe, then serves the whole session
 * legacy (no tasks): ../shared/reference/real-hosts.md. Its spawn is not in that wait; the bench's is (stricter). */
const DISCOVER_MS_GOAL = 3_000;
const IDLE_RSS_VS_HELLO_GOAL = 1.25;
const IDLE_RSS_GOAL_BYTES = 100 * 1024 * 1024;
const RSS_100_GOAL_BYTES = 140 * 1024 * 1024;

// ---------------------------------------------------------------- helpers

/** The `p` quantile of samples in any order. */
const quantile = (samples: readonly number[], p: number) => percentile([...samples].sort((a, b) => a - b), p);
const ms2 = (n: number) => n.toFixed(2);
const ms0 = (n: number) => n.toFixed(0);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const pp = (samples: readonly number[]) => `${ms2(quantile(samples, 0.5))} / ${ms2(quantile(samples, 0.99))} ms`;

/**
 * A /proc file's text. Deno asks for all permissions to read /proc entries such as another
 * process's status, so `cat` reads them (the benchmark already runs children); "" if unreadable.
 */
async function procText(path: string): Promise<string> {
  const out = await new Deno.Command("cat", { args: [`/proc/${path}`], stdout: "piped", stderr: "null" }).output();
  return out.success ? new TextDecoder().decode(out.stdout) : "";
}

/** A field (VmRSS, VmHWM) of /proc/<pid>/status, in bytes. */
async function procStatus(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await procText(`${pid}/status`);
  const kb = Number(status.match(new RegExp(`^${field}:\\s*(\\d+)\\s*kB`, "m"))?.[1] ?? NaN);
  if (!Number.isFinite(kb)) throw new Error(`bench: no ${field} for process ${pid}`);
  return kb * 1024;
}

const rssOf = (pid: number) => procStatus(pid, "VmRSS");

let clockTicksPerSecond: number | undefined;

/** CPU time a process has used so far, all its threads (utime + stime of /proc/<pid>/stat), in ms. */
async function cpuMsOf(pid: number): Promise<number> {
  if (clockTicksPerSecond === undefined) {
    const out = await new Deno.Command("getconf", { args: ["CLK_TCK"], stdout: "piped", stderr: "null" }).output();
    clockTicksPerSecond = Number(new TextDecoder().decode(out.stdout).trim()) || 100;
  }
  const stat = await procText(`${pid}/stat`);
  // Fields after the command name (which may hold spaces), from field 3: utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`bench: no CPU times for process ${pid}`);
  return ticks * 1000 / clockTicksPerSecond;
}

function resultOf(response: RawResponse, what: string): Record<string, unknown> {
  if (response.kind === "error") throw new Error(`bench: ${what} failed: ${JSON.stringify(response.error)}`);
  if (response.result["isError"] === true) {
    throw new Error(`bench: ${what} returned an error: ${JSON.stringify(response.result).slice(0, 500)}`);
  }
  return response.result;
}

interface JobsGetItem {
  key: string;
  value?: { execution_state?: string; completed_at?: string };
}

function itemsOf(response: RawResponse): JobsGetItem[] {
  const structured = resultOf(response, "jobs.get")["structuredContent"] as { items: JobsGetItem[] };
  return structured.items;
}

/** A `tools/call` request's params: the tool and its arguments (a type, so it is a `Record<string, unknown>`). */
type ToolCall = { name: string; arguments: Record<string, unknown> };

/** Sends `call` as a raw `tools/call` (30 s time box); `options.declareTasks` declares the tasks extension. */
function callTool(conn: V2Connection, call: ToolCall, options?: { declareTasks?: boolean }) {
  return conn.rawRequest("tools/call", call, { declareTasks: options?.declareTasks ?? false, timeoutMs: 30_000 });
}

async function jobsGet(conn: V2Connection, ids: string[]) {
  return itemsOf(await callTool(conn, { name: "jobs.get", arguments: { ids, response_format: "concise" } }));
}

/** Polls jobs.get until every one of `wait.ids` is in `wait.state`; throws after `wait.timeoutMs`. */
async function waitForStates(
  conn: V2Connection,
  wait: { ids: string[]; state: string; timeoutMs: number },
): Promise<void> {
  const { ids, state, timeoutMs } = wait;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let pending = 0;
    for (let i = 0; i < ids.length; i += 100) {
      const items = await jobsGet(conn, ids.slice(i, i + 100));
      pending += items.filter((item) => item.value?.execution_state !== state).length;
    }
    if (pending === 0) return;
    if (Date.now() > deadline) throw new Error(`bench: ${pending} jobs never reached ${state}`);
    await sleep(50);
  }
}

/** Submits `jobs.count` jobs through `jobs.tool` (JobReferences), at most 50 in flight. */
async function submitJobs(conn: V2Connection, jobs: { tool: string; count: number }): Promise<string[]> {
  const { tool, count } = jobs;
  const ids: string[] = [];
  for (let done = 0; done < count;) {
    const wave = Math.min(50, count - done);
    const refs = await Promise.all(
      Array.from({ length: wave }, (_, i) => {
        const args = tool === "test.echo" ? { n: done + i } : {};
        return callTool(conn, { name: tool, arguments: args });
      }),
    );
    for (const ref of refs) {
      const id = (resultOf(ref, tool)["structuredContent"] as { id: string }).id;
      // Submitted as JobReferences: tell the clients' output-schema check which tool made each task.
      rememberTaskTool(id, tool);
      ids.push(id);
    }
    done += wave;
  }
  return ids;
}

/** The bench server on `db` (`options.lineTimes`: where it writes its answer lines' times when it exits). */
function benchServerTarget(dir: string, db: string, options: { lineTimes?: string } = {}): StdioTarget {
  const { lineTimes } = options;
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      "--allow-env",
      "--deny-net",
      // The shipped V8 flags (a 1 MB semi-space, gc for the idle collection): latency is measured as shipped.
      ...V8_FLAGS,
      BENCH_SERVER,
      "serve",
      "--db",
      db,
      "--running-max",
      String(RUNNING_MAX),
      "--admitted-max",
      "5000",
      "--grace-ms",
      "100",
      ...(lineTimes === undefined ? [] : ["--line-times", lineTimes]),
    ],
    env: { LONGCALL_LOG: "error" },
    stderr: "inherit",
  };
}

async function timed(send: () => Promise<RawResponse>, what: string): Promise<number> {
  const t0 = performance.now();
  const response = await send();
  const elapsed = performance.now() - t0;
  resultOf(response, what);
  return elapsed;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

// ---------------------------------------------------------------- 1 + 2: round trips and poll observation

/** UTF-8 bytes of the JSON of a tool result (its text content and structuredContent). */
function utf8Bytes(result: unknown): number {
  return new TextEncoder().encode(JSON.stringify(result)).length;
}

/** UTF-8 bytes of the JSON of a jobs.get result (its text content and structuredContent) for `window`. */
async function resultBytes(conn: V2Connection, window: string[]): Promise<number> {
  return utf8Bytes(resultOf(await callTool(conn, { name: "jobs.get", arguments: { ids: window } }), "jobs.get"));
}

interface LatencyResults {
  ids: string[];
  legacyEcho: number[];
  get1: number[];
  get100: number[];
  /** bench.replay answering a 100-id jobs.get answer from memory: the same bytes without the reads. */
  replay100: number[];
  /** bench.replay answering the same jobs in the previous concise shape ({@linkcode previousConciseAnswer}). */
  replayPrevious: number[];
  /** UTF-8 bytes of the JSON of a `jobs.get` result (its text content and structuredContent): 1 id, 100 ids, and
   * the 100-id answer in the previous concise shape. */
  getBytes: { one: number; hundred: number; previous: number };
  modernEcho: number[];
  tasksGet: number[];
  observeLag: number[];
  advertisedPoll: number[];
  pollsPerTask: number[];
  sleepMs: number[];
  /** Every kept round trip of the seven series above, in the order they ran (start time, duration, series). */
  calls: TimedCall[];
  /** The 1-id and 100-id round trips split by the legacy server's own times of their answer lines. */
  split: { get1: Split; get100: Split };
  /** jobs.get as a Node host sees it, or why it was not measured. */
  node: NodeHost | { skipped: string };
  /** What the bench's client spends framing one 100-id answer line (scripts/bench/client_framing.ts). */
  framing: ClientFraming;
}

/** The client's framing of one 100-id line, arriving in reads of at most a pipe's capacity, each a median in ms. */
interface ClientFraming {
  lineBytes: number;
  searchedBytes: number;
  readBufferMs: number;
  searchMs: number;
  nodeSearchMs: number | { skipped: string };
}

/** The framing costs of the JSON-RPC line carrying `result` (as the server writes it: its JSON and a newline). */
async function clientFraming(result: Record<string, unknown>, dir: string): Promise<ClientFraming> {
  const line = new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", id: "raw:1", result })}\n`);
  const options = { readBytesMax: PIPE_CAPACITY_BYTES, samples: FRAMING_SAMPLES };
  return {
    lineBytes: line.length,
    searchedBytes: searchedBytes(readsOf(line, PIPE_CAPACITY_BYTES)),
    readBufferMs: readBufferMs(line, options),
    searchMs: denoSearchMs(line, options),
    nodeSearchMs: await nodeSearchMs(line, { ...options, dir, node: "node" }),
  };
}

/** What scripts/bench/node_host_client.mjs measured, and the seed of its order of calls. */
interface NodeHost {
  servers: { transport: "socket" | "fifo" | "sdk"; stdout: string; one: number[]; hundred: number[] }[];
  seed: number;
  /** Why the SDK's own transport was not measured, when it was not (scripts/bench/node_sdk.ts). */
  sdkSkipped?: string;
}

/**
 * `jobs.get` of 1 id and of 100 ids from Node (scripts/bench/node_host_client.mjs), on `ids` of `store.db`: the bench
 * server spawned as Node hosts spawn servers (its stdout a socket) and beside it on a FIFO, both read line by line
 * by the script; with `options.sdk` (scripts/bench/node_sdk.ts `installNodeSdk`), a third read by the official
 * SDK's StdioClientTransport at that path, or its `skipped` reason carried into the rows. `skipped` when there is
 * no `node` (`options.node`, the command run) to run it. `options.rounds` and `options.warmup` default to the
 * bench's own.
 */
export async function nodeHost(
  store: { dir: string; db: string },
  ids: readonly string[],
  options: { node?: string; sdk?: { stdio: string } | { skipped: string }; rounds?: number; warmup?: number } = {},
): Promise<NodeHost | { skipped: string }> {
  const { dir, db } = store;
  const { node = "node", sdk, rounds = ROUNDS, warmup = WARMUP_ROUNDS } = options;
  const { command, args, env } = benchServerTarget(dir, db);
  const seed = freshSeed();
  const spec = `${dir}/node-host.json`;
  const sdkStdio = sdk !== undefined && "stdio" in sdk ? sdk.stdio : undefined;
  await Deno.writeTextFile(
    spec,
    JSON.stringify({ command, args, env, dir, ids, rounds, warmup, seed, sdkStdio }),
  );
  // The SDK's packages are linked from Deno's cache (scripts/bench/node_sdk.ts): Node resolves its imports
  // through the links only when it keeps them.
  const out = await nodeJson<Pick<NodeHost, "servers">>(node, {
    script: NODE_HOST_CLIENT,
    args: [spec],
    flags: ["--preserve-symlinks"],
  });
  if ("skipped" in out) return out;
  const { servers } = out;
  return sdk !== undefined && "skipped" in sdk ? { servers, seed, sdkSkipped: sdk.skipped } : { servers, seed };
}

type Split = ReturnType<typeof splitRoundTrips>;

async function latencies(dir: string, db: string): Promise<LatencyResults> {
  const target = benchServerTarget(dir, db);
  const host: TaskHost = await connectTaskHost(target, { endpointId: "longcall-bench" });
  try {
    // 1,000 stored jobs: 900 terminal, then 100 that stay running.
    const done = await submitJobs(host, { tool: "test.echo", count: TERMINAL_JOBS });
    await waitForStates(host, { ids: done, state: "terminal", timeoutMs: 60_000 });
    const hanging = await submitJobs(host, { tool: "test.hang", count: RUNNING_JOBS });
    await waitForStates(host, { ids: hanging, state: "running", timeoutMs: 30_000 });
    const ids = shuffle([...done, ...hanging]);

    const lineTimes = `${dir}/legacy-line-times.json`;
    const legacy = await connectV2(benchServerTarget(dir, db, { lineTimes }), { era: "legacy" });
    const out: LatencyResults = {
      ids,
      legacyEcho: [],
      get1: [],
      get100: [],
      replay100: [],
      replayPrevious: [],
      getBytes: { one: 0, hundred: 0, previous: 0 },
      modernEcho: [],
      tasksGet: [],
      observeLag: [],
      advertisedPoll: [],
      pollsPerTask: [],
      sleepMs: [],
      calls: [],
      split: { get1: { splits: [], unmatched: 0 }, get100: { splits: [], unmatched: 0 } },
      node: { skipped: "not run" },
      framing: { lineBytes: 0, searchedBytes: 0, readBufferMs: 0, searchMs: 0, nodeSearchMs: { skipped: "not run" } },
    };
    try {
      const echoArgs = { text: "hello", n: 1 };
      // bench.replay keeps a 100-id answer (of the first 100 ids, a mix like any other window) to give it back,
      // and the same jobs in the previous concise shape.
      const hundredResult = resultOf(
        await callTool(legacy, { name: "jobs.get", arguments: { ids: ids.slice(0, 100) } }),
        "jobs.get",
      );
      const detailed = resultOf(
        await callTool(legacy, {
          name: "jobs.get",
          arguments: { ids: ids.slice(0, 100), response_format: "detailed" },
        }),
        "jobs.get",
      );
      const previous = previousConciseAnswer(detailed["structuredContent"] as Record<string, unknown>);
      out.framing = await clientFraming(hundredResult, dir);
      for (const [slot, answer] of [["current", hundredResult["structuredContent"]], ["previous", previous]]) {
        resultOf(await callTool(legacy, { name: "bench.replay", arguments: { slot, answer } }), "bench.replay");
      }
      out.getBytes = {
        one: await resultBytes(legacy, ids.slice(0, 1)),
        hundred: utf8Bytes(hundredResult),
        previous: utf8Bytes(
          resultOf(await callTool(legacy, { name: "bench.replay", arguments: { slot: "previous" } }), "bench.replay"),
        ),
      };
      for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
        const one = ids[round % ids.length] as string;
        const start = (round * 37) % (ids.length - 100);
        const hundred = ids.slice(start, start + 100);
        const keep = round >= WARMUP_ROUNDS;
        // One step of the round: `request.send` timed (named `request.what` in errors), kept in `series`.
        const step = (series: number[], request: { what: string; send: () => Promise<RawResponse> }) => async () => {
          const { what, send } = request;
          const at = performance.now();
          const ms = await timed(send, what);
          if (!keep) return;
          series.push(ms);
          out.calls.push({ at, ms, series });
        };
        const steps: Array<() => Promise<void>> = [
          step(out.legacyEcho, {
            what: "bench.echo",
            send: () => callTool(legacy, { name: "bench.echo", arguments: echoArgs }),
          }),
          step(out.get1, {
            what: "jobs.get 1",
            send: () => callTool(legacy, { name: "jobs.get", arguments: { ids: [one] } }),
          }),
          step(out.get100, {
            what: "jobs.get 100",
            send: () => callTool(legacy, { name: "jobs.get", arguments: { ids: hundred } }),
          }),
          step(out.replay100, {
            what: "bench.replay",
            send: () => callTool(legacy, { name: "bench.replay", arguments: { slot: "current" } }),
          }),
          step(out.replayPrevious, {
            what: "bench.replay previous",
            send: () => callTool(legacy, { name: "bench.replay", arguments: { slot: "previous" } }),
          }),
          step(out.modernEcho, {
            what: "bench.echo (modern)",
            send: () => callTool(host, { name: "bench.echo", arguments: echoArgs }, { declareTasks: true }),
          }),
          step(out.tasksGet, { what: "tasks/get", send: () => host.tasksGet(one) }),
        ];
        for (const step of shuffle(steps)) await step();
      }
    } finally {
      await legacy.close(); // the server exits, writing its lines' times
    }
    const lines = JSON.parse(await Deno.readTextFile(lineTimes)) as LineTime[];
    const callsOf = (series: number[]) =>
      out.calls.filter((c) => c.series === series).map((c) => ({ startAt: performance.timeOrigin + c.at, ms: c.ms }));
    out.split = {
      get1: splitRoundTrips(callsOf(out.get1), lines),
      get100: splitRoundTrips(callsOf(out.get100), lines),
    };
    out.node = await nodeHost({ dir, db }, ids, { sdk: await installNodeSdk(`${dir}/node-sdk`) });

    // Poll observation: sleep tasks of known, varied length, all followed by the ext-tasks session.
    const runs = await Promise.all(Array.from({ length: POLL_SAMPLES }, async (_, i) => {
      const ms = 400 + Math.round((i * 2_600) / (POLL_SAMPLES - 1));
      const run = await host.callToolAsTask("test.sleep", { ms });
      const observedAt = Date.now();
      return { ms, run, observedAt };
    }));
    for (const { ms, run, observedAt } of runs) {
      if (run.kind !== "task" || run.taskId === undefined) throw new Error("bench: test.sleep did not return a task");
      const [item] = await jobsGet(host, [run.taskId]);
      const completedAt = Date.parse(item?.value?.completed_at ?? "");
      if (!Number.isFinite(completedAt)) throw new Error(`bench: task ${run.taskId} has no completed_at`);
      out.observeLag.push(observedAt - completedAt);
      out.pollsPerTask.push(run.polls);
      out.sleepMs.push(ms);
      const advertised = run.initial?.["pollIntervalMs"];
      if (typeof advertised === "number") out.advertisedPoll.push(advertised);
    }
    return out;
  } finally {
    await host.close();
  }
}

// ---------------------------------------------------------------- 3: start-up and RSS over raw stdio

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "longcall-bench", version: "0" } },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const TOOLS_LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };
/** Claude Code's first request on stdio (protocol 2026-07-28), declaring the Tasks extension. */
const DISCOVER = {
  jsonrpc: "2.0",
  id: 3,
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
      "io.modelcontextprotocol/clientInfo": { name: "longcall-bench", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION_ID]: {} } },
    },
  },
};

/** A server child spoken to with raw JSON-RPC lines (no client library on the timed path). */
class RawServer {
  readonly child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, (message: Record<string, unknown>) => void>();
  readonly #pump: Promise<void>;
  readonly #stderr: Promise<string>;
  #nextId = 10;

  /**
   * With `stderr`, what the server writes there is kept (start-up phases, debug lines); otherwise it is
   * discarded. `env` is added to the server's environment.
   */
  constructor(args: string[], options: { stderr?: boolean; env?: Record<string, string> } = {}) {
    const child = new Deno.Command(Deno.execPath(), {
      args,
      cwd: ROOT,
      ...(options.env === undefined ? {} : { env: options.env }),
      stdin: "piped",
      stdout: "piped",
      stderr: options.stderr === true ? "piped" : "null",
    }).spawn();
    this.child = child;
    this.#stderr = options.stderr === true ? new Response(child.stderr).text() : Promise.resolve("");
    this.#writer = child.stdin.getWriter();
    this.#pump = (async () => {
      let buffered = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line === "") continue;
          const message = JSON.parse(line) as Record<string, unknown>;
          if (typeof message["id"] === "number") this.#pending.get(message["id"])?.(message);
        }
      }
    })();
  }

  #answer(id: number): Promise<Record<string, unknown>> {
    return new Promise((resolve) => this.#pending.set(id, resolve));
  }

  async write(...messages: unknown[]): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(messages.map((m) => `${JSON.stringify(m)}\n`).join("")));
  }

  /** Writes the legacy handshake and `tools/list` at once; resolves when the list answer arrives. */
  async toolsList(): Promise<Record<string, unknown>> {
    const listed = this.#answer(2);
    await this.write(INITIALIZE, INITIALIZED, TOOLS_LIST);
    return await withTimeout(listed, { ms: 30_000, what: "tools/list" });
  }

  /** Writes `server/discover` (the modern era's first request); resolves with its answer. */
  async discover(): Promise<Record<string, unknown>> {
    const answered = this.#answer(3);
    await this.write(DISCOVER);
    return await withTimeout(answered, { ms: 30_000, what: "server/discover" });
  }

  async call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const answered = this.#answer(id);
    await this.write({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    const message = await withTimeout(answered, { ms: 30_000, what: `tools/call ${name}` });
    this.#pending.delete(id);
    const result = message["result"] as Record<string, unknown> | undefined;
    if (result === undefined || result["isError"] === true) {
      throw new Error(`bench: ${name} failed: ${JSON.stringify(message).slice(0, 500)}`);
    }
    return result;
  }

  /** Ends stdin (the graceful path), then kills after 5 s. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => {
      try {
        this.child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 5_000);
    await this.child.status;
    clearTimeout(timer);
    await this.#pump.catch(() => {});
  }

  /** Everything the server wrote to stderr (kept only with the `stderr` option), once it has exited. */
  stderr(): Promise<string> {
    return this.#stderr;
  }
}

/** Start-up phases from a longcall server's `serving` line (src/cli/serve.ts `startUp`). */
type StartPhases = ReturnType<typeof startUp>;

function startPhasesOf(stderr: string): StartPhases | undefined {
  const [line] = logLines(stderr, "serving");
  if (line === undefined) return undefined;
  const fields = line.fields as Partial<StartPhases>;
  return fields.start_ms === undefined || fields.serving_at_ms === undefined
    ? undefined
    : { serving_at_ms: fields.serving_at_ms, start_ms: fields.start_ms };
}

/** `promise`, or a rejection naming `limit.what` once `limit.ms` have passed without it settling. */
async function withTimeout<T>(promise: Promise<T>, limit: { ms: number; what: string }): Promise<T> {
  const { ms, what } = limit;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`bench: no answer to ${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface StartSample {
  ms: number;
  rss: number;
  /** A longcall server's own account of its start-up (from its stderr, kept for the product only). */
  phases?: StartPhases | undefined;
}

/** Spawn to the first tools/list answer; RSS right after it; with `phases`, the server's `serving` line. */
export async function startOnce(args: string[], phases = false): Promise<StartSample> {
  const t0 = performance.now();
  const server = new RawServer(args, { stderr: phases });
  let sample: StartSample;
  try {
    await server.toolsList();
    const ms = performance.now() - t0;
    sample = { ms, rss: await rssOf(server.child.pid) };
  } finally {
    await server.close();
  }
  return phases ? { ...sample, phases: startPhasesOf(await server.stderr()) } : sample;
}

/** Spawn to the answer to `server/discover` (an error answer stops the bench), START_RUNS times after one warm-up. */
async function discoverTimes(args: string[]): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i <= START_RUNS; i++) {
    const t0 = performance.now();
    const server = new RawServer(args);
    try {
      const answer = await server.discover();
      if (!("result" in answer)) throw new Error(`bench: server/discover failed: ${JSON.stringify(answer)}`);
      if (i > 0) times.push(performance.now() - t0); // the first run warms the caches, unmeasured
    } finally {
      await server.close();
    }
  }
  return times;
}

/** The median of each phase over the samples that logged them (none: undefined). */
function medianPhases(samples: readonly StartSample[]): StartPhases | undefined {
  const logged = samples.flatMap((s) => s.phases === undefined ? [] : [s.phases]);
  if (logged.length === 0) return undefined;
  const of = (pick: (p: StartPhases) => number) => Math.round(median(logged.map(pick)));
  return {
    serving_at_ms: of((p) => p.serving_at_ms),
    start_ms: {
      entry: of((p) => p.start_ms.entry),
      runtime: of((p) => p.start_ms.runtime),
      mcp: of((p) => p.start_ms.mcp),
      narrow: of((p) => p.start_ms.narrow),
    },
  };
}

/** One sentence on where the product's start-up went, from its own marks. */
function phasesSentence(where: string, phases: StartPhases | undefined): string {
  if (phases === undefined) return `${where}: the server logged no start-up phases.`;
  const { entry, runtime, mcp, narrow } = phases.start_ms;
  return `${where}, from the server's own \`serving\` line (src/cli/serve.ts \`startUp\`; medians, ms of its ` +
    `clock from its time origin): entry (Deno's runtime, the CLI and its modules) ${entry}, runtime (the store, ` +
    `\`new Worker()\`) ${runtime}, MCP layer (loaded, factory built) ${mcp}, narrowing (the worker's entry, the ` +
    `revocation, the transport) ${narrow}: serving at ${phases.serving_at_ms}.`;
}

/**
 * Alternates the configurations (each a `deno` command line) START_RUNS times each, after one unmeasured run
 * of each; `floor` (the hello server plus one Worker) runs in the same rounds.
 */
async function startPairs(lines: { product: string[]; hello: string[]; floor: string[] }) {
  const { product, hello, floor } = lines;
  const first = { product: await startOnce(product), hello: await startOnce(hello) };
  await startOnce(floor);
  const p: StartSample[] = [];
  const h: StartSample[] = [];
  const f: StartSample[] = [];
  for (let i = 0; i < START_RUNS; i++) {
    p.push(await startOnce(product, true));
    h.push(await startOnce(hello));
    f.push(await startOnce(floor));
  }
  return {
    first,
    productMs: median(p.map((s) => s.ms)),
    productPhases: medianPhases(p),
    helloMs: median(h.map((s) => s.ms)),
    productRss: median(p.map((s) => s.rss)),
    helloRss: median(h.map((s) => s.rss)),
    floorMs: median(f.map((s) => s.ms)),
  };
}

type Call = (server: RawServer, i: number) => Promise<unknown>;

/** RSS after `RSS_CALLS` tool calls and `RSS_IDLE_MS` of idling. */
async function rssAfterCalls(args: string[], call: Call) {
  const server = new RawServer(args);
  try {
    await server.toolsList();
    for (let i = 0; i < RSS_CALLS; i++) await call(server, i);
    await sleep(RSS_IDLE_MS);
    return { rss: await rssOf(server.child.pid), peak: await procStatus(server.child.pid, "VmHWM") };
  } finally {
    await server.close();
  }
}

/**
 * Two servers side by side, calls alternating between them (one call each in turn), then
 * `RSS_IDLE_MS` of idling and the RSS of each: a busy machine slows both alike. With `idleCpu`, also
 * the CPU each then uses over IDLE_CPU_WINDOW_MS more of quiet, ms (`idleCpuMs`, 0 without it).
 */
async function rssSideBySide(
  a: { args: string[]; call: Call },
  b: { args: string[]; call: Call },
  options: { idleCpu?: boolean } = {},
) {
  const servers = [new RawServer(a.args), new RawServer(b.args)] as const;
  try {
    for (const server of servers) await server.toolsList();
    for (let i = 0; i < RSS_CALLS; i++) {
      await a.call(servers[0], i);
      await b.call(servers[1], i);
    }
    await sleep(RSS_IDLE_MS);
    const out = [];
    for (const server of servers) {
      out.push({ rss: await rssOf(server.child.pid), peak: await procStatus(server.child.pid, "VmHWM"), idleCpuMs: 0 });
    }
    if (options.idleCpu === true) {
      const before = await Promise.all(servers.map((server) => cpuMsOf(server.child.pid)));
      await sleep(IDLE_CPU_WINDOW_MS);
      const after = await Promise.all(servers.map((server) => cpuMsOf(server.child.pid)));
      out.forEach((o, i) => o.idleCpuMs = (after[i] as number) - (before[i] as number));
    }
    type Sample = { rss: number; peak: number; idleCpuMs: number };
    return out as [Sample, Sample];
  } finally {
    for (const server of servers) await server.close();
  }
}

/** What the serving thread's idle collection costs: its pauses, and the call after each against the calls before. */
interface IdlePrice {
  /** Each collection the serving thread logged (ms of its synchronous gc call). */
  pausesMs: number[];
  /** Committed heap before and after the last collection, bytes. */
  heap: { before: number; after: number } | undefined;
  /** The first call after each quiet time, ms. */
  firstAfterMs: number[];
  /** Median of every other call, ms. */
  otherMedianMs: number;
}

/**
 * {@linkcode IDLE_PRICE_CYCLES} bursts of {@linkcode RSS_CALLS} calls, each followed by {@linkcode RSS_IDLE_MS}
 * of quiet (the serving thread collects once in it) and one more call, timed against the others. The server logs
 * at debug level, which is where the collections' durations come from (src/base/idle_collect.ts).
 */
async function idleCollectionPrice(args: string[], call: Call): Promise<IdlePrice> {
  const server = new RawServer(args, { stderr: true, env: { LONGCALL_LOG: "debug" } });
  const firstAfterMs: number[] = [];
  const other: number[] = [];
  const timed = async (i: number) => {
    const t0 = performance.now();
    await call(server, i);
    return performance.now() - t0;
  };
  try {
    await server.toolsList();
    let i = 0;
    for (let cycle = 0; cycle < IDLE_PRICE_CYCLES; cycle++) {
      for (let n = 0; n < RSS_CALLS; n++) other.push(await timed(i++));
      await sleep(RSS_IDLE_MS);
      firstAfterMs.push(await timed(i++));
    }
  } finally {
    await server.close();
  }
  const collected = logLines(await server.stderr(), "collected garbage after idling")
    .filter((l) => l.scope === "longcall")
    .map((l) => l.fields as { heap_before: number; heap_after: number; ms: number });
  const last = collected.at(-1);
  return {
    pausesMs: collected.map((c) => c.ms),
    heap: last === undefined ? undefined : { before: last.heap_before, after: last.heap_after },
    firstAfterMs,
    otherMedianMs: median(other),
  };
}

/**
 * The launch flags the hello servers run with: longcall's, without its resolution flag (RESOLUTION_FLAGS in
 * src/cli/permissions.ts). Hello serves with the SDK's own stdio transport, which needs Node's process; under
 * the `browser` condition the SDK's shims give it a process without stdin and it cannot start. Each side runs
 * as it would ship: hello as the SDK's examples do, longcall as its launch line says.
 */
export function helloFlags(): string[] {
  return launchFlags().filter((f) => !RESOLUTION_FLAGS.includes(f));
}

async function bundle(entry: string, out: string): Promise<void> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    // The shipped bundle's own flags (minified), so both sides of a bundle ratio are built alike.
    args: ["bundle", ...BUNDLE_FLAGS, "-o", out, entry],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`bench: deno bundle ${entry} failed: ${new TextDecoder().decode(stderr)}`);
}

// ---------------------------------------------------------------- section

/** Runs every MCP measurement; servers are child processes on a temp database. */
export async function benchMcp(): Promise<BenchSection> {
  const dir = await Deno.makeTempDir({ prefix: "longcall-bench-mcp-" });
  try {
    const load = await loadAverages();
    const jobsDb = `${dir}/jobs.db`;
    const lat = await latencies(dir, jobsDb);

    // The shipped launch flags (permissions, resolution, V8 flags); the hello servers take them without the
    // resolution flag (helloFlags).
    const flags = launchFlags();
    const hello = helloFlags();
    const source = await startPairs({
      product: ["run", ...flags, MAIN, "serve", "--db", `${dir}/start-source.db`],
      hello: ["run", ...hello, HELLO_SERVER],
      // The floor, from source too: the hello server plus one Worker created before its first request.
      floor: ["run", ...hello, HELLO_WORKER_SERVER],
    });
    // What part of the source start-up is loading our own modules one by one (scripts/bench/module_load.ts).
    const moduleLoad = await measureModuleLoad(dir, { flags, runs: START_RUNS });

    // The shipped bundle (network worker embedded, started from memory) against a plain bundle of hello.
    await bundleTo(`${dir}/longcall.js`);
    await bundle(HELLO_SERVER, `${dir}/hello.js`);
    const productBundle = ["run", ...flags, `${dir}/longcall.js`, "serve", "--db", `${dir}/start-bundle.db`];
    const helloBundle = ["run", ...hello, `${dir}/hello.js`];
    // The floor of the start-up ratio: bundled hello plus one Worker created before its first request.
    await bundle(HELLO_WORKER_SERVER, `${dir}/hello_worker.js`);
    const helloWorkerBundle = ["run", ...hello, `${dir}/hello_worker.js`];
    const bundled = await startPairs({ product: productBundle, hello: helloBundle, floor: helloWorkerBundle });
    // Claude Code's path: spawn to the server/discover answer (it loads the Tasks adapter), source and bundle.
    const discover = {
      source: await discoverTimes(["run", ...flags, MAIN, "serve", "--db", `${dir}/start-source.db`]),
      bundle: await discoverTimes(productBundle),
    };

    // RSS after 1,000 jobs.get calls over the 1,000 jobs of part 1 (all terminal by now: the hanging
    // ones were recorded interrupted when their server shut down).
    const jobIds = lat.ids;
    const productOnJobs = ["run", ...flags, `${dir}/longcall.js`, "serve", "--db", jobsDb];
    const [rss1, rssHello] = await rssSideBySide(
      { args: productOnJobs, call: (server, i) => server.call("jobs.get", { ids: [jobIds[i % 1000]] }) },
      { args: helloBundle, call: (server, i) => server.call("hello", { name: `n${i}` }) },
      { idleCpu: true },
    );
    const rss100 = await rssAfterCalls(productOnJobs, (server, i) => {
      const start = (i * 37) % (jobIds.length - 100);
      return server.call("jobs.get", { ids: jobIds.slice(start, start + 100) });
    });
    // What the idle collection that gives this memory back costs the serving thread and the next call, and
    // the same calls on a server that cannot collect (no --expose-gc): what any first call after a quiet time costs.
    const oneId: Call = (server, i) => server.call("jobs.get", { ids: [jobIds[i % 1000]] });
    const idlePrice = await idleCollectionPrice(productOnJobs, oneId);
    const idleControl = await idleCollectionPrice(
      ["run", ...withoutExposeGc(flags), `${dir}/longcall.js`, "serve", "--db", jobsDb],
      oneId,
    );
    if (idleControl.pausesMs.length > 0) {
      throw new Error(`bench: the server without --expose-gc collected ${idleControl.pausesMs.length} times`);
    }
    // The floor of the idle-RSS ratio: bundled hello plus one idle Worker against bundled hello, same calls.
    const helloCall: Call = (server, i) => server.call("hello", { name: `n${i}` });
    const [rssFloor, rssFloorHello] = await rssSideBySide(
      { args: helloWorkerBundle, call: helloCall },
      { args: helloBundle, call: helloCall },
    );
    // Like for like: longcall beside a hello server that also collects once idle (src/base/idle_collect.ts).
    await bundle(HELLO_COLLECT_SERVER, `${dir}/hello_collect.js`);
    const [rssLike, rssLikeHello] = await rssSideBySide(
      { args: productOnJobs, call: (server, i) => server.call("jobs.get", { ids: [jobIds[i % 1000]] }) },
      { args: ["run", ...hello, `${dir}/hello_collect.js`], call: helloCall },
    );

    return section({
      lat,
      source,
      moduleLoad,
      bundled,
      discover,
      rss1,
      rss100,
      idle: { price: idlePrice, control: idleControl },
      rssHello,
      idleCpu: { product: rss1.idleCpuMs, hello: rssHello.idleCpuMs },
      rssFloor: { worker: rssFloor, hello: rssFloorHello },
      rssLike: { product: rssLike, hello: rssLikeHello },
      load,
      loadEnd: await loadAverages(),
      flags,
      seed: freshSeed(),
    });
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

interface Results {
  lat: LatencyResults;
  source: Awaited<ReturnType<typeof startPairs>>;
  moduleLoad: ModuleLoad;
  bundled: Awaited<ReturnType<typeof startPairs>>;
  /** Spawn to the server/discover answer, ms, from source and from the bundle. */
  discover: { source: number[]; bundle: number[] };
  rss1: { rss: number; peak: number };
  rss100: { rss: number; peak: number };
  /** The idle collection's price, and the same calls on a server launched without --expose-gc (it never collects). */
  idle: { price: IdlePrice; control: IdlePrice };
  rssHello: { rss: number; peak: number };
  /** CPU the bundle and bundled hello used over IDLE_CPU_WINDOW_MS of quiet after their 1,000 calls, ms. */
  idleCpu: { product: number; hello: number };
  /** Bundled hello plus one idle Worker, and bundled hello beside it. */
  rssFloor: { worker: { rss: number; peak: number }; hello: { rss: number; peak: number } };
  /** longcall beside a hello server that collects once idle as longcall does. */
  rssLike: { product: { rss: number; peak: number }; hello: { rss: number; peak: number } };
  load: string;
  loadEnd: string;
  flags: string[];
  /** The seed of the p99 ratios' resampling intervals (scripts/bench/resample.ts), printed with them. */
  seed: number;
}

/** The launch flags without V8's `--expose-gc`: longcall's idle collection then never runs. */
function withoutExposeGc(flags: readonly string[]): string[] {
  const out = flags.map((f) =>
    f.startsWith("--v8-flags=")
      ? `--v8-flags=${f.slice("--v8-flags=".length).split(",").filter((v) => v !== "--expose-gc").join(",")}`
      : f
  );
  if (out.join(" ") === flags.join(" ")) {
    throw new Error(`bench: no --expose-gc in the launch flags ${flags.join(" ")}`);
  }
  return out;
}

function idlePriceValue(price: IdlePrice, control: IdlePrice): string {
  const first = `first call after ${ms2(median(price.firstAfterMs))} ms (${ms2(median(control.firstAfterMs))} ms) ` +
    `vs ${ms2(price.otherMedianMs)} ms`;
  if (price.pausesMs.length === 0) return `no collection logged by the serving thread; ${first}`;
  const heap = price.heap === undefined ? "" : `; heap ${mb(price.heap.before)} -> ${mb(price.heap.after)}`;
  return `${median(price.pausesMs).toFixed(1)} / ${Math.max(...price.pausesMs).toFixed(1)} ms ` +
    `(${price.pausesMs.length} collections${heap}); ${first}`;
}

/** The start-up floor row under a start-up ratio: `floor` in the same alternating rounds, against hello. */
function startFloorRow(floor: string, pairs: { floorMs: number; helloMs: number }): BenchSection["rows"][number] {
  return {
    metric: `floor of that ratio: ${floor} (median, same rounds)`,
    value: `${ms0(pairs.floorMs)} ms vs ${ms0(pairs.helloMs)} ms = ${(pairs.floorMs / pairs.helloMs).toFixed(2)}x`,
  };
}

/** What a response line adds to its result's JSON: the JSON-RPC envelope (an id of five digits, as the bench's
 * clients number their requests) and the newline. */
const LINE_ENVELOPE_BYTES = '{"result":,"jsonrpc":"2.0","id":99999}\n'.length;

/** Pipe fills the stdio line of a result of `bytes` bytes of JSON takes (the second written only once the client
 * has read the first). */
function fills(bytes: number): string {
  const n = Math.ceil((bytes + LINE_ENVELOPE_BYTES) / PIPE_CAPACITY_BYTES);
  return `${n} ${n === 1 ? "fill" : "fills"}`;
}

/**
 * The second pipe fill's price, in the same run: the same 100 jobs in the previous concise shape (longer than a
 * pipe's capacity), given back from memory as the replay row gives back today's answer.
 */
function previousShapeRow(lat: LatencyResults, seed: number): BenchSection["rows"][number] {
  const { replayPrevious, get1 } = lat;
  const { low, high } = ratioInterval(replayPrevious, get1, { p: 0.99, seed });
  return {
    metric: "the same 100 jobs in the concise shape before it left out each item's id, started_at and expires_at " +
      `and its false and zero defaults (${kb(lat.getBytes.previous)}: ${fills(lat.getBytes.previous)} of a ` +
      "pipe's capacity), given back the same way, p50 / p99; its p99 / 1 id p99 (p50 ratio in brackets; the p99 " +
      "ratio's resampling interval after the semicolon)",
    value: `${pp(replayPrevious)}; ${(quantile(replayPrevious, 0.99) / quantile(get1, 0.99)).toFixed(2)}x (${
      (quantile(replayPrevious, 0.5) / quantile(get1, 0.5)).toFixed(2)
    }x); ${low.toFixed(2)}-${high.toFixed(2)}x`,
  };
}

/** The 1-id and 100-id round trips split by the server's own times of their lines (scripts/bench/line_split.ts). */
function splitRows(lat: LatencyResults): BenchSection["rows"] {
  const { get1, get100 } = lat.split;
  const parts = (split: Split) => {
    const of = (pick: (s: Split["splits"][number]) => number) => pp(split.splits.map(pick));
    return `${of((s) => s.handle)}; ${of((s) => s.write)}; ${of((s) => s.rest)}`;
  };
  const tail = (split: Split, series: number[]) => {
    const t = tailParts(split.splits, quantile(series, 0.99));
    return `${ms2(t.ms)} ms; ${ms2(t.handle)} / ${ms2(t.write)} / ${ms2(t.rest)} ms (${t.count} calls)`;
  };
  return [
    {
      metric: "the same 1-id | 100-id round trips from the legacy server's side (scripts/bench/bench_server.ts " +
        "--line-times; each call matched to the answer line whose request the server read during it: " +
        `${get1.splits.length} of ${lat.get1.length} | ${get100.splits.length} of ${lat.get100.length}), ` +
        "p50 / p99 of: the server's handling (reading the request to handing its answer's line to stdout); that " +
        "line's write (until every byte is in the pipe: for a line longer than its capacity, until the client has " +
        "read the first fill); " +
        "the rest of the round trip (the client and the pipe)",
      value: `1 id: ${parts(get1)} | 100 ids: ${parts(get100)}`,
    },
    {
      metric: "the tails: the round trips above their series' p99, the median of each (round trip; handling / " +
        "write / rest), 1 id | 100 ids",
      value: `${tail(get1, lat.get1)} | ${tail(get100, lat.get100)}`,
    },
  ];
}

/** A series' tail: its p99 over its p50. */
function tailFmt(samples: readonly number[]): string {
  return `${(quantile(samples, 0.99) / quantile(samples, 0.5)).toFixed(2)}x`;
}

/** The miss note's account of the client's framing, against the 100-id p50 `p50Ms`. */
function framingSentence(framing: ClientFraming, p50Ms: number): string {
  const node = typeof framing.nodeSearchMs === "number" ? `${framing.nodeSearchMs.toFixed(3)} ms in Node` : "";
  return `Part of every 100-id round trip is the bench client's, not the server's: its framing of the line takes ` +
    `${ms2(framing.readBufferMs)} ms of the ${ms2(p50Ms)} ms p50 (the framing row), ${ms2(framing.searchMs)} ms ` +
    `of it finding the newline with Deno's Buffer.indexOf${node === "" ? "" : `, a search that takes ${node}`}: ` +
    "a cost of the client's runtime that Node-based hosts do not pay (the Node rows measure such a host). ";
}

/** What the bench's client spends framing a 100-id line, and the part of it Node would not. */
function framingRow(framing: ClientFraming): BenchSection["rows"][number] {
  const node = typeof framing.nodeSearchMs === "number"
    ? `${framing.nodeSearchMs.toFixed(3)} ms`
    : `not measured (${framing.nodeSearchMs.skipped})`;
  return {
    metric: "the bench client's own framing of one 100-id answer line, no server involved (scripts/bench/" +
      "client_framing.ts): the official SDK's ReadBuffer, its stdio client transport's framing, fed the " +
      `${kb(framing.lineBytes)} line in reads of at most a pipe's capacity, as the client above reads it (median ` +
      `of ${FRAMING_SAMPLES}, in this Deno); of that, its Buffer.indexOf("\\n") searches, which cover its whole ` +
      `buffer after each read (${kb(framing.searchedBytes)} searched); the same searches in Node ` +
      "(scripts/bench/node_newline_search.mjs), where Node-based hosts frame their lines",
    value: `${framing.readBufferMs.toFixed(3)} ms; ${framing.searchMs.toFixed(3)} ms; ${node}`,
  };
}

/** jobs.get as a Node host sees it: on the socket Node gives a child's stdout, and on a FIFO beside it. */
function nodeRows(lat: LatencyResults, seed: number): BenchSection["rows"] {
  const what = "jobs.get from a Node host (scripts/bench/node_host_client.mjs: the bench server spawned by Node's " +
    "child_process.spawn, as the MCP SDK's StdioClientTransport and Node-based hosts spawn a server, raw " +
    "JSON-RPC lines; the same server twice, its stdout the one Node gives it and, for comparison, a FIFO: a " +
    "pipe of the default capacity, as Python's and Deno's clients leave it; and a third spawned and read by the " +
    "official SDK's own StdioClientTransport (v1, as deno.json pins it, installed for Node by " +
    "scripts/bench/node_sdk.ts), as the MCP Inspector reads a server";
  const { node } = lat;
  if ("skipped" in node) return [{ metric: `${what})`, value: `not measured: ${node.skipped}` }];
  const label = (s: NodeHost["servers"][number]) =>
    s.transport === "fifo"
      ? "FIFO"
      : s.transport === "sdk"
      ? `SDK (${s.stdout.split(":")[0]})`
      : s.stdout.split(":")[0];
  const sdkSkipped = node.sdkSkipped === undefined ? "" : ` | SDK: not measured (${node.sdkSkipped})`;
  return [
    {
      metric: `${what}; calls alternating in an order seeded ${node.seed}), 1 id / 100 ids p50 / p99, by the ` +
        "server's stdout (as /proc names it)",
      value: node.servers.map((s) => `${label(s)}: ${pp(s.one)}; ${pp(s.hundred)}`).join(" | ") + sdkSkipped,
    },
    {
      metric: "jobs.get 100 ids p99 / 1 id p99 from that Node host, by the server's stdout (p50 ratio in brackets; " +
        "the p99 ratio's resampling interval after the semicolon)",
      value: node.servers.map((s) => {
        const { low, high } = ratioInterval(s.hundred, s.one, { p: 0.99, seed });
        const p99 = quantile(s.hundred, 0.99) / quantile(s.one, 0.99);
        const p50 = quantile(s.hundred, 0.5) / quantile(s.one, 0.5);
        return `${label(s)}: ${p99.toFixed(2)}x (${p50.toFixed(2)}x); ${low.toFixed(2)}-${high.toFixed(2)}x`;
      }).join(" | ") + sdkSkipped,
    },
  ];
}

function section(
  {
    lat,
    source,
    moduleLoad,
    bundled,
    discover,
    rss1,
    rss100,
    idle,
    rssHello,
    idleCpu,
    rssFloor,
    rssLike,
    load,
    loadEnd,
    flags,
    seed,
  }: Results,
): BenchSection {
  const p99 = (s: number[]) => quantile(s, 0.99);
  // How far each p99 ratio could have moved by which calls of this run were slow (the resampling note below).
  const within = (a: number[], b: number[]) => {
    const { low, high } = ratioInterval(a, b, { p: 0.99, seed });
    return `; ${low.toFixed(2)}-${high.toFixed(2)}x`;
  };
  const getVsEcho = p99(lat.get1) / p99(lat.legacyEcho);
  const batchVsOne = p99(lat.get100) / p99(lat.get1);
  const batchVsOneP50 = quantile(lat.get100, 0.5) / quantile(lat.get1, 0.5);
  const tasksVsEcho = p99(lat.tasksGet) / p99(lat.modernEcho);
  const sourceRatio = source.productMs / source.helloMs;
  const bundleRatio = bundled.productMs / bundled.helloMs;
  const rssVsHello = rss1.rss / rssHello.rss;
  const floorVsHello = rssFloor.worker.rss / rssFloor.hello.rss;
  const likeVsHello = rssLike.product.rss / rssLike.hello.rss;
  const calls = RSS_CALLS.toLocaleString("en-US");
  const rows: BenchSection["rows"] = [
    { metric: "bench.echo (plain tool) round trip, legacy stdio p50 / p99", value: pp(lat.legacyEcho) },
    { metric: "jobs.get 1 id, legacy stdio p50 / p99", value: pp(lat.get1) },
    {
      metric: "jobs.get 1 id p99 / bench.echo p99 (its resampling interval after the semicolon)",
      value: `${ratioFmt(getVsEcho, JOBS_GET_VS_ECHO_GOAL)}x${within(lat.get1, lat.legacyEcho)}`,
      goal: `<= ${JOBS_GET_VS_ECHO_GOAL}x`,
      met: getVsEcho <= JOBS_GET_VS_ECHO_GOAL,
    },
    { metric: "jobs.get 100 ids, legacy stdio p50 / p99", value: pp(lat.get100) },
    {
      metric: "jobs.get result on the wire, 1 id / 100 ids (UTF-8 bytes of its JSON: the text content and the " +
        `structuredContent); the 100-id line in fills of a pipe's capacity (${kb(PIPE_CAPACITY_BYTES)}, Linux's ` +
        "default)",
      value: `${kb(lat.getBytes.one)} / ${kb(lat.getBytes.hundred)}; ${fills(lat.getBytes.hundred)}`,
    },
    {
      metric: "jobs.get 100 ids p99 / 1 id p99 (p50 ratio in brackets; the p99 ratio's resampling interval after " +
        "the semicolon)",
      value: `${ratioFmt(batchVsOne, BATCH_VS_ONE_GOAL)}x (${ratioFmt(batchVsOneP50, BATCH_VS_ONE_P50_GOAL)}x)${
        within(lat.get100, lat.get1)
      }`,
      goal: `<= ${BATCH_VS_ONE_GOAL}x (p50 <= ${BATCH_VS_ONE_P50_GOAL}x)`,
      met: batchVsOne <= BATCH_VS_ONE_GOAL && batchVsOneP50 <= BATCH_VS_ONE_P50_GOAL,
    },
    {
      metric: "each call's own tail, its p99 / its p50: 1 id / 100 ids (a 100-id call whose tail is no fatter than " +
        "a 1-id call's pays for its ids at the p50, not in its slow calls)",
      value: `${tailFmt(lat.get1)} / ${tailFmt(lat.get100)}`,
    },
    {
      metric: "the 100-id answer without its reads: bench.replay, a plain tool giving back a 100-id jobs.get answer " +
        "from memory (no read, no projection; serialized once, as every result is), p50 / p99; its p99 / 1 id p99 " +
        "(p50 ratio in brackets; the p99 ratio's resampling interval after the semicolon)",
      value: `${pp(lat.replay100)}; ${(p99(lat.replay100) / p99(lat.get1)).toFixed(2)}x (${
        (quantile(lat.replay100, 0.5) / quantile(lat.get1, 0.5)).toFixed(2)
      }x)${within(lat.replay100, lat.get1)}`,
    },
    previousShapeRow(lat, seed),
    ...splitRows(lat),
    framingRow(lat.framing),
    ...nodeRows(lat, seed),
    {
      metric: "slow round trips of the seven timed series above and below (each above its own series' p99): the " +
        `share with another starting within ${SLOW_CALL_WINDOW_MS} ms, against that share with the slow marks ` +
        "shuffled over all calls (as if being slow had nothing to do with when a call ran)",
      value: (() => {
        const c = slowCallClustering(lat.calls, { p: 0.99, windowMs: SLOW_CALL_WINDOW_MS, seed });
        return `${(c.clustered * 100).toFixed(0)}% of ${c.slow} against ${(c.independent * 100).toFixed(0)}%`;
      })(),
    },
    { metric: "bench.echo round trip, modern task-declaring stdio p50 / p99", value: pp(lat.modernEcho) },
    { metric: "tasks/get, modern task-declaring stdio p50 / p99", value: pp(lat.tasksGet) },
    {
      metric: "tasks/get p99 / bench.echo p99 (its resampling interval after the semicolon)",
      value: `${ratioFmt(tasksVsEcho, TASKS_GET_VS_ECHO_GOAL)}x${within(lat.tasksGet, lat.modernEcho)}`,
      goal: `<= ${TASKS_GET_VS_ECHO_GOAL}x`,
      met: tasksVsEcho <= TASKS_GET_VS_ECHO_GOAL,
    },
    {
      metric: "task completion -> polling host observes it, p50 / max",
      value: `${ms0(median(lat.observeLag))} / ${ms0(Math.max(...lat.observeLag))} ms (advertised pollIntervalMs ${
        ms0(Math.min(...lat.advertisedPoll))
      }..${ms0(Math.max(...lat.advertisedPoll))} ms; median ${ms0(median(lat.pollsPerTask))} tasks/get per task)`,
    },
    {
      metric: "start to first tools/list: deno run src/main.ts serve vs hello server (median)",
      value: `${ms0(source.productMs)} ms vs ${ms0(source.helloMs)} ms = ${
        ratioFmt(sourceRatio, START_SOURCE_VS_HELLO_GOAL)
      }x`,
      goal: `<= ${START_SOURCE_VS_HELLO_GOAL}x`,
      met: sourceRatio <= START_SOURCE_VS_HELLO_GOAL,
    },
    startFloorRow("hello + one Worker created before its first request, from source, vs hello", source),
    {
      metric: `part of that ratio: the ${moduleLoad.modules} modules of src/ that serve loads before it answers, ` +
        "imported from source vs the same code bundled into one module (npm packages outside the bundle on both " +
        `sides; median of ${moduleLoad.runs} alternating imports, each in a fresh process with the launch flags)`,
      value: `${ms0(moduleLoad.sourceMs)} ms vs ${ms0(moduleLoad.bundledMs)} ms: ${
        ms0(moduleLoad.sourceMs - moduleLoad.bundledMs)
      } ms = ${((moduleLoad.sourceMs - moduleLoad.bundledMs) / source.helloMs).toFixed(2)}x of hello's start-up`,
    },
    {
      metric: "RSS at the first tools/list answer, from source: longcall vs hello (median)",
      value: `${mb(source.productRss)} vs ${mb(source.helloRss)}`,
    },
    {
      metric: "start from the shipped bundle to first tools/list vs bundled hello (median; first run after bundling)",
      value: `${ms0(bundled.productMs)} ms vs ${ms0(bundled.helloMs)} ms = ${
        ratioFmt(bundleRatio, START_BUNDLE_VS_HELLO_GOAL)
      }x (first run ${ms0(bundled.first.product.ms)} vs ${ms0(bundled.first.hello.ms)} ms)`,
      goal: `<= ${START_BUNDLE_VS_HELLO_GOAL}x`,
      met: bundleRatio <= START_BUNDLE_VS_HELLO_GOAL,
    },
    startFloorRow("bundled hello + one Worker created before its first request, vs bundled hello", bundled),
    {
      metric: "RSS at the first tools/list answer, bundle: longcall vs hello (median)",
      value: `${mb(bundled.productRss)} vs ${mb(bundled.helloRss)}`,
    },
    {
      metric: `spawn to the answer to server/discover, Claude Code's first request (it loads the Tasks adapter; a ` +
        `later answer gets the whole session served legacy, without tasks): from source / bundle, median (max of ` +
        `${START_RUNS})`,
      value: `${ms0(median(discover.source))} (${ms0(Math.max(...discover.source))}) / ` +
        `${ms0(median(discover.bundle))} (${ms0(Math.max(...discover.bundle))}) ms`,
      goal: `max <= ${DISCOVER_MS_GOAL} ms`,
      met: Math.max(...discover.source, ...discover.bundle) <= DISCOVER_MS_GOAL,
    },
    {
      metric: `idle RSS after ${calls} jobs.get calls of 1 id, bundle (peak)`,
      value: `${mb(rss1.rss)} (${mb(rss1.peak)}); bundled hello after ${calls} calls: ${mb(rssHello.rss)} (${
        mb(rssHello.peak)
      })`,
      goal: `<= ${mb(IDLE_RSS_GOAL_BYTES)}`,
      met: rss1.rss <= IDLE_RSS_GOAL_BYTES,
    },
    {
      metric: `idle RSS after ${calls} calls, bundle vs bundled hello (same flags, calls alternating)`,
      value: `${ratioFmt(rssVsHello, IDLE_RSS_VS_HELLO_GOAL)}x`,
      goal: `<= ${IDLE_RSS_VS_HELLO_GOAL}x`,
      met: rssVsHello <= IDLE_RSS_VS_HELLO_GOAL,
    },
    {
      metric: `floor of that ratio: idle RSS after ${calls} calls, bundled hello + one idle Worker vs bundled hello`,
      value: `${floorVsHello.toFixed(2)}x (${mb(rssFloor.worker.rss)} vs ${mb(rssFloor.hello.rss)})`,
    },
    {
      metric:
        `CPU an idle server uses: the bundle and bundled hello of the idle RSS ratio row, over ${
          IDLE_CPU_WINDOW_MS / 1000
        } s more of quiet (utime + stime ` +
        "of all its threads, /proc; longcall's network worker keeps its heartbeat, reconciliation and a claim poll " +
        "that slows to once a second when it finds nothing)",
      value: `${ms0(idleCpu.product)} ms vs ${ms0(idleCpu.hello)} ms`,
    },
    {
      metric: `like for like: idle RSS after ${calls} calls, bundle vs bundled hello that also collects once idle ` +
        "(scripts/bench/hello_collect_server.ts; same flags, calls alternating)",
      value: `${likeVsHello.toFixed(2)}x (${mb(rssLike.product.rss)} vs ${mb(rssLike.hello.rss)})`,
    },
    {
      metric: `idle RSS after ${calls} jobs.get calls of 100 ids, bundle (peak)`,
      value: `${mb(rss100.rss)} (${mb(rss100.peak)})`,
      goal: `<= ${mb(RSS_100_GOAL_BYTES)}`,
      met: rss100.rss <= RSS_100_GOAL_BYTES,
    },
    {
      metric: `price of the idle collection, bundle: the serving thread's pause per collection, p50 / max (count; ` +
        `its committed heap before and after the last), and the first call after ${RSS_IDLE_MS / 1_000} s of ` +
        `quiet (median of ${IDLE_PRICE_CYCLES}; on a server that never collects in brackets) vs the median of the other ${
          (IDLE_PRICE_CYCLES * RSS_CALLS).toLocaleString("en-US")
        } calls ` +
        "(jobs.get, 1 id)",
      value: idlePriceValue(idle.price, idle.control),
    },
    {
      metric: "compiled binary (deno compile)",
      value: "not measured: deno compile needs Deno's denort base binary, which cannot be downloaded on this " +
        "machine (see scripts/build.ts); the bundle rows above are the shipped configuration measured instead",
    },
  ];
  const notes = [
    `Load average (1, 5, 15 min) when the run began: ${load || "unknown"}, when it ended: ${
      loadEnd || "unknown"
    } (the machine is shared; p99s of sub-millisecond calls ` +
    "are dominated by scheduling and GC pauses, so the p99 ratios move between runs far more than the p50s: " +
    "compare several runs before reading one. Whether the slow calls come in bursts, something else on the " +
    "machine slowing every call in flight, is the slow-round-trips row: a share well above its shuffled value " +
    "says they do. A call that takes longer overlaps more of any such pause, so a 100-id call is hit by it more " +
    "often than a 1-id call.)",
    `Resampling intervals (scripts/bench/resample.ts, seed ${seed}): each p99 ratio's central 95% over ` +
    `${RESAMPLES_DEFAULT.toLocaleString("en-US")} resamples of this run's own round trips (each series drawn ` +
    `with replacement to its size, ${ROUNDS.toLocaleString("en-US")}). A p99 of ${
      ROUNDS.toLocaleString("en-US")
    } calls is their ${Math.ceil(ROUNDS / 100)}th slowest, so a few slow calls more or fewer move it: a goal inside ` +
    "the interval is one this run cannot decide, whichever side its point reads. The interval covers only this " +
    "run's machine state; another run (load, other tenants) can land outside it, which only running again shows.",
    `Round trips: scripts/bench/bench_server.ts (the real runServer wiring, executor in the serving thread, ` +
    `running bound ${RUNNING_MAX}, from source with the shipped ${V8_FLAGS.join(" ")}) on one database holding ${
      (TERMINAL_JOBS + RUNNING_JOBS).toLocaleString("en-US")
    } jobs: ${TERMINAL_JOBS} succeeded test.echo jobs and ${RUNNING_JOBS} test.hang jobs running throughout. ` +
    "Two stdio connections to two server processes on that database: a legacy v2 Client (jobs.get, bench.echo, " +
    "bench.replay) " +
    "and a modern ext-tasks host that declares the tasks extension (tasks/get, bench.echo); the legacy one's server " +
    "times its answer lines for the split rows (--line-times: three clock reads and one array entry per line). " +
    "Requests go through " +
    "the clients' raw channel (the SDK's transport and framing, without client-side result validation), one at a " +
    `time; ${
      ROUNDS.toLocaleString("en-US")
    } rounds after ${WARMUP_ROUNDS} warm-up rounds, each round calling all seven in random order (the five ` +
    "above and bench.replay of two answers: a 100-id jobs.get answer, and the same jobs in the previous concise " +
    "shape). Single ids and the 100-id windows rotate over every stored job (about 10% running); concise format. " +
    `The ${TERMINAL_JOBS} ended jobs fit in ENDED_ROWS_CACHED_MAX (${
      ENDED_ROWS_CACHED_MAX.toLocaleString("en-US")
    }), so once read (in the warm-up) each server answers them from memory, as it would a host re-reading them; ` +
    "the running ones are read from the store every time. " +
    "The pipe: a stdio line longer than the pipe's capacity is written in two fills, the second only after the " +
    "client has read the first, so the server's write waits on the client's next read, and the client reads the " +
    "line twice (here the official SDK's stdio transport: one more turn of Deno's event loop). Until issue 14 a " +
    "100-id concise answer took two fills, and that second fill was most of what its tail paid (this file's " +
    "history: its window rows either side of the capacity); the concise view now leaves out what the item's key " +
    "or a default already says (the id, cancellation_requested: false, completed_items: 0) and the times a poll " +
    "does not need (started_at, expires_at: the detailed view has them), so this bench's answer fits one fill " +
    "(100 running watches, whose summaries carry their check counts, still take two). The " +
    "previous-shape row measures what the second fill would still cost, in this run: the same jobs in the old " +
    "shape (the detailed answer less its requests and results), given back from memory as the replay row gives " +
    "back today's. A server cannot raise its pipe's capacity (Deno has no fcntl), but which stdout it gets is " +
    "its host's choice: Deno's and Python's clients give it a pipe, Node's child_process (so every Node-based " +
    "host) one end of a socketpair, whose buffer holds a much longer line at once; the Node rows measure both " +
    "from the same Node client.",
    `Poll observation: ${POLL_SAMPLES} concurrent test.sleep tasks of 400..3,000 ms called through ` +
    "createTaskSessionFromClient (which polls tasks/get every max(10, pollIntervalMs) ms); the lag is when " +
    "callToolAsTask resolved minus the job's completed_at (same machine clock). A running job with no handler " +
    "poll time is advertised at the kind's recent mean run time minus elapsed, or max(1 s, elapsed / 4); " +
    "the lag is bounded by that interval.",
    `Start-up: process spawn to the answer to tools/list, written together with a legacy initialize and ` +
    "notifications/initialized as raw JSON-RPC lines (no client library on the timed path); longcall runs " +
    `with launchFlags() from src/cli/permissions.ts (\`${flags.join(" ")}\`), the hello servers with the same ` +
    `flags but the resolution flag ${RESOLUTION_FLAGS.join(" ")} (helloFlags: under the \`browser\` export ` +
    "condition the SDK's shims give its own stdio transport, which hello serves with, a process without stdin; " +
    "longcall reads Deno.stdin and resolves the SDK so from source too, as its bundle and binaries do, loading " +
    `neither Node's process polyfill nor ajv); ${START_RUNS} alternating runs ` +
    "each after one unmeasured run; RSS is VmRSS of the child right after the answer. The longcall bundle is " +
    "the shipped one (scripts/build.ts `bundleTo`: minified, the network worker bundled on its own and embedded, " +
    "started from a blob: URL, resolved with the `browser` export condition, EXPORT_CONDITIONS); the hello " +
    `bundle is \`deno bundle ${BUNDLE_FLAGS.join(" ")}\` of scripts/bench/hello_server.ts (default ` +
    "conditions, for the same reason). " +
    `Idle RSS: the bundle (1-id calls) and bundled hello run side by side, their ${calls} calls alternating, ` +
    `then ${RSS_IDLE_MS / 1_000} s of idling; the 100-id run follows on its own. The start-up floor rows run ` +
    "scripts/bench/hello_worker_server.ts from source and bundled the same way, in the same alternating rounds " +
    "(its Worker is created before the first request, as longcall's network worker must be). The RSS floor row runs the same way: " +
    "scripts/bench/hello_worker_server.ts (the hello server plus one Worker that runs only a message " +
    "listener, started from a blob: URL with no permission, as longcall starts its network worker) beside " +
    "bundled hello, both with the same flags and calls; a ratio goal below that floor needs the network worker " +
    "to go, and with it the permission split.",
    "Idle collection (src/base/idle_collect.ts): V8 keeps the heap a burst of calls grew, and its memory reducer " +
    "never starts in Deno (the embedder reports no idleness), so each of longcall's isolates (the serving thread, " +
    `the network worker) runs one memory-reducing full collection once quiet for ${IDLE_COLLECT_AFTER_MS} ms ` +
    "(IDLE_COLLECT_AFTER_MS) if its committed heap grew by IDLE_COLLECT_HEAP_GROWTH_BYTES_MIN since its last one " +
    "(--expose-gc in the launch flags gives it V8's gc). The plain hello server keeps its heap, so the issue's " +
    "ratio row credits longcall with the collection; the like-for-like row runs longcall beside a hello server " +
    "that collects the same way (scripts/bench/hello_collect_server.ts), and is the ratio of the servers' " +
    "structure. Its price is the idle-collection row: a separate run of the bundle on the same database " +
    `(LONGCALL_LOG=debug, whose serving-thread lines give each collection's duration) makes ${IDLE_PRICE_CYCLES} ` +
    `bursts of ${calls} jobs.get calls of 1 id, each followed by ${RSS_IDLE_MS / 1_000} s of quiet and one more ` +
    "call, timed against the others; then the same on the bundle launched without --expose-gc, which never " +
    "collects, for what any first call after a quiet time costs. A request that arrives during a collection " +
    "waits for it; the collection runs only after the quiet time, so a busy server never pays it.",
    phasesSentence("Where longcall's start-up went from source", source.productPhases),
    phasesSentence("From the bundle", bundled.productPhases),
  ];
  if (batchVsOne > BATCH_VS_ONE_GOAL || batchVsOneP50 > BATCH_VS_ONE_P50_GOAL) {
    const tail1 = tailParts(lat.split.get1.splits, p99(lat.get1));
    const tail100 = tailParts(lat.split.get100.splits, p99(lat.get100));
    notes.push(
      `jobs.get with 100 ids misses its goal (p99 ${
        ratioFmt(batchVsOne, BATCH_VS_ONE_GOAL)
      }x of ${BATCH_VS_ONE_GOAL}x, p50 ` +
        `${
          ratioFmt(batchVsOneP50, BATCH_VS_ONE_P50_GOAL)
        }x of ${BATCH_VS_ONE_P50_GOAL}x): the ids are read in one statement (the ended rows a ` +
        "process has read before from memory, src/jobs/control.ts) and the " +
        "answer is serialized once (the stdio line reuses the text content's JSON for the structuredContent, " +
        "src/mcp/answer_text.ts), but it holds a hundred items instead of one, and its JSON is on the wire " +
        "twice (once escaped, as the text content). " +
        "The SDK checks every tools/call result against its wire schema (zod), and the stdio line empties the " +
        "result okResult returned once its line is made, so less of it is promoted past a minor collection. " +
        "What is left of the p99 moves with the 1-id p99 it divides by (the machine), and with the write of the " +
        `line itself (${kb(lat.getBytes.hundred)} of JSON in this run: ${fills(lat.getBytes.hundred)} of a ` +
        "pipe's capacity; the previous-shape row measures what a second fill adds). The split rows say where the " +
        `tails go: the 100-id calls above their p99 spent a median ${ms2(tail100.write)} ms (of ` +
        `${ms2(tail100.ms)}) in the line's write and ` +
        `${ms2(tail100.handle)} ms in the server's handling; the 1-id calls above theirs spent ` +
        `${ms2(tail1.rest)} ms (of ${ms2(tail1.ms)}) outside the server. The replay row bounds what making the ` +
        `reads cheaper could still give: the same answer from memory reads ${
          (p99(lat.replay100) / p99(lat.get1)).toFixed(2)
        }x of the 1-id p99 in this run. ` +
        framingSentence(lat.framing, quantile(lat.get100, 0.5)) +
        "Across runs the ratio moves against the 1-id p99, the machine's noise: the quieter the run, the nearer " +
        "the p99 ratio comes to the p50 ratio; the 100-id call's own tail (its p99 over its p50) was " +
        `${tailFmt(lat.get100)} in this run against the 1-id call's ${tailFmt(lat.get1)}. ` +
        "`deno task bench-history` lists both for every committed run, with the rank correlation. " +
        "The measurements behind these choices are in the commit messages that made them and in " +
        "this file's history (git log -p docs/benchmarks.md).",
    );
  }
  if (sourceRatio > START_SOURCE_VS_HELLO_GOAL || bundleRatio > START_BUNDLE_VS_HELLO_GOAL) {
    notes.push(
      `Start-up misses its goal (bundle ${
        ratioFmt(bundleRatio, START_BUNDLE_VS_HELLO_GOAL)
      }x of ${START_BUNDLE_VS_HELLO_GOAL}x, source ` +
        `${ratioFmt(sourceRatio, START_SOURCE_VS_HELLO_GOAL)}x of ${START_SOURCE_VS_HELLO_GOAL}x; ${
          ms0(bundled.productMs - bundled.helloMs)
        } ms over hello from the bundle, ${ms0(source.productMs - source.helloMs)} from source). What bounds it: ` +
        "the floor rows (hello plus one Worker created before the first request, as longcall's network worker " +
        "must be: a worker can only be granted what its creator still holds, and the serving thread holds " +
        "nothing once it serves) measure the permission split's price in this run; the phases above say where " +
        "the rest of longcall's own start-up went. Above the floor it loads the store (node:sqlite, the " +
        "migrations check), its own modules (from source each resolved, read and instantiated on its own: " +
        `${ms0(moduleLoad.sourceMs - moduleLoad.bundledMs)} ms more than the same code as one module in this ` +
        `run, ${((moduleLoad.sourceMs - moduleLoad.bundledMs) / source.helloMs).toFixed(2)}x of hello's ` +
        "start-up, the row above) and, in the bundle, the Tasks extension's schemas, none of which hello has. " +
        "Already off the path to the first answer: from source the Tasks extension's adapter (loaded at the " +
        "first modern connection; the timed handshake is legacy), the " +
        "network worker's code and store (started once serving, NETWORK_WORKER_START_DELAY_MS later or at the " +
        "first submission), every schema conversion (src/mcp/tool_schemas.json, trusted by the bundle, checked " +
        "ADVERTISED_CHECK_DELAY_MS after its first answer from source), zod and the MCP code in the worker.",
    );
  }
  const rssMissed = rss1.rss > IDLE_RSS_GOAL_BYTES || rssVsHello > IDLE_RSS_VS_HELLO_GOAL ||
    rss100.rss > RSS_100_GOAL_BYTES;
  if (rssMissed || likeVsHello > IDLE_RSS_VS_HELLO_GOAL) {
    notes.push(
      `${rssMissed ? "Idle RSS misses a goal" : "Idle RSS meets its ratio goal only with the idle collection"} (1 id: ${
        mb(rss1.rss)
      } of ${mb(IDLE_RSS_GOAL_BYTES)}, ${
        ratioFmt(rssVsHello, IDLE_RSS_VS_HELLO_GOAL)
      }x of ${IDLE_RSS_VS_HELLO_GOAL}x hello, ${likeVsHello.toFixed(2)}x like for like; 100 ids: ${mb(rss100.rss)} of ${
        mb(RSS_100_GOAL_BYTES)
      }). ` +
        `longcall starts ${mb(bundled.productRss - bundled.helloRss)} above hello: the network worker's isolate ` +
        `(the price of running GitHub work under its own permission set; in this run an idle extra isolate ` +
        `costs ${mb(rssFloor.worker.rss - rssFloor.hello.rss)}, the floor row), its SQLite connection, and the ` +
        "serving thread's own code and schemas. Calls grow both processes as V8 keeps the heap it has grown; " +
        "--max-semi-space-size=1 (in the launch flags) bounds the young generation of both isolates, and the " +
        "idle collection gives back what a burst grew. No --max-old-space-size is applied: none that would " +
        "lower the heap's growing factor is provably above the bounded worst case of the inputs the server " +
        "accepts (HTTP_CONCURRENT_REQUESTS_MAX requests of MCP_MESSAGE_BYTES_MAX each, parsed). The measurements " +
        "behind these choices are in the commit messages that made them and in this file's history " +
        "(git log -p docs/benchmarks.md).",
    );
  }
  return { title: "MCP server", rows, notes };
}

if (import.meta.main) {
  console.log(JSON.stringify(await benchMcp(), null, 2));
}
