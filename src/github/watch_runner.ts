/**
 * The runner of `github.wait_pull_request_checks` (src/jobs/kinds.ts JobKind): the server owns the
 * waiting loop, so a client never polls GitHub itself. It returns when CI changes materially
 * (`until: "change"`) or reaches a verdict, re-reading once to confirm before it says so. Exists
 * only where jobs execute; the spec is src/github/watch_spec.ts, the policy and types watch_kind.ts.
 *
 * @module
 */

import { realMsPer } from "../base/clock.ts";
import { AppError, boundedMessage } from "../base/errors.ts";
import {
  GITHUB_ANONYMOUS_LIMIT_PER_HOUR,
  GITHUB_VALUE_QUOTED_CHARS_MAX,
  WATCH_ANNOTATION_MESSAGE_CHARS_MAX,
  WATCH_CHECKS_MAX,
  WATCH_FAILED_POLLS_MAX,
  WATCH_FAILURE_DETAILS_MAX,
  WATCH_FAILURE_SUMMARY_CHARS_MAX,
  WATCH_FAILURE_TITLE_CHARS_MAX,
  WATCH_POLL_TIME_MIN_MS,
  WATCH_SETTLE_MS_MIN,
  WATCH_SETTLE_POLL_INTERVALS,
  WATCH_TRANSITIONS_MAX,
} from "../base/limits.ts";
import { isCommitSha, type PullRef } from "../base/names.ts";
import { countOf, truncateChars } from "../base/text.ts";
import type { AnyJobKind, JobContext } from "../jobs/kinds.ts";
import {
  type CheckEntry,
  type CheckRunLike,
  checksSignature,
  FAILING_CONCLUSIONS,
  latestRuns,
  normalizeChecks,
  type RequiredCheck,
  requiredEntries,
  summarize,
  summarizeSuites,
  verdictDetail,
} from "./checks_state.ts";
import { isGitRef } from "./repo_path.ts";
import { budgetView, pacedWaitMs, type RateWindow } from "./watch_pacing.ts";
import {
  type AnonymousCost,
  type FailureDetail,
  type ObserveOptions,
  type PullObservation,
  type PullObserver,
  type Transition,
  watchFirstPollMs,
  type WatchOutcome,
  watchPolicy,
  type WatchResult,
} from "./watch_kind.ts";
import type { WatchRequest } from "./watch_spec.ts";

/** Dependencies of the watch runner. */
export interface WatchDeps {
  observer(): PullObserver;
  /** Stores the last complete observation in the corpus (readable offline later). */
  saveObservation?(result: WatchResult): Promise<void>;
}

/** The runnable watch kind: its policy and the polling loop over `deps`. */
export function watchRunner(deps: WatchDeps): AnyJobKind {
  return { ...watchPolicy, run: (ctx) => runWatch(ctx as JobContext<WatchRequest>, deps) };
}

/** Outcomes a late-registering check could still change: confirmed by a re-read after the settle delay
 * (the others, facts about the pull request or a failure, by an immediate re-read). */
const SETTLED_OUTCOMES: ReadonlySet<WatchOutcome> = new Set(["succeeded", "action_required"]);

/** One reading of the pull request: the observation and what the watch made of its checks. */
interface Reading {
  obs: PullObservation;
  assessed: Assessment;
}

/** The checks of one observation as the watch counts them. */
interface Assessment {
  /** The checks (only the required ones with `required_only`). */
  entries: CheckEntry[];
  /** The check runs kept (the newest of each re-run). */
  runs: CheckRunLike[];
  /** Older runs of a re-triggered check left out. */
  dropped: number;
}

/** How a watch ends: its outcome and why, in words. */
interface WatchEnd {
  outcome: WatchOutcome;
  reason: string;
}

/** `text` cut to at most `max` characters (never splitting a surrogate pair), and whether it was cut; null stays
 * null. */
export function clip(text: string | null | undefined, max: number): { text: string | null; truncated: boolean } {
  return text === null || text === undefined ? { text: null, truncated: false } : truncateChars(text, max);
}

/** The reason a watch's GitHub requests are aborted with once its deadline (`timeout_ms`) comes. */
class WatchDeadline extends Error {
  constructor() {
    super("the watch's deadline (timeout_ms) came while GitHub had not answered");
    this.name = "WatchDeadline";
  }
}

