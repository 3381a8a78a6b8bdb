/**
 * The runner of `github.sync_threads` (src/jobs/kinds.ts JobKind): each repository's metadata and
 * issue/PR headers into the corpus, one isolated item each, one request budget for the job. Exists
 * only where jobs execute; the spec is src/github/sync_spec.ts, the policy and types sync_kind.ts.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { GITHUB_PAGES_MAX, SYNC_RATE_LIMIT_WAIT_MS_MAX } from "../base/limits.ts";
import type { AnyJobKind, JobContext } from "../jobs/kinds.ts";
import type { CorpusRows } from "../store/corpus_rows.ts";
import type { ThreadObservation } from "../store/corpus_types.ts";
import { type GitHubClient, type RepoRef, RequestBudget } from "./client.ts";
import { isNoAnswer } from "./retry_policy.ts";
import { type SyncItem, syncPolicy, type SyncResult } from "./sync_kind.ts";
import { listIssuesStable } from "./sync_listing.ts";
import type { SyncRequest } from "./sync_spec.ts";
import type { GitHubIssue } from "./types.ts";

/** Dependencies of the sync runner. */
export interface SyncDeps {
  client(): GitHubClient;
  corpus(): CorpusRows;
}

/** What every repository of one sync job is synced with. */
interface SyncRun {
  ctx: JobContext<SyncRequest>;
  gh: GitHubClient;
  corpus: CorpusRows;
  /** The job's request budget, shared by its repositories. */
  budget: RequestBudget;
}

/** The runnable sync kind: its policy and the per-repository loop over `deps`. */
export function syncRunner(deps: SyncDeps): AnyJobKind {
  return { ...syncPolicy, run: (ctx) => runSync(ctx as JobContext<SyncRequest>, deps) };
}

/** A GitHub issue or pull request header as the corpus observes it (times in epoch ms). */
export function toObservation(issue: GitHubIssue): ThreadObservation {
  const pr = issue.pull_request;
  return {
    number: issue.number,
    kind: pr === undefined ? "issue" : "pull_request",
    state: issue.state,
    title: issue.title,
    body: issue.body,
    labels: issue.labels.map((l) => typeof l === "string" ? l : l.name),
    author: issue.user?.login ?? null,
    comments: issue.comments,
    created_at: Date.parse(issue.created_at),
    updated_at: Date.parse(issue.updated_at),
    closed_at: issue.closed_at === null ? null : Date.parse(issue.closed_at),
    merged: pr === undefined ? null : pr.merged_at === undefined ? null : pr.merged_at !== null,
    html_url: issue.html_url,
  };
}

async function runSync(ctx: JobContext<SyncRequest>, deps: SyncDeps): Promise<SyncResult> {
  const req = ctx.request;
  const gh = deps.client();
  const corpus = deps.corpus();
  const budget = new RequestBudget(req.max_requests);
  const run: SyncRun = { ctx, gh, corpus, budget };
  const items: SyncItem[] = [];
  const unique = [...new Set(req.repositories)];
  // Duplicates are synced once, so progress counts distinct repositories.
  ctx.report({ phase: "syncing", completedItems: 0, totalItems: unique.length });
  const byKey = new Map<string, SyncItem>();
  // Once GitHub gave no answer at all (a network error past the retries), the repositories after it are not
  // tried: each would spend the same retries (seconds each, minutes for a long list) to learn the same thing.
  let unanswered: SyncItem | undefined;
  for (const [index, key] of unique.entries()) {
    ctx.signal.throwIfAborted();
    let item: SyncItem;
    if (unanswered === undefined) {
      const synced = await syncOne(key, run);
      item = synced.item;
      if (synced.noAnswer) unanswered = item;
    } else {
      item = notAttempted(key, unanswered);
    }
    byKey.set(key, item);
    ctx.report({ phase: "syncing", completedItems: index + 1, message: `${key}: ${item.item_status}` });
  }
  for (const key of req.repositories) items.push(byKey.get(key) as SyncItem);
  return {
    batch_status: items.every((i) => i.item_status === "complete") ? "complete" : "partial",
    items,
    requests: gh.stats.requests,
    not_modified: gh.stats.not_modified,
    budget: { max: budget.max, used: budget.used },
    rate_limit: { ...gh.stats.rateLimit },
    authenticated: gh.authenticated,
  };
}

