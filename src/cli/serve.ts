/**
 * `longcall serve`: opens the runtime (src/cli/runtime.ts) and the MCP server,
 * and owns graceful shutdown (SIGINT, SIGTERM): answer waiting `jobs.get` calls, stop serving,
 * stop claiming, abort running jobs, record them as interrupted after a bounded grace, delete the
 * owner row, close the database. Queued jobs stay queued for the next process. SIGINT to a stdio
 * server is also its host's "stop tasks": it first cancels the jobs this server admitted.
 *
 * When the host goes away (the stdio wire closes at end of stdin, or SIGHUP) the server
 * lingers first: it stops serving and claiming, stops writing to stdout and stderr, and keeps
 * running the jobs it owns until each ends or the linger bound passes; then it shuts down as
 * above. A later server on the same database follows (and can cancel) those jobs.
 *
 * @module
 */

import { type IdleCollection, idleCollection } from "../base/idle_collect.ts";
import { createLogger, type Logger } from "../base/log.ts";
import {
  HTTP_BODY_TIMEOUT_MS,
  HTTP_PENDING_BODIES_MAX,
  HTTP_PENDING_BODIES_PER_CLIENT_MAX,
  JOB_ADMITTED_MAX_DEFAULT,
  JOB_ADMITTED_MAX_MAX,
  JOB_RETENTION_MS_DEFAULT,
  JOB_RETENTION_MS_MAX,
  JOB_RETENTION_MS_MIN,
  JOB_WAIT_MS_MAX,
  LINGER_MS_DEFAULT,
  LINGER_MS_MAX,
  NETWORK_WORKER_START_DELAY_MS,
} from "../base/limits.ts";
import { JobControl } from "../jobs/control.ts";
import type { JobWaits } from "../jobs/wait.ts";
import type * as Serving from "../mcp/serving.ts";
import type { TasksAdapterModule } from "../mcp/server.ts";
import type { ToolDef } from "../mcp/tools.ts";
import type { TaskInputs } from "../tasks/adapter.ts";
import { isLoopbackHost } from "../base/net.ts";
import { ensureHttpToken } from "./http_token.ts";
import { type Execution, type ExecutorOverrides, openRuntime, type RuntimeKinds } from "./runtime.ts";
import { sqliteVersionWarning, type Synchronous } from "../store/db.ts";
import type { Store } from "../store/store.ts";
import { type Command, intOption } from "./command.ts";
import { rateOption, simulateRate } from "./github_options.ts";
import { envGet, logLevel, resolveDbPath } from "./config.ts";
import { EXIT_ERROR, EXIT_OK, UsageError } from "./exit.ts";
import { HTTP_BIND_HOSTS } from "./permissions.ts";

/** The MCP layer a server runs on: src/mcp/serving.ts (the factory, the transports and the product's tools). */
export type McpServing = typeof Serving;

/** Everything a server process needs besides its flags. */
export interface ServerParts {
  /** The job kinds this process admits and runs (the runtime opens them over its store). */
  kinds: RuntimeKinds;
  /**
   * The MCP layer (`import * as mcp from "src/mcp/serving.ts"`), or a loader of it, called once the
   * runtime exists and its network worker has been created (the worker loads its own code only once started).
   */
  mcp: McpServing | (() => Promise<McpServing>);
  /**
   * Loads the Tasks extension's adapter (src/tasks/adapter.ts) for the first modern connection; a server
   * that serves only the 2025 generation never calls it (see `ServerDeps.tasks` in src/mcp/server.ts).
   */
  tasks: () => Promise<TasksAdapterModule>;
  /**
   * Tools for this process, built once the store and control side exist and `mcp` has loaded (handed
   * in, so the product's tools come from the same module).
   */
  tools(ctx: { control: JobControl; store: Store; log: Logger; mcp: McpServing }): ToolDef[];
  /** Executor overrides (tests shorten heartbeats and leases). */
  executor?: ExecutorOverrides;
  /**
   * Run the executor in the network worker (the shipped configuration) instead of this
   * thread, then narrow this thread's permissions to nothing. Its kinds must be the
   * product's, because the worker builds its own registry.
   */
  networkWorker?: { moduleUrl: string };
  /**
   * Jobs that ask for input mid-flight (`input_required` tasks). Used only by the conformance
   * fixture (tests/helpers/conformance_fixture_server.ts); no product tool asks for input.
   */
  taskInputs?: TaskInputs;
}

