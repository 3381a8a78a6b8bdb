/**
 * The checks endpoints of the scenario pull request's commits: check runs, check suites, workflow
 * runs (GitHub Actions suites), annotations, the branch rules' required checks, and the combined status.
 *
 * @module
 */

import checkRunsFixture from "../../fixtures/github/check_runs.json" with { type: "json" };
import combinedStatusFixture from "../../fixtures/github/combined_status.json" with { type: "json" };
import {
  type Answer,
  clone,
  digest,
  iso,
  noCommit,
  notFound,
  pageOf,
  type RouteRequest,
  shaOf,
  smallHash,
} from "./answers.ts";
import { type FakeSuite, FIXTURE_REPO, type Json, type JsonObject, SCENARIO_SHA_FIRST } from "./model.ts";
import { appPayload, minimalRepositoryPayload } from "./payloads.ts";
import type { CheckRecord, ShaState } from "./state.ts";
import type { FakeWorld } from "./world.ts";

/** The id of a check run: stable per SHA, name, app and suite. */
export const checkRunId = (sha: string, c: CheckRecord): number =>
  30_000_000 +
  smallHash(
      c.app === "github-actions" && c.suite === c.app ? `${sha}:${c.name}` : `${sha}:${c.name}:${c.app}:${c.suite}`,
    ) %
    10_000_000;

/** Explicit suites of the step, plus one derived per suite key of the checks not listed. */
function suitesOf(sha: string, state: ShaState): JsonObject[] {
  const keys = new Map<string, { app: string; runs: CheckRecord[]; explicit?: FakeSuite & { createdAt: number } }>();
  for (const x of state.suites ?? []) keys.set(x.key, { app: x.app ?? "github-actions", runs: [], explicit: x });
  for (const c of state.checks) {
    const entry = keys.get(c.suite) ?? { app: c.app, runs: [] };
    entry.runs.push(c);
    keys.set(c.suite, entry);
  }
  const out: JsonObject[] = [];
  for (const [key, entry] of keys) {
    const x = entry.explicit;
    const allDone = entry.runs.length > 0 && entry.runs.every((r) => r.status === "completed");
    const anyStarted = entry.runs.some((r) => r.status !== "queued");
    const status = x?.status ?? (allDone ? "completed" : anyStarted ? "in_progress" : "queued");
    const failing = entry.runs.some((r) =>
      r.conclusion !== null && !["success", "neutral", "skipped"].includes(r.conclusion)
    );
    const conclusion = x !== undefined
      ? (x.conclusion ?? null)
      : status === "completed"
      ? (failing ? "failure" : "success")
      : null;
    const id = 800_000 + smallHash(`${sha}:suite:${key}`) % 100_000;
    const created = x?.createdAt ?? Math.min(...entry.runs.map((r) => r.createdAt));
    const updated = Math.max(created, ...entry.runs.map((r) => r.completedAt ?? r.startedAt ?? created));
    out.push({
      id,
      node_id: `CS_kwDO${digest(`${sha}:${key}`)}`,
      head_branch: "sparkline",
      head_sha: sha,
      status,
      conclusion,
      url: `https://api.github.com/repos/${FIXTURE_REPO}/check-suites/${id}`,
      before: "0000000000000000000000000000000000000000",
      after: sha,
      pull_requests: [],
      app: appPayload(entry.app),
      created_at: iso(created),
      updated_at: iso(updated),
      rerequestable: true,
      runs_rerequestable: true,
      latest_check_runs_count: entry.runs.length,
      check_runs_url: `https://api.github.com/repos/${FIXTURE_REPO}/check-suites/${id}/check-runs`,
      head_commit: {
        id: sha,
        tree_id: digest(`${sha}:tree`).repeat(3).slice(0, 40),
        message: "Add sparkline",
        timestamp: iso(created),
        author: { name: "Octo Cat", email: "octocat@github.com" },
        committer: { name: "Octo Cat", email: "octocat@github.com" },
      },
      repository: minimalRepositoryPayload(FIXTURE_REPO),
      // Not part of GitHub's payload: used to build workflow runs.
      _key: key,
      _workflow: x?.workflow ?? key,
      _event: x?.event ?? "pull_request",
    });
  }
  return out;
}

function publicSuite(x: JsonObject): JsonObject {
  const { _key: _k, _workflow: _w, _event: _e, ...rest } = x;
  return rest;
}

/** A request for a commit reference's checks: `GET /repos/{o}/{r}/commits/{ref}/...`. */
export type RefRequest = RouteRequest & { ref: string };

