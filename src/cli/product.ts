/**
 * The shipped product's tools over one store (its job kinds live in product_kinds.ts, which the
 * network worker loads without any MCP code).
 *
 * @module
 */

import { z } from "zod";
import { SEARCH_LIMIT_MAX } from "../base/limits.ts";
import { getPullRequestChecks, getRepositories, getThreads } from "../corpus/get.ts";
import { searchThreads } from "../corpus/search.ts";
import { SyncResultOutput, WatchResultOutput } from "../github/result_schemas.ts";
import { type Clock, systemClock } from "../base/clock.ts";
import type { Logger } from "../base/log.ts";
import { parseSyncInput, SyncInput } from "../github/sync_input.ts";
import { SYNC_KIND } from "../github/sync_kind.ts";
import { parseWatchInput, WatchInput } from "../github/watch_input.ts";
import { WATCH_KIND } from "../github/watch_kind.ts";
import type { AnyJobKind, JobKindRegistry } from "../jobs/kinds.ts";
import type { JobControl } from "../jobs/control.ts";
import {
  GetPullRequestChecksOutput,
  GetRepositoriesOutput,
  GetThreadsOutput,
  SearchThreadsOutput,
} from "../mcp/corpus_schemas.ts";
import { okResult, parseArgs } from "../mcp/tool_kit.ts";
import { ALWAYS_LOAD_META, GITHUB_READ, jobsTools, jobTool, LOCAL_READ, type ToolDef } from "../mcp/tools.ts";
import type { Store } from "../store/store.ts";
import * as kinds from "./product_kinds.ts";
export { type GitHubConfig, githubConfigFromEnv } from "./product_kinds.ts";

/** Where jobs are admitted, each kind validates its request with its zod schema. */
export const PRODUCT_INPUTS: kinds.ProductInputs = { watch: parseWatchInput, sync: parseSyncInput };

/** The product's job kinds over one store, validating requests at admission. */
export function productKinds(
  store: Store,
  gh: kinds.GitHubConfig,
  log: Logger,
  clock?: Clock,
  fetch?: typeof globalThis.fetch,
): AnyJobKind[] {
  return kinds.productKinds(store, gh, log, clock ?? systemClock, PRODUCT_INPUTS, fetch);
}

/** A registry of the product kinds, validating requests at admission. */
export function productRegistry(store: Store, gh: kinds.GitHubConfig, log: Logger, clock?: Clock): JobKindRegistry {
  return kinds.productRegistry(store, gh, log, clock, PRODUCT_INPUTS);
}

const ThreadRefs = z.array(z.string()).min(1).max(100);

/** Every tool the shipped server lists (before `--read-only` filtering). */
export function productTools(control: JobControl, store: Store): ToolDef[] {
  const corpus = store.corpus;
  return [
    ...jobsTools(control),
    jobTool(control, {
      name: WATCH_KIND,
      kind: WATCH_KIND,
      description: "Watch a pull request's CI (check runs and commit statuses) until it reaches a verdict " +
        "(until: terminal) or changes materially (until: change). longcall polls GitHub itself with conditional " +
        "requests; you get a task or a JobReference at once. Outcomes: succeeded, failed (with each failing " +
        "check's URL, output title, summary and first annotations in `failures`), timed_out, superseded (new " +
        "push), no_checks, changed, incomplete (coverage not proven), action_required (workflows await a " +
        "maintainer's approval), closed, merged; `reason` says why. required_only: true watches only the base " +
        "branch's required checks (unreadable rules: error required_checks_unavailable).",
      inputSchema: WatchInput,
      resultSchema: WatchResultOutput,
      annotations: { title: "Wait for pull request checks", ...GITHUB_READ },
      _meta: { ...ALWAYS_LOAD_META },
    }),
    jobTool(control, {
      name: SYNC_KIND,
      kind: SYNC_KIND,
      description: "Sync repository metadata and issue/pull request headers from GitHub into the local corpus " +
        "(then search it offline with corpus.search_threads). Each repository gets its own outcome: complete, " +
        "retryable (with retry_after_ms), unavailable or failed.",
      inputSchema: SyncInput,
      resultSchema: SyncResultOutput,
      annotations: { title: "Sync issues and pull requests", ...GITHUB_READ },
    }),
    {
      name: "corpus.search_threads",
      description: "Full-text search over synced issues and pull requests (offline; titles and labels weigh " +
        "most). Filters: repositories, kind, state, label. Page with next_cursor. Repositories never synced are " +
        "reported as not_synced: their matches are unknown, not absent.",
      inputSchema: z.object({
        query: z.string().min(1).max(500),
        repositories: z.array(z.string()).max(100).optional(),
        kind: z.enum(["issue", "pull_request", "both"]).optional(),
        state: z.enum(["open", "closed", "all"]).optional(),
        label: z.string().max(100).optional(),
        limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
        cursor: z.string().optional(),
      }).strict(),
      outputSchema: SearchThreadsOutput,
      annotations: { title: "Search the local corpus", ...LOCAL_READ },
      call: (args) => Promise.resolve(okResult({ ...searchThreads(corpus, recordArgs(args)) })),
    },
    {
      name: "corpus.get_threads",
      description: "Read synced issues/pull requests by reference owner/repo#n (1..100), compact or full. " +
        "Offline; unsynced threads are reported as not_synced.",
      inputSchema: z.object({ threads: ThreadRefs, view: z.enum(["compact", "full"]).optional() }).strict(),
      outputSchema: GetThreadsOutput,
      annotations: { title: "Read threads from the corpus", ...LOCAL_READ },
      call: (args) => Promise.resolve(okResult({ ...getThreads(corpus, recordArgs(args)) })),
    },
    {
      name: "corpus.get_repositories",
      description: "Read synced repository metadata by owner/repo (1..100). Offline.",
      inputSchema: z.object({ repositories: z.array(z.string()).min(1).max(100) }).strict(),
      outputSchema: GetRepositoriesOutput,
      annotations: { title: "Read repositories from the corpus", ...LOCAL_READ },
      call: (args) => Promise.resolve(okResult({ ...getRepositories(corpus, recordArgs(args)) })),
    },
    {
      name: "corpus.get_pull_request_checks",
      description: "Read the last stored CI observation (written by github.wait_pull_request_checks) for pull " +
        "requests owner/repo#n (1..100). Offline.",
      inputSchema: z.object({ pull_requests: ThreadRefs }).strict(),
      outputSchema: GetPullRequestChecksOutput,
      annotations: { title: "Read stored pull request checks", ...LOCAL_READ },
      call: (args) => Promise.resolve(okResult({ ...getPullRequestChecks(corpus, recordArgs(args)) })),
    },
  ];
}

/** Tool arguments as a record; the corpus functions validate every field themselves. */
function recordArgs<T>(args: unknown): T {
  return parseArgs(z.record(z.string(), z.unknown()), args) as T;
}
