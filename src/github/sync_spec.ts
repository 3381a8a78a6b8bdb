/**
 * The spec of `github.sync_threads` (src/jobs/spec.ts): its zod input schema (which also
 * normalizes), the normalized request type, the result schema, description, annotations and
 * examples. No dependency: `mcp/` makes the tool of it, `longcall sync` maps its flags onto it.
 * Apart from the runner (src/github/sync_runner.ts) so the network worker loads no zod.
 *
 * @module
 */

import { z } from "zod";
import {
  SYNC_LIMIT_PER_REPOSITORY_DEFAULT,
  SYNC_LIMIT_PER_REPOSITORY_MAX,
  SYNC_REPOSITORIES_MAX,
  SYNC_REQUESTS_DEFAULT,
  SYNC_REQUESTS_MAX,
} from "../base/limits.ts";
import { GITHUB_OWNER_PATTERN, GITHUB_REPO_PATTERN, isFullRepositoryName } from "../base/names.ts";
import { type JobSpec, OPEN_WORLD_READ } from "../jobs/spec.ts";
import { syncResultOutput } from "./result_schemas.ts";
import { SYNC_KIND } from "./sync_kind.ts";

/** `owner/repo` by GitHub's rules (src/base/names.ts); the pattern is advertised, `.`/`..` refused on top. */
const REPOSITORY = new RegExp(`${GITHUB_OWNER_PATTERN.slice(0, -1)}/${GITHUB_REPO_PATTERN.slice(1)}`);

export const SyncInput = z.object({
  repositories: z.array(
    z.string().regex(REPOSITORY, "expected owner/repo by GitHub's naming rules").refine(
      isFullRepositoryName,
      "expected owner/repo; the repository name may not be '.' or '..'",
    ),
  ).min(1).max(SYNC_REPOSITORIES_MAX)
    .describe(`Repositories as owner/repo (1..${SYNC_REPOSITORIES_MAX})`),
  kind: z.enum(["issue", "pull_request", "both"]).default("both"),
  state: z.enum(["open", "closed", "all"]).default("all"),
  updated_after: z.iso.datetime({ offset: true }).optional()
    .describe("Only threads updated at or after this ISO 8601 time"),
  limit_per_repository: z.number().int().min(1).max(SYNC_LIMIT_PER_REPOSITORY_MAX)
    .default(SYNC_LIMIT_PER_REPOSITORY_DEFAULT).describe("Newest threads read per repository"),
  max_requests: z.number().int().min(1).max(SYNC_REQUESTS_MAX).default(SYNC_REQUESTS_DEFAULT)
    .describe("Counted GitHub requests this job may spend (free 304s do not count)"),
}).strict();

export type SyncRequest = z.output<typeof SyncInput>;

export const SYNC_EXAMPLE = { repositories: ["denoland/deno"], kind: "both", state: "open" };

/** `github.sync_threads`. */
export const syncSpec: JobSpec<SyncRequest> = {
  name: SYNC_KIND,
  kind: SYNC_KIND,
  description: "Sync repository metadata and issue/pull request headers from GitHub into the local corpus " +
    "(then search it offline with corpus.search_threads). Each repository gets its own outcome: complete, " +
    "retryable (with retry_after_ms), unavailable or failed.",
  inputSchema: SyncInput,
  resultSchema: syncResultOutput,
  annotations: { title: "Sync issues and pull requests", ...OPEN_WORLD_READ },
  examples: [SYNC_EXAMPLE],
};
