/**
 * One run of a scenario by a host: the host kinds, what a run produces ({@linkcode RunResult}), the
 * live state it publishes, and the context and finishing steps every host driver shares.
 *
 * @module
 */

import type { FakeGitHub } from "../fake_github.ts";
import type { Scenario } from "../scenarios.ts";
import { answerMatches, answerText, type FinalAnswer } from "./answers.ts";
import type { RateLimitFront, Resources, ServerSpec, StderrTail } from "./plumbing.ts";
import type { Meter, ScriptedModel, TranscriptEntry } from "./scripted_model.ts";

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

/** What a host driver gets for one run. */
export interface RunContext {
  scenario: Scenario;
  fake: FakeGitHub;
  front: RateLimitFront | undefined;
  spec: ServerSpec;
  resources: Resources;
  live: LiveState;
  update: () => void;
  stderr: StderrTail;
}

/** The fake's counters of the run, plus what the front answered itself. */
export function countsOf(fake: FakeGitHub, front?: RateLimitFront): GitHubCounts {
  const c = fake.counts;
  const extra = front?.limited ?? 0;
  return { total: c.total + extra, counted: c.counted, notModified: c.notModified, rateLimited: c.rateLimited + extra };
}

/** Starts the scenario's timeline and injections at the moment of the tool call. */
export function startTimeline(ctx: RunContext): void {
  ctx.fake.setScenario(ctx.scenario.timeline);
  ctx.fake.resetCounts();
}

/** How a run ended: its host, the model, the polls the host made, and the model's final answer. */
export interface RunEnd {
  host: HostKind;
  model: ScriptedModel;
  hostPolls: number;
  answer: FinalAnswer;
}

/** The model answers (`end.answer`); the run's result with its correctness against the scenario. */
export function finish(ctx: RunContext, end: RunEnd): RunResult {
  const { host, model, hostPolls, answer } = end;
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
