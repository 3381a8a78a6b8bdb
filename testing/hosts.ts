/**
 * Two MCP hosts driving the real longcall server for the evaluation (`scripts/eval.ts`) and the demo
 * (`scripts/demo.ts`), each with the same deterministic scripted "model" (no network, no LLM):
 *
 * - **task-aware host**: the official v2 client (`@modelcontextprotocol/client`) with the `ext-tasks` session.
 *   The model makes one tool call; the host polls `tasks/get` itself at the server's `pollIntervalMs`; the
 *   model sees only the final result.
 * - **polling host**: the official v1 client (`@modelcontextprotocol/sdk`), the way hosts behave today: the tool
 *   returns a JobReference and every `jobs.get` poll is a model turn whose payload the model reads, honouring
 *   `retry_after_ms`.
 *
 * What is counted (see docs/evaluation.md, "Method"): model calls (one per model inference), tool calls the
 * model writes, model-visible bytes (UTF-8 JSON of every tool call's arguments plus the text of every tool
 * result the model reads), the context re-read over all calls, host polls made outside the model, elapsed
 * real time from the first model call to the final answer, and GitHub requests as the fake counted them.
 *
 * Every run gets its own fake GitHub on 127.0.0.1, its own temporary database and its own server processes,
 * spawned with explicit permission flags.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { ENV_VARS } from "../src/cli/config.ts";
import { type FakeGitHub, startFakeGitHub } from "./fake_github.ts";
import {
  connectLegacyV1,
  connectTaskHost,
  denoExecPath,
  type StdioTarget,
  type TaskHost,
  type V1Client,
} from "./mcp_clients.ts";
import type { Json, Scenario } from "./scenarios.ts";

/** The repository root (the server runs `src/main.ts` from here). */
export const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Which host drove a run. */
export type HostKind = "task" | "polling" | "instant" | "wait";

/** Human names of the hosts. */
export const HOST_LABEL: Record<HostKind, string> = {
  task: "task-aware host",
  polling: "polling host",
  instant: "instant polling host",
  wait: "wait_ms polling host",
};

/**
 * `jobs.get` polls after which the instant model gives up on an unfinished job, as the fast Claude Code model
 * observed with `claude -p` did (41 calls in 3 s, then it stopped; docs/notes and shared/reference/real-hosts.md).
 */
export const INSTANT_POLLS_MAX = 40;

// ---------------------------------------------------------------------------------------------------------------
// Resources and processes
// ---------------------------------------------------------------------------------------------------------------

/** Closers run last-in first-out; `closeAll` is idempotent and never throws (for Ctrl-C paths too). */
export class Resources {
  #closers: Array<() => Promise<void> | void> = [];
  #closing: Promise<void> | undefined;

  defer(closer: () => Promise<void> | void): void {
    this.#closers.push(closer);
  }

  closeAll(): Promise<void> {
    this.#closing ??= (async () => {
      while (this.#closers.length > 0) {
        const closer = this.#closers.pop();
        try {
          await closer?.();
        } catch { /* best effort: keep closing the rest */ }
      }
      this.#closing = undefined;
    })();
    return this.#closing;
  }
}

/** A temporary directory removed by `resources`. */
export async function tempDir(resources: Resources, prefix = "longcall-eval-"): Promise<string> {
  const path = await Deno.makeTempDir({ prefix });
  resources.defer(() => Deno.remove(path, { recursive: true }).catch(() => {}));
  return path;
}

/** A fake GitHub whose clock runs `rate` times faster than real time, closed by `resources`. */
export async function startScaledFake(
  resources: Resources,
  rate: number,
  options: { generatedRepos?: Record<string, number> } = {},
): Promise<FakeGitHub> {
  const t0 = Date.now();
  const fake = await startFakeGitHub({
    scenario: "no_checks",
    now: () => t0 + (Date.now() - t0) * rate,
    ...(options.generatedRepos === undefined ? {} : { generatedRepos: options.generatedRepos }),
  });
  resources.defer(() => fake.close());
  return fake;
}

/** A loopback front of the fake that rate-limits the first request for one repository. */
export interface RateLimitFront {
  readonly url: string;
  /** Secondary-limit answers it gave. */
  readonly limited: number;
}

/**
 * Starts a front on 127.0.0.1 that answers the first request under `/repos/{repository}` with GitHub's
 * secondary-rate-limit 403 (`retry-after: 60`) and forwards every other request to the fake unchanged. The fake
 * can only limit "the next N requests", whichever repository they are for; this pins the limit to one.
 */