/** When a watch started and when it must end. */
interface WatchWindow {
  startedAt: number;
  deadline: number;
  /**
   * The signal of the GitHub requests about to be made (one poll's, say): the job's, also aborted with a
   * {@linkcode WatchDeadline} at {@linkcode requestsAbandonedAt}. Each call starts a new window and ends the last.
   */
  requests(): AbortSignal;
}

/**
 * When requests a watch starts at `now` are abandoned: at its deadline, but never sooner than
 * {@linkcode WATCH_POLL_TIME_MIN_MS} after they start, so the poll the loop makes at the deadline (its last)
 * still gets its answer, and a hung request carries the watch at most that far past `timeout_ms`.
 */
export function requestsAbandonedAt(now: number, deadline: number): number {
  return Math.max(deadline, now + WATCH_POLL_TIME_MIN_MS);
}

/**
 * A watch, ended by its deadline even inside a GitHub request: each request may otherwise wait up to
 * GITHUB_REQUEST_TIMEOUT_MS and be retried, which carried a watch minutes past its `timeout_ms`.
 */
async function runWatch(ctx: JobContext<WatchRequest>, deps: WatchDeps): Promise<WatchResult> {
  const { clock, signal, request } = ctx;
  const startedAt = clock.now();
  const deadline = startedAt + request.timeout_ms;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const requests = (): AbortSignal => {
    // One window at a time (the watch's requests are sequential): the last one's requests have all ended.
    clearTimeout(timer);
    const now = clock.now();
    const window = new AbortController();
    // A real timer, not the clock's sleep: a test's manual clock would otherwise see one more sleeper (or,
    // advancing itself, jump to the deadline); under a scaled clock it fires at the scaled time.
    timer = setTimeout(
      () => window.abort(new WatchDeadline()),
      (requestsAbandonedAt(now, deadline) - now) * realMsPer(clock),
    );
    return AbortSignal.any([signal, window.signal]);
  };
  try {
    return await watch(ctx, deps, { startedAt, deadline, requests });
  } catch (err) {
    if (!(err instanceof WatchDeadline) || signal.aborted) throw err;
    // Before the first reading (nothing to end timed_out with): as a poll GitHub did not answer.
    throw new AppError(
      "transient",
      `Cannot watch ${request.owner}/${request.repo}#${request.number}: GitHub did not answer before the ` +
        `watch's deadline (timeout_ms ${request.timeout_ms})`,
      { retryable: true, data: { no_answer: true } },
    );
  } finally {
    clearTimeout(timer);
  }
}

