/**
 * The input schemas of the corpus tools, one per tool: what `tools/list` advertises and what the
 * tool enforces before calling the corpus function (src/corpus/get.ts, search.ts). Every number
 * is the bound the function itself uses, from src/base/limits.ts, so an argument the schema
 * admits is never refused for its shape by the function (which still parses the references and
 * the cursor it is given, and answers those errors as before).
 *
 * @module
 */

import { z } from "zod";
import {
  CORPUS_ITEMS_PER_CALL_MAX,
  SEARCH_LABEL_CHARS_MAX,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_CHARS_MAX,
} from "../base/limits.ts";
import type { GetPullRequestChecksInput, GetRepositoriesInput, GetThreadsInput } from "../corpus/get.ts";
import type { SearchThreadsInput } from "../corpus/search.ts";

/** Text with something besides white space (the functions refuse blank text). */
const notBlank = (value: string) => value.trim() !== "";

/** 1..CORPUS_ITEMS_PER_CALL_MAX strings (references or names; the function parses each). */
const Items = z.array(z.string()).min(1).max(CORPUS_ITEMS_PER_CALL_MAX);

/** `corpus.search_threads`. */
export const SearchThreadsArgs = z.object({
  query: z.string().min(1).max(SEARCH_QUERY_CHARS_MAX).refine(notBlank, "expected text to search for, not blank text")
    .describe(`Free text (1..${SEARCH_QUERY_CHARS_MAX} characters): words are ANDed, word* is a prefix`),
  repositories: Items.optional().describe(`Only these repositories, owner/repo (1..${CORPUS_ITEMS_PER_CALL_MAX})`),
  kind: z.enum(["issue", "pull_request", "both"]).optional(),
  state: z.enum(["open", "closed", "all"]).optional(),
  label: z.string().min(1).max(SEARCH_LABEL_CHARS_MAX).refine(notBlank, "expected a label name, not blank text")
    .optional(),
  limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
  cursor: z.string().optional(),
}).strict();

/** `corpus.get_threads`. */
export const GetThreadsArgs = z.object({
  threads: Items.describe(`Thread references owner/repo#n (1..${CORPUS_ITEMS_PER_CALL_MAX})`),
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

// Compile-time checks: what each schema parses to is the corpus function's input.
const _search: SearchThreadsInput = {} as z.output<typeof SearchThreadsArgs>;
const _threads: GetThreadsInput = {} as z.output<typeof GetThreadsArgs>;
const _repositories: GetRepositoriesInput = {} as z.output<typeof GetRepositoriesArgs>;
const _checks: GetPullRequestChecksInput = {} as z.output<typeof GetPullRequestChecksArgs>;
void [_search, _threads, _repositories, _checks];
