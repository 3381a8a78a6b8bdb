/**
 * The shipped product's MCP tools over one store: `jobs.get` / `jobs.cancel`, a job tool per
 * job kind spec (src/github/watch_spec.ts, sync_spec.ts) and the offline corpus reads, each
 * parsing its arguments with the schema it advertises (src/corpus/inputs.ts; the corpus functions
 * take what it parsed). The kinds' runners live apart (src/cli/product_runners.ts), so the network
 * worker loads no MCP code.
 *
 * @module
 */

import { getPullRequestChecks, getRepositories, getThreads } from "../corpus/get.ts";
import { GetPullRequestChecksArgs, GetRepositoriesArgs, GetThreadsArgs, SearchThreadsArgs } from "../corpus/inputs.ts";
import { EXAMPLE_REPOSITORY, EXAMPLE_THREAD_REF } from "../corpus/refs.ts";
import { searchThreads } from "../corpus/search.ts";
import { syncSpec } from "../github/sync_spec.ts";
import { watchSpec } from "../github/watch_spec.ts";
import type { JobControl } from "../jobs/control.ts";
import type { Store } from "../store/store.ts";
import {
  getPullRequestChecksOutput,
  getRepositoriesOutput,
  getThreadsOutput,
  searchThreadsOutput,
} from "./corpus_schemas.ts";
import { okResult, parseArgs } from "./tool_kit.ts";
import { ALWAYS_LOAD_META, jobsTools, jobTool, LOCAL_READ, type ToolDef } from "./tools.ts";

/** Every tool the shipped server lists (before `--read-only` filtering). */
export function productTools(control: JobControl, store: Store): ToolDef[] {
  const corpus = store.corpus;
  return [
    ...jobsTools(control),
    // Claude Code loads the watch up front: it is the tool a session reaches for first.
    jobTool(control, watchSpec, { _meta: { ...ALWAYS_LOAD_META } }),
    jobTool(control, syncSpec),
    {
      name: "corpus.search_threads",
      description: "Full-text search over synced issues and pull requests (offline; titles and labels weigh " +
        "most). Filters: repositories, kind, state, label. Page with next_cursor. Repositories never synced are " +
        "reported as not_synced: their matches are unknown, not absent.",
      inputSchema: SearchThreadsArgs,
      outputSchema: searchThreadsOutput,
      annotations: { title: "Search the local corpus", ...LOCAL_READ },
      call: (args) => Promise.resolve(okResult({ ...searchThreads(corpus, parseArgs(SearchThreadsArgs, args)) })),
    },
    {
      name: "corpus.get_threads",
      description: "Read synced issues/pull requests by reference owner/repo#n (1..100), compact or full. " +
        "Offline; unsynced threads are reported as not_synced.",
      inputSchema: GetThreadsArgs,
      outputSchema: getThreadsOutput,
      annotations: { title: "Read threads from the corpus", ...LOCAL_READ },
      call: (args) =>
        Promise.resolve(
          okResult({
            ...getThreads(corpus, parseArgs(GetThreadsArgs, args, { example: { threads: [EXAMPLE_THREAD_REF] } })),
          }),
        ),
    },
    {
      name: "corpus.get_repositories",
      description: "Read synced repository metadata by owner/repo (1..100). Offline.",
      inputSchema: GetRepositoriesArgs,
      outputSchema: getRepositoriesOutput,
      annotations: { title: "Read repositories from the corpus", ...LOCAL_READ },
      call: (args) =>
        Promise.resolve(
          okResult({
            ...getRepositories(
              corpus,
              parseArgs(GetRepositoriesArgs, args, { example: { repositories: [EXAMPLE_REPOSITORY] } }),
            ),
          }),
        ),
    },
    {
      name: "corpus.get_pull_request_checks",
      description: "Read the last stored CI observation (written by github.wait_pull_request_checks) for pull " +
        "requests owner/repo#n (1..100). Offline.",
      inputSchema: GetPullRequestChecksArgs,
      outputSchema: getPullRequestChecksOutput,
      annotations: { title: "Read stored pull request checks", ...LOCAL_READ },
      call: (args) =>
        Promise.resolve(
          okResult({
            ...getPullRequestChecks(
              corpus,
              parseArgs(GetPullRequestChecksArgs, args, { example: { pull_requests: [EXAMPLE_THREAD_REF] } }),
            ),
          }),
        ),
    },
  ];
}
