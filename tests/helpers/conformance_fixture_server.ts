/**
 * The conformance fixture server (never shipped): the real `runServer` (one store, an in-process
 * executor, the real Tasks adapter) with the tools the `tasks-*` scenarios of
 * `@modelcontextprotocol/conformance@0.2.0-alpha.12` call, each backed by a job kind on the store.
 * See docs/notes/conformance.md for what each scenario asserts.
 *
 *   deno run --no-prompt --allow-net=127.0.0.1 --allow-read --allow-write --allow-env \
 *     tests/helpers/conformance_fixture_server.ts --http --http-no-auth --listen 127.0.0.1:0 --db DIR/x.db
 *
 * | tool | job kind | declaring request | other requests |
 * |---|---|---|---|
 * | `greet {name}` | `greet` | waits (bounded) for its job, answers `Hello, <name>!` synchronously | same |
 * | `slow_compute {seconds, label}` | `slow_compute` | task; cancellable sleep, then `done <label>` | JobReference |
 * | `failing_job` | `failing_job` | task; after 1 s an operation error → `completed`, `isError` | JobReference |
 * | `protocol_error_job` | `protocol_error_job` | task; an internal error → `failed`, `-32603` | JobReference |
 * | `confirm_delete {filename}` | `confirm_delete` | task that asks for one confirmation | JobReference |
 * | `multi_input` | `multi_input` | task that asks for two answers at once | JobReference |
 * | `test_tool_with_task` | `greet_later` | MRTR round (input_required, no task), then a task | same round 1 |
 *
 * Input mid-flight: a kind that needs answers registers them with the {@linkcode InputDesk} and
 * reports the phase `awaiting_input`; the desk is this process's implementation of the adapter's
 * `TaskInputs` seam (`tasks/get` shows `input_required` + `inputRequests`, `tasks/update` routes
 * `inputResponses` here). Outstanding questions and received answers live in memory, in the desk,
 * because the handler that waits for them runs in this process (in-process executor) and a fixture
 * needs no restart story; the store holds only what any job has (request, phase, result).
 *
 * `failing_job` from a request that does not declare the extension should be `-32021`; an SDK
 * `registerTool` callback cannot emit a JSON-RPC error (see docs/notes/sdk.md), so it gets the
 * JobReference, and the runner lists `tasks-required-task-error` as a known SDK limitation.
 *
 * @module
 */

