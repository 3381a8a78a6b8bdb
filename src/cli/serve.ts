/**
 * `longcall serve`: wires the store, the control side, the executor and the MCP server,
 * and owns graceful shutdown (end of stdin, SIGINT, SIGTERM): stop serving, stop
 * claiming, abort running jobs, record them as interrupted after a bounded grace, delete
 * the owner row, close the database. Queued jobs stay queued for the next process.
 *
 * @module
 */

import { type Clock, ScaledClock, systemClock } from "../base/clock.ts";
import { createLogger, type Logger } from "../base/log.ts";
import {
  HTTP_BODY_TIMEOUT_MS,
  HTTP_PENDING_BODIES_MAX,
  HTTP_PENDING_BODIES_PER_CLIENT_MAX,
  JOB_RETENTION_MS_MAX,
  JOB_RETENTION_MS_MIN,
} from "../base/limits.ts";
import { JobControl } from "../jobs/control.ts";
import { Executor, type ExecutorOptions } from "../jobs/executor.ts";
import type { JobKindRegistry } from "../jobs/kinds.ts";
import { createServerFactory } from "../mcp/server.ts";
import type { ToolDef } from "../mcp/tools.ts";
import type { TaskInputs } from "../tasks/adapter.ts";
import { isLoopback, serveOnHttp, serveOnStdio } from "../mcp/transports.ts";
import { ensureHttpToken } from "./http_token.ts";
import type { GitHubConfig } from "./product.ts";
import { netHostOf } from "./permissions.ts";
import { databaseFiles, WorkerExecutor } from "./worker_executor.ts";
import type { Synchronous } from "../store/db.ts";
import { openStore, type Store } from "../store/store.ts";
import { type Command, intOption } from "./command.ts";
import { envGet, logLevel, resolveDbPath } from "./config.ts";
import { EXIT_ERROR, EXIT_OK, UsageError } from "./exit.ts";

/** Everything a server process needs besides its flags. */
export interface ServerParts {
  /** The job kinds this process admits and runs, over its store. */
  registry(ctx: { store: Store; log: Logger; clock: Clock }): JobKindRegistry;
  /** Tools for this process, built once the store and control side exist. */
  tools(ctx: { control: JobControl; store: Store; log: Logger }): ToolDef[];
  /** Executor overrides (tests shorten heartbeats and leases). */
  executor?: Partial<Omit<ExecutorOptions, "clock" | "log">>;
  /**
   * Run the executor in the network worker (the shipped configuration) instead of this
   * thread, then narrow this thread's permissions to nothing. Its kinds must be the
   * product's, because the worker builds its own registry.
   */
  networkWorker?: { moduleUrl: string; github: GitHubConfig };
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
}

/** What runs jobs for a server: an in-process Executor or the network worker. */
type Runner = Executor | WorkerExecutor;

/** The directory of a module (the network worker must be able to load its own code). */
function moduleDir(moduleUrl: string): string {
  const path = moduleUrl.startsWith("file:") ? new URL(moduleUrl).pathname : moduleUrl;
  return path.slice(0, path.lastIndexOf("/") + 1) || ".";
}

/**
 * Drops every permission the serving thread no longer needs once the database is open,
 * the HTTP listener (if any) is bound and the network worker runs: from here on a tool
 * call, a corpus read or a tasks/get cannot reach the network, read or write a file,
 * read the environment or start a process. The open SQLite connection keeps working.
 */
export async function narrowServingThread(): Promise<void> {
  for (const name of ["net", "read", "write", "env", "run", "ffi", "sys"] as const) {
    await Deno.permissions.revoke({ name });
  }
}

