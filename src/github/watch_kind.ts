/**
 * Job kind `github.wait_pull_request_checks`: the server owns the waiting loop, so a
 * client never polls GitHub itself. It returns when CI changes materially
 * (`until: "change"`) or reaches a verdict, re-reading once to confirm before it says so.
 *
 * @module
 */

import { z } from "zod";
import { AppError } from "../base/errors.ts";
import {
  WATCH_CHECKS_MAX,
  WATCH_FIRST_CHECK_GRACE_MS_DEFAULT,
  WATCH_FIRST_CHECK_GRACE_MS_MAX,
  WATCH_POLL_INTERVAL_MS_DEFAULT,
  WATCH_POLL_INTERVAL_MS_MAX,
  WATCH_POLL_INTERVAL_MS_MIN,
  WATCH_TIMEOUT_MS_DEFAULT,
  WATCH_TIMEOUT_MS_MAX,
  WATCH_TRANSITIONS_MAX,
} from "../base/limits.ts";
import { defineJobKind, type JobContext } from "../jobs/kinds.ts";
import type { PullRequestChecksObservation } from "../store/corpus_rows.ts";
import {
  type CheckEntry,
  type CheckRunLike,
  checksSignature,
  type ChecksSummary,
  normalizeChecks,
  type StatusLike,
  summarize,
  verdictOf,
} from "./checks_state.ts";
import { zodToInvalidArgument } from "../base/validation.ts";
import { GITHUB_OWNER_PATTERN, GITHUB_REPO_PATTERN, isCommitSha } from "../base/names.ts";

export const WATCH_KIND = "github.wait_pull_request_checks";

/** The tool's input, durations in integer milliseconds. Names follow GitHub's rules (src/base/names.ts). */
export const WatchInput = z.object({
  owner: z.string().regex(
    new RegExp(GITHUB_OWNER_PATTERN),
    "expected a GitHub owner: 1-39 letters, digits or single hyphens, not starting or ending with a hyphen",
  ).describe("Repository owner, e.g. denoland"),
  repo: z.string().regex(
    new RegExp(GITHUB_REPO_PATTERN),
    "expected a GitHub repository name: 1-100 letters, digits, '.', '_' or '-', not starting with '-'",
  ).refine((v) => v !== "." && v !== "..", "expected a GitHub repository name, not '.' or '..'")
    .describe("Repository name, e.g. deno"),
  number: z.number().int().min(1).max(2_147_483_647).describe("Pull request number"),
  expected_head_sha: z.string().regex(/^[0-9a-f]{40}$/).optional()
    .describe("Head commit to watch (40 hex). Default: the head seen at the first poll"),
  until: z.enum(["terminal", "change"]).default("terminal")
    .describe("terminal: wait for a verdict; change: return at the first material CI change"),
  timeout_ms: z.number().int().min(1_000).max(WATCH_TIMEOUT_MS_MAX).default(WATCH_TIMEOUT_MS_DEFAULT)
    .describe(`Give up after this long (default 30 min, max 24 h)`),
  poll_interval_ms: z.number().int().min(WATCH_POLL_INTERVAL_MS_MIN).max(WATCH_POLL_INTERVAL_MS_MAX)
    .default(WATCH_POLL_INTERVAL_MS_DEFAULT).describe("Time between GitHub polls (default 10 s, 5 s .. 5 min)"),
  fail_fast: z.boolean().default(false).describe("Return failed as soon as any check fails"),
  first_check_grace_ms: z.number().int().min(0).max(WATCH_FIRST_CHECK_GRACE_MS_MAX)
    .default(WATCH_FIRST_CHECK_GRACE_MS_DEFAULT)
    .describe("How long to wait for the first check to register before answering no_checks (default 3 min)"),
}).strict();

export type WatchRequest = z.output<typeof WatchInput>;

/** Every outcome, distinct in the result and in the job's outcome. */
export type WatchOutcome = "succeeded" | "failed" | "timed_out" | "superseded" | "no_checks" | "changed" | "incomplete";

/** One reading of the PR and its CI. */
export interface PullObservation {
  head_sha: string;
  state: string;
  check_runs: CheckRunLike[];
  statuses: StatusLike[];
  /** Whether every check run GitHub counts was fetched. */
  coverage_complete: boolean;
}

/** Per-read options of a {@linkcode PullObserver}. */
export interface ObserveOptions {
  /** Longest rate-limit wait this read may make; a longer one fails with `rate_limited`. */
  maxRateLimitWaitMs?: number;
  /** Called before a rate-limit wait with the instant requests resume (feeds poll guidance). */
  onRateLimitWait?: (untilMs: number) => void;
}