/** `GET /repos/{o}/{r}/commits/{ref}/check-runs`, paged. */
export function checkRunsPayload(world: FakeWorld, request: RefRequest): Answer {
  const { fullName, ref, url } = request;
  const state = world.shaStateFor(fullName, ref);
  if (state === undefined) {
    return noCommit(ref, "https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference");
  }
  const template = (checkRunsFixture.check_runs[0] ?? {}) as unknown;
  const sha = shaOf(ref);
  const suiteIds = new Map(suitesOf(sha, state).map((x) => [String(x._key), Number(x.id)]));
  const all = state.checks.map((c): JsonObject => {
    const r = clone(template);
    const id = checkRunId(sha, c);
    r.id = id;
    r.name = c.name;
    r.head_sha = sha;
    r.status = c.status;
    r.conclusion = c.conclusion;
    r.started_at = c.startedAt === null ? null : iso(c.startedAt);
    r.completed_at = c.completedAt === null ? null : iso(c.completedAt);
    r.url = `https://api.github.com/repos/${fullName}/check-runs/${id}`;
    r.html_url = `https://github.com/${fullName}/actions/runs/900001/job/${id}`;
    r.details_url = r.html_url;
    r.app = { ...(r.app as JsonObject), ...appPayload(c.app) };
    r.check_suite = { id: suiteIds.get(c.suite) ?? 800_001 };
    r.output = {
      title: c.output.title,
      summary: c.output.summary,
      text: c.output.text,
      annotations_count: c.annotations.length,
      annotations_url: `https://api.github.com/repos/${fullName}/check-runs/${id}/annotations`,
    };
    return r;
  });
  const { items, ...link } = pageOf(all, url);
  return { status: 200, body: { total_count: all.length, check_runs: items }, ...link, cacheable: true };
}

/** `GET /repos/{o}/{r}/commits/{ref}/check-suites`, paged. */
export function checkSuitesPayload(world: FakeWorld, request: RefRequest): Answer {
  const { fullName, ref, url } = request;
  const state = world.shaStateFor(fullName, ref);
  if (state === undefined) {
    return noCommit(ref, "https://docs.github.com/rest/checks/suites#list-check-suites-for-a-git-reference");
  }
  const all = suitesOf(shaOf(ref), state).map(publicSuite);
  const { items, ...link } = pageOf(all, url);
  return { status: 200, body: { total_count: all.length, check_suites: items }, ...link, cacheable: true };
}

/** `GET /repos/{o}/{r}/actions/runs?head_sha=`: the GitHub Actions suites of the commit as workflow runs, paged. */
export function workflowRunsPayload(world: FakeWorld, request: RouteRequest): Answer {
  const { fullName, url } = request;
  const headSha = url.searchParams.get("head_sha");
  const state = headSha === null ? undefined : world.shaStateFor(fullName, headSha);
  const sha = shaOf(headSha ?? "");
  const all = state === undefined ? [] : suitesOf(sha, state)
    .filter((x) => (x.app as JsonObject).slug === "github-actions")
    .map((x): JsonObject => {
      const workflow = String(x._workflow);
      const workflowId = 160_000 + smallHash(`workflow:${workflow}`) % 10_000;
      const id = 9_000_000 + smallHash(`${sha}:run:${String(x._key)}`) % 1_000_000;
      return {
        id,
        name: workflow,
        node_id: `WFR_kwLO${digest(`${sha}:${String(x._key)}`)}`,
        check_suite_id: Number(x.id),
        check_suite_node_id: String(x.node_id),
        head_branch: "sparkline",
        head_sha: sha,
        path: `.github/workflows/${workflow.toLowerCase()}.yml`,
        display_title: "Add sparkline",
        run_number: 1 + smallHash(`${id}`) % 500,
        run_attempt: 1,
        event: String(x._event),
        status: x.status ?? null,
        conclusion: x.conclusion ?? null,
        workflow_id: workflowId,
        url: `https://api.github.com/repos/${fullName}/actions/runs/${id}`,
        html_url: `https://github.com/${fullName}/actions/runs/${id}`,
        pull_requests: [],
        created_at: x.created_at ?? null,
        updated_at: x.updated_at ?? null,
        run_started_at: x.created_at ?? null,
        jobs_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/jobs`,
        logs_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/logs`,
        check_suite_url: `https://api.github.com/repos/${fullName}/check-suites/${x.id}`,
        artifacts_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/artifacts`,
        cancel_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/cancel`,
        rerun_url: `https://api.github.com/repos/${fullName}/actions/runs/${id}/rerun`,
        workflow_url: `https://api.github.com/repos/${fullName}/actions/workflows/${workflowId}`,
        head_commit: x.head_commit ?? null,
        repository: x.repository ?? null,
        head_repository: x.repository ?? null,
      };
    });
  const { items, ...link } = pageOf(all, url);
  return { status: 200, body: { total_count: all.length, workflow_runs: items }, ...link, cacheable: true };
}