/** Syncs repository `key` (`owner/name`) within `run`. */
async function syncOne(key: string, run: SyncRun): Promise<{ item: SyncItem; noAnswer: boolean }> {
  const { ctx, gh, corpus, budget } = run;
  const req = ctx.request;
  const [owner, name] = key.split("/") as [string, string];
  const repository: RepoRef = { owner, repo: name };
  const options = {
    signal: ctx.signal,
    budget,
    maxRateLimitWaitMs: SYNC_RATE_LIMIT_WAIT_MS_MAX,
    // While it waits out a rate limit, hosts are told to look again when GitHub will answer.
    onRateLimitWait: (untilMs: number) =>
      ctx.report({
        phase: "rate_limited",
        message: `${key}: waiting for GitHub's rate limit to reset`,
        nextPollAt: untilMs,
      }),
  };
  try {
    const repo = await gh.getRepository(repository, options);
    const observedAt = ctx.clock.now();
    await corpus.repositoryUpsert({
      owner,
      name,
      description: repo.data.description,
      topics: repo.data.topics ?? [],
      default_branch: repo.data.default_branch,
      stargazers_count: repo.data.stargazers_count,
      license: repo.data.license?.spdx_id ?? repo.data.license?.key ?? null,
      archived: repo.data.archived,
      observed_at: observedAt,
    });
    // Newest first, so a limit keeps the most recent threads. One kind needs more pages
    // because the listing mixes issues and pull requests.
    const limit = req.limit_per_repository;
    // Re-listed until stable, so a thread updated while the pages are read is not skipped.
    const listing = await listIssuesStable(gh, repository, {
      ...options,
      state: req.state,
      ...(req.updated_after === undefined ? {} : { since: req.updated_after }),
      ...(req.kind === "both"
        ? { itemsMax: limit }
        : { pagesMax: Math.min(GITHUB_PAGES_MAX, Math.ceil(limit / 50) + 1) }),
    });
    // A thread that left the state filter while it was listed is stored as it is now, outside the limit.
    let kept = 0;
    const wanted = listing.items.map(toObservation)
      .filter((t) => req.kind === "both" || t.kind === req.kind)
      .filter((t) => (req.state !== "all" && t.state !== req.state) || kept++ < limit);
    const counts = await corpus.threadsUpsert(key, wanted, { observedAt: ctx.clock.now() });
    const item: SyncItem = {
      key,
      item_status: "complete",
      value: {
        threads_seen: wanted.length,
        ...counts,
        listing_complete: listing.complete,
        listing_stable: listing.stable,
        synced_at: new Date(ctx.clock.now()).toISOString(),
      },
    };
    return { item, noAnswer: false };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    // The item says "see the server log": this is that log line (expected failures are typed in the item).
    if (!(err instanceof AppError)) {
      ctx.log.error("syncing a repository failed", { repository: key, error: String(err) });
    }
    return { item: itemForError(key, err), noAnswer: isNoAnswer(err) };
  }
}

/** The item of a repository not tried because GitHub gave no answer while `unanswered` was synced. */
export function notAttempted(key: string, unanswered: SyncItem): SyncItem {
  return {
    key,
    item_status: "retryable",
    reason: "transient",
    message: `Not attempted: GitHub gave no answer while ${unanswered.key} was synced just before; sync again later`,
    ...(unanswered.retry_after_ms === undefined ? {} : { retry_after_ms: unanswered.retry_after_ms }),
  };
}

/** The item of a repository whose sync failed: retryable, unavailable or failed by its error's code;
 * an error that is not an AppError is answered only as `internal` (its text never reaches the caller). */
export function itemForError(key: string, err: unknown): SyncItem {
  if (!(err instanceof AppError)) {
    return { key, item_status: "failed", reason: "internal", message: "Internal error; see the server log" };
  }
  const base = { key, reason: err.code, message: err.message };
  switch (err.code) {
    case "rate_limited":
    case "transient":
    case "budget_exhausted":
    case "store_busy":
    case "storage_unavailable":
      return {
        ...base,
        item_status: "retryable",
        ...(err.retryAfterMs === undefined ? {} : { retry_after_ms: err.retryAfterMs }),
      };
    case "not_found":
    case "access_denied":
      return { ...base, item_status: "unavailable" };
    default:
      return { ...base, item_status: "failed" };
  }
}