/** Parses `host:port` (IPv6 in brackets). */
export function parseListen(value: string): { hostname: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || port > 65535) {
    throw new UsageError(`Cannot use --listen: expected HOST:PORT such as 127.0.0.1:8765, current value is ${value}`);
  }
  return { hostname: m[1] ?? m[2] ?? "127.0.0.1", port };
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
    if (!isLoopback(hostname)) {
      throw new UsageError(`Cannot use --http-no-auth: it serves loopback only, current --listen is ${flags.listen}`);
    }
    console.error(
      "longcall: WARNING: --http-no-auth: HTTP requests are NOT authenticated; any local user can call this " +
        "server. Its requests see only the jobs they created themselves. Use it for local conformance runs only.",
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
  const log = createLogger(logLevel(), "longcall");
  const store = openStore(flags.db, flags.synchronous === undefined ? {} : { synchronous: flags.synchronous });
  const handlerClock = flags.timeRate === undefined ? systemClock : new ScaledClock(flags.timeRate);
  if (flags.timeRate !== undefined) {
    log.warn("simulated time: job handlers run faster than real time", { rate: flags.timeRate });
  }
  const registry = parts.registry({ store, log, clock: handlerClock });
  const executor: Runner = parts.networkWorker === undefined
    ? new Executor(store.rows, registry, {
      clock: systemClock,
      handlerClock,
      log: log.child("executor"),
      ...parts.executor,
    })
    : new WorkerExecutor(parts.networkWorker.moduleUrl, {
      net: [netHostOf(parts.networkWorker.github.baseUrl)],
      read: [...databaseFiles(flags.db), moduleDir(parts.networkWorker.moduleUrl)],
      write: databaseFiles(flags.db),
    }, log);
  const control = new JobControl(store.rows, registry, {
    clock: systemClock,
    ...(flags.admittedMax === undefined ? {} : { admittedMax: flags.admittedMax }),
    ...(flags.retentionMs === undefined ? {} : { retentionMs: flags.retentionMs }),
    onSubmitted: () => executor.wake(),
    onCancelRequested: (ids) => executor.abortLocal(ids),
  });
  // The network worker opens its store and starts its executor in parallel with serving (its
  // permissions were fixed when it was created; narrowing waits only for its code to load).
  // Jobs admitted meanwhile stay queued until it claims them. If it cannot start, the server stops.
  let workerReady: Promise<void> | undefined;
  if (executor instanceof WorkerExecutor) {
    workerReady = executor.start({
      type: "init",
      db: flags.db,
      ...(flags.synchronous === undefined ? {} : { synchronous: flags.synchronous }),
      github: (parts.networkWorker as { github: GitHubConfig }).github,
      logLevel: logLevel(),
      ...(flags.timeRate === undefined ? {} : { timeRate: flags.timeRate }),
      executor: parts.executor ?? {},
    });
  } else {
    await executor.start();
  }
  const factory = createServerFactory({
    control,
    tools: parts.tools({ control, store, log }),
    log,
    readOnly: flags.readOnly,
    ...(parts.taskInputs === undefined ? {} : { taskInputs: parts.taskInputs }),
  });
  // No request is handled before this thread has narrowed its permissions: HTTP binds first
  // (binding needs net) but holds every request at a gate; stdio starts reading afterwards.
  const narrowed = Promise.withResolvers<void>();
  let httpServing: ReturnType<typeof serveOnHttp> | undefined;
  if (flags.http) {
    const { hostname, port } = parseListen(flags.listen);
    let token: string | undefined;
    try {
      token = await httpToken(flags);
    } catch (err) {
      await executor.stop();
      store.close();
      throw err;
    }
    httpServing = serveOnHttp(factory, {
      hostname,
      port,
      token,
      noAuth: flags.httpNoAuth === true,
      log,
      gate: narrowed.promise,
      onListen: (p) => console.error(`LISTENING ${p}`),
    });
    await httpServing.port;
  }
  if (executor instanceof WorkerExecutor) {
    // The worker's permissions were fixed when it was created, but its own module loads can
    // fail once this thread has revoked read: narrow only after it has loaded its code.
    try {
      await executor.loaded();
    } catch (err) {
      log.error("the network worker could not load; stopping", { error: String(err) });
      await httpServing?.close().catch(() => {});
      await executor.stop();
      store.close();
      return EXIT_ERROR;
    }
    await narrowServingThread();
  }
  narrowed.resolve();
  const serving = httpServing ?? serveOnStdio(factory, log);
  log.info("serving", { transport: flags.http ? "http" : "stdio", db: flags.db, read_only: flags.readOnly });

  let exitCode = EXIT_OK;
  const stopRequested = Promise.withResolvers<void>();
  workerReady?.catch((err) => {
    log.error("the network worker could not start; stopping", { error: String(err) });
    exitCode = EXIT_ERROR;
    stopRequested.resolve();
  });
  const onSignal = (code: number) => () => {
    exitCode = code;
    stopRequested.resolve();
  };
  const onInt = onSignal(130), onTerm = onSignal(EXIT_OK);
  Deno.addSignalListener("SIGINT", onInt);
  Deno.addSignalListener("SIGTERM", onTerm);
  await Promise.race([serving.closed, stopRequested.promise]);
  Deno.removeSignalListener("SIGINT", onInt);
  Deno.removeSignalListener("SIGTERM", onTerm);
  log.info("shutting down");
  await serving.close().catch((err) => log.warn("close failed", { error: String(err) }));
  await executor.stop();
  store.close();
  return exitCode;
}

