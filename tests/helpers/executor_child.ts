/**
 * A child process for multi-process tests, and the parent-side helper that spawns it.
 *
 * As an entry point (always spawned with explicit permission flags, see {@linkcode spawnExecutorChild}):
 *
 * ```
 * deno run --no-prompt --allow-read=DIR --allow-write=DIR tests/helpers/executor_child.ts --db PATH \
 *   [--running-max N] [--heartbeat-ms N] [--lease-ms N] [--reconcile-ms N] [--cancel-poll-ms N] \
 *   [--claim-poll-ms N] [--grace-ms N] [--admitted-max N] [--submit N --kind K --input JSON] \
 *   [--start-file PATH] [--submit-every-ms N] [--retry-overloaded-ms N] [--no-execute] [--verbose]
 * ```
 *
 * It opens the store, starts an Executor with the test kinds (unless `--no-execute`), prints
 * `{"ready":true,"pid":..,"owner":..}`, then submits `--submit` jobs, printing `{"id":..,"i":..}` for
 * each admitted job right after its transaction committed (so the parent knows every id that was
 * ever returned), or `{"refused":CODE,"i":..}`, then `{"submitted":N,"refused":N}`. In `--input`,
 * `{{i}}` becomes the job's index and `{{nonce}}` a per-process random string. With `--no-execute`
 * it exits after submitting; otherwise it runs until SIGTERM or the end of stdin, stops the
 * executor gracefully, prints `{"stopped":true}` and exits.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { AppError } from "../../src/base/errors.ts";
import { createLogger, silentLogger } from "../../src/base/log.ts";
import { openRuntime } from "../../src/cli/runtime.ts";
import { waitFor } from "../../testing/temp.ts";
import { testRegistry } from "../../testing/test_kinds.ts";

const CHILD_PATH = new URL("./executor_child.ts", import.meta.url).pathname;
const REPO_ROOT = new URL("../../", import.meta.url).pathname;

// ---------------------------------------------------------------- parent side

export interface ChildOptions {
  db: string;
  /** Directory the child may read and write (holds the db and side-effect files). */
  dir: string;
  runningMax?: number;
  heartbeatMs?: number;
  leaseMs?: number;
  reconcileMs?: number;
  cancelPollMs?: number;
  claimPollMs?: number;
  graceMs?: number;
  admittedMax?: number;
  submit?: number;
  kind?: string;
  /** Input of each submitted job; serialized to JSON (templates `{{i}}`, `{{nonce}}` apply). */
  input?: unknown;
  execute?: boolean;
  /** Log warnings to stderr (kept in `stderr()`). */
  verbose?: boolean;
  /** On `overloaded`, wait `retryOverloadedMs` and submit again instead of printing a refusal. */
  retryOverloadedMs?: number;
  /** Start submitting only once this file exists (a barrier the test opens after every child is ready). */
  startFile?: string;
  /**
   * Wait this long after each submission: spreads a child's submissions over more time than the children take
   * to pass the barrier, so they overlap however unevenly a loaded machine wakes them.
   */
  submitEveryMs?: number;
}

/** A line the child printed. */
export type ChildLine =
  | { ready: true; pid: number; owner: string | null }
  | { id: string; i: number }
  | { refused: string; i: number }
  | { submitted: number; refused: number }
  | { stopped: true };

export interface ExecutorChild extends AsyncDisposable {
  readonly pid: number;
  readonly process: Deno.ChildProcess;
  /** Every line printed so far. */
  readonly lines: ChildLine[];
  /** Every admitted job id printed so far. */
  readonly ids: string[];
  /** Resolves with the ready line. Rejects if the child exits first. */
  readonly ready: Promise<{ pid: number; owner: string | null }>;
  /** Resolves when the child printed its `submitted` line. */
  readonly submitted: Promise<{ submitted: number; refused: number }>;
  /** Resolves when the child exited. */
  readonly exited: Promise<Deno.CommandStatus>;
  /** Last part of stderr. */
  stderr(): string;
  /** Sends a signal (ignored once the child exited). */
  kill(signal?: Deno.Signal): void;
  /** Graceful stop: closes stdin and waits for exit. */
  stop(): Promise<Deno.CommandStatus>;
}

