/**
 * The watcher's {@linkcode PullObserver} over the REST client: one conditional read each
 * of the pull request, its check runs (all pages) and its combined status per poll, so
 * an unchanged pull request costs only free `304`s.
 *
 * @module
 */

import type { EndpointOptions, GitHubClient } from "./client.ts";
import type { ObserveOptions, PullObservation, PullObserver } from "./watch_kind.ts";

function endpoint(signal: AbortSignal, options: ObserveOptions): EndpointOptions {
  const out: EndpointOptions = { signal };
  if (options.maxRateLimitWaitMs !== undefined) out.maxRateLimitWaitMs = options.maxRateLimitWaitMs;
  if (options.onRateLimitWait !== undefined) out.onRateLimitWait = options.onRateLimitWait;
  return out;
}

/** Adapts a client (one per job, so its counters are the job's) to the watcher. */
export function clientObserver(gh: GitHubClient): PullObserver {
  return {
    authenticated: gh.authenticated,
    async headSha(owner, repo, number, signal, options = {}) {
      const pull = await gh.getPull(owner, repo, number, endpoint(signal, options));
      return pull.data.head.sha;
    },
    async observe(owner, repo, number, sha, signal, options = {}): Promise<PullObservation> {
      const pull = await gh.getPull(owner, repo, number, endpoint(signal, options));
      const runs = await gh.getCheckRuns(owner, repo, sha, endpoint(signal, options));
      const status = await gh.getCombinedStatus(owner, repo, sha, endpoint(signal, options));
      return {
        head_sha: pull.data.head.sha,
        state: pull.data.state,
        check_runs: runs.check_runs,
        // total_count 0 means no legacy statuses at all, not "pending".
        statuses: status.data.total_count === 0 ? [] : status.data.statuses,
        coverage_complete: runs.complete,
      };
    },
    stats() {
      const s = gh.stats;
      return {
        requests: s.requests,
        not_modified: s.not_modified,
        rate_limit: { ...s.rateLimit } as Record<string, unknown>,
      };
    },
  };
}