export interface ServeFlags {
  db: string;
  http: boolean;
  /** `--http-no-auth`: serve HTTP without a bearer token (loopback only; its own job scope). */
  httpNoAuth?: boolean;
  listen: string;
  readOnly: boolean;
  admittedMax?: number;
  retentionMs?: number;
  synchronous?: Synchronous;
  /** Simulation only: job handlers run on a clock this many times faster than real time. */
  timeRate?: number;
  /**
   * How long running jobs outlive the host (end of stdin, SIGHUP), at most LINGER_MS_MAX.
   * Unset or 0: no linger (test and benchmark servers); `longcall serve` defaults to LINGER_MS_DEFAULT.
   */
  lingerMs?: number;
}

/** Why a server stops serving. */
type StopReason = "wire_closed" | "hangup" | "interrupt" | "worker_failed";

/**
 * Drops every permission the serving thread no longer needs once the database is open,
 * the HTTP listener (if any) is bound and the network worker runs: from here on a tool
 * call, a corpus read or a tasks/get cannot reach the network, read or write a file,
 * read the environment, start a process or import remote code. The open SQLite connection
 * keeps working. `import` matters although no flag grants it: Deno lets any thread import
 * from its default hosts (deno.land, jsr.io, esm.sh and others) unless told otherwise, a
 * download whose URL could carry what the thread knows, and `Deno.permissions.query` does not
 * show that grant.
 */
export async function narrowServingThread(): Promise<void> {
  for (const name of ["net", "read", "write", "env", "run", "ffi", "sys", "import"] as const) {
    await Deno.permissions.revoke({ name });
  }
}

/**
 * Where a server's start-up went, in whole milliseconds of its process's clock (`performance.now()`, from
 * the time origin): `serving_at_ms` when it began serving, and its phases in order: `entry` (the runtime
 * itself, the CLI and its modules, until runServer opens the runtime), `runtime` (the store opened, the
 * network worker created), `mcp` (the MCP layer loaded, its factory built), `narrow` (the HTTP listener
 * bound if any, waiting for the worker's entry, revoking this thread's permissions, starting the transport).
 */
export function startUp(
  at: { runtimeAt: number; mcpAt: number; narrowAt: number; servingAt: number },
): {
  serving_at_ms: number;
  start_ms: { entry: number; runtime: number; mcp: number; narrow: number };
} {
  const ms = (n: number) => Math.round(n);
  return {
    serving_at_ms: ms(at.servingAt),
    start_ms: {
      entry: ms(at.runtimeAt),
      runtime: ms(at.mcpAt - at.runtimeAt),
      mcp: ms(at.narrowAt - at.mcpAt),
      narrow: ms(at.servingAt - at.narrowAt),
    },
  };
}

/** The endpoint a client connects to on `hostname` (as {@linkcode parseListen} gives it) and the port the server got. */
export function mcpUrl(hostname: string, port: number): string {
  return `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}/mcp`;
}

/** Parses `host:port` (IPv6 in brackets). */
export function parseListen(value: string): { hostname: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || port > 65535) {
    throw new UsageError(`Cannot use --listen: expected HOST:PORT such as 127.0.0.1:8765, current value is ${value}`);
  }
  const named = m[1] ?? m[2] ?? "127.0.0.1";
  // `localhost` may resolve to either loopback address; longcall's flags grant binding the IPv4 one by number.
  const hostname = named.toLowerCase() === "localhost" ? "127.0.0.1" : named;
  // Binding an address the flags do not grant would fail later as an internal NotCapable error. Loopback is also
  // the code's own rule, so a process run with wider grants (`deno run -A`) still serves this machine only.
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  if (
    !isLoopbackHost(hostname) ||
    Deno.permissions.querySync({ name: "net", host: `${host}:${port}` }).state !== "granted"
  ) {
    throw new UsageError(
      `Cannot use --listen: this process may bind loopback only (${HTTP_BIND_HOSTS.join(" or ")}, what ` +
        `longcall's permission flags grant), not ${host}:${port}; current value is ${value}`,
    );
  }
  return { hostname, port };
}

/**
 * The bearer token HTTP requires: LONGCALL_HTTP_TOKEN, or the generated one in the 0600 file next
 * to the database (its path, never the token, is printed on stderr); none with `--http-no-auth`,
 * which is refused off loopback and warned about on every start.
 */
