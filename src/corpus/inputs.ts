/**
 * The input schemas of the corpus reads, one per tool: what `tools/list` advertises, what the
 * tool (src/mcp/product_tools.ts) and `longcall search` (src/cli/search_cmd.ts) parse with, once,
 * at the boundary, and (as `z.output`) the input type of the corpus function (src/corpus/get.ts,
 * search.ts). Every number is a bound from src/base/limits.ts. The functions take the parsed
 * input and check only what a schema does not say: each reference's and name's grammar (answered
 * with its own path, `$.threads.1`), a query with nothing to search for, and a cursor's integrity.
 *
 * @module
 */

import { z } from "zod";
import {
  CORPUS_ITEMS_PER_CALL_MAX,
  SEARCH_CURSOR_CHARS_MAX,
  SEARCH_LABEL_CHARS_MAX,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_CHARS_MAX,
} from "../base/limits.ts";

/** Text with something besides white space. */
const notBlank = (value: string) => value.trim() !== "";

/** 1..CORPUS_ITEMS_PER_CALL_MAX strings (references or names; the function parses each). */
const Items = z.array(z.string()).min(1).max(CORPUS_ITEMS_PER_CALL_MAX);

/** `corpus.search_threads`. */
export const SearchThreadsArgs = z.object({
  query: z.string().min(1).max(SEARCH_QUERY_CHARS_MAX).refine(notBlank, "expected text to search for, not blank text")
    .describe(`Free text (1..${SEARCH_QUERY_CHARS_MAX} characters): words are ANDed, word* is a prefix`),
  repositories: Items.optional().describe(`Only these repositories, owner/repo (1..${CORPUS_ITEMS_PER_CALL_MAX})`),
  // Default both.
  kind: z.enum(["issue", "pull_request", "both"]).optional(),
  // Default all.
  state: z.enum(["open", "closed", "all"]).optional(),
  // Only threads carrying this label (case-insensitive, exact name).
  label: z.string().min(1).max(SEARCH_LABEL_CHARS_MAX).refine(notBlank, "expected a label name, not blank text")
    .optional(),
  // Hits per page, default SEARCH_LIMIT_DEFAULT.
  limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
  // next_cursor of the previous page of the same query and filters (its integrity is the function's check).
  cursor: z.string().max(SEARCH_CURSOR_CHARS_MAX).optional(),
}).strict();

/** `corpus.get_threads`. */
export const GetThreadsArgs = z.object({
  threads: Items.describe(`Thread references owner/repo#n (1..${CORPUS_ITEMS_PER_CALL_MAX})`),
  // compact (default) drops the body; full includes it.
  view: z.enum(["compact", "full"]).optional(),
}).strict();

/** `corpus.get_repositories`. */
export const GetRepositoriesArgs = z.object({
  repositories: Items.describe(`Repositories owner/repo (1..${CORPUS_ITEMS_PER_CALL_MAX})`),
}).strict();

/** `corpus.get_pull_request_checks`. */
export const GetPullRequestChecksArgs = z.object({
  pull_requests: Items.describe(`Pull request references owner/repo#n (1..${CORPUS_ITEMS_PER_CALL_MAX})`),
}).strict();

/** Input of `searchThreads` (src/corpus/search.ts), as {@linkcode SearchThreadsArgs} parses it. */
export type SearchThreadsInput = z.output<typeof SearchThreadsArgs>;
/** Input of `getThreads` (src/corpus/get.ts), as {@linkcode GetThreadsArgs} parses it. */
export type GetThreadsInput = z.output<typeof GetThreadsArgs>;
/** Input of `getRepositories` (src/corpus/get.ts), as {@linkcode GetRepositoriesArgs} parses it. */
export type GetRepositoriesInput = z.output<typeof GetRepositoriesArgs>;
/** Input of `getPullRequestChecks` (src/corpus/get.ts), as {@linkcode GetPullRequestChecksArgs} parses it. */
export type GetPullRequestChecksInput = z.output<typeof GetPullRequestChecksArgs>;
