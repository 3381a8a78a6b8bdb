/**
 * The task-aware host: the official v2 client with the `ext-tasks` session. The model makes one tool
 * call; the host polls `tasks/get` itself at the server's `pollIntervalMs` (and resumes the task by
 * reference after a server crash); the model sees only the final result.
 *
 * @module
 */

import { connectTaskHost, type TaskHost } from "../mcp_clients.ts";
import { detailOf, type FinalAnswer, rec } from "./answers.ts";
import { drainStderr, killHard, pidOf, serverTarget, sleep } from "./plumbing.ts";
import { finish, type RunContext, type RunResult, startTimeline } from "./run.ts";
import { ScriptedModel } from "./scripted_model.ts";

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

/** Raw `tasks/get` from `run.host` (noted in `run.model`) until the server reports a terminal status; returns it
 * as a task outcome. */
async function confirmTerminal(run: { host: TaskHost; model: ScriptedModel }, taskId: string): Promise<unknown> {
  const { host, model } = run;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await host.tasksGet(taskId);
    model.note("host", "tasks/get (confirming the terminal state)", { hostRequest: true });
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

/** Runs the scenario through the task-aware host. */
export async function runTaskHost(ctx: RunContext): Promise<RunResult> {
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
        model.note("user", "stop, never mind (the host cancels the task: tasks/cancel)", { hostRequest: true });
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
      outcome = await confirmTerminal({ host, model }, reference.taskId);
    }
    const view = taskOutcomeView(outcome);
    model.read(view.text, "final task result");
    live.hostPolls = polls();
    return finish(ctx, { host: "task", model, hostPolls: polls(), answer: view.answer });
  } finally {
    clearInterval(pollTicker);
  }
}
