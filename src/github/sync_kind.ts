/**
 * Job kind `github.sync_threads`: reads repository metadata and issue/PR headers
 * (paginated, conditional) into the offline corpus. Each repository is an isolated item
 * with outcome `complete | retryable | unavailable | failed`; the request budget is
 * shared across the whole job.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { GITHUB_PAGES_MAX, SYNC_RATE_LIMIT_WAIT_MS_MAX, SYNC_REQUESTS_DEFAULT } from "../base/limits.ts";
import { defineJobKind, type JobContext } from "../jobs/kinds.ts";
import type { CorpusRows } from "../store/corpus_rows.ts";
import type { ThreadObservation } from "../store/corpus_types.ts";
import { type GitHubClient, RequestBudget } from "./client.ts";
import { listIssuesStable } from "./sync_listing.ts";
import type { GitHubIssue } from "./types.ts";
import type { SyncRequest } from "./sync_input.ts";

export const SYNC_KIND = "github.sync_threads";
export { SYNC_RATE_LIMIT_WAIT_MS_MAX, SYNC_REQUESTS_DEFAULT };

export type { SyncRequest };

/** One repository's outcome. */
export interface SyncItem {
  key: string;
  item_status: "complete" | "retryable" | "unavailable" | "failed";
  reason?: string;
  message?: string;
  retry_after_ms?: number;
  value?: {
    threads_seen: number;
    inserted: number;
    updated: number;
    unchanged: number;
    stale: number;
    /** Every page was read (nothing left behind by the page bound or the limit) and no thread
     * was still moving between pages when the last re-listing was read. */
    listing_complete: boolean;
    synced_at: string;
  };
}

export interface SyncResult {
  batch_status: "complete" | "partial";
  items: SyncItem[];
  requests: number;
  not_modified: number;
  budget: { max: number; used: number };
  /** The last rate-limit state GitHub reported (limit, remaining, used, reset_at, resource). */
  rate_limit: Record<string, unknown>;
  authenticated: boolean;
}

export interface SyncDeps {
  /**
   * Validates and normalizes a request at admission: `parseSyncInput` (src/github/sync_input.ts,
   * zod) where jobs are admitted, `runOnlyParse` in the network worker, which only runs them.
   */
  parse(input: unknown): SyncRequest;
  client(): GitHubClient;
  corpus(): CorpusRows;
}

/** Creates the job kind. */
export function syncKind(deps: SyncDeps) {
  return defineJobKind<SyncRequest, SyncResult>({
    kind: SYNC_KIND,
    parse: (input) => deps.parse(input),
    run: (ctx) => runSync(ctx, deps),
    outcome: (result) => result.batch_status === "complete" ? "succeeded" : "partial",
  });
}

function toObservation(issue: GitHubIssue): ThreadObservation {
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
  const items: SyncItem[] = [];
  const unique = [...new Set(req.repositories)];
  // Duplicates are synced once, so progress counts distinct repositories.
  ctx.report({ phase: "syncing", completedItems: 0, totalItems: unique.length });
  const byKey = new Map<string, SyncItem>();
  for (const [index, key] of unique.entries()) {
    ctx.signal.throwIfAborted();
    const item = await syncOne(key, ctx, gh, corpus, budget);
    byKey.set(key, item);
    ctx.report({ completedItems: index + 1, message: `${key}: ${item.item_status}` });
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

async function syncOne(
  key: string,
  ctx: JobContext<SyncRequest>,
  gh: GitHubClient,
  corpus: CorpusRows,
  budget: RequestBudget,
): Promise<SyncItem> {
  const req = ctx.request;
  const [owner, name] = key.split("/") as [string, string];
  const options = { signal: ctx.signal, budget, maxRateLimitWaitMs: SYNC_RATE_LIMIT_WAIT_MS_MAX };
  try {
    const repo = await gh.getRepository(owner, name, options);
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
    const listing = await listIssuesStable(gh, owner, name, {
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
    const counts = await corpus.threadsUpsert(key, wanted, ctx.clock.now());
    return {
      key,
      item_status: "complete",
      value: {
        threads_seen: wanted.length,
        ...counts,
        listing_complete: listing.complete,
        synced_at: new Date(ctx.clock.now()).toISOString(),
      },
    };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return itemForError(key, err);
  }
}

function itemForError(key: string, err: unknown): SyncItem {
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
