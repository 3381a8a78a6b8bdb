/**
 * The shipped product: its job kinds and its tools, wired to one store and the GitHub
 * configuration read from the environment (only cli/ reads it).
 *
 * @module
 */

import { z } from "zod";
import { type Clock, systemClock } from "../base/clock.ts";
import type { Logger } from "../base/log.ts";
import { SEARCH_LIMIT_MAX } from "../base/limits.ts";
import { getPullRequestChecks, getRepositories, getThreads } from "../corpus/get.ts";
import { searchThreads } from "../corpus/search.ts";
import { GITHUB_API_URL_DEFAULT, GitHubClient, SqliteEtagCache } from "../github/client.ts";
import { clientObserver } from "../github/observer.ts";
import { SYNC_KIND, SyncInput, syncKind } from "../github/sync_kind.ts";
import { checksObservationOf, WATCH_KIND, WatchInput, watchKind } from "../github/watch_kind.ts";
import type { JobControl } from "../jobs/control.ts";
import { type AnyJobKind, JobKindRegistry } from "../jobs/kinds.ts";
import { okResult, parseArgs } from "../mcp/tool_kit.ts";
import { GITHUB_READ, jobsTools, jobTool, LOCAL_READ, type ToolDef } from "../mcp/tools.ts";
import { CorpusRows } from "../store/corpus_rows.ts";
import type { Store } from "../store/store.ts";
import { envGet } from "./config.ts";

/** Where GitHub is and how to authenticate. The token is never stored or logged. */
export interface GitHubConfig {
  baseUrl: string;
  token?: string | undefined;
}

/** Reads GitHub configuration: `LONGCALL_GITHUB_API_URL`, `GITHUB_TOKEN` / `GH_TOKEN`, `LONGCALL_GITHUB_TOKEN_FILE`. */
export function githubConfigFromEnv(): GitHubConfig {
  let token = envGet("GITHUB_TOKEN") ?? envGet("GH_TOKEN");
  const file = envGet("LONGCALL_GITHUB_TOKEN_FILE");
  if (token === undefined && file !== undefined) {
    token = Deno.readTextFileSync(file).trim() || undefined;
  }
  return { baseUrl: envGet("LONGCALL_GITHUB_API_URL") ?? GITHUB_API_URL_DEFAULT, token };
}

/** The product's job kinds over one store. GitHub clients are created per job (per-job counters). */
export function productKinds(
  store: Store,
  gh: GitHubConfig,
  log: Logger,
  clock: Clock = systemClock,
): AnyJobKind[] {
  const corpus = new CorpusRows(store.conn);
  const etags = new SqliteEtagCache(store.conn, clock);
  const client = () =>
    new GitHubClient({
      baseUrl: gh.baseUrl,
      ...(gh.token === undefined ? {} : { token: gh.token }),
      clock,
      log: log.child("github"),
      etagCache: etags,
    });
  return [
    watchKind({
      observer: () => clientObserver(client()),
      saveObservation: async (r) => {
        await corpus.pullRequestChecksPut(checksObservationOf(r));
      },
    }),
    syncKind({ client, corpus: () => corpus }),
  ];
}

/** A registry of the product kinds. */
export function productRegistry(store: Store, gh: GitHubConfig, log: Logger, clock?: Clock): JobKindRegistry {
  return new JobKindRegistry(productKinds(store, gh, log, clock));
}

const ThreadRefs = z.array(z.string()).min(1).max(100);

/** Every tool the shipped server lists (before `--read-only` filtering). */
export function productTools(control: JobControl, store: Store): ToolDef[] {
  const corpus = new CorpusRows(store.conn);
  return [
    ...jobsTools(control),
    jobTool(control, {
      name: WATCH_KIND,
      kind: WATCH_KIND,
      description: "Watch a pull request's CI (check runs and commit statuses) until it reaches a verdict " +
        "(until: terminal) or changes materially (until: change). longcall polls GitHub itself with conditional " +
        "requests; you get a task or a JobReference at once. Outcomes: succeeded, failed, timed_out, superseded " +
        "(new push), no_checks, changed, incomplete.",
      inputSchema: WatchInput,
      annotations: { title: "Wait for pull request checks", ...GITHUB_READ },
    }),
    jobTool(control, {
      name: SYNC_KIND,
      kind: SYNC_KIND,
      description: "Sync repository metadata and issue/pull request headers from GitHub into the local corpus " +
        "(then search it offline with corpus.search_threads). Each repository gets its own outcome: complete, " +
        "retryable (with retry_after_ms), unavailable or failed.",
      inputSchema: SyncInput,
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
      annotations: { title: "Search the local corpus", ...LOCAL_READ },
      call: (args) => Promise.resolve(okResult({ ...searchThreads(corpus, recordArgs(args)) })),
    },
    {
      name: "corpus.get_threads",
      description: "Read synced issues/pull requests by reference owner/repo#n (1..100), compact or full. " +
        "Offline; unsynced threads are reported as not_synced.",
      inputSchema: z.object({ threads: ThreadRefs, view: z.enum(["compact", "full"]).optional() }).strict(),
      annotations: { title: "Read threads from the corpus", ...LOCAL_READ },
      call: (args) => Promise.resolve(okResult({ ...getThreads(corpus, recordArgs(args)) })),
    },
    {
      name: "corpus.get_repositories",
      description: "Read synced repository metadata by owner/repo (1..100). Offline.",
      inputSchema: z.object({ repositories: z.array(z.string()).min(1).max(100) }).strict(),
      annotations: { title: "Read repositories from the corpus", ...LOCAL_READ },
      call: (args) => Promise.resolve(okResult({ ...getRepositories(corpus, recordArgs(args)) })),
    },
    {
      name: "corpus.get_pull_request_checks",
      description: "Read the last stored CI observation (written by github.wait_pull_request_checks) for pull " +
        "requests owner/repo#n (1..100). Offline.",
      inputSchema: z.object({ pull_requests: ThreadRefs }).strict(),
      annotations: { title: "Read stored pull request checks", ...LOCAL_READ },
      call: (args) => Promise.resolve(okResult({ ...getPullRequestChecks(corpus, recordArgs(args)) })),
    },
  ];
}

/** Tool arguments as a record; the corpus functions validate every field themselves. */
function recordArgs<T>(args: unknown): T {
  return parseArgs(z.record(z.string(), z.unknown()), args) as T;
}
