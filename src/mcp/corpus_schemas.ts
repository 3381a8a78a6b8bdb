/**
 * Output schemas of the corpus read tools (src/corpus/projection.ts, src/corpus/search.ts), advertised
 * as their `outputSchema` so clients that validate `structuredContent` can. Closed objects that
 * follow the view types field by field (checked at compile time below).
 *
 * @module
 */

import { z } from "zod";
import { once } from "../base/once.ts";
import type { Covers } from "../base/validation.ts";
import type { RepositoryCoverage, SearchThreadsAnswer, SearchThreadsHit } from "../corpus/search.ts";
import type { CompactThread, FullThread, PullRequestChecksItem, RepositoryItem } from "../corpus/projection.ts";
import { checkEntryOutput } from "../github/result_schemas.ts";
import { JsonValueOutput } from "./tool_kit.ts";

/**
 * Every corpus output schema, built at once on first use: only advertising (converted once to check
 * src/mcp/tool_schemas.json from source; never in the bundle or a compiled binary) and tests read them,
 * so start-up does not build them.
 */
const schemas = once(() => {
  const Count = z.number().int().min(0);

  /** `schema` or a described null (kept as `anyOf` branches: zod would emit a less portable `type` array). */
  function orNull<S extends z.ZodType>(schema: S, whenNull: string) {
    return z.union([schema, z.null().describe(whenNull)]);
  }

  const compactFields = {
    ref: z.string(),
    repository: z.string(),
    number: z.number().int().min(1),
    kind: z.enum(["issue", "pull_request"]),
    state: z.enum(["open", "closed"]),
    title: z.string(),
    labels: z.array(z.string()),
    author: orNull(z.string(), "unknown author (e.g. a deleted account)"),
    comments: Count,
    created_at: z.string(),
    updated_at: z.string(),
    closed_at: orNull(z.string(), "not closed"),
    merged: orNull(z.boolean(), "unknown, or an issue"),
    html_url: z.string(),
    synced_at: z.string(),
  };

  const CompactThreadOutput = z.object(compactFields);
  const FullThreadOutput = z.object({ ...compactFields, body: z.string(), body_truncated: z.boolean() });
  const SearchHitOutput = z.object({ ...compactFields, score: z.number() });

  const RepositoryOutput = z.object({
    full_name: z.string(),
    owner: z.string(),
    name: z.string(),
    description: orNull(z.string(), "no description"),
    topics: z.array(z.string()),
    default_branch: orNull(z.string(), "not reported"),
    stargazers_count: orNull(Count, "not reported"),
    license: orNull(z.string(), "no license detected"),
    archived: z.boolean(),
    synced_at: z.string(),
  });

  const PullRequestChecksOutput = z.object({
    ref: z.string(),
    repository: z.string(),
    number: z.number().int().min(1),
    head_sha: z.string(),
    outcome: z.string(),
    signature: z.string(),
    checks: z.array(checkEntryOutput()),
    synced_at: z.string(),
  });

  const CoverageOutput = z.object({
    repository: z.string(),
    status: z.enum(["synced", "not_synced"]),
    threads_synced_at: orNull(z.string(), "never synced"),
  });

  /**
   * A vectorized corpus answer of `value` items (src/corpus/projection.ts `CorpusBatch`). An item shortened to
   * fit the answer bound (src/mcp/fit_answer.ts) says so, and its value is then shrunk JSON of the same
   * shape that need not meet every bound of `value`.
   */
  function corpusBatch(value: z.ZodType) {
    const base = {
      key: z.string(),
      item_status: z.enum(["complete", "unavailable"]),
      reason: z.literal("not_synced").optional(),
      message: z.string().optional(),
    };
    return z.object({
      batch_status: z.enum(["complete", "partial"]),
      items: z.array(z.union([
        z.object({ ...base, value: value.optional() }),
        z.object({ ...base, value: JsonValueOutput, truncated: z.literal(true), omitted_bytes: Count }),
      ])),
    });
  }

  /** A search hit shortened to fit the answer bound: its own fields shrunk, flagged in place. */
  const ShrunkHitOutput = z.object({ truncated: z.literal(true), omitted_bytes: Count }).catchall(JsonValueOutput);

  /** `corpus.search_threads`. */
  const SearchThreadsOutput = z.object({
    items: z.array(z.union([SearchHitOutput, ShrunkHitOutput])),
    next_cursor: orNull(z.string(), "last page"),
    interpreted_query: z.string(),
    ranking: z.enum(["all_matches", "newest_matches"]),
    coverage: z.array(CoverageOutput),
  });

  /** `corpus.get_threads` (compact or full, by the request's `view`). */
  const GetThreadsOutput = corpusBatch(z.union([CompactThreadOutput, FullThreadOutput]));
  /** `corpus.get_repositories`. */
  const GetRepositoriesOutput = corpusBatch(RepositoryOutput);
  /** `corpus.get_pull_request_checks`. */
  const GetPullRequestChecksOutput = corpusBatch(PullRequestChecksOutput);

  // Compile-time checks: every field of a view is declared by its (closed) schema.
  const covered: [
    Covers<z.output<typeof CompactThreadOutput>, CompactThread>,
    Covers<z.output<typeof FullThreadOutput>, FullThread>,
    Covers<z.output<typeof SearchHitOutput>, SearchThreadsHit>,
    Covers<z.output<typeof RepositoryOutput>, RepositoryItem>,
    Covers<z.output<typeof PullRequestChecksOutput>, PullRequestChecksItem>,
    Covers<z.output<typeof CoverageOutput>, RepositoryCoverage>,
    Covers<z.output<typeof SearchThreadsOutput>, SearchThreadsAnswer>,
  ] = [true, true, true, true, true, true, true];
  void covered;
  return { SearchThreadsOutput, GetThreadsOutput, GetRepositoriesOutput, GetPullRequestChecksOutput };
});

/** `corpus.search_threads`, built on first use. */
export const searchThreadsOutput = (): z.ZodType => schemas().SearchThreadsOutput;
/** `corpus.get_threads` (compact or full, by the request's `view`), built on first use. */
export const getThreadsOutput = (): z.ZodType => schemas().GetThreadsOutput;
/** `corpus.get_repositories`, built on first use. */
export const getRepositoriesOutput = (): z.ZodType => schemas().GetRepositoriesOutput;
/** `corpus.get_pull_request_checks`, built on first use. */
export const getPullRequestChecksOutput = (): z.ZodType => schemas().GetPullRequestChecksOutput;