/** Deno arguments for the child (explicit permission flags: never run it with -A). */
export function childArgs(o: ChildOptions): string[] {
  const args = [
    "run",
    "--no-prompt",
    `--allow-read=${o.dir}`,
    `--allow-write=${o.dir}`,
    "--deny-net",
    "--deny-run",
    CHILD_PATH,
    "--db",
    o.db,
  ];
  const num = (flag: string, v: number | undefined) => {
    if (v !== undefined) args.push(flag, String(v));
  };
  num("--running-max", o.runningMax);
  num("--heartbeat-ms", o.heartbeatMs);
  num("--lease-ms", o.leaseMs);
  num("--reconcile-ms", o.reconcileMs);
  num("--cancel-poll-ms", o.cancelPollMs);
  num("--claim-poll-ms", o.claimPollMs);
  num("--grace-ms", o.graceMs);
  num("--admitted-max", o.admittedMax);
  num("--submit", o.submit);
  if (o.startFile !== undefined) args.push("--start-file", o.startFile);
  num("--submit-every-ms", o.submitEveryMs);
  num("--retry-overloaded-ms", o.retryOverloadedMs);
  if (o.kind !== undefined) args.push("--kind", o.kind);
  if (o.input !== undefined) args.push("--input", JSON.stringify(o.input));
  if (o.execute === false) args.push("--no-execute");
  if (o.verbose === true) args.push("--verbose");
  return args;
}