/** The `serve` command for the given parts. */
export function serveCommand(parts: () => ServerParts): Command {
  return {
    name: "serve",
    summary: "Serve MCP over stdio (default) or streamable HTTP.",
    usage: "longcall serve [--http [--http-no-auth]] [--listen HOST:PORT] [--read-only] [--db PATH]",
    description: [
      "Both protocol generations are served: 2026-07-28 clients (server/discover) get the",
      "io.modelcontextprotocol/tasks extension; legacy clients (initialize) get JobReferences and jobs.get.",
      "Logs go to stderr (LONGCALL_LOG=debug|info|warn|error).",
      "With --http every request needs Authorization: Bearer <token>: LONGCALL_HTTP_TOKEN, or else a token",
      "generated into <db>.http-token (mode 0600; its path is printed on stderr, the token never). Only",
      "--http-no-auth (loopback only, warned on every start; for local conformance runs) serves without a",
      "token, and its requests see only the jobs they created. Slow clients are bounded: a body must arrive",
      `within ${HTTP_BODY_TIMEOUT_MS} ms, and the oldest of too many pending bodies (${HTTP_PENDING_BODIES_PER_CLIENT_MAX} ` +
      `per client, ${HTTP_PENDING_BODIES_MAX} in all) is answered 408.`,
    ].join("\n"),
    options: {
      http: { type: "boolean", help: "Serve streamable HTTP at /mcp instead of stdio" },
      "http-no-auth": {
        type: "boolean",
        help: "INSECURE, loopback only: serve --http without a bearer token (local conformance runs)",
      },
      listen: { type: "string", help: "Address for --http (default 127.0.0.1:8765; port 0 = any)", value: "HOST:PORT" },
      "read-only": { type: "boolean", help: "List only read-only tools (no job submission, no cancel)" },
      db: { type: "string", help: "Database path (default $LONGCALL_DB or the XDG data dir)", value: "PATH" },
      "admitted-max": { type: "string", help: "Queued + running jobs admitted at once (default 256)", value: "N" },
      "retention-ms": { type: "string", help: "Keep finished jobs this long (default 24 h)", value: "MS" },
      synchronous: { type: "string", help: "SQLite durability: NORMAL (default) or FULL", value: "MODE" },
      "simulate-time-rate": {
        type: "string",
        help: "Simulations against a fake GitHub only: run job time N x faster (1..1000)",
        value: "N",
      },
    },
    examples: [
      "longcall serve",
      "longcall serve --http --listen 127.0.0.1:8765",
      "claude mcp add longcall -- longcall serve",
    ],
    run(values) {
      const sync = (values.synchronous as string | undefined) ?? envGet("LONGCALL_SYNCHRONOUS");
      if (sync !== undefined && sync !== "NORMAL" && sync !== "FULL") {
        throw new UsageError(`Cannot use --synchronous: expected NORMAL or FULL, current value is ${sync}`);
      }
      if (values["http-no-auth"] === true && values.http !== true) {
        throw new UsageError("Cannot use --http-no-auth: it applies only with --http");
      }
      const retention = values["retention-ms"] ?? envGet("LONGCALL_RETENTION_MS");
      return runServer({
        db: resolveDbPath(values.db as string | undefined),
        http: values.http === true,
        httpNoAuth: values["http-no-auth"] === true,
        listen: (values.listen as string | undefined) ?? "127.0.0.1:8765",
        readOnly: values["read-only"] === true,
        ...(values["admitted-max"] === undefined
          ? {}
          : { admittedMax: intOption(values["admitted-max"], "admitted-max", 1, 100_000, 256) }),
        ...(retention === undefined ? {} : {
          retentionMs: intOption(retention, "retention-ms", JOB_RETENTION_MS_MIN, JOB_RETENTION_MS_MAX, 0),
        }),
        ...(sync === undefined ? {} : { synchronous: sync as Synchronous }),
        ...(values["simulate-time-rate"] === undefined
          ? {}
          : { timeRate: intOption(values["simulate-time-rate"], "simulate-time-rate", 1, 1000, 1) }),
      }, parts());
    },
  };
}