/** Where observations come from (the GitHub client in production, anything in tests). */
export interface PullObserver {
  headSha(owner: string, repo: string, number: number, signal: AbortSignal, options?: ObserveOptions): Promise<string>;
  observe(
    owner: string,
    repo: string,
    number: number,
    sha: string,
    signal: AbortSignal,
    options?: ObserveOptions,
  ): Promise<PullObservation>;
  /** Counted and free requests so far, and the last rate-limit state seen. */
  stats(): { requests: number; not_modified: number; rate_limit?: Record<string, unknown> | undefined };
  /** Whether requests carry a token. */
  readonly authenticated: boolean;
}

export interface Transition {
  at: string;
  signature: string;
  summary: ChecksSummary;
}

/** The watch result stored with the job and returned to clients. */
export interface WatchResult {
  outcome: WatchOutcome;
  repository: string;
  number: number;
  expected_head_sha: string;
  observed_head_sha: string;
  summary: ChecksSummary;
  /** Signature of the final observation (every check, even beyond the `checks` bound). */
  signature: string;
  checks: CheckEntry[];
  checks_truncated: boolean;
  transitions: Transition[];
  transitions_truncated: boolean;
  polls: number;
  requests: number;
  not_modified: number;
  rate_limit?: Record<string, unknown> | undefined;
  authenticated: boolean;
  started_at: string;
  finished_at: string;
}

/** Dependencies of the watch kind. */
export interface WatchDeps {
  observer(): PullObserver;
  /** Stores the last complete observation in the corpus (readable offline later). */
  saveObservation?(result: WatchResult): Promise<void>;
}

/** Creates the job kind. */
export function watchKind(deps: WatchDeps) {
  return defineJobKind<WatchRequest, WatchResult>({
    kind: WATCH_KIND,
    parse(input) {
      const parsed = WatchInput.safeParse(input);
      if (!parsed.success) throw zodToInvalidArgument(parsed.error, WATCH_EXAMPLE);
      return parsed.data;
    },
    run: (ctx) => runWatch(ctx, deps),
    outcome: (result) => result.outcome,
    firstPollAfterMs: watchFirstPollMs,
    // The CI signature moves exactly when a transition is recorded (the progress message below
    // counts them); the poll count beside it is not material to a waiting reader.
    materialProgress: (message) => /\b(\d+) transitions\b/.exec(message ?? "")?.[1],
  });
}

/**
 * When a watch's first look can show something new: its first scheduled GitHub poll. The first
 * reading (and the re-read confirming a verdict) happen as it starts; a CI still pending then can
 * change only by the next scheduled poll, so hosts are told to look then, not every 250 ms.
 */
export function watchFirstPollMs(req: Pick<WatchRequest, "poll_interval_ms" | "timeout_ms">): number {
  return Math.min(req.poll_interval_ms, req.timeout_ms);
}

export const WATCH_EXAMPLE = { owner: "denoland", repo: "deno", number: 123, until: "terminal" };

