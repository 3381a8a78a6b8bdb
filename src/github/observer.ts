/**
 * The watcher's {@linkcode PullObserver} over the REST client: per poll one conditional read
 * each of the pull request, its check runs, its combined status and its check suites (every
 * page of each), plus its workflow runs when two runs share a name and an app (re-runs), so an
 * unchanged pull request costs only 304s (free when authenticated; GitHub counts anonymous ones).
 * With `required_only`, once per watch: the base branch's rulesets and its classic protection.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import {
  GITHUB_PER_PAGE_MAX,
  WATCH_CHECK_RUNS_PER_PAGE_MIN,
  WATCH_FAILURE_ANNOTATIONS_MAX,
  WATCH_REQUIRED_CHECKS_MAX,
} from "../base/limits.ts";
import { hasDuplicateRuns, type RequiredCheck, type SuiteWorkflow } from "./checks_state.ts";
import {
  type CheckRunsResult,
  type EndpointOptions,
  type GitHubClient,
  isResponseTooLarge,
  type RepoRef,
} from "./client.ts";
import type { ObserveOptions, PullObservation, PullObserver } from "./watch_kind.ts";

function endpoint(options: ObserveOptions): EndpointOptions {
  const out: EndpointOptions = { signal: options.signal };
  if (options.maxRateLimitWaitMs !== undefined) out.maxRateLimitWaitMs = options.maxRateLimitWaitMs;
  if (options.onRateLimitWait !== undefined) out.onRateLimitWait = options.onRateLimitWait;
  return out;
}

/** Ruleset rule types (GitHub's REST description: repository-rule-workflows, repository-rule-code-scanning) that
 * require checks a `required_only` watch cannot name. */
const UNNAMED_CHECK_RULES: ReadonlySet<string> = new Set(["workflows", "code_scanning"]);