/** `GET /repos/{o}/{r}/check-runs/{id}/annotations` (`request.id` as the path spells it), paged. */
export function annotationsPayload(world: FakeWorld, request: RouteRequest & { id: string }): Answer {
  const { fullName, url } = request;
  const id = Number(request.id);
  let found: { sha: string; check: CheckRecord } | undefined;
  if (fullName === FIXTURE_REPO) {
    const s = world.scenario();
    for (const [sha, st] of s.bySha) {
      const check = st.checks.find((c) => checkRunId(sha, c) === id);
      if (check !== undefined) found = { sha, check };
    }
  }
  if (found === undefined) return notFound("https://docs.github.com/rest/checks/runs#list-check-run-annotations");
  const all = found.check.annotations.map((a): JsonObject => ({
    path: a.path,
    blob_href: `https://github.com/${fullName}/blob/${found.sha}/${a.path}`,
    start_line: a.start_line,
    end_line: a.start_line,
    start_column: null,
    end_column: null,
    annotation_level: a.level ?? "failure",
    title: a.title ?? null,
    message: a.message,
    raw_details: null,
  }));
  const { items, ...link } = pageOf(all, url);
  return { status: 200, body: items, ...link, cacheable: true };
}

/** `GET /repos/{o}/{r}/rules/branches/{branch}`: the scenario's required checks (the same for every branch). */
export function rulesPayload(world: FakeWorld, request: RouteRequest & { branch: string }): Answer {
  const { fullName } = request;
  const required = fullName === FIXTURE_REPO ? world.scenario().requiredChecks : [];
  if (required === "forbidden") {
    return {
      status: 403,
      body: {
        message: "Resource not accessible by personal access token",
        documentation_url: "https://docs.github.com/rest/repos/rules#get-rules-for-a-branch",
        status: "403",
      },
      cacheable: false,
    };
  }
  const body: Json[] = required.length === 0 ? [] : [{
    type: "required_status_checks",
    ruleset_source_type: "Repository",
    ruleset_source: fullName,
    ruleset_id: 42,
    parameters: {
      strict_required_status_checks_policy: false,
      required_status_checks: required.map((r) => ({ ...r })),
    },
  }];
  if (fullName === FIXTURE_REPO && world.scenario().requiredWorkflows) {
    body.push({
      type: "workflows",
      ruleset_source_type: "Organization",
      ruleset_source: fullName.split("/")[0] ?? "",
      ruleset_id: 43,
      parameters: { workflows: [{ path: ".github/workflows/required.yml", repository_id: 1296269, ref: "main" }] },
    });
  }
  return { status: 200, body, cacheable: true };
}

/** `GET /repos/{o}/{r}/commits/{ref}/status`: the combined status, its `statuses` paged. */
export function statusPayload(world: FakeWorld, request: RefRequest): Answer {
  const { fullName, ref, url } = request;
  const state = world.shaStateFor(fullName, ref);
  if (state === undefined) {
    return {
      status: 422,
      body: { message: `No commit found for SHA: ${ref}`, status: "422" },
      cacheable: false,
    };
  }
  const sha = /^[0-9a-f]{40}$/.test(ref) ? ref : SCENARIO_SHA_FIRST;
  const body = clone(combinedStatusFixture);
  const template = (combinedStatusFixture.statuses[0] ?? {}) as unknown;
  const statuses = state.statuses.map((s): JsonObject => {
    const r = clone(template);
    r.id = 40_000_000 + smallHash(`${sha}:${s.context}:${s.state}`) % 10_000_000;
    r.url = `https://api.github.com/repos/${fullName}/statuses/${sha}`;
    r.state = s.state;
    r.context = s.context;
    r.description = s.description;
    r.created_at = iso(s.createdAt);
    r.updated_at = iso(s.updatedAt);
    return r;
  });
  const states = statuses.map((s) => s.state);
  body.state = states.some((s) => s === "failure" || s === "error")
    ? "failure"
    : states.length === 0 || states.some((s) => s === "pending")
    ? "pending"
    : "success";
  // Paginated like GitHub: `statuses` is one page (30 by default, 100 at most); `state` and
  // `total_count` cover every status.
  const { items, ...link } = pageOf(statuses, url);
  body.statuses = items;
  body.sha = sha;
  body.total_count = statuses.length;
  body.commit_url = `https://api.github.com/repos/${fullName}/commits/${sha}`;
  body.url = `https://api.github.com/repos/${fullName}/commits/${sha}/status`;
  return { status: 200, body, ...link, cacheable: true };
}