async function watch(ctx: JobContext<WatchRequest>, deps: WatchDeps, options: WatchWindow): Promise<WatchResult> {
  const req = ctx.request;
  const { clock, signal } = ctx;
  const gh = deps.observer();
  const { startedAt, deadline } = options;
  const settleMs = Math.max(WATCH_SETTLE_MS_MIN, WATCH_SETTLE_POLL_INTERVALS * req.poll_interval_ms);
  const transitions: Transition[] = [];
  let transitionsTruncated = false;
  // Every material change seen, also past the {@linkcode WATCH_TRANSITIONS_MAX} kept: waiting readers
  // (jobs.get wait_ms, via materialProgress) must hear of each one.
  let changesSeen = 0;
  const rateWindow: RateWindow = { resetAt: undefined, requestsBefore: 0 };
  let previousSignature: string | undefined;
  let polls = 0;
  // Every progress message starts with these counts (materialProgress reads the transition count).
  const counts = () => `${countOf(polls, "poll")}, ${countOf(changesSeen, "transition")}`;
  // A rate-limit wait never runs past the deadline (the client fails fast with rate_limited instead).
  // While rate limited, hosts are told to look again when GitHub will answer, not every 250 ms.
  const bounded = (): ObserveOptions => ({
    signal: options.requests(),
    maxRateLimitWaitMs: Math.max(0, deadline - clock.now()),
    onRateLimitWait: (untilMs) =>
      ctx.report({
        phase: "rate_limited",
        message: `${counts()}; waiting for GitHub's rate limit to reset`,
        nextPollAt: untilMs,
      }),
  });
  const pull: PullRef = { owner: req.owner, repo: req.repo, number: req.number };
  const expected = req.expected_head_sha ??
    requireSha(await gh.headSha(pull, bounded()), "the pull request's head SHA");
  let pacedPolls = 0;
  // Whether the pull request's head has been seen at `expected`. GitHub updates a pull request's head some time
  // after a push, so a watch of a SHA just pushed (given as expected_head_sha) may first see the old head: that
  // is GitHub catching up, not a new push. Only a head that moves away from `expected` supersedes the watch; one
  // that never reaches it within the first-check grace does too, named as such. A head read from GitHub at the
  // start has been seen.
  let headSeen = req.expected_head_sha === undefined;
  let confirming: { outcome: WatchOutcome; at: number } | undefined;
  let required: RequiredCheck[] | undefined;

  const assess = (obs: PullObservation): Assessment => {
    const latest = latestRuns(obs.check_runs, obs.workflows);
    let entries = normalizeChecks(latest.runs, obs.statuses);
    if (required !== undefined) {
      const appIds = new Map(latest.runs.filter((r) => r.id !== undefined).map((r) => [r.id ?? 0, r.app?.id]));
      entries = requiredEntries(entries, required, { appIds });
    }
    return { entries, runs: latest.runs, dropped: latest.dropped };
  };

  const failureDetails = async (
    outcome: WatchOutcome,
    reading: Reading,
  ): Promise<{ failures: FailureDetail[]; truncated: boolean }> => {
    const { obs, assessed: { entries, runs } } = reading;
    const failing = entries.filter((e) => e.conclusion !== null && FAILING_CONCLUSIONS.has(e.conclusion));
    const failures: FailureDetail[] = [];
    for (const e of failing.slice(0, WATCH_FAILURE_DETAILS_MAX)) {
      if (e.kind === "check_run") {
        const run = runs.find((r) => r.id === e.id && r.name === e.name);
        const title = clip(run?.output?.title, WATCH_FAILURE_TITLE_CHARS_MAX);
        const summary = clip(run?.output?.summary, WATCH_FAILURE_SUMMARY_CHARS_MAX);
        const detail: FailureDetail = {
          kind: "check_run",
          name: e.name,
          app: e.app ?? null,
          conclusion: e.conclusion ?? "",
          html_url: run?.html_url ?? null,
          details_url: run?.details_url ?? null,
          title: title.text,
          summary: summary.text,
          summary_truncated: summary.truncated,
          annotations_count: run?.output?.annotations_count ?? 0,
          annotations: [],
        };
        // Read once, when the watch ends failed: a model can say what broke without another call.
        if (outcome === "failed" && detail.annotations_count > 0 && e.id !== undefined && gh.annotations) {
          try {
            const list = await gh.annotations(pull, e.id, bounded());
            detail.annotations = list.map((a) => ({
              path: clip(a.path, WATCH_ANNOTATION_MESSAGE_CHARS_MAX).text ?? "",
              start_line: a.start_line,
              end_line: a.end_line,
              annotation_level: a.annotation_level ?? null,
              title: clip(a.title, WATCH_FAILURE_TITLE_CHARS_MAX).text,
              message: clip(a.message, WATCH_ANNOTATION_MESSAGE_CHARS_MAX).text ?? "",
            }));
          } catch (err) {
            if (signal.aborted) throw err;
            detail.annotations_error = boundedMessage(err instanceof Error ? err.message : String(err));
          }
        }
        failures.push(detail);
      } else if (e.kind === "status") {
        const status = obs.statuses.find((s) => s.context === e.name);
        failures.push({
          kind: "status",
          name: e.name,
          app: null,
          conclusion: e.conclusion ?? "",
          html_url: null,
          details_url: status?.target_url ?? null,
          title: clip(status?.description, WATCH_FAILURE_TITLE_CHARS_MAX).text,
          summary: null,
          summary_truncated: false,
          annotations_count: 0,
          annotations: [],
        });
      }
    }
    return { failures, truncated: failing.length > WATCH_FAILURE_DETAILS_MAX };
  };

  const anonymousCost = (stats: ReturnType<PullObserver["stats"]>): AnonymousCost =>
    anonymousCostOf(stats, { polls, pollIntervalMs: req.poll_interval_ms, pacedPolls });

  const finish = async (end: WatchEnd, reading: Reading) => {
    const { outcome, reason } = end;
    const { obs, assessed } = reading;
    const { entries } = assessed;
    // The last progress report describes the previous poll; make the counts final.
    const last = summarize(entries);
    ctx.report({ completedItems: last.passed + last.failed, totalItems: last.total });
    const failed = await failureDetails(outcome, reading);
    const stats = gh.stats();
    const result: WatchResult = {
      outcome,
      reason,
      repository: `${req.owner}/${req.repo}`,
      number: req.number,
      expected_head_sha: expected,
      observed_head_sha: obs.head_sha,
      pull_state: obs.state,
      merged: obs.merged === true,
      required_only: req.required_only,
      ...(required === undefined ? {} : { required_checks: [...new Set(required.map((r) => r.context))] }),
      summary: summarize(entries),
      suites: summarizeSuites(obs.suites ?? []),
      duplicates_dropped: assessed.dropped,
      coverage_gaps: obs.coverage_gaps ?? (obs.coverage_complete ? [] : ["coverage could not be proven"]),
      failures: failed.failures,
      failures_truncated: failed.truncated,
      signature: await checksSignature(entries),
      checks: entries.slice(0, WATCH_CHECKS_MAX),
      checks_truncated: entries.length > WATCH_CHECKS_MAX,
      transitions,
      transitions_truncated: transitionsTruncated,
      polls,
      requests: stats.requests,
      not_modified: stats.not_modified,
      not_modified_counted: stats.not_modified_counted ?? 0,
      rate_limit: stats.rate_limit,
      authenticated: gh.authenticated,
      ...(gh.authenticated ? {} : { anonymous_cost: anonymousCost(stats) }),
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
  let last: Reading | undefined;
  // Polls in a row GitHub did not answer (transient, or rate limited until before the deadline).
  let failedPolls = 0;
  for (;;) {
    let obs: PullObservation;
    const countedBefore = gh.stats().requests;
    try {
      obs = await gh.observe(pull, expected, bounded());
      requireSha(obs.head_sha, "the pull request's head SHA");
      if (req.required_only && required === undefined) {
        if (gh.requiredChecks === undefined) {
          throw new AppError(
            "required_checks_unavailable",
            `Cannot watch only the required checks of ${req.owner}/${req.repo}: this observer cannot read branch rules`,
          );
        }
        const base = requireRef(obs.base_ref, "the pull request's base branch");
        required = await gh.requiredChecks(pull, base, bounded());
      }
    } catch (err) {
      // The deadline came inside a request: the watch ends as it would have at the deadline, with the last
      // observation (still pending). Without one, runWatch reports the unanswered request.
      if (err instanceof WatchDeadline && !signal.aborted && last !== undefined) {
        return await finish({ outcome: "timed_out", reason: `${err.message}; checks still pending` }, last);
      }
      // GitHub will not answer before the deadline: the watch ends as it would then, with the
      // last observation (still pending). Without one, the rate_limited error (retryable) stands.
      if (
        last !== undefined && !signal.aborted && err instanceof AppError && err.code === "rate_limited" &&
        (err.retryAfterMs ?? 0) > deadline - clock.now()
      ) {
        ctx.log.warn("rate limited past the watch deadline; ending timed_out", { retry_after_ms: err.retryAfterMs });
        return await finish(
          { outcome: "timed_out", reason: "rate limited past the deadline; checks still pending" },
          last,
        );
      }
      // Once the pull request has been seen, a poll GitHub did not answer is tried again at the next
      // interval (or when GitHub says it will answer), up to WATCH_FAILED_POLLS_MAX in a row.
      const unanswered = !signal.aborted && err instanceof AppError &&
        (err.code === "transient" || err.code === "rate_limited");
      if (!unanswered || last === undefined) throw err;
      if (++failedPolls >= WATCH_FAILED_POLLS_MAX) {
        throw new AppError(
          err.code,
          `GitHub did not answer ${WATCH_FAILED_POLLS_MAX} polls in a row; the last: ${err.message}`,
          { retryable: true, ...(err.retryAfterMs === undefined ? {} : { retryAfterMs: err.retryAfterMs }) },
        );
      }
      const now = clock.now();
      if (now >= deadline) {
        return await finish(
          { outcome: "timed_out", reason: `GitHub did not answer at the deadline: ${err.message}` },
          last,
        );
      }
      const wait = Math.min(Math.max(req.poll_interval_ms, err.retryAfterMs ?? 0), deadline - now);
      ctx.log.warn("a poll went unanswered; polling again", {
        code: err.code,
        failed_polls: failedPolls,
        wait_ms: wait,
      });
      ctx.report({
        phase: "retrying",
        message: `${counts()}; no answer from GitHub (${err.code}) for ${countOf(failedPolls, "poll")} in a row; ` +
          `polling again in ${Math.ceil(wait / 1000)} s`,
        nextPollAt: now + wait,
      });
      await clock.sleep(wait, signal);
      continue;
    }
    failedPolls = 0;
    polls++;
    const countedThisPoll = gh.stats().requests - countedBefore;
    const assessed = assess(obs);
    const { entries } = assessed;
    const reading: Reading = { obs, assessed };
    last = reading;
    const now = clock.now();
    let candidate: WatchOutcome | undefined;
    let reason = "";
    if (obs.head_sha === expected) headSeen = true;
    if (obs.head_sha !== expected && !headSeen && now - startedAt < req.first_check_grace_ms) {
      reason = `the pull request's head is still ${obs.head_sha.slice(0, 7)}; waiting for GitHub to show ` +
        `${expected.slice(0, 7)}`;
    } else if (obs.head_sha !== expected) {
      candidate = "superseded";
      reason = headSeen
        ? `a new push moved the head from ${expected.slice(0, 7)} to ${obs.head_sha.slice(0, 7)}`
        : `the pull request's head never became ${expected.slice(0, 7)} within ${req.first_check_grace_ms} ms; ` +
          `it is ${obs.head_sha.slice(0, 7)} (another push, or a commit that is not this pull request's)`;
    } else if (obs.state === "closed") {
      candidate = obs.merged === true ? "merged" : "closed";
      reason = obs.merged === true
        ? "the pull request was merged during the watch"
        : "the pull request was closed (not merged) during the watch";
    } else {
      const signature = await checksSignature(entries);
      if (signature !== previousSignature) {
        changesSeen++;
        if (transitions.length < WATCH_TRANSITIONS_MAX) {
          transitions.push({ at: new Date(now).toISOString(), signature, summary: summarize(entries) });
        } else transitionsTruncated = true;
        if (req.until === "change" && previousSignature !== undefined) {
          candidate = "changed";
          reason = "CI changed materially";
        }
        previousSignature = signature;
      }
      const detail = verdictDetail(entries, {
        coverageComplete: obs.coverage_complete,
        failFast: req.fail_fast,
        suites: obs.suites ?? [],
        requiredOnly: required !== undefined,
      });
      if (required !== undefined && required.length === 0) {
        candidate = "no_checks";
        reason = `the base branch ${obs.base_ref ?? ""} requires no status checks (neither its rulesets nor ` +
          `its classic protection)`;
      } else if (detail.verdict !== "pending") {
        candidate = detail.verdict;
        reason = detail.reason;
        if (detail.verdict === "incomplete" && (obs.coverage_gaps ?? []).length > 0) {
          reason = `${detail.reason}: ${(obs.coverage_gaps ?? []).join("; ")}`;
        }
      } else if (entries.length === 0 && now - startedAt >= req.first_check_grace_ms) {
        candidate = "no_checks";
        // As gh, only check runs and statuses count; a suite without runs is named, not waited for (GitHub
        // Actions leaves some queued with no runs for good).
        const suitesPending = summarizeSuites(obs.suites ?? []).pending;
        reason = `no check registered within ${req.first_check_grace_ms} ms` + (suitesPending === 0 ? "" : (
          `; ${suitesPending} check suite(s) queued or in progress without runs (their workflows may still be ` +
          `waiting for a runner: watch again to wait longer)`
        ));
      } else if (candidate === undefined) reason = detail.reason;
    }
    const settles = candidate !== undefined && SETTLED_OUTCOMES.has(candidate);
    if (
      candidate !== undefined && candidate === confirming?.outcome &&
      (!settles || now - confirming.at >= settleMs)
    ) return await finish({ outcome: candidate, reason }, reading);
    if (candidate !== undefined && candidate !== "changed") {
      // Re-read before declaring a verdict: a check may be registering right now. Dependent jobs
      // and later workflows appear only after their predecessors finish, so a pass is re-read
      // only after a settle delay.
      if (confirming?.outcome !== candidate) confirming = { outcome: candidate, at: now };
      if (!settles) continue;
      const wait = Math.min(settleMs - (now - confirming.at), deadline - now);
      if (wait <= 0) {
        return await finish({
          outcome: "timed_out",
          reason: `the deadline came before the ${candidate} reading could be confirmed`,
        }, reading);
      }
      // The counts of the reading being confirmed: the last poll's would lag it (they stay until replaced).
      const s = summarize(entries);
      ctx.report({
        phase: "confirming",
        message: `${counts()}; ${s.passed} passed, ${s.failed} failed, ${s.pending} pending; ${candidate} unless` +
          ` a check registers within ${Math.ceil(wait / 1000)} s`,
        completedItems: s.passed + s.failed,
        totalItems: s.total,
        nextPollAt: now + wait,
      });
      await clock.sleep(wait, signal);
      continue;
    }
    if (candidate === "changed") return await finish({ outcome: "changed", reason }, reading);
    confirming = undefined;
    if (now >= deadline) {
      return await finish({ outcome: "timed_out", reason: `still pending at the deadline: ${reason}` }, reading);
    }
    let wait = Math.min(req.poll_interval_ms, deadline - now);
    // Budget the rate limit: when what is left of it would run out before its reset at this
    // interval (an anonymous watch pays for every 304), poll less often.
    const paced = pacedWaitMs(wait, {
      perPoll: countedThisPoll,
      rateLimit: budgetView(gh, rateWindow, { countedThisPoll }),
      now,
      deadline,
    });
    if (paced > wait) {
      pacedPolls++;
      wait = Math.min(paced, deadline - now);
    }
    const s = summarize(entries);
    ctx.report({
      phase: "waiting_for_checks",
      message: `${counts()}; ${s.passed} passed, ${s.failed} failed, ${s.pending} pending`,
      completedItems: s.passed + s.failed,
      totalItems: s.total,
      nextPollAt: now + wait,
    });
    await clock.sleep(wait, signal);
  }
}

/** How a watch has polled so far (what {@linkcode anonymousCostOf} reads besides the counters). */
export interface WatchPolling {
  /** Polls made. */
  polls: number;
  /** The requested interval between polls. */
  pollIntervalMs: number;
  /** Polls whose wait was stretched to fit the rate limit. */
  pacedPolls: number;
}

/**
 * What an anonymous watch cost after `polling.polls` polls at `polling.pollIntervalMs`, `polling.pacedPolls`
 * of them stretched: counted requests a poll (two decimals, 0 before the first poll), the hourly rate at
 * the interval, against the limit GitHub's headers name (else {@linkcode GITHUB_ANONYMOUS_LIMIT_PER_HOUR}).
 */
export function anonymousCostOf(stats: ReturnType<PullObserver["stats"]>, polling: WatchPolling): AnonymousCost {
  const { polls, pollIntervalMs, pacedPolls } = polling;
  const perPoll = polls === 0 ? 0 : Math.round((stats.requests / polls) * 100) / 100;
  const perHour = Math.round(perPoll * (3_600_000 / pollIntervalMs));
  const headerLimit = stats.rate_limit?.["limit"];
  const limit = typeof headerLimit === "number" ? headerLimit : GITHUB_ANONYMOUS_LIMIT_PER_HOUR;
  return {
    counted_not_modified: stats.not_modified_counted ?? 0,
    counted_per_poll: perPoll,
    counted_per_hour_at_interval: perHour,
    hourly_limit: limit,
    paced_polls: pacedPolls,
    note: `anonymous watch: GitHub counts every request, 304s included (${stats.not_modified_counted ?? 0} ` +
      `counted 304s here); about ${perHour} counted requests/h at this poll interval against ${limit}/h. ` +
      "Set GITHUB_TOKEN (or GH_TOKEN) so unchanged polls are free.",
  };
}

/** `value` when it can name a git ref ({@linkcode isGitRef}); else a github_invalid error naming `what`. */
export function requireRef(value: unknown, what: string): string {
  if (isGitRef(value)) return value;
  throw new AppError(
    "github_invalid",
    `Cannot use ${what} GitHub answered: expected a git ref, current value is ${
      JSON.stringify(typeof value === "string" ? value.slice(0, GITHUB_VALUE_QUOTED_CHARS_MAX) : value)
    }`,
    { retryable: false },
  );
}

/** A commit SHA read from GitHub, or the typed `github_invalid` error (never an internal TypeError later). */
export function requireSha(value: unknown, what: string): string {
  if (isCommitSha(value)) return value;
  throw new AppError(
    "github_invalid",
    `Cannot use ${what} GitHub answered: expected 40 lowercase hex digits, current value is ${
      JSON.stringify(typeof value === "string" ? value.slice(0, GITHUB_VALUE_QUOTED_CHARS_MAX) : value)
    }`,
    { retryable: false },
  );
}