/** Adapts a client (one per job, so its counters are the job's) to the watcher. */
export function clientObserver(gh: GitHubClient): PullObserver {
  // Pages of check runs carry each run's output (up to 3 x 65,535 characters): when a page is
  // over the client's byte bound, smaller pages are asked for, and remembered for later polls. So
  // too when a page is over what the ETag cache keeps: an unchanged CI then costs 304s again.
  let checkRunsPerPage = GITHUB_PER_PAGE_MAX;
  const halve = () => checkRunsPerPage = Math.max(WATCH_CHECK_RUNS_PER_PAGE_MIN, Math.floor(checkRunsPerPage / 2));
  const checkRuns = async (repo: RepoRef, sha: string, options: EndpointOptions) => {
    for (;;) {
      try {
        const uncachedBefore = gh.stats.too_large_to_cache;
        const runs = await gh.getCheckRuns(repo, sha, { ...options, perPage: checkRunsPerPage });
        if (gh.stats.too_large_to_cache > uncachedBefore) halve();
        return runs;
      } catch (err) {
        if (!isResponseTooLarge(err) || checkRunsPerPage <= WATCH_CHECK_RUNS_PER_PAGE_MIN) throw err;
        halve();
      }
    }
  };
  return {
    authenticated: gh.authenticated,
    async headSha(pr, options) {
      const pull = await gh.getPull(pr, pr.number, endpoint(options));
      return pull.data.head.sha;
    },
    async observe(pr, sha, options): Promise<PullObservation> {
      const o = endpoint(options);
      const pull = await gh.getPull(pr, pr.number, o);
      const pullFields = {
        head_sha: pull.data.head.sha,
        state: pull.data.state,
        merged: pull.data.merged === true || (pull.data.merged_at ?? null) !== null,
        base_ref: pull.data.base?.ref ?? "",
      };
      if (pull.data.head.sha !== sha) {
        // Not the watched commit (a new push, or GitHub not showing a just-pushed one yet): its checks decide
        // nothing, and GitHub answers 422 for a commit it does not know yet.
        return {
          ...pullFields,
          check_runs: [],
          statuses: [],
          suites: [],
          workflows: new Map(),
          coverage_complete: false,
          coverage_gaps: [`checks not read: the head is ${pull.data.head.sha}, not the watched ${sha}`],
        };
      }
      const runs: CheckRunsResult = await checkRuns(pr, sha, o);
      const status = await gh.getCombinedStatusAll(pr, sha, o);
      const suites = await gh.getCheckSuites(pr, sha, o);
      const workflows = new Map<number, SuiteWorkflow>();
      let workflowsComplete = true;
      if (hasDuplicateRuns(runs.check_runs)) {
        // Re-runs on one commit: which workflow and event each suite belongs to tells a re-run
        // (keep the newest) from two workflows' jobs of one name (keep both).
        // Without them (a token lacking `actions: read`), runs of different suites are never
        // collapsed: an old failure then still counts (fail closed).
        const listed = await gh.listWorkflowRuns(pr, sha, o).catch((err: unknown) => {
          if (err instanceof AppError && (err.code === "access_denied" || err.code === "not_found")) return undefined;
          throw err;
        });
        if (listed !== undefined) workflowsComplete = listed.complete;
        for (const w of listed?.workflow_runs ?? []) {
          if (w.check_suite_id !== undefined) {
            workflows.set(w.check_suite_id, { workflow_id: w.workflow_id, event: w.event });
          }
        }
      }
      const gaps: string[] = [];
      if (!runs.complete) gaps.push(`check runs: read ${runs.check_runs.length} of ${runs.total_count}`);
      if (!status.complete) {
        gaps.push(
          status.consistent
            ? `statuses: read ${status.statuses.length} of ${status.total_count}`
            : `statuses: the combined state is ${status.state}, which the ${status.statuses.length} statuses read contradict`,
        );
      }
      if (!suites.complete) gaps.push(`check suites: read ${suites.check_suites.length} of ${suites.total_count}`);
      if (!workflowsComplete) gaps.push("workflow runs: not every run was read");
      return {
        ...pullFields,
        check_runs: runs.check_runs,
        // total_count 0 means no legacy statuses at all, not "pending".
        statuses: status.total_count === 0 ? [] : status.statuses,
        suites: suites.check_suites,
        workflows,
        coverage_complete: gaps.length === 0,
        coverage_gaps: gaps,
      };
    },
    // The required set is the union of two sources: the rulesets (`/rules/branches/{branch}`) and
    // the branch's classic protection (`/branches/{branch}`), which the rules endpoint does not list.
    // Either unreadable is `required_checks_unavailable`: a guess could end `no_checks` or
    // `succeeded` without a check GitHub requires.
    async requiredChecks(repo, branch, options): Promise<RequiredCheck[]> {
      const o = endpoint(options);
      const repository = `${repo.owner}/${repo.repo}`;
      let listed;
      try {
        listed = await gh.getBranchRules(repo, branch, o);
      } catch (err) {
        if (err instanceof AppError && (err.code === "access_denied" || err.code === "not_found")) {
          throw new AppError(
            "required_checks_unavailable",
            `Cannot watch only the required checks of ${repository}: the rules of branch ${branch} ` +
              `cannot be read (${err.message})`,
            { data: { repository, branch, source: "rulesets", cause: err.code } },
          );
        }
        throw err;
      }
      if (!listed.complete) {
        throw new AppError(
          "required_checks_unavailable",
          `Cannot watch only the required checks of ${repository}: the rules of branch ${branch} span more pages ` +
            `than are read`,
          { data: { repository, branch, source: "rulesets" } },
        );
      }
      const out = new Map<string, RequiredCheck>();
      const add = (context: string, integrationId: number | undefined) => {
        const check: RequiredCheck = { context };
        if (integrationId !== undefined) check.integration_id = integrationId;
        out.set(`${context}\u0000${integrationId ?? ""}`, check);
      };
      // Rules that gate the merge on checks longcall cannot name from the rules (the runs of required workflows;
      // code scanning results): the required set would be short of them, so it is refused rather than guessed.
      const unnamed = listed.rules.find((rule) =>
        rule !== null && typeof rule === "object" && UNNAMED_CHECK_RULES.has(String(rule.type))
      );
      if (unnamed !== undefined) {
        throw new AppError(
          "required_checks_unavailable",
          `Cannot watch only the required checks of ${repository}: the rules of branch ${branch} include a ` +
            `${String(unnamed.type)} rule, whose checks the rules do not name; watch every check instead ` +
            `(required_only: false)`,
          { data: { repository, branch, source: "rulesets", rule: String(unnamed.type) } },
        );
      }
      for (const rule of listed.rules) {
        if (rule === null || typeof rule !== "object" || rule.type !== "required_status_checks") continue;
        for (const c of rule.parameters?.required_status_checks ?? []) {
          if (typeof c?.context !== "string") continue;
          add(c.context, typeof c.integration_id === "number" ? c.integration_id : undefined);
        }
      }
      const classic = await gh.getBranchProtection(repo, branch, o);
      if (!classic.readable) {
        throw new AppError(
          "required_checks_unavailable",
          `Cannot watch only the required checks of ${repository}: the classic protection of branch ${branch} ` +
            `cannot be read (${classic.message}), so the checks it requires are unknown`,
          { data: { repository, branch, source: "branch_protection", cause: classic.cause } },
        );
      }
      // `enforcement_level: off` lists checks that nothing enforces.
      if (classic.enforcement_level !== "off") {
        for (const c of classic.checks) add(c.context, c.app_id ?? undefined);
      }
      if (out.size > WATCH_REQUIRED_CHECKS_MAX) {
        throw new AppError(
          "required_checks_unavailable",
          `Cannot watch only the required checks of ${repository}: branch ${branch} requires ${out.size} ` +
            `checks, over the bound of ${WATCH_REQUIRED_CHECKS_MAX}`,
          { data: { repository, branch } },
        );
      }
      return [...out.values()];
    },
    annotations(repo, checkRunId, options) {
      return gh.getCheckRunAnnotations(repo, checkRunId, {
        ...endpoint(options),
        perPage: WATCH_FAILURE_ANNOTATIONS_MAX,
      });
    },
    stats() {
      const s = gh.stats;
      return {
        requests: s.requests,
        not_modified: s.not_modified,
        not_modified_counted: s.not_modified_counted,
        rate_limit: { ...s.rateLimit } as Record<string, unknown>,
      };
    },
  };
}
