/**
 * The MCP hosts driving the real longcall server for the evaluation (`scripts/eval.ts`) and the demo
 * (`scripts/demo.ts`), each with the same deterministic scripted "model" (no network, no LLM):
 *
 * - **task-aware host**: the official v2 client (`@modelcontextprotocol/client`) with the `ext-tasks` session.
 *   The model makes one tool call; the host polls `tasks/get` itself at the server's `pollIntervalMs`; the
 *   model sees only the final result.
 * - **polling host**: the official v1 client (`@modelcontextprotocol/sdk`), the way hosts behave today: the tool
 *   returns a JobReference and every `jobs.get` poll is a model turn whose payload the model reads, honouring
 *   `retry_after_ms`.
 * - **instant** and **wait_ms polling hosts**: the v1 client with a model that answers instantly, polling
 *   `jobs.get` at once (and giving up after {@linkcode INSTANT_POLLS_MAX} polls) or with the suggested `wait_ms`.
 *
 * What is counted (see docs/evaluation.md, "Method"): model calls (one per model inference), tool calls the
 * model writes, model-visible bytes (UTF-8 JSON of every tool call's arguments plus the text of every tool
 * result the model reads), the context re-read over all calls, host polls made outside the model, elapsed
 * real time from the first model call to the final answer, and GitHub requests as the fake counted them.
 *
 * Parts (testing/hosts/): plumbing.ts (resources, the fake and the server child), scripted_model.ts
 * (the model and its meter), answers.ts (normalized final answers), run.ts (host kinds, results, shared
 * run steps), task_host.ts, polling_host.ts and no_task_host.ts (one driver per host); this file runs a
 * scenario through a host.
 *
 * Every run gets its own fake GitHub on 127.0.0.1, its own temporary database and its own server processes,
 * spawned with explicit permission flags.
 *
 * @module
 */

import type { Scenario } from "./scenarios.ts";
import { runNoTaskHost } from "./hosts/no_task_host.ts";
import { Resources, startRateLimitFront, startScaledFake, StderrTail, tempDir } from "./hosts/plumbing.ts";
import { runPollingHost } from "./hosts/polling_host.ts";
import {
  countsOf,
  type HostKind,
  type LiveState,
  type RunContext,
  type RunOptions,
  type RunResult,
} from "./hosts/run.ts";
import { runTaskHost } from "./hosts/task_host.ts";

export { answerMatches, answerText, detailOf, type FinalAnswer, sameAnswer } from "./hosts/answers.ts";
export {
  type RateLimitFront,
  REPO_ROOT,
  Resources,
  type ServerSpec,
  serverTarget,
  startRateLimitFront,
  startScaledFake,
  StderrTail,
  tempDir,
} from "./hosts/plumbing.ts";
export {
  type GitHubCounts,
  HOST_LABEL,
  type HostKind,
  INSTANT_POLLS_MAX,
  type LiveState,
  type NoTaskFigures,
  type RunOptions,
  type RunResult,
} from "./hosts/run.ts";
export { type Meter, ScriptedModel, type TranscriptEntry } from "./hosts/scripted_model.ts";

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
      : await startRateLimitFront(resources, { fakeUrl: fake.url, repository: scenario.rateLimitRepository });
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
      : await runNoTaskHost(ctx, { host, rate: options.rate });
    live.phase = "done";
    update();
    return result;
  } finally {
    if (options.resources === undefined) await resources.closeAll();
  }
}