export function startRateLimitFront(
  resources: Resources,
  fakeUrl: string,
  repository: string,
): Promise<RateLimitFront> {
  const prefix = `/repos/${repository}`;
  let limited = 0;
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: (addr) => {
        resolve({
          url: `http://127.0.0.1:${addr.port}`,
          get limited() {
            return limited;
          },
        });
      },
    }, async (req) => {
      const url = new URL(req.url);
      if (limited === 0 && (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`))) {
        limited++;
        const body = {
          message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
          documentation_url:
            "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
          status: "403",
        };
        return new Response(JSON.stringify(body), {
          status: 403,
          headers: {
            "content-type": "application/json; charset=utf-8",
            "retry-after": "60",
            "x-ratelimit-limit": "60",
            "x-ratelimit-remaining": "50",
            "x-ratelimit-resource": "core",
          },
        });
      }
      const headers = new Headers(req.headers);
      headers.delete("host");
      const res = await fetch(`${fakeUrl}${url.pathname}${url.search}`, { method: req.method, headers });
      const out = new Headers(res.headers);
      out.delete("content-encoding");
      out.delete("content-length");
      return new Response(res.status === 304 ? null : await res.arrayBuffer(), { status: res.status, headers: out });
    });
    resources.defer(() => server.shutdown());
  });
}

/** Where a server child runs and what it talks to. */
export interface ServerSpec {
  /** Directory the server may read and write (holds the database). */
  dir: string;
  db: string;
  githubUrl: string;
  rate: number;
}

/**
 * The stdio target of a real longcall server with explicit permission flags: read and write only its own
 * directory (plus read of `src/`, where the network worker loads its code from), the environment variables
 * longcall reads, and loopback networking. Tokens of the parent environment are blanked: the child only
 * ever talks to the fake on 127.0.0.1, anonymously.
 */
export function serverTarget(spec: ServerSpec): StdioTarget {
  return {
    command: denoExecPath(),
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      `--allow-read=${spec.dir},${REPO_ROOT}src`,
      `--allow-write=${spec.dir}`,
      `--allow-env=${ENV_VARS.join(",")}`,
      "--allow-net=127.0.0.1",
      `${REPO_ROOT}src/main.ts`,
      "serve",
      "--db",
      spec.db,
      "--simulate-time-rate",
      String(spec.rate),
      // No linger: a run ends by closing the client, and its server must not outlive it.
      "--linger-ms",
      "0",
    ],
    cwd: REPO_ROOT,
    env: {
      LONGCALL_GITHUB_API_URL: spec.githubUrl,
      LONGCALL_LOG: "error",
      // A token, as a real user sets one (the fake accepts any): 304s are then free, as on GitHub. An
      // anonymous server would pace its watch to GitHub's 60/h and answer minutes later.
      GITHUB_TOKEN: "eval-token",
      GH_TOKEN: "",
      LONGCALL_GITHUB_TOKEN_FILE: "",
      LONGCALL_HTTP_TOKEN: "",
      LONGCALL_DB: "",
    },
    stderr: "pipe",
  };
}

/** The last few KB a server wrote to stderr (shown when a run breaks). */
export class StderrTail {
  #text = "";
  append(chunk: string): void {
    this.#text = (this.#text + chunk).slice(-8_192);
  }
  get text(): string {
    return this.#text;
  }
}

interface NodeStream {
  on(event: "data", listener: (chunk: unknown) => void): unknown;
}

function drainStderr(transport: unknown, tail: StderrTail): void {
  const stream = (transport as { stderr?: NodeStream | null } | undefined)?.stderr;
  stream?.on(
    "data",
    (chunk) => tail.append(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk as Uint8Array)),
  );
}

function pidOf(transport: unknown): number | undefined {
  const pid = (transport as { pid?: number | null } | undefined)?.pid;
  return typeof pid === "number" ? pid : undefined;
}

function killHard(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    Deno.kill(pid, "SIGKILL");
  } catch { /* already gone */ }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

// ---------------------------------------------------------------------------------------------------------------
// The scripted model and its meter
// ---------------------------------------------------------------------------------------------------------------

/** Counters of one run. */
export interface Meter {
  /** Model inferences: each reads the conversation so far and writes a tool call or the answer. */
  modelCalls: number;
  /** Tool calls the model wrote. */
  toolCalls: number;
  /** UTF-8 bytes the model read (tool results) and wrote (tool call arguments). */
  visibleBytes: number;
  /** Sum over model calls of the conversation bytes each one re-reads (tool traffic only). */
  contextBytes: number;
  /** Requests the host made on its own, outside the model (`tasks/get`, `tasks/cancel`). */
  hostRequests: number;
}

/** One line of a run's transcript. */
export interface TranscriptEntry {
  /** Real milliseconds since the run's first model call. */
  atMs: number;
  who: "model" | "tool" | "host" | "user";
  text: string;
  bytes?: number;
}

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/**
 * A deterministic stand-in for the model: the drivers tell it what it decided; it counts what an LLM would
 * have had to read and write. The decisions themselves are scripted in the drivers.
 */
export class ScriptedModel {
  readonly meter: Meter = { modelCalls: 0, toolCalls: 0, visibleBytes: 0, contextBytes: 0, hostRequests: 0 };
  readonly transcript: TranscriptEntry[] = [];
  readonly startedAt = Date.now();
  #context = 0;
  #onChange: () => void;

  constructor(onChange: () => void = () => {}) {
    this.#onChange = onChange;
  }

  #log(who: TranscriptEntry["who"], text: string, bytes?: number) {
    this.transcript.push({ atMs: Date.now() - this.startedAt, who, text, ...(bytes === undefined ? {} : { bytes }) });
  }

  /** One model inference that writes a tool call. */
  callTool(name: string, args: Record<string, Json>): void {
    const text = JSON.stringify(args);
    const bytes = utf8(text);
    this.meter.modelCalls++;
    this.meter.contextBytes += this.#context;
    this.meter.toolCalls++;
    this.meter.visibleBytes += bytes;
    this.#context += bytes;
    this.#log("model", `${name} ${text}`, bytes);
    this.#onChange();
  }

  /** A tool result (or a tool error) lands in the model's context. */
  read(text: string, label: string): void {
    const bytes = utf8(text);
    this.meter.visibleBytes += bytes;
    this.#context += bytes;
    this.#log("tool", label, bytes);
    this.#onChange();
  }

  /** The final model inference: it reads everything and answers the user. */
  answer(text: string): void {
    this.meter.modelCalls++;
    this.meter.contextBytes += this.#context;
    this.#log("model", `answer: ${text}`);
    this.#onChange();
  }

  /** Something the host or the user did without the model. */
  note(who: "host" | "user", text: string, hostRequest = false): void {
    if (hostRequest) this.meter.hostRequests++;
    this.#log(who, text);
    this.#onChange();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------------------------------

/** The final answer of a run, normalized so both hosts' answers compare field by field. */
export interface FinalAnswer {
  /** `unfinished`: the model gave up before the job ended (the instant polling host). */
  job_status: "succeeded" | "failed" | "cancelled" | "unfinished";
  outcome: string;
  error_code?: string;
  /** Scenario-specific facts the model reports: CI summary and head, or per-repository sync outcomes. */
  detail: string;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === "object" && v !== null ? v as Rec : {});

/** The detail line of a job result: watch summary and head, or sync items. */
export function detailOf(result: unknown): string {
  const r = rec(result);
  if (Array.isArray(r["items"])) {
    return (r["items"] as unknown[]).map((i) => {
      const item = rec(i);
      const retry = typeof item["retry_after_ms"] === "number" ? ` retry_after_ms=${item["retry_after_ms"]}` : "";
      const reason = typeof item["reason"] === "string" ? `(${item["reason"]}${retry})` : "";
      return `${String(item["key"])}=${String(item["item_status"])}${reason}`;
    }).join(", ");
  }
  const s = rec(r["summary"]);
  if (typeof r["observed_head_sha"] === "string") {
    return `head ${r["observed_head_sha"].slice(0, 7)}, ${s["passed"]}/${s["total"]} passed, ${s["failed"]} failed, ` +
      `${s["pending"]} pending`;
  }
  return "";
}

/** Compares an answer with a scenario's expectation. */
export function answerMatches(answer: FinalAnswer, expected: Scenario["expected"]): boolean {
  if (answer.job_status !== expected.job_status || answer.outcome !== expected.outcome) return false;
  if (expected.error_code !== undefined && answer.error_code !== expected.error_code) return false;
  return (expected.detail_includes ?? []).every((part) => answer.detail.includes(part));
}

/** Same answer, field by field. */
export function sameAnswer(a: FinalAnswer, b: FinalAnswer): boolean {
  return a.job_status === b.job_status && a.outcome === b.outcome && a.error_code === b.error_code &&
    a.detail === b.detail;
}

export function answerText(a: FinalAnswer): string {
  const code = a.error_code === undefined ? "" : ` (${a.error_code})`;
  const detail = a.detail === "" ? "" : `; ${a.detail}`;
  return `${a.job_status}/${a.outcome}${code}${detail}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------------------------

/** GitHub requests the fake answered during a run. */
export interface GitHubCounts {
  total: number;
  /** Charged against the rate limit. */
  counted: number;
  /** Free `304 Not Modified` answers to conditional requests. */
  notModified: number;
  rateLimited: number;
}

/** Everything one host produced for one scenario. */
export interface RunResult {
  scenario: string;
  host: HostKind;
  meter: Meter;
  /** `tasks/get` polls the task host made outside the model (0 for the polling host). */
  hostPolls: number;
  elapsedMs: number;
  github: GitHubCounts;
  answer: FinalAnswer;
  correct: boolean;
  transcript: TranscriptEntry[];
  /** Server stderr tail when something looked wrong. */
  serverLog?: string;
  /** The hosts without tasks (instant, wait): what bounds their model calls. */
  noTask?: NoTaskFigures;
}

/** Figures of a run by a host without tasks (`instant` or `wait`). */
export interface NoTaskFigures {
  /** Real ms from the tool call until the host saw the job terminal (or gave up). */
  jobMs: number;
  /** The `wait_ms` the model sent (real ms; 0 for the instant host). */
  waitMs: number;
  /** Model turns the scenario forces besides waiting: the user's cancel and its confirmation (2), a call cut by a crash (1). */
  forcedTurns: number;
  /** `2 + ceil(jobMs / waitMs) + forcedTurns` (wait host only). */
  bound?: number;
  /** The instant model stopped before the job ended. */
  gaveUp: boolean;
}

/** Live state a run publishes while it goes (the demo draws it). */
export interface LiveState {
  host: HostKind;
  phase: "starting" | "waiting" | "done" | "error";
  meter: Meter;
  hostPolls: number;
  status: string;
  startedAt: number | undefined;
  github: GitHubCounts;
  /** The run's database (in a temporary directory removed afterwards). */
  db: string;
}

/** Options of {@linkcode runScenario}. */
export interface RunOptions {
  rate: number;
  /** Receives live state updates (at every counted event and every host poll). */
  onUpdate?: (state: LiveState) => void;
  /** Owned by the caller (the demo closes it on Ctrl-C); otherwise the run makes and closes its own. */
  resources?: Resources;
  /** Prefix of the run's temporary directory. */
  tempPrefix?: string;
}

interface RunContext {
  scenario: Scenario;
  fake: FakeGitHub;
  front: RateLimitFront | undefined;
  spec: ServerSpec;
  resources: Resources;
  live: LiveState;
  update: () => void;
  stderr: StderrTail;
}

function countsOf(fake: FakeGitHub, front?: RateLimitFront): GitHubCounts {
  const c = fake.counts;
  const extra = front?.limited ?? 0;
  return { total: c.total + extra, counted: c.counted, notModified: c.notModified, rateLimited: c.rateLimited + extra };
}

/** Runs one scenario through one host against a fresh server and (unless given) a fresh fake. */
export async function runScenario(scenario: Scenario, host: HostKind, options: RunOptions): Promise<RunResult> {
  const resources = options.resources ?? new Resources();
  try {
    const dir = await tempDir(resources, options.tempPrefix);
    const fake = await startScaledFake(
      resources,
      options.rate,
      scenario.generatedRepos === undefined ? {} : { generatedRepos: scenario.generatedRepos },
    );
    const front = scenario.rateLimitRepository === undefined
      ? undefined
      : await startRateLimitFront(resources, fake.url, scenario.rateLimitRepository);
    const live: LiveState = {
      host,
      phase: "starting",
      meter: { modelCalls: 0, toolCalls: 0, visibleBytes: 0, contextBytes: 0, hostRequests: 0 },
      hostPolls: 0,
      status: "starting longcall",
      startedAt: undefined,
      github: countsOf(fake),
      db: `${dir}/longcall.db`,
    };
    const update = () => {
      live.github = countsOf(fake, front);
      options.onUpdate?.(live);
    };
    const ctx: RunContext = {
      scenario,
      fake,
      front,
      spec: { dir, db: live.db, githubUrl: front?.url ?? fake.url, rate: options.rate },
      resources,
      live,
      update,
      stderr: new StderrTail(),
    };
    update();
    const result = host === "task"
      ? await runTaskHost(ctx)
      : host === "polling"
      ? await runPollingHost(ctx)
      : await runNoTaskHost(ctx, host, options.rate);
    live.phase = "done";
    update();
    return result;
  } finally {
    if (options.resources === undefined) await resources.closeAll();
  }
}

/** Starts the scenario's timeline and injections at the moment of the tool call. */
function startTimeline(ctx: RunContext): void {
  ctx.fake.setScenario(ctx.scenario.timeline);
  ctx.fake.resetCounts();
}

function finish(
  ctx: RunContext,
  host: HostKind,
  model: ScriptedModel,
  hostPolls: number,
  answer: FinalAnswer,
): RunResult {
  model.answer(answerText(answer));
  const correct = answerMatches(answer, ctx.scenario.expected);
  return {
    scenario: ctx.scenario.id,
    host,
    meter: { ...model.meter },
    hostPolls,
    elapsedMs: Date.now() - model.startedAt,
    github: countsOf(ctx.fake, ctx.front),
    answer,
    correct,
    transcript: model.transcript,
    ...(correct ? {} : { serverLog: ctx.stderr.text }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Task-aware host
// ---------------------------------------------------------------------------------------------------------------

async function openTaskHost(ctx: RunContext): Promise<TaskHost> {
  const host = await connectTaskHost(serverTarget(ctx.spec), {
    clientInfo: { name: "longcall-eval-task-host", version: "1.0.0" },
    // One stable identity for this run's endpoint, so a restarted server's tasks can be resumed by reference.
    endpointId: `longcall-eval:${ctx.spec.db}`,
  });
  drainStderr(host.client.transport, ctx.stderr);
  ctx.resources.defer(() => host.close());
  return host;
}

/** Turns a task outcome into the text the host hands the model and the normalized answer. */
function taskOutcomeView(outcome: unknown): { text: string; answer: FinalAnswer } {
  const o = rec(outcome);
  if (o["status"] === "completed") {
    const result = rec(o["result"]);
    const content = Array.isArray(result["content"]) ? result["content"] as unknown[] : [];
    const text = content.map((c) => String(rec(c)["text"] ?? "")).join("\n");
    const structured = rec(result["structuredContent"]);
    if (result["isError"] === true) {
      const error = rec(structured["error"]);
      return {
        text,
        answer: {
          job_status: "failed",
          outcome: String(structured["outcome"] ?? "failed"),
          error_code: String(error["code"]),
          detail: "",
        },
      };
    }
    return {
      text,
      answer: {
        job_status: "succeeded",
        outcome: String(structured["outcome"]),
        detail: detailOf(structured["result"]),
      },
    };
  }
  if (o["status"] === "failed") {
    const error = o["error"] as { code?: number; message?: string; data?: unknown };
    const text = JSON.stringify({ code: error.code, message: error.message, data: error.data });
    const jobError = rec(rec(error.data)["error"]);
    return {
      text,
      answer: {
        job_status: "failed",
        outcome: "failed",
        ...(typeof jobError["code"] === "string" ? { error_code: jobError["code"] } : {}),
        detail: "",
      },
    };
  }
  const task = rec(o["task"]);
  return {
    text: JSON.stringify({ status: "cancelled", statusMessage: task["statusMessage"] ?? "cancelled" }),
    answer: { job_status: "cancelled", outcome: "cancelled", detail: "" },
  };
}

/** Raw `tasks/get` until the server reports a terminal status; returns it as a task outcome. */
async function confirmTerminal(host: TaskHost, taskId: string, model: ScriptedModel): Promise<unknown> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await host.tasksGet(taskId);
    model.note("host", "tasks/get (confirming the terminal state)", true);
    if (response.kind === "error") throw new Error(`tasks/get failed: ${JSON.stringify(response.error)}`);
    const task = response.result;
    const status = task["status"];
    if (status === "cancelled") return { status, task };
    if (status === "completed") {
      // Like MCP Inspector, the host accepts a completed result only if it matches the tool's outputSchema
      // (the helper checked it on the wire against tools/list).
      host.outputSchemas.assertNoViolations();
      return { status, result: task["result"], task };
    }
    if (status === "failed") return { status, error: task["error"], task };
    if (Date.now() > deadline) throw new Error(`task ${taskId} is still ${String(status)} after a cancellation`);
    await sleep(typeof task["pollIntervalMs"] === "number" ? task["pollIntervalMs"] : 250);
  }
}

async function runTaskHost(ctx: RunContext): Promise<RunResult> {
  const { scenario, live, update } = ctx;
  let host = await openTaskHost(ctx);
  let pollsBefore = 0; // tasks/get polls of earlier (killed) sessions
  const polls = () => pollsBefore + host.tasksGetPolls;
  const model = new ScriptedModel(() => {
    live.meter = { ...model.meter };
    update();
  });
  live.phase = "waiting";
  live.startedAt = model.startedAt;
  live.status = "model: one tool call";
  const pollTicker = setInterval(() => {
    if (live.hostPolls !== polls()) {
      live.hostPolls = polls();
      update();
    }
  }, 50);
  try {
    startTimeline(ctx);
    model.callTool(scenario.tool, scenario.args);
    const execution = await host.session.callTool(scenario.tool, scenario.args as Record<string, never>);
    if (execution.kind !== "task") throw new Error(`${scenario.tool} did not return a task`);
    // A host persists the reference at once, so the task survives a host or server restart.
    const reference = execution.serializeReference();
    model.note("host", `task ${reference.taskId} created; polling tasks/get outside the model`);
    const onEvent = (event: { type: string; task?: { statusMessage?: string } }) => {
      if (event.type === "task" && event.task?.statusMessage !== undefined) {
        live.status = event.task.statusMessage;
        update();
      }
    };

    let cancelTimer: ReturnType<typeof setTimeout> | undefined;
    if (scenario.cancelAfterMs !== undefined) {
      cancelTimer = setTimeout(() => {
        model.note("user", "stop, never mind (the host cancels the task: tasks/cancel)", true);
        execution.cancel().catch(() => {});
      }, scenario.cancelAfterMs - (Date.now() - model.startedAt));
    }
    let outcome: unknown;
    try {
      if (scenario.restartAfterMs === undefined) {
        outcome = (await execution.settle({ onEvent })).outcome;
      } else {
        const settled = execution.settle({ onEvent }).then((s) => s.outcome, (error: unknown) => ({ error }));
        const restartAt = model.startedAt + scenario.restartAfterMs;
        const first = await Promise.race([settled, sleep(restartAt - Date.now()).then(() => undefined)]);
        if (first !== undefined) throw new Error(`the task settled before the restart: ${JSON.stringify(first)}`);
        killHard(pidOf(host.client.transport));
        model.note("host", "server killed with SIGKILL; starting a new server on the same database");
        live.status = "server killed; restarting";
        update();
        await settled; // the old session notices its transport is gone; nothing reaches the model
        pollsBefore += host.tasksGetPolls;
        await host.close().catch(() => {});
        host = await openTaskHost(ctx);
        model.note("host", `resuming task ${reference.taskId} by reference (tasks/get)`);
        const resumed = await host.session.resumeTask(reference);
        outcome = (await resumed.settle({ onEvent })).outcome;
      }
    } finally {
      clearTimeout(cancelTimer);
    }
    if (rec(outcome)["status"] === "cancelled") {
      // The session reports a cancellation as soon as tasks/cancel is accepted; the host confirms what the
      // server recorded (cancellation is cooperative) before it tells the model.
      outcome = await confirmTerminal(host, reference.taskId, model);
    }
    const view = taskOutcomeView(outcome);
    model.read(view.text, "final task result");
    live.hostPolls = polls();
    return finish(ctx, "task", model, polls(), view.answer);
  } finally {
    clearInterval(pollTicker);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Polling host
// ---------------------------------------------------------------------------------------------------------------

async function openPollingHost(ctx: RunContext): Promise<V1Client> {
  const client = await connectLegacyV1(serverTarget(ctx.spec), {
    clientInfo: { name: "longcall-eval-polling-host", version: "1.0.0" },
  });
  drainStderr(client.transport, ctx.stderr);
  ctx.resources.defer(() => client.close());
  return client;
}

/** The text of a v1 tool result as a host hands it to the model. */
function resultText(result: unknown): string {
  const content = rec(result)["content"];
  return Array.isArray(content) ? content.map((c) => String(rec(c)["text"] ?? "")).join("\n") : "";
}

interface PollItem {
  execution_state?: string;
  outcome?: string;
  summary?: string;
  retry_after_ms?: number;
  error?: { code?: string };
  result?: unknown;
}

function firstItem(result: unknown): { item: PollItem; retryAfterMs: number | undefined } {
  const items = rec(rec(result)["structuredContent"])["items"];
  const first = Array.isArray(items) ? rec(items[0]) : {};
  const retry = first["retry_after_ms"];
  return { item: rec(first["value"]) as PollItem, retryAfterMs: typeof retry === "number" ? retry : undefined };
}

async function runPollingHost(ctx: RunContext): Promise<RunResult> {
  const { scenario, live, update } = ctx;
  let client = await openPollingHost(ctx);
  const model = new ScriptedModel(() => {
    live.meter = { ...model.meter };
    update();
  });
  live.phase = "waiting";
  live.startedAt = model.startedAt;
  live.status = "model: tool call";

  const call = async (name: string, args: Record<string, Json>, label: string) => {
    model.callTool(name, args);
    const result = await client.callTool({ name, arguments: args });
    model.read(resultText(result), label);
    return result;
  };

  startTimeline(ctx);
  const first = await call(scenario.tool, scenario.args, "JobReference");
  const ref = rec(rec(first)["structuredContent"]);
  const id = String(ref["id"]);
  let waitMs = typeof ref["poll_after_ms"] === "number" ? ref["poll_after_ms"] : 1_000;

  const userStop = new AbortController();
  const cancelTimer = scenario.cancelAfterMs === undefined ? undefined : setTimeout(() => {
    model.note("user", "stop, never mind");
    userStop.abort();
  }, scenario.cancelAfterMs - (Date.now() - model.startedAt));
  let cancelSent = false;
  let restarted = scenario.restartAfterMs === undefined;
  let last: PollItem = {};
  try {
    for (;;) {
      await sleep(waitMs, cancelSent ? undefined : userStop.signal);
      if (!restarted && Date.now() - model.startedAt >= (scenario.restartAfterMs ?? 0)) {
        // The crash happens between two model turns (deterministic transcripts); the host restarts the server.
        restarted = true;
        killHard(pidOf(client.transport));
        model.note("host", "server killed with SIGKILL; starting a new server on the same database");
        live.status = "server killed; restarting";
        update();
        await client.close().catch(() => {});
        client = await openPollingHost(ctx);
      }
      if (userStop.signal.aborted && !cancelSent) {
        cancelSent = true;
        const result = await call("jobs.cancel", { ids: [id] }, "jobs.cancel");
        const { item, retryAfterMs } = firstItem(result);
        last = item;
        if (item.execution_state === "terminal") break;
        waitMs = retryAfterMs ?? item.retry_after_ms ?? 250;
        continue;
      }
      const result = await call("jobs.get", { ids: [id] }, "jobs.get");
      const { item, retryAfterMs } = firstItem(result);
      last = item;
      if (item.summary !== undefined) {
        live.status = item.summary;
        update();
      }
      if (item.execution_state === "terminal") break;
      waitMs = retryAfterMs ?? 1_000;
    }
  } finally {
    clearTimeout(cancelTimer);
  }

  let answer: FinalAnswer;
  if (last.error !== undefined) {
    answer = {
      job_status: "failed",
      outcome: last.outcome ?? "failed",
      ...(last.error.code === undefined ? {} : { error_code: last.error.code }),
      detail: "",
    };
  } else if (last.outcome === "cancelled") {
    answer = { job_status: "cancelled", outcome: "cancelled", detail: "" };
  } else {
    // The concise item says the job ended; the typed result needs the detailed view: one more turn.
    const result = await call("jobs.get", { ids: [id], response_format: "detailed" }, "jobs.get (detailed)");
    const { item } = firstItem(result);
    answer = { job_status: "succeeded", outcome: String(item.outcome), detail: detailOf(item.result) };
  }
  return finish(ctx, "polling", model, 0, answer);
}

// ---------------------------------------------------------------------------------------------------------------
// Hosts without tasks whose model answers instantly: the instant polling host and the wait_ms polling host
// ---------------------------------------------------------------------------------------------------------------

/**
 * Like `claude -p` with a fast model: the tool returns a JobReference and the model, which takes no time per turn,
 * follows the job with `jobs.get` itself.
 *
 * - `instant`: it calls `jobs.get` again at once after every answer (a model cannot sleep), and gives up after
 *   {@linkcode INSTANT_POLLS_MAX} polls of an unfinished job.
 * - `wait`: it calls `jobs.get` with the `wait_ms` the JobReference's `follow_up` suggests (converted to the
 *   simulated clock: 45 s of simulated time), `until: "terminal"` and the detailed view, so each call returns when
 *   the job ends or after `wait_ms`.
 *
 * A user's stop aborts the call in flight (the official client sends `notifications/cancelled`), then the model
 * calls `jobs.cancel` and follows the job to its end. A crash (SIGKILL of the server) cuts the call in flight; the
 * host starts a new server on the same database and the model calls `jobs.get` again.
 */
async function runNoTaskHost(ctx: RunContext, host: "instant" | "wait", rate: number): Promise<RunResult> {
  const { scenario, live, update } = ctx;
  let client = await openPollingHost(ctx);
  const model = new ScriptedModel(() => {
    live.meter = { ...model.meter };
    update();
  });
  live.phase = "waiting";
  live.startedAt = model.startedAt;
  live.status = "model: tool call";
  let inFlight: AbortController | undefined;

  const call = async (name: string, args: Record<string, Json>, label: string): Promise<unknown> => {
    model.callTool(name, args);
    inFlight = new AbortController();
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal: inFlight.signal,
        timeout: 120_000,
      });
      model.read(resultText(result), label);
      return result;
    } catch (err) {
      // The call was aborted by the host (user stop) or cut by the crash: the model reads the host's error line.
      const text = JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
      model.read(text, `${label} (no answer)`);
      return undefined;
    } finally {
      inFlight = undefined;
    }
  };

  startTimeline(ctx);
  const first = await call(scenario.tool, scenario.args, "JobReference");
  const ref = rec(rec(first)["structuredContent"]);
  const id = String(ref["id"]);
  const pollJob = rec(rec(rec(ref["follow_up"])["action"])["poll_job"]);
  const suggested = typeof pollJob["wait_ms"] === "number" ? pollJob["wait_ms"] : 0;
  // The suggestion is in real time for a real host; the simulated world runs `rate` times faster.
  const waitMs = host === "wait" ? Math.max(1, Math.round(suggested / rate)) : 0;
  if (host === "wait" && waitMs <= 1) throw new Error(`the JobReference suggests no wait_ms: ${JSON.stringify(ref)}`);

  let forcedTurns = 0;
  let userStopped = false, cancelSent = false;
  const cancelTimer = scenario.cancelAfterMs === undefined ? undefined : setTimeout(() => {
    userStopped = true;
    model.note("user", "stop, never mind (the host aborts the call in flight)");
    inFlight?.abort();
  }, scenario.cancelAfterMs - (Date.now() - model.startedAt));
  let killed = false, restarted = scenario.restartAfterMs === undefined;
  const restartTimer = scenario.restartAfterMs === undefined ? undefined : setTimeout(() => {
    killed = true;
    killHard(pidOf(client.transport));
    model.note("host", "server killed with SIGKILL; a new server starts on the same database");
    live.status = "server killed; restarting";
    update();
  }, scenario.restartAfterMs - (Date.now() - model.startedAt));

  let last: PollItem = {};
  let polls = 0, gaveUp = false, jobMs = 0;
  try {
    for (;;) {
      if (killed && !restarted) {
        restarted = true;
        await client.close().catch(() => {});
        client = await openPollingHost(ctx);
      }
      if (userStopped && !cancelSent) {
        cancelSent = true;
        forcedTurns += 2; // the cancel, and the call that confirms the cooperative stop
        const result = await call("jobs.cancel", { ids: [id] }, "jobs.cancel");
        if (result !== undefined) last = firstItem(result).item;
        if (last.execution_state === "terminal") break;
        continue;
      }
      const args: Record<string, Json> = host === "wait"
        ? { ids: [id], wait_ms: waitMs, until: "terminal", response_format: "detailed" }
        : { ids: [id] };
      const wasKilled = killed;
      const result = await call("jobs.get", args, "jobs.get");
      polls++;
      if (result === undefined) {
        if (killed && !wasKilled) forcedTurns++; // this call was cut by the crash
        continue;
      }
      const { item } = firstItem(result);
      last = item;
      if (item.summary !== undefined) {
        live.status = item.summary;
        update();
      }
      if (item.execution_state === "terminal") break;
      if (host === "instant" && polls >= INSTANT_POLLS_MAX && !userStopped) {
        gaveUp = true;
        break;
      }
    }
  } finally {
    jobMs = Date.now() - model.startedAt;
    clearTimeout(cancelTimer);
    clearTimeout(restartTimer);
  }

  let answer: FinalAnswer;
  if (gaveUp) {
    answer = {
      job_status: "unfinished",
      outcome: "gave_up",
      detail: `still ${last.execution_state ?? "unknown"} after ${polls} polls`,
    };
  } else if (last.error !== undefined) {
    answer = {
      job_status: "failed",
      outcome: last.outcome ?? "failed",
      ...(last.error.code === undefined ? {} : { error_code: last.error.code }),
      detail: "",
    };
  } else if (last.outcome === "cancelled") {
    answer = { job_status: "cancelled", outcome: "cancelled", detail: "" };
  } else if (host === "wait") {
    answer = { job_status: "succeeded", outcome: String(last.outcome), detail: detailOf(last.result) };
  } else {
    // The concise item says the job ended; the typed result needs the detailed view: one more turn.
    const result = await call("jobs.get", { ids: [id], response_format: "detailed" }, "jobs.get (detailed)");
    const { item } = firstItem(result);
    answer = { job_status: "succeeded", outcome: String(item.outcome), detail: detailOf(item.result) };
  }
  const run = finish(ctx, host, model, 0, answer);
  run.noTask = {
    jobMs,
    waitMs,
    forcedTurns,
    gaveUp,
    ...(host === "wait" ? { bound: 2 + Math.ceil(jobMs / waitMs) + forcedTurns } : {}),
  };
  return run;
}