async function runWatch(ctx: JobContext<WatchRequest>, deps: WatchDeps): Promise<WatchResult> {
  const req = ctx.request;
  const { clock, signal } = ctx;
  const gh = deps.observer();
  const startedAt = clock.now();
  const deadline = startedAt + req.timeout_ms;
  // A rate-limit wait never runs past the deadline (the client fails fast with rate_limited instead).
  // While rate limited, hosts are told to look again when GitHub will answer, not every 250 ms.
  const bounded = (): ObserveOptions => ({
    maxRateLimitWaitMs: Math.max(0, deadline - clock.now()),
    onRateLimitWait: (untilMs) =>
      ctx.report({ phase: "rate_limited", message: "waiting for GitHub's rate limit to reset", nextPollAt: untilMs }),
  });
  const expected = req.expected_head_sha ??
    requireSha(await gh.headSha(req.owner, req.repo, req.number, signal, bounded()), "the pull request's head SHA");
  const transitions: Transition[] = [];
  let transitionsTruncated = false;
  let previousSignature: string | undefined;
  let polls = 0;
  let confirming: WatchOutcome | undefined;

  const finish = async (outcome: WatchOutcome, obs: PullObservation, entries: CheckEntry[]) => {
    // The last progress report describes the previous poll; make the counts final.
    const last = summarize(entries);
    ctx.report({ completedItems: last.passed + last.failed, totalItems: last.total });
    const result: WatchResult = {
      outcome,
      repository: `${req.owner}/${req.repo}`,
      number: req.number,
      expected_head_sha: expected,
      observed_head_sha: obs.head_sha,
      summary: summarize(entries),
      signature: await checksSignature(entries),
      checks: entries.slice(0, WATCH_CHECKS_MAX),
      checks_truncated: entries.length > WATCH_CHECKS_MAX,
      transitions,
      transitions_truncated: transitionsTruncated,
      polls,
      ...gh.stats(),
      authenticated: gh.authenticated,
      started_at: new Date(startedAt).toISOString(),
      finished_at: new Date(clock.now()).toISOString(),
    };
    if (outcome !== "superseded" && outcome !== "timed_out" && obs.coverage_complete) {
      await deps.saveObservation?.(result).catch((err) =>
        ctx.log.warn("could not store the checks observation", { error: String(err) })
      );
    }
    return result;
  };

  ctx.report({
    phase: "waiting_for_checks",
    message: `watching ${req.owner}/${req.repo}#${req.number}`,
    nextPollAt: startedAt + watchFirstPollMs(req),
  });
  let last: { obs: PullObservation; entries: CheckEntry[] } | undefined;
  for (;;) {
    let obs: PullObservation;
    try {
      obs = await gh.observe(req.owner, req.repo, req.number, expected, signal, bounded());
      requireSha(obs.head_sha, "the pull request's head SHA");
    } catch (err) {
      // GitHub will not answer before the deadline: the watch ends as it would then, with the
      // last observation (still pending). Without one, the rate_limited error (retryable) stands.
      if (
        last !== undefined && !signal.aborted && err instanceof AppError && err.code === "rate_limited" &&
        (err.retryAfterMs ?? 0) > deadline - clock.now()
      ) {
        ctx.log.warn("rate limited past the watch deadline; ending timed_out", { retry_after_ms: err.retryAfterMs });
        return await finish("timed_out", last.obs, last.entries);
      }
      throw err;
    }
    polls++;
    const entries = normalizeChecks(obs.check_runs, obs.statuses);
    last = { obs, entries };
    const now = clock.now();
    let candidate: WatchOutcome | undefined;
    if (obs.head_sha !== expected) {
      candidate = "superseded";
    } else {
      const signature = await checksSignature(entries);
      if (signature !== previousSignature) {
        if (transitions.length < WATCH_TRANSITIONS_MAX) {
          transitions.push({ at: new Date(now).toISOString(), signature, summary: summarize(entries) });
        } else transitionsTruncated = true;
        if (req.until === "change" && previousSignature !== undefined) candidate = "changed";
        previousSignature = signature;
      }
      const verdict = verdictOf(entries, { coverageComplete: obs.coverage_complete, failFast: req.fail_fast });
      if (verdict !== "pending") candidate = verdict;
      else if (entries.length === 0 && now - startedAt >= req.first_check_grace_ms) candidate = "no_checks";
    }
    if (candidate !== undefined && candidate === confirming) return await finish(candidate, obs, entries);
    if (candidate !== undefined && candidate !== "changed") {
      // Re-read once before declaring a verdict: a check may be registering right now.
      confirming = candidate;
      continue;
    }
    if (candidate === "changed") return await finish("changed", obs, entries);
    confirming = undefined;
    if (now >= deadline) return await finish("timed_out", obs, entries);
    const wait = Math.min(req.poll_interval_ms, deadline - now);
    const s = summarize(entries);
    ctx.report({
      phase: "waiting_for_checks",
      message:
        `${polls} polls, ${transitions.length} transitions; ${s.passed} passed, ${s.failed} failed, ${s.pending} pending`,
      completedItems: s.passed + s.failed,
      totalItems: s.total,
      nextPollAt: now + wait,
    });
    await clock.sleep(wait, signal);
  }
}

/** A commit SHA read from GitHub, or the typed `github_invalid` error (never an internal TypeError later). */
function requireSha(value: unknown, what: string): string {
  if (isCommitSha(value)) return value;
  throw new AppError(
    "github_invalid",
    `Cannot use ${what} GitHub answered: expected 40 lowercase hex digits, current value is ${
      JSON.stringify(typeof value === "string" ? value.slice(0, 80) : value)
    }`,
    { retryable: false },
  );
}

/** The corpus record of a finished watch: its last complete observation. */
export function checksObservationOf(r: WatchResult): PullRequestChecksObservation {
  return {
    repository: r.repository,
    number: r.number,
    head_sha: r.observed_head_sha,
    outcome: r.outcome,
    // The final observation's signature: the last transition kept may be older (bounded list).
    signature: r.signature,
    checks: r.checks,
    observed_at: Date.parse(r.finished_at),
  };
}
