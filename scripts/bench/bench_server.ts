/**
 * The server behind the latency benchmarks of scripts/bench/mcp.ts: the real `runServer`
 * wiring (store, executor in this thread, dual-era factory over stdio) with `jobs.get` /
 * `jobs.cancel`, test job kinds as tools (`test.echo`, `test.sleep`, `test.hang`), a
 * plain, job-less `bench.echo` tool that returns its arguments (the floor a tool call
 * costs on the same connection) and `bench.replay`, which answers with an answer handed to it
 * earlier (the floor of an answer that size). Never shipped.
 *
 *   deno run --no-prompt --allow-read=DIR --allow-write=DIR --allow-env --deny-net \
 *     scripts/bench/bench_server.ts serve --db DIR/x.db [--running-max N] [--admitted-max N] [--grace-ms N] \
 *     [--line-times DIR/times.json]
 *
 * `--line-times FILE` times every answer line from the server's side ({@linkcode timedStdio}) and writes the
 * times to FILE when the server has shut down (the end of stdin).
 *
 * @module
 */

import { z } from "zod";
import { parseArgs } from "node:util";
import { runServer } from "../../src/cli/serve.ts";
import * as mcp from "../../src/mcp/serving.ts";
import { tasksAdapter } from "../../testing/tasks_adapter.ts";
import { okResult } from "../../src/mcp/tool_kit.ts";
import { jobsTools, LOCAL_READ, type ToolDef } from "../../src/mcp/tools.ts";
import { testJobTools } from "../../testing/test_server.ts";
import { testRegistry } from "../../testing/test_kinds.ts";
import { type LineIo, processStdio } from "../../src/mcp/stdio_framing.ts";

/** One answer line as the server saw it; times are `performance.timeOrigin + performance.now()` (epoch ms). */
export interface LineTime {
  /** The line's bytes, newline included. */
  bytes: number;
  /** When the last chunk read before the line was handed to stdout was read (a client that sends one request
   * at a time: that request's chunk). */
  readAt: number;
  /** When the line was handed to stdout. */
  writeAt: number;
  /** When its write returned: every byte is in the pipe (a line longer than the pipe's capacity waits for the
   * client to read the first fill). */
  writtenAt: number;
}

/** The bench never keeps more lines than this (its rounds make far fewer); later lines are not timed. */
const LINE_TIMES_MAX = 100_000;

/** The process's stdio, timing every line written into `times` ({@linkcode LineTime}). */
export function timedStdio(times: LineTime[]): LineIo {
  const io = processStdio();
  const now = () => performance.timeOrigin + performance.now();
  let readAt = Number.NaN;
  return {
    input: io.input,
    onChunk: () => void (readAt = now()),
    write: async (bytes) => {
      const writeAt = now();
      await io.write(bytes);
      if (times.length < LINE_TIMES_MAX) times.push({ bytes: bytes.length, readAt, writeAt, writtenAt: now() });
    },
  };
}

/** A plain tool: no job, no store; answers with its arguments. */
const benchEcho: ToolDef = {
  name: "bench.echo",
  description: "Return the arguments as the result (a benchmark baseline)",
  inputSchema: z.object({}).passthrough(),
  annotations: { title: "Echo", ...LOCAL_READ },
  call: (args) => Promise.resolve(okResult((args ?? {}) as Record<string, unknown>)),
};

/** The answers {@linkcode benchReplay} gives back, by slot, once a call has handed it one. */
const replayed = new Map<string, Record<string, unknown>>();

/**
 * A plain tool that answers with the last `answer` it was given in `slot`, from memory: the bytes of a 100-id
 * `jobs.get` answer without reading or projecting anything (serialized once, as every tool result is).
 */
const benchReplay: ToolDef = {
  name: "bench.replay",
  description: "Answer with the answer given in an earlier call to the same slot (a benchmark floor)",
  inputSchema: z.object({ slot: z.string(), answer: z.record(z.string(), z.unknown()).optional() }),
  annotations: { title: "Replay", ...LOCAL_READ },
  call: (args) => {
    const { slot, answer } = args as { slot: string; answer?: Record<string, unknown> };
    if (answer !== undefined) replayed.set(slot, answer);
    return Promise.resolve(okResult(replayed.get(slot) ?? {}));
  },
};

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args.slice(1),
    options: {
      db: { type: "string" },
      "admitted-max": { type: "string" },
      "running-max": { type: "string" },
      "grace-ms": { type: "string" },
      "line-times": { type: "string" },
    },
  });
  const lineTimes: LineTime[] = [];
  const timesFile = values["line-times"];
  const served: typeof mcp = timesFile === undefined ? mcp : {
    ...mcp,
    serveOnStdio: (factory, options) => mcp.serveOnStdio(factory, { ...options, io: timedStdio(lineTimes) }),
  };
  const num = (v: string | undefined) => v === undefined ? undefined : Number(v);
  const executor = Object.fromEntries(
    Object.entries({
      runningMax: num(values["running-max"]),
      shutdownGraceMs: num(values["grace-ms"]),
    }).filter(([, v]) => v !== undefined),
  );
  const code = await runServer({
    db: values.db ?? ":memory:",
    http: false,
    listen: "127.0.0.1:0",
    readOnly: false,
    ...(values["admitted-max"] === undefined ? {} : { admittedMax: Number(values["admitted-max"]) }),
  }, {
    kinds: { registry: () => testRegistry() },
    mcp: served,
    tasks: tasksAdapter,
    executor,
    tools: ({ control }) => [...jobsTools(control), benchEcho, benchReplay, ...testJobTools(control)],
  });
  if (timesFile !== undefined) await Deno.writeTextFile(timesFile, JSON.stringify(lineTimes));
  Deno.exit(code);
}