async function httpToken(flags: ServeFlags): Promise<string | undefined> {
  const fromEnv = envGet("LONGCALL_HTTP_TOKEN");
  if (flags.httpNoAuth === true) {
    if (fromEnv !== undefined) {
      throw new UsageError("Cannot use --http-no-auth: LONGCALL_HTTP_TOKEN is set; unset one of them");
    }
    const { hostname } = parseListen(flags.listen);
    if (!isLoopbackHost(hostname)) {
      throw new UsageError(`Cannot use --http-no-auth: it serves loopback only, current --listen is ${flags.listen}`);
    }
    console.error(
      "longcall: WARNING: --http-no-auth: HTTP requests are NOT authenticated; any local user can call this " +
        "server. Its requests see only jobs created under --http-no-auth (shared by every such client, also " +
        "across restarts), never those of a token or of the local authority. Use it for local conformance runs only.",
    );
    return undefined;
  }
  if (fromEnv !== undefined) return fromEnv;
  const file = await ensureHttpToken(flags.db);
  console.error(
    `longcall: HTTP bearer token ${file.created ? "written to" : "read from"} ${file.path} ` +
      "(clients send Authorization: Bearer <its contents>)",
  );
  return file.token;
}

/** Runs a server until its transport closes or a signal arrives; returns the exit code. */
export async function runServer(flags: ServeFlags, parts: ServerParts): Promise<number> {
  // Once the host is gone its stderr may be a closed pipe or a vanished terminal: a lingering server logs nothing.
  let muted = false;
  const log = createLogger(logLevel(), {
    scope: "longcall",
    write: (line) => {
      if (!muted) console.error(line);
    },
  });
  const lingerMs = flags.lingerMs ?? 0;
  if (!Number.isInteger(lingerMs) || lingerMs < 0 || lingerMs > LINGER_MS_MAX) {
    throw new RangeError(
      `Cannot serve: lingerMs must be an integer from 0 to ${LINGER_MS_MAX}, current value is ${lingerMs}`,
    );
  }
  if (flags.timeRate !== undefined) {
    log.warn("simulated time: job handlers run faster than real time", { rate: flags.timeRate });
  }
  // Where start-up went, logged with "serving" (for a host that times a server out at start-up).
  const runtimeAt = performance.now();
  const runtime = openRuntime({
    db: flags.db,
    ...(flags.synchronous === undefined ? {} : { synchronous: flags.synchronous }),
    kinds: parts.kinds,
    log,
    ...(flags.timeRate === undefined ? {} : { timeRate: flags.timeRate }),
    execution: parts.networkWorker === undefined
      ? "in_process"
      : { networkWorker: { moduleUrl: parts.networkWorker.moduleUrl, logLevel: logLevel() } },
    ...(parts.executor === undefined ? {} : { executor: parts.executor }),
    ...(flags.admittedMax === undefined ? {} : { admittedMax: flags.admittedMax }),
    ...(flags.retentionMs === undefined ? {} : { retentionMs: flags.retentionMs }),
  });
  const { store, control, waits, execution } = runtime;
  const sqliteWarning = sqliteVersionWarning(store.sqliteVersion);
  if (sqliteWarning !== undefined) log.warn(sqliteWarning);
  const worker = execution.worker;
  if (worker !== undefined) {
    log.debug("network worker created", { ...worker.permissions, from_memory: worker.script.fromMemory });
  }
  // The network worker starts (loads its code from source, opens its store, starts its executor) once
  // this thread serves: NETWORK_WORKER_START_DELAY_MS later, or at the first submission if sooner. Its
  // permissions were fixed when it was created; narrowing waits only for its entry to run. Jobs
  // admitted meanwhile stay queued until it claims them. If it cannot start, the server stops.
  if (worker === undefined) await execution.start();
  const mcpAt = performance.now();
  // The MCP layer loads only now, after the network worker was created (see ServerParts.mcp).
  let mcp: McpServing;
  let factory: ReturnType<McpServing["createServerFactory"]>;
  let token: string | undefined;
  try {
    mcp = typeof parts.mcp === "function" ? await parts.mcp() : parts.mcp;
    factory = mcp.createServerFactory({
      control,
      tools: parts.tools({ control, store, log, mcp }),
      log,
      readOnly: flags.readOnly,
      toolSchemas: mcp.toolSchemas,
      tasks: parts.tasks,
      ...(parts.taskInputs === undefined ? {} : { taskInputs: parts.taskInputs }),
    });
    if (flags.http) token = await httpToken(flags);
  } catch (err) {
    await runtime.close();
    throw err;
  }
  const narrowAt = performance.now();
  // Once serving and quiet, this thread gives back the memory a burst of requests grew (the worker does the same).
  let idle: IdleCollection | null = null;
  // No request is handled before this thread has narrowed its permissions: HTTP binds first
  // (binding needs net) but holds every request at a gate; stdio starts reading afterwards.
  const narrowed = Promise.withResolvers<void>();
  let httpServing: ReturnType<McpServing["serveOnHttp"]> | undefined;
  let listeningUrl: string | undefined;
  if (flags.http) {
    const { hostname, port } = parseListen(flags.listen);
    httpServing = mcp.serveOnHttp(factory, {
      hostname,
      port,
      token,
      noAuth: flags.httpNoAuth === true,
      log,
      gate: narrowed.promise,
      onListen: (p) => console.error(`LISTENING ${p}`),
      onActivity: () => idle?.touch(),
    });
    listeningUrl = mcpUrl(hostname, await httpServing.port);
  }
  if (worker !== undefined) {
    if (worker.script.fromMemory) {
      // From memory (the bundle) the worker reads no file to load: nothing to wait for. An entry that
      // fails still stops the server (below: its start is tried at once and rejects).
      void worker.executor.entered().then(() => worker.script.release(), () => worker.script.release());
    } else {
      // The worker's permissions were fixed when it was created, but Deno checks its static imports
      // against this thread's: narrow only once its entry runs. Its other code it imports dynamically,
      // checked against its own grants (the source directory), when it is started.
      try {
        await worker.executor.entered();
      } catch (err) {
        log.error("the network worker could not load; stopping", { error: String(err) });
        await httpServing?.close().catch(() => {});
        await runtime.close();
        return EXIT_ERROR;
      }
    }
    await narrowServingThread();
  }
  idle = idleCollection(log);
  narrowed.resolve();
  const serving = httpServing ??
    mcp.serveOnStdio(factory, { log, onActivity: idle === null ? undefined : () => idle?.touch() });
  const servingAt = performance.now();
  log.info("serving", {
    transport: flags.http ? "http" : "stdio",
    // Where clients connect (the port chosen when --listen gave 0).
    ...(listeningUrl === undefined ? {} : { url: listeningUrl }),
    db: flags.db,
    read_only: flags.readOnly,
    ...startUp({ runtimeAt, mcpAt, narrowAt, servingAt }),
  });

  let exitCode = EXIT_OK;
  const stopRequested = Promise.withResolvers<StopReason>();
  // SIGINT / SIGTERM: today's graceful interrupt, also during a linger (it ends the linger).
  const interrupted = Promise.withResolvers<void>();
  let workerStart: ReturnType<typeof setTimeout> | undefined;
  let stopping = false;
  if (worker !== undefined) {
    // Whoever starts it (the timer below or a submission), a start that fails stops the server.
    execution.firstStart?.catch((err) => {
      log.error("the network worker could not start; stopping", { error: String(err) });
      exitCode = EXIT_ERROR;
      stopRequested.resolve("worker_failed");
    });
    // A worker that fails after its start (a crash, a broken invariant) runs nothing more: stop, so the host
    // sees the server end (and may start another, which reconciles the lost jobs) instead of one that admits
    // work nothing runs.
    let started = false;
    execution.firstStart?.then(() => started = true, () => {});
    void worker.executor.failed.then((reason) => {
      // A failure before or during its start is reported (and stops the server) by the start's own handlers.
      if (!started || stopping) return;
      log.error("the network worker stopped running jobs; stopping", { error: reason });
      exitCode = EXIT_ERROR;
      stopRequested.resolve("worker_failed");
    });
    workerStart = setTimeout(() => void execution.start(), NETWORK_WORKER_START_DELAY_MS);
    // An entry that crashed (from memory nothing waited for it): the start is tried now, fails at once, and stops.
    worker.executor.entered().catch(() => {
      // A stop fails whatever still waits on the worker, its entry too: nothing to start then.
      if (stopping) return;
      clearTimeout(workerStart);
      log.debug("the network worker's entry failed: starting it now, to stop on its failure");
      void execution.start();
    });
  }
  // On stdio, SIGINT is also the host's "stop tasks" (Claude Code's "Exit and stop tasks" sends only SIGINT):
  // the jobs this server admitted for its one host are cancelled before it shuts down. SIGTERM, and SIGINT to
  // an HTTP server (shared by its clients: its operator stops the server, not their work), leave them to the
  // shutdown.
  let stopTasks = false;
  const onSignal = (code: number, cancelJobs: boolean) => () => {
    // A failure already recorded (the worker could not start) keeps its exit code.
    if (exitCode === EXIT_OK) exitCode = code;
    if (cancelJobs) stopTasks = true;
    stopRequested.resolve("interrupt");
    interrupted.resolve();
  };
  const onInt = onSignal(130, !flags.http), onTerm = onSignal(EXIT_OK, false);
  // SIGHUP (the host's terminal closed): the host is gone, as at end of stdin. Listening also
  // replaces the default action (exit at once, which would leave the jobs to process_lost).
  const onHup = () => stopRequested.resolve("hangup");
  Deno.addSignalListener("SIGINT", onInt);
  Deno.addSignalListener("SIGTERM", onTerm);
  Deno.addSignalListener("SIGHUP", onHup);
  const reason = await Promise.race([serving.closed.then((): StopReason => "wire_closed"), stopRequested.promise]);
  log.info("shutting down", { reason });
  stopping = true;
  clearTimeout(workerStart);
  await stopServing(serving, { waits, log });
  idle?.stop();
  if ((reason === "wire_closed" || reason === "hangup") && lingerMs > 0) {
    await linger(execution, { lingerMs, interrupted: interrupted.promise, log, mute: () => muted = true });
  }
  if (stopTasks) {
    // Queued ones end cancelled now; running ones are recorded cancelled by the shutdown below.
    const cancelled = await control.cancelAdmittedHere().catch((err) => {
      log.error("SIGINT: could not cancel the jobs this server admitted", { error: String(err) });
      return 0;
    });
    log.info("SIGINT: cancelled the jobs this server admitted", { cancelled });
  }
  await runtime.close();
  // A start that fails while the server shuts down (the host left right after a submission) sets the exit
  // code in the handler above; the stop settled it, and this waits for that handler.
  await execution.firstStart?.catch(() => {});
  Deno.removeSignalListener("SIGINT", onInt);
  Deno.removeSignalListener("SIGTERM", onTerm);
  Deno.removeSignalListener("SIGHUP", onHup);
  return exitCode;
}