/** Spawns an executor child. Dispose kills it (SIGKILL) if still running. */
export function spawnExecutorChild(o: ChildOptions): ExecutorChild {
  const process = new Deno.Command(Deno.execPath(), {
    args: childArgs(o),
    cwd: REPO_ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: ChildLine[] = [];
  const ids: string[] = [];
  let err = "";
  let exitedFlag = false;
  let resolveReady!: (v: { pid: number; owner: string | null }) => void;
  let rejectReady!: (e: Error) => void;
  const ready = new Promise<{ pid: number; owner: string | null }>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  let resolveSubmitted!: (v: { submitted: number; refused: number }) => void;
  let rejectSubmitted!: (e: Error) => void;
  const submitted = new Promise<{ submitted: number; refused: number }>((res, rej) => {
    resolveSubmitted = res;
    rejectSubmitted = rej;
  });
  // Avoid unhandled rejections for promises a test does not await.
  ready.catch(() => {});
  submitted.catch(() => {});

  const readStdout = (async () => {
    let buffered = "";
    for await (const chunk of process.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const text = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (text.trim() === "") continue;
        const line = JSON.parse(text) as ChildLine;
        lines.push(line);
        if ("id" in line) ids.push(line.id);
        else if ("ready" in line) resolveReady({ pid: line.pid, owner: line.owner });
        else if ("submitted" in line) resolveSubmitted(line);
      }
    }
  })();
  const readStderr = (async () => {
    for await (const chunk of process.stderr.pipeThrough(new TextDecoderStream())) {
      err = (err + chunk).slice(-20_000);
    }
  })();
  const exited = (async () => {
    const status = await process.status;
    exitedFlag = true;
    await Promise.allSettled([readStdout, readStderr]);
    const why = new Error(
      `executor child ${process.pid} exited (code ${status.code}, signal ${status.signal}): ${err}`,
    );
    rejectReady(why);
    rejectSubmitted(why);
    return status;
  })();
  const writer = process.stdin.getWriter();
  const kill = (signal: Deno.Signal = "SIGKILL") => {
    if (exitedFlag) return;
    try {
      process.kill(signal);
    } catch {
      // Already gone.
    }
  };
  const stop = async () => {
    await writer.close().catch(() => {});
    return await exited;
  };
  return {
    pid: process.pid,
    process,
    lines,
    ids,
    ready,
    submitted,
    exited,
    stderr: () => err,
    kill,
    stop,
    [Symbol.asyncDispose]: async () => {
      kill("SIGKILL");
      await writer.close().catch(() => {});
      await exited;
    },
  };
}

// ---------------------------------------------------------------- child side

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      db: { type: "string" },
      "running-max": { type: "string" },
      "heartbeat-ms": { type: "string" },
      "lease-ms": { type: "string" },
      "reconcile-ms": { type: "string" },
      "cancel-poll-ms": { type: "string" },
      "claim-poll-ms": { type: "string" },
      "grace-ms": { type: "string" },
      "admitted-max": { type: "string" },
      submit: { type: "string" },
      "start-file": { type: "string" },
      "retry-overloaded-ms": { type: "string" },
      "submit-every-ms": { type: "string" },
      kind: { type: "string" },
      input: { type: "string" },
      "no-execute": { type: "boolean" },
      verbose: { type: "boolean" },
    },
  });
  const num = (v: string | undefined): number | undefined => v === undefined ? undefined : Number(v);
  const optional = <K extends string>(key: K, v: number | undefined): { [P in K]?: number } =>
    (v === undefined ? {} : { [key]: v }) as { [P in K]?: number };
  if (values.db === undefined) throw new TypeError("Cannot start executor child: --db is required");
  const print = (line: ChildLine) => console.log(JSON.stringify(line));
  const log = values.verbose === true ? createLogger("warn", { scope: "child" }) : silentLogger;

  // The shipped composition root with the test kinds; no execution side with --no-execute.
  const runtime = openRuntime({
    db: values.db,
    kinds: { registry: () => testRegistry() },
    log,
    execution: values["no-execute"] === true ? "none" : "in_process",
    executor: {
      ...optional("runningMax", num(values["running-max"])),
      ...optional("heartbeatMs", num(values["heartbeat-ms"])),
      ...optional("leaseMs", num(values["lease-ms"])),
      ...optional("reconcileMs", num(values["reconcile-ms"])),
      ...optional("cancelPollMs", num(values["cancel-poll-ms"])),
      ...optional("claimPollMs", num(values["claim-poll-ms"])),
      ...optional("shutdownGraceMs", num(values["grace-ms"])),
    },
    ...optional("admittedMax", num(values["admitted-max"])),
  });
  const { control, execution } = runtime;

  let stopRequested!: () => void;
  const stopping = new Promise<void>((resolve) => stopRequested = resolve);
  const onSignal = () => stopRequested();
  Deno.addSignalListener("SIGTERM", onSignal);
  // End of stdin is the other stop request.
  void (async () => {
    try {
      for await (const _ of Deno.stdin.readable) { /* ignore input */ }
    } catch {
      // A closed pipe is the same request.
    }
    stopRequested();
  })();

  await execution.start();
  print({ ready: true, pid: Deno.pid, owner: execution.executor?.ownerId ?? null });

  const count = num(values.submit) ?? 0;
  const retryOverloadedMs = num(values["retry-overloaded-ms"]);
  const submitEveryMs = num(values["submit-every-ms"]);
  const startFile = values["start-file"];
  if (startFile !== undefined) {
    await waitFor(`the start file ${startFile}`, () => Deno.stat(startFile).then(() => true, () => false), {
      timeoutMs: 30_000,
      everyMs: 2,
    });
  }
  if (count > 0) {
    const kind = values.kind ?? "echo";
    const template = values.input ?? "null";
    const nonce = crypto.randomUUID().slice(0, 8);
    let refused = 0;
    let admitted = 0;
    for (let i = 0; i < count; i++) {
      const input: unknown = JSON.parse(template.replaceAll("{{i}}", String(i)).replaceAll("{{nonce}}", nonce));
      for (;;) {
        try {
          const row = await control.submit(kind, input);
          admitted++;
          print({ id: row.id, i });
        } catch (err) {
          if (err instanceof AppError && err.code === "store_busy") continue;
          if (err instanceof AppError && err.code === "overloaded" && retryOverloadedMs !== undefined) {
            await new Promise((resolve) => setTimeout(resolve, retryOverloadedMs * (0.5 + Math.random())));
            continue;
          }
          if (!(err instanceof AppError)) throw err;
          refused++;
          print({ refused: err.code, i });
        }
        break;
      }
      if (submitEveryMs !== undefined) await new Promise((resolve) => setTimeout(resolve, submitEveryMs));
    }
    print({ submitted: admitted, refused });
  }

  if (execution.where !== "none") await stopping;
  Deno.removeSignalListener("SIGTERM", onSignal);
  await runtime.close();
  print({ stopped: true });
  Deno.exit(0);
}

if (import.meta.main) await main();
