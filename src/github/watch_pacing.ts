/**
 * Pacing an anonymous watch: GitHub counts every anonymous request (304s included) against a
 * small hourly limit, so the watch stretches its poll waits to last until the limit's reset.
 * Functions over the observer's counters (`budgetView` also moves the caller's rate window on).
 *
 * @module
 */

import type { PullObserver } from "./watch_kind.ts";

/** Options of {@linkcode budgetView}. */
export interface BudgetViewOptions {
  /** Requests GitHub counted in the poll just made (a new window began at most that many requests ago). */
  countedThisPoll: number;
}

/**
 * The rate-limit state pacing reads. Anonymous: what is left is at most the limit less what this
 * watch itself was counted (every 304 included), whatever a server's headers say about 304s.
 * `window` moves on when GitHub's reset does.
 */
export function budgetView(
  gh: PullObserver,
  window: RateWindow,
  options: BudgetViewOptions,
): Record<string, unknown> | undefined {
  const { countedThisPoll } = options;
  const stats = gh.stats();
  const rl = stats.rate_limit;
  if (gh.authenticated || rl === undefined) return rl;
  const limit = rl["limit"], remaining = rl["remaining"], resetAt = rl["reset_at"];
  if (typeof limit !== "number" || typeof remaining !== "number") return rl;
  // The limit is per window (GitHub's reset): count only what this watch spent since the current one
  // began, which is at most this poll's requests when the reset time has just moved.
  if (typeof resetAt === "number" && resetAt !== window.resetAt) {
    window.resetAt = resetAt;
    window.requestsBefore = stats.requests - countedThisPoll;
  }
  const spent = stats.requests - window.requestsBefore;
  return { ...rl, remaining: Math.max(0, Math.min(remaining, limit - spent)) };
}

/** The rate-limit window an anonymous watch is pacing itself in. */
export interface RateWindow {
  resetAt: number | undefined;
  /** The watch's counted requests before the window began. */
  requestsBefore: number;
}

/** Options of {@linkcode pacedWaitMs}: the poll's cost, the rate limit and the clock. */
export interface PacedWaitOptions {
  /** Counted requests a poll. */
  perPoll: number;
  /** The rate-limit state (`remaining`, `reset_at`), as {@linkcode budgetView} gives it. */
  rateLimit: Record<string, unknown> | undefined;
  /** The current instant (clock ms). */
  now: number;
  /** The watch's deadline (clock ms; default none). */
  deadline?: number;
}

/**
 * The wait before the next poll so that `remaining` requests last, at `options.perPoll` counted
 * requests a poll, until the limit's reset or the watch's deadline, whichever comes first; `wait`
 * when they do (or nothing is known). Never shorter than `wait`.
 */
export function pacedWaitMs(wait: number, options: PacedWaitOptions): number {
  const { perPoll, rateLimit, now, deadline = Number.POSITIVE_INFINITY } = options;
  const remaining = rateLimit?.["remaining"];
  const resetAt = rateLimit?.["reset_at"];
  if (perPoll <= 0 || typeof remaining !== "number" || typeof resetAt !== "number" || resetAt <= now) return wait;
  const pollsLeft = Math.floor(remaining / perPoll);
  if (pollsLeft <= 0) return Math.max(wait, resetAt - now);
  const horizon = Math.min(resetAt, deadline) - now;
  return Math.max(wait, Math.ceil(horizon / pollsLeft));
}
