/**
 * The hosts without tasks whose model answers instantly: the instant polling host and the wait_ms
 * polling host (one driver; they differ only in the `jobs.get` arguments and when they stop).
 *
 * @module
 */

import type { Json } from "../scenarios.ts";
import { detailOf, type FinalAnswer, rec } from "./answers.ts";
import { killHard, pidOf } from "./plumbing.ts";
import { firstItem, openPollingHost, type PollItem, resultText } from "./polling_host.ts";
import { finish, INSTANT_POLLS_MAX, type RunContext, type RunResult, startTimeline } from "./run.ts";
import { ScriptedModel } from "./scripted_model.ts";

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
export async function runNoTaskHost(
  ctx: RunContext,
  options: { host: "instant" | "wait"; rate: number },
): Promise<RunResult> {
  const { host, rate } = options;
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

  const call = async (tool: { name: string; args: Record<string, Json> }, label: string): Promise<unknown> => {
    const { name, args } = tool;
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
  const first = await call({ name: scenario.tool, args: scenario.args }, "JobReference");
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
        const result = await call({ name: "jobs.cancel", args: { ids: [id] } }, "jobs.cancel");
        if (result !== undefined) last = firstItem(result).item;
        if (last.execution_state === "terminal") break;
        continue;
      }
      const args: Record<string, Json> = host === "wait"
        ? { ids: [id], wait_ms: waitMs, until: "terminal", response_format: "detailed" }
        : { ids: [id] };
      const wasKilled = killed;
      const result = await call({ name: "jobs.get", args }, "jobs.get");
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
    const result = await call(
      { name: "jobs.get", args: { ids: [id], response_format: "detailed" } },
      "jobs.get (detailed)",
    );
    const { item } = firstItem(result);
    answer = { job_status: "succeeded", outcome: String(item.outcome), detail: detailOf(item.result) };
  }
  const run = finish(ctx, { host, model, hostPolls: 0, answer });
  run.noTask = {
    jobMs,
    waitMs,
    forcedTurns,
    gaveUp,
    ...(host === "wait" ? { bound: 2 + Math.ceil(jobMs / waitMs) + forcedTurns } : {}),
  };
  return run;
}