/**
 * Stops serving: no request is read or answered after this (the stdio transport writes nothing
 * once closed). Anything that holds a request open until the server stops serving ends here
 * (`options.waits`, the waiting reads).
 */
async function stopServing(
  serving: { close(): Promise<void> },
  options: { waits: JobWaits; log: Logger },
): Promise<void> {
  const { waits, log } = options;
  // Waiting jobs.get calls answer now with the current view, before the transport closes.
  waits.close();
  await new Promise((resolve) => setTimeout(resolve, 0));
  await serving.close().catch((err) => log.warn("close failed", { error: String(err) }));
}

/** How {@link linger} lingers: for how long at most, until which interrupt, and how it stops logging. */
interface LingerOptions {
  lingerMs: number;
  /** Resolves on SIGINT / SIGTERM. */
  interrupted: Promise<void>;
  log: Logger;
  /** Stops all logging. */
  mute: () => void;
}

/**
 * The host went away: keeps running the jobs this process owns (no claiming, no serving) until
 * none is left, `options.lingerMs` passes or SIGINT / SIGTERM arrives (`options.interrupted`).
 * Logging stops first (`options.mute`): the host's end of stderr may be closed, and nothing should
 * reach a parent after the host is gone. Returns at once when no job is running.
 *
 * Deno keeps file descriptors 1 and 2 open for the life of the process (ext/io holds them in
 * statics; `Deno.stdout.close()` closes only a duplicate's resource), so without FFI a process
 * cannot hand its parent end-of-file on them: a parent that waits for EOF on the server's
 * stdout or stderr (rather than for its own child) waits for the linger.
 */
