/**
 * The spec of `github.wait_pull_request_checks` (src/jobs/spec.ts): its zod input schema (which
 * also normalizes), the normalized request type, the result schema, description, annotations and
 * examples. No dependency: `mcp/` makes the tool of it, `longcall checks watch` maps its flags onto
 * it. Apart from the runner (src/github/watch_runner.ts) and the policy (watch_kind.ts), so the
 * network worker, which only runs admitted jobs, loads no zod.
 *
 * @module
 */

import { z } from "zod";
import {
  GITHUB_NUMBER_MAX,
  WATCH_FIRST_CHECK_GRACE_MS_DEFAULT,
  WATCH_FIRST_CHECK_GRACE_MS_MAX,
  WATCH_POLL_INTERVAL_MS_DEFAULT,
  WATCH_POLL_INTERVAL_MS_MAX,
  WATCH_POLL_INTERVAL_MS_MIN,
  WATCH_TIMEOUT_MS_DEFAULT,
  WATCH_TIMEOUT_MS_MAX,
  WATCH_TIMEOUT_MS_MIN,
} from "../base/limits.ts";
import { GITHUB_OWNER_PATTERN, GITHUB_REPO_PATTERN } from "../base/names.ts";
import { type JobSpec, OPEN_WORLD_READ } from "../jobs/spec.ts";
import { watchResultOutput } from "./result_schemas.ts";
import { WATCH_KIND } from "./watch_kind.ts";

/** The tool's input, durations in integer milliseconds. Names follow GitHub's rules (src/base/names.ts). */
export const WatchInput = z.object({
  owner: z.string().regex(
    new RegExp(GITHUB_OWNER_PATTERN),
    "expected a GitHub owner: 1-39 letters, digits or single hyphens, not starting or ending with a hyphen",
  ).describe("Repository owner, e.g. denoland"),
  repo: z.string().regex(
    new RegExp(GITHUB_REPO_PATTERN),
    "expected a GitHub repository name: 1-100 letters, digits, '.', '_' or '-', not starting with '-'",
  ).refine((v) => v !== "." && v !== "..", "expected a GitHub repository name, not '.' or '..'")
    .describe("Repository name, e.g. deno"),
  number: z.number().int().min(1).max(GITHUB_NUMBER_MAX).describe("Pull request number"),
  expected_head_sha: z.string().regex(/^[0-9a-f]{40}$/).optional()
    .describe(
      "Head commit to watch (40 hex), e.g. one just pushed: until GitHub shows it as the head (it updates a " +
        "moment after a push) the watch waits, up to first_check_grace_ms. Default: the head seen at the first poll",
    ),
  until: z.enum(["terminal", "change"]).default("terminal")
    .describe("terminal: wait for a verdict; change: return at the first material CI change"),
  timeout_ms: z.number().int().min(WATCH_TIMEOUT_MS_MIN).max(WATCH_TIMEOUT_MS_MAX).default(WATCH_TIMEOUT_MS_DEFAULT)
    .describe(`Give up after this long (default 30 min, max 24 h)`),
  poll_interval_ms: z.number().int().min(WATCH_POLL_INTERVAL_MS_MIN).max(WATCH_POLL_INTERVAL_MS_MAX)
    .default(WATCH_POLL_INTERVAL_MS_DEFAULT).describe("Time between GitHub polls (default 10 s, 5 s .. 5 min)"),
  fail_fast: z.boolean().default(false).describe("Return failed as soon as any check fails"),
  first_check_grace_ms: z.number().int().min(0).max(WATCH_FIRST_CHECK_GRACE_MS_MAX)
    .default(WATCH_FIRST_CHECK_GRACE_MS_DEFAULT)
    .describe("How long to wait for the first check to register before answering no_checks (default 3 min)"),
  required_only: z.boolean().default(false)
    .describe(
      "Watch only the checks the base branch requires: the union of its rulesets' and its classic branch " +
        "protection's required status checks (enforcement_level off requires none); a required check that " +
        "has not reported is pending",
    ),
}).strict();

export type WatchRequest = z.output<typeof WatchInput>;

export const WATCH_EXAMPLE = { owner: "denoland", repo: "deno", number: 123, until: "terminal" };

/** `github.wait_pull_request_checks`. */
export const watchSpec: JobSpec<WatchRequest> = {
  name: WATCH_KIND,
  kind: WATCH_KIND,
  description: "Watch a pull request's CI (check runs and commit statuses) until it reaches a verdict " +
    "(until: terminal) or changes materially (until: change). longcall polls GitHub itself with conditional " +
    "requests; you get a task or a JobReference at once. Outcomes: succeeded, failed (with each failing " +
    "check's URL, output title, summary and first annotations in `failures`), timed_out, superseded (new " +
    "push), no_checks, changed, incomplete (coverage not proven), action_required (workflows await a " +
    "maintainer's approval), closed, merged; `reason` says why. required_only: true watches only the base " +
    "branch's required checks, from its rulesets and its classic branch protection; if either cannot be read " +
    "the watch fails with error required_checks_unavailable (its data.source names which), never no_checks " +
    "on a guess.",
  inputSchema: WatchInput,
  resultSchema: watchResultOutput,
  annotations: { title: "Wait for pull request checks", ...OPEN_WORLD_READ },
  examples: [WATCH_EXAMPLE],
};