import {
  type InputRequestsV2,
  type InputRequestV2,
  InputRequestV2Schema,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import { acceptedContent, inputRequired } from "@modelcontextprotocol/server";
import { parseArgs } from "node:util";
import { z } from "zod";
import { AppError } from "../../src/base/errors.ts";
import { runServer } from "../../src/cli/serve.ts";
import * as mcp from "../../src/mcp/serving.ts";
import { tasksAdapter } from "../../testing/tasks_adapter.ts";
import { type AnyJobKind, defineJobKind, type JobContext, JobKindRegistry } from "../../src/jobs/kinds.ts";
import type { JobControl } from "../../src/jobs/control.ts";
import { errorResult, type ToolResult } from "../../src/mcp/tool_kit.ts";
import { jobTool, type ToolDef } from "../../src/mcp/tools.ts";
import type { JobRow } from "../../src/store/job_rows.ts";
import type { TaskInputs } from "../../src/tasks/adapter.ts";

/** The phase a fixture job reports while it waits for answers. */
export const AWAITING_INPUT = "awaiting_input";
/** How long `greet` waits for its job before answering with an error. */
const GREET_WAIT_MS = 5_000;
/** Steps of `slow_compute`'s sleep (progress and prompt cancellation). */
const SLOW_STEP_MS = 250;

const FIXTURE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

interface Waiting {
  outstanding: InputRequestsV2;
  answers: Record<string, unknown>;
  done: () => void;
}

/** Questions running fixture jobs wait on, and the answers `tasks/update` brings (in memory). */
export class InputDesk implements TaskInputs {
  readonly #waiting = new Map<string, Waiting>();

  /**
   * Asks `requests` for the job of `ctx` and resolves with every answer once each key has one.
   * Rejects with the signal's reason when the job is cancelled or stopped meanwhile.
   */
  ask(ctx: JobContext<unknown>, requests: InputRequestsV2): Promise<Record<string, unknown>> {
    const { promise, resolve, reject } = Promise.withResolvers<Record<string, unknown>>();
    if (ctx.signal.aborted) return Promise.reject(ctx.signal.reason);
    const waiting: Waiting = { outstanding: { ...requests }, answers: {}, done: () => {} };
    const onAbort = () => {
      this.#waiting.delete(ctx.id);
      reject(ctx.signal.reason);
    };
    waiting.done = () => {
      ctx.signal.removeEventListener("abort", onAbort);
      this.#waiting.delete(ctx.id);
      resolve(waiting.answers);
    };
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    this.#waiting.set(ctx.id, waiting);
    ctx.report({ phase: AWAITING_INPUT, message: `waiting for ${Object.keys(requests).join(", ")}` });
    return promise;
  }

  requests(row: JobRow): InputRequestsV2 | undefined {
    if (row.phase !== AWAITING_INPUT) return undefined;
    return this.#waiting.get(row.id)?.outstanding;
  }

  respond(row: JobRow, responses: Record<string, unknown>): Promise<void> {
    const waiting = this.#waiting.get(row.id);
    if (waiting === undefined) return Promise.resolve();
    // Applied before the acknowledgement: a tasks/get right after it sees the answered keys gone.
    for (const [key, value] of Object.entries(responses)) {
      if (!(key in waiting.outstanding)) continue;
      waiting.answers[key] = value;
      delete waiting.outstanding[key];
    }
    if (Object.keys(waiting.outstanding).length === 0) waiting.done();
    return Promise.resolve();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Job kinds

function object(input: unknown, kind: string): Record<string, unknown> {
  if (input === undefined || input === null) return {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new AppError("invalid_argument", `Cannot submit ${kind}: the input must be an object`);
  }
  return input as Record<string, unknown>;
}

/** A form elicitation asking `message` for the object `schema` describes, checked against the official wire schema. */
function elicit(message: string, schema: { properties: Record<string, unknown>; required: string[] }): InputRequestV2 {
  const { properties, required } = schema;
  return InputRequestV2Schema.parse({
    method: "elicitation/create",
    params: { message, requestedSchema: { type: "object", properties, required } },
  });
}

function accepted(answer: unknown): Record<string, unknown> | undefined {
  return acceptedContent(answer === undefined ? undefined : { answer }, "answer");
}

/** The fixture's job kinds; `desk` is where the input-asking kinds wait. */
export function fixtureKinds(desk: InputDesk): AnyJobKind[] {
  return [
    // No kind parses: the tools' schemas validated the arguments; each run fills its defaults.
    defineJobKind<unknown, { text: string }>({
      kind: "greet",
      run: (ctx) => Promise.resolve({ text: `Hello, ${String(object(ctx.request, "greet").name ?? "World")}!` }),
    }),
    defineJobKind<unknown, { text: string; seconds: number }>({
      kind: "slow_compute",
      async run(ctx) {
        const r = object(ctx.request, "slow_compute");
        const seconds = r.seconds ?? 1;
        if (typeof seconds !== "number" || !(seconds >= 0) || seconds > 3600) {
          throw new AppError("invalid_argument", "Cannot run slow_compute: seconds must be a number in 0..3600");
        }
        const request = { seconds, label: String(r.label ?? "") };
        const total = Math.round(request.seconds * 1000);
        const steps = Math.max(1, Math.ceil(total / SLOW_STEP_MS));
        for (let i = 0; i < steps && total > 0; i++) {
          await ctx.clock.sleep(total / steps, ctx.signal);
          ctx.report({ phase: "computing", completedItems: i + 1, totalItems: steps });
        }
        return { text: `done ${request.label}`, seconds: request.seconds };
      },
    }),
    defineJobKind<null, never>({
      kind: "failing_job",
      async run(ctx) {
        await ctx.clock.sleep(1_000, ctx.signal);
        // An operation error: the task completes with isError (the spec keeps `failed` for JSON-RPC errors).
        throw new AppError("request_failed", "failing_job failed, as it always does");
      },
    }),
    defineJobKind<null, never>({
      kind: "protocol_error_job",
      async run(ctx) {
        await ctx.clock.sleep(200, ctx.signal);
        // Not an AppError: the executor records `internal`, which the adapter reports as a failed task.
        throw new Error("protocol_error_job broke, as it always does");
      },
    }),
    defineJobKind<{ filename?: unknown }, { filename: string; deleted: boolean }>({
      kind: "confirm_delete",
      async run(ctx) {
        const filename = String(object(ctx.request, "confirm_delete").filename ?? "file.txt");
        const answers = await desk.ask(ctx as JobContext<unknown>, {
          confirm: elicit(`Delete ${filename}?`, {
            properties: { confirm: { type: "boolean", title: "Confirm", description: `Delete ${filename}` } },
            required: ["confirm"],
          }),
        });
        ctx.report({ phase: "deleting" });
        return { filename, deleted: accepted(answers.confirm)?.confirm === true };
      },
    }),
    defineJobKind<null, { name: unknown; confirmed: boolean }>({
      kind: "multi_input",
      async run(ctx) {
        const answers = await desk.ask(ctx as JobContext<unknown>, {
          name: elicit("What name should be used?", {
            properties: { name: { type: "string", title: "Name" } },
            required: ["name"],
          }),
          confirm: elicit("Proceed?", {
            properties: { confirm: { type: "boolean", title: "Confirm" } },
            required: ["confirm"],
          }),
        });
        ctx.report({ phase: "finishing" });
        return { name: accepted(answers.name)?.name ?? null, confirmed: accepted(answers.confirm)?.confirm === true };
      },
    }),
    defineJobKind<unknown, { text: string }>({
      kind: "greet_later",
      async run(ctx) {
        await ctx.clock.sleep(100, ctx.signal);
        return { text: `Hello, ${String(object(ctx.request, "greet_later").name ?? "")}!` };
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Tools

/** Resolves a job's terminal row; `onTerminal` is fed by the executor's terminal hook. */
export class TerminalWatch {
  readonly #waiters = new Map<string, () => void>();

  onTerminal = (id: string): void => this.#waiters.get(id)?.();

  /** The row of job `id` once it is terminal, or as it is after `options.timeoutMs`. */
  async wait(control: JobControl, id: string, options: { timeoutMs: number }): Promise<JobRow | undefined> {
    const { timeoutMs } = options;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiters.set(id, resolve);
    const timer = setTimeout(resolve, timeoutMs);
    try {
      const now = control.get(id);
      if (now === undefined || isTerminal(now)) return now;
      await promise;
      return control.get(id);
    } finally {
      clearTimeout(timer);
      this.#waiters.delete(id);
    }
  }
}

function isTerminal(row: JobRow): boolean {
  return row.status === "succeeded" || row.status === "failed" || row.status === "cancelled";
}

const Loose = z.object({}).loose();

/** The seven fixture tools. */
export function fixtureTools(control: JobControl, watch: TerminalWatch): ToolDef[] {
  const job = (name: string, description: string, options: { inputSchema?: z.ZodType } = {}) =>
    jobTool(control, {
      name,
      kind: name,
      description,
      inputSchema: options.inputSchema ?? Loose,
      annotations: { title: name, ...FIXTURE },
    });

  const greet: ToolDef = {
    name: "greet",
    description: "Greets name synchronously (a job the tool waits for; never a task)",
    inputSchema: z.object({ name: z.string().max(200) }).loose(),
    annotations: { title: "greet", ...FIXTURE },
    async call(args, ctx): Promise<ToolResult> {
      try {
        const submitted = await control.submit("greet", args ?? {}, { authority: ctx.authority });
        const row = await watch.wait(control, submitted.id, { timeoutMs: GREET_WAIT_MS });
        if (row?.status !== "succeeded") {
          throw new AppError("internal", `Cannot greet: the job ended ${row?.status ?? "unknown"}`);
        }
        return { content: [{ type: "text", text: (row.result as { text: string }).text }] };
      } catch (err) {
        return errorResult(err);
      }
    },
  };

  // The MRTR round happens on the tools/call itself, before any job exists; the retried call carrying
  // the answer submits the job (a task for a declaring request).
  const later = jobTool(control, {
    name: "test_tool_with_task",
    kind: "greet_later",
    description: "Asks for user_name (input_required, no task), then greets it from a task",
    inputSchema: z.object({ name: z.string() }),
    annotations: { title: "test_tool_with_task", ...FIXTURE },
  });
  const withTask: ToolDef = {
    ...later,
    inputSchema: Loose,
    call(_args, ctx) {
      const answer = acceptedContent(ctx.inputResponses, "user_name");
      const name = answer?.name ?? answer?.user_name;
      if (typeof name === "string" && name !== "") return later.call({ name }, ctx);
      return Promise.resolve(inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({
            message: "What is your name?",
            requestedSchema: {
              type: "object",
              properties: { name: { type: "string", title: "user_name", description: "Your name" } },
              required: ["name"],
            },
          }),
        },
      }) as unknown as Record<string, unknown>);
    },
  };

  return [
    greet,
    job("slow_compute", "Computes for `seconds`, then returns `done <label>`", {
      inputSchema: z.object({ seconds: z.number().min(0).max(3600), label: z.string().max(200).optional() }).loose(),
    }),
    job("failing_job", "Ends after about 1 s with an operation error (a completed task with isError)"),
    job("protocol_error_job", "Ends with an internal error (a failed task with a JSON-RPC error)"),
    job("confirm_delete", "Asks for confirmation (input_required) before pretending to delete filename", {
      inputSchema: z.object({ filename: z.string().max(200) }).loose(),
    }),
    job("multi_input", "Asks for two answers at once (input_required), then completes"),
    withTask,
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      db: { type: "string" },
      http: { type: "boolean" },
      "http-no-auth": { type: "boolean" },
      listen: { type: "string" },
    },
  });
  const desk = new InputDesk();
  const watch = new TerminalWatch();
  const code = await runServer({
    db: values.db ?? ":memory:",
    http: values.http === true,
    httpNoAuth: values["http-no-auth"] === true,
    listen: values.listen ?? "127.0.0.1:0",
    readOnly: false,
  }, {
    kinds: { registry: () => new JobKindRegistry(fixtureKinds(desk)) },
    mcp,
    tasks: tasksAdapter,
    executor: { onTerminal: watch.onTerminal },
    tools: ({ control }) => fixtureTools(control, watch),
    taskInputs: desk,
  });
  Deno.exit(code);
}