async function linger(execution: Execution, options: LingerOptions): Promise<void> {
  const { lingerMs, interrupted, log, mute } = options;
  const { running, idle } = await execution.linger();
  if (running === 0) return;
  log.info("the host went away: running jobs continue, this process exits when they end", {
    running,
    linger_ms: lingerMs,
  });
  mute();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([idle, interrupted, new Promise((resolve) => timer = setTimeout(resolve, lingerMs))]);
  clearTimeout(timer);
}

const LINGER_MIN = LINGER_MS_MAX / 60_000;

/** The `serve` command for the given parts. */
export function serveCommand(parts: () => ServerParts): Command {
  return {
    name: "serve",
    acceptsArguments: false,
    summary: "Serve MCP over stdio (default) or streamable HTTP.",
    usage: "longcall serve [--http [--http-no-auth]] [--listen HOST:PORT] [--read-only] [--db PATH]",
    description: [
      "Both protocol generations are served: 2026-07-28 clients (server/discover) get the",
      "io.modelcontextprotocol/tasks extension; legacy clients (initialize) get JobReferences and jobs.get,",
      `whose wait_ms (up to ${JOB_WAIT_MS_MAX}) waits in the call until a job changes or ends (for hosts that cannot sleep).`,
      "Logs go to stderr (LONGCALL_LOG=debug|info|warn|error); the `serving` line says where start-up went",
      `(start_ms). Jobs run in a network worker, started ${NETWORK_WORKER_START_DELAY_MS} ms after serving begins or at the first submission.`,
      "With --http every request needs Authorization: Bearer <token>: LONGCALL_HTTP_TOKEN, or else a token",
      "generated into <db>.http-token (mode 0600; its path is printed on stderr, the token never). Only",
      "--http-no-auth (loopback only, warned on every start; for local conformance runs) serves without a",
      "token, and its requests see only jobs created under --http-no-auth (shared by every such client).",
      `Slow clients are bounded: a body must arrive within ${HTTP_BODY_TIMEOUT_MS} ms, and the oldest of too many`,
      `pending bodies (${HTTP_PENDING_BODIES_PER_CLIENT_MAX} per client, ${HTTP_PENDING_BODIES_MAX} in all) is ` +
      "answered 408.",
      "",
      "Jobs outlive the session: when the host goes away (end of stdin, or SIGHUP when its terminal closes)",
      "a server with running jobs stops serving and claiming, stops writing to stdout and stderr, and keeps",
      "running the jobs it owns until each ends (a watch ends at its own timeout) or --linger-ms passes",
      `(default and at most ${LINGER_MIN} min; or $LONGCALL_LINGER_MS); what is left is then recorded as interrupted`,
      "and the process exits. A later server on the same database follows them and can cancel them; queued",
      "jobs stay queued for it. With no running job the server exits at once. SIGTERM (also during a",
      "linger) stops at once and records running jobs as interrupted; --linger-ms 0 does the same at end of",
      'stdin. SIGINT to a stdio server (Ctrl-C; Claude Code\'s "Exit and stop tasks") first cancels every job',
      "it admitted, queued or running, then stops; over --http it stops as SIGTERM does (the server is shared).",
      "Deno cannot close a process's stdout/stderr descriptors, so a parent that waits for their end-of-file",
      "(a CI step) waits for the linger: set LONGCALL_LINGER_MS=0 there.",
      "",
      "Environment (a flag, where there is one, wins; a bad value stops the start, exit 2, naming it):",
      "  GITHUB_TOKEN, GH_TOKEN         a GitHub token (never logged or stored); without one, anonymous (60/h)",
      "  LONGCALL_GITHUB_TOKEN_FILE     a file holding the token, read when neither variable is set",
      "  LONGCALL_GITHUB_API_URL        the API root (default https://api.github.com; GHES: https://HOST/api/v3)",
      "  LONGCALL_DB                    --db",
      "  LONGCALL_HTTP_TOKEN            the bearer token --http requires",
      "  LONGCALL_RETENTION_MS          --retention-ms;  LONGCALL_LINGER_MS  --linger-ms;  LONGCALL_SYNCHRONOUS  --synchronous",
      "  LONGCALL_LOG                   silent, error, warn, info (default) or debug",
    ].join("\n"),
    options: {
      http: { type: "boolean", help: "Serve streamable HTTP at /mcp instead of stdio" },
      "http-no-auth": {
        type: "boolean",
        help: "INSECURE, loopback only: serve --http without a bearer token (local conformance runs)",
      },
      listen: {
        type: "string",
        help: "Address for --http: 127.0.0.1, [::1] or localhost (= 127.0.0.1); default 127.0.0.1:8765; port 0 = any",
        value: "HOST:PORT",
      },
      "read-only": {
        type: "boolean",
        help: "List only read-only tools; no job submission, no cancel (tasks/cancel refused too)",
      },
      db: { type: "string", help: "Database path (default $LONGCALL_DB or the user data dir)", value: "PATH" },
      "admitted-max": {
        type: "string",
        help:
          `Queued + running jobs admitted at once (default ${JOB_ADMITTED_MAX_DEFAULT}, 1..${JOB_ADMITTED_MAX_MAX})`,
        value: "N",
      },
      "retention-ms": {
        type: "string",
        help: `Keep finished jobs this long (default ${
          JOB_RETENTION_MS_DEFAULT / 3_600_000
        } h; ${JOB_RETENTION_MS_MIN}..${JOB_RETENTION_MS_MAX})`,
        value: "MS",
      },
      synchronous: { type: "string", help: "SQLite durability: NORMAL (default) or FULL", value: "MODE" },
      "linger-ms": {
        type: "string",
        help: `Run owned jobs this long after the host goes away (default ${LINGER_MS_DEFAULT / 60_000} min; 0 = off)`,
        value: "MS",
      },
      "simulate-time-rate": rateOption,
    },
    examples: [
      "longcall serve",
      "longcall serve --http --listen 127.0.0.1:8765",
      "LONGCALL_LINGER_MS=0 longcall serve   # CI: exit when the host does",
      "claude mcp add longcall -- longcall serve",
    ],
    run(values) {
      // A setting from the environment is named as such in its error, not as the flag nobody gave.
      const fromEnv = (flag: string, variable: string) => values[flag] === undefined ? { from: variable } : {};
      const sync = (values.synchronous as string | undefined) ?? envGet("LONGCALL_SYNCHRONOUS");
      if (sync !== undefined && sync !== "NORMAL" && sync !== "FULL") {
        const from = values.synchronous === undefined ? "LONGCALL_SYNCHRONOUS" : "--synchronous";
        throw new UsageError(`Cannot use ${from}: expected NORMAL or FULL, current value is ${sync}`);
      }
      if (values["http-no-auth"] === true && values.http !== true) {
        throw new UsageError("Cannot use --http-no-auth: it applies only with --http");
      }
      if (values.listen !== undefined && values.http !== true) {
        throw new UsageError("Cannot use --listen: it applies only with --http");
      }
      const listen = (values.listen as string | undefined) ?? "127.0.0.1:8765";
      // Checked before anything is opened: a bad address must not leave a new database or token file behind.
      if (values.http === true) parseListen(listen);
      const retention = values["retention-ms"] ?? envGet("LONGCALL_RETENTION_MS");
      const linger = values["linger-ms"] ?? envGet("LONGCALL_LINGER_MS");
      const rate = simulateRate(values);
      return runServer({
        db: resolveDbPath(values.db as string | undefined),
        http: values.http === true,
        httpNoAuth: values["http-no-auth"] === true,
        listen,
        readOnly: values["read-only"] === true,
        ...(values["admitted-max"] === undefined ? {} : {
          admittedMax: intOption(values["admitted-max"], {
            name: "admitted-max",
            min: 1,
            max: JOB_ADMITTED_MAX_MAX,
            fallback: JOB_ADMITTED_MAX_DEFAULT,
          }),
        }),
        ...(retention === undefined ? {} : {
          retentionMs: intOption(retention, {
            name: "retention-ms",
            min: JOB_RETENTION_MS_MIN,
            max: JOB_RETENTION_MS_MAX,
            fallback: 0,
            ...fromEnv("retention-ms", "LONGCALL_RETENTION_MS"),
          }),
        }),
        ...(sync === undefined ? {} : { synchronous: sync as Synchronous }),
        lingerMs: intOption(linger, {
          name: "linger-ms",
          min: 0,
          max: LINGER_MS_MAX,
          fallback: LINGER_MS_DEFAULT,
          ...fromEnv("linger-ms", "LONGCALL_LINGER_MS"),
        }),
        ...(rate === undefined ? {} : { timeRate: rate }),
      }, parts());
    },
  };
}
