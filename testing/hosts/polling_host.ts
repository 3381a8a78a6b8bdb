/**
 * The polling host: the official v1 client, the way hosts without tasks behave today. The tool
 * returns a JobReference and every `jobs.get` poll is a model turn whose payload the model reads,
 * honouring `retry_after_ms`. Also the connection and result reading the hosts without tasks share.
 *
 * @module
 */

import { connectLegacyV1, type V1Client } from "../mcp_clients.ts";
import type { Json } from "../scenarios.ts";
import { detailOf, type FinalAnswer, rec } from "./answers.ts";
import { drainStderr, killHard, pidOf, serverTarget, sleep } from "./plumbing.ts";
import { finish, type RunContext, type RunResult, startTimeline } from "./run.ts";
import { ScriptedModel } from "./scripted_model.ts";

/** A v1 client on a fresh server of the run. */
export async function openPollingHost(ctx: RunContext): Promise<V1Client> {
  const client = await connectLegacyV1(serverTarget(ctx.spec), {
    clientInfo: { name: "longcall-eval-polling-host", version: "1.0.0" },
  });
  drainStderr(client.transport, ctx.stderr);
  ctx.resources.defer(() => client.close());
  return client;
}

/** The text of a v1 tool result as a host hands it to the model. */
export function resultText(result: unknown): string {
  const content = rec(result)["content"];
  return Array.isArray(content) ? content.map((c) => String(rec(c)["text"] ?? "")).join("\n") : "";
}

/** The fields of a `jobs.get`/`jobs.cancel` item a host reads. */
export interface PollItem {
  execution_state?: string;
  outcome?: string;
  summary?: string;
  retry_after_ms?: number;
  error?: { code?: string };
  result?: unknown;
}

/** The first item of a batch answer and its `retry_after_ms`. */
export function firstItem(result: unknown): { item: PollItem; retryAfterMs: number | undefined } {
  const items = rec(rec(result)["structuredContent"])["items"];
  const first = Array.isArray(items) ? rec(items[0]) : {};
  const retry = first["retry_after_ms"];
  return { item: rec(first["value"]) as PollItem, retryAfterMs: typeof retry === "number" ? retry : undefined };
}

/** Runs the scenario through the polling host. */
export async function runPollingHost(ctx: RunContext): Promise<RunResult> {
  const { scenario, live, update } = ctx;
  let client = await openPollingHost(ctx);
  const model = new ScriptedModel(() => {
    live.meter = { ...model.meter };
    update();
  });
  live.phase = "waiting";
  live.startedAt = model.startedAt;
  live.status = "model: tool call";

  const call = async (tool: { name: string; args: Record<string, Json> }, label: string) => {
    const { name, args } = tool;
    model.callTool(name, args);
    const result = await client.callTool({ name, arguments: args });
    model.read(resultText(result), label);
    return result;
  };

  startTimeline(ctx);
  const first = await call({ name: scenario.tool, args: scenario.args }, "JobReference");
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
        const result = await call({ name: "jobs.cancel", args: { ids: [id] } }, "jobs.cancel");
        const { item, retryAfterMs } = firstItem(result);
        last = item;
        if (item.execution_state === "terminal") break;
        waitMs = retryAfterMs ?? item.retry_after_ms ?? 250;
        continue;
      }
      const result = await call({ name: "jobs.get", args: { ids: [id] } }, "jobs.get");
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
    const result = await call(
      { name: "jobs.get", args: { ids: [id], response_format: "detailed" } },
      "jobs.get (detailed)",
    );
    const { item } = firstItem(result);
    answer = { job_status: "succeeded", outcome: String(item.outcome), detail: detailOf(item.result) };
  }
  return finish(ctx, { host: "polling", model, hostPolls: 0, answer });
}
