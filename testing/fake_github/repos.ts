/**
 * The repository endpoints: the repository itself, a branch with its classic protection summary, its
 * pull requests and its issue listing (fixture or generated items, with the overrides `touchIssue` made).
 *
 * @module
 */

import pullFixture from "../../fixtures/github/pull.json" with { type: "json" };
import repositoryFixture from "../../fixtures/github/repository.json" with { type: "json" };
import {
  type Answer,
  clone,
  digest,
  intParam,
  iso,
  linkFor,
  notFound,
  type RouteRequest,
  smallHash,
} from "./answers.ts";
import { FIXTURE_REPO, type JsonObject, SCENARIO_PULL } from "./model.ts";
import { repositoryPayload, userPayload } from "./payloads.ts";
import type { FakeWorld } from "./world.ts";

/** `GET /repos/{o}/{r}`: the fixture repository, or a generated one with its own id. */
export function repositoryAnswer(world: FakeWorld, request: RouteRequest): Answer {
  const { fullName } = request;
  const n = fullName === FIXTURE_REPO ? undefined : world.generated.get(fullName);
  const open = (world.issuesOf(fullName) ?? []).filter((i) => i.state === "open").length;
  const body = n === undefined
    ? repositoryPayload(fullName, { id: Number(repositoryFixture.id), openIssues: open })
    : repositoryPayload(fullName, { id: 700_000 + smallHash(fullName) % 100_000, openIssues: open });
  return { status: 200, body, cacheable: true };
}

const BRANCH_DOC = "https://docs.github.com/rest/branches/branches#get-a-branch";

/**
 * `GET /repos/{o}/{r}/branches/{branch}` (`branch-with-protection`): the scenario's classic protection
 * summary as a reader without admin rights sees it (`protection.required_status_checks` with
 * `enforcement_level`, `contexts`, `checks[{context, app_id}]`); unprotected like GitHub's example
 * (`enabled: false`, `enforcement_level: off`) unless the scenario says otherwise.
 */
export function branchPayload(world: FakeWorld, request: RouteRequest & { branch: string }): Answer {
  const { fullName, branch } = request;
  const protection = fullName === FIXTURE_REPO ? world.scenario().branchProtection : undefined;
  if (protection === "forbidden") {
    return {
      status: 403,
      body: {
        message: "Resource not accessible by personal access token",
        documentation_url: BRANCH_DOC,
        status: "403",
      },
      cacheable: false,
    };
  }
  if (protection === "not_found") {
    return {
      status: 404,
      body: { message: "Branch not found", documentation_url: BRANCH_DOC, status: "404" },
      cacheable: false,
    };
  }
  const api = `https://api.github.com/repos/${fullName}`;
  const sha = digest(`${fullName}:${branch}`).repeat(3).slice(0, 40);
  const tree = digest(`${fullName}:${branch}:tree`).repeat(3).slice(0, 40);
  const octocat = userPayload("octocat", 583231);
  const person = { name: "The Octocat", email: "octocat@github.com", date: "2026-01-01T00:00:00Z" };
  const checks = protection?.checks ?? [];
  const path = branch.split("/").map(encodeURIComponent).join("/");
  const body: JsonObject = {
    name: branch,
    commit: {
      sha,
      node_id: `C_gen${digest(sha)}`,
      url: `${api}/commits/${sha}`,
      html_url: `https://github.com/${fullName}/commit/${sha}`,
      comments_url: `${api}/commits/${sha}/comments`,
      commit: {
        url: `${api}/git/commits/${sha}`,
        author: person,
        committer: person,
        message: "Merge pull request #41 from octo/topic-41",
        comment_count: 0,
        tree: { sha: tree, url: `${api}/git/trees/${tree}` },
        verification: { verified: false, reason: "unsigned", payload: null, signature: null, verified_at: null },
      },
      author: octocat,
      committer: octocat,
      parents: [],
    },
    _links: { self: `${api}/branches/${path}`, html: `https://github.com/${fullName}/tree/${path}` },
    protected: protection !== undefined,
    protection: {
      enabled: protection !== undefined,
      required_status_checks: {
        enforcement_level: protection?.enforcement_level ?? "off",
        contexts: checks.map((c) => c.context),
        checks: checks.map((c) => ({ context: c.context, app_id: c.app_id ?? null })),
      },
    },
    protection_url: `${api}/branches/${path}/protection`,
  };
  return { status: 200, body, cacheable: true };
}

/** `GET /repos/{o}/{r}/pulls/{n}`: the scenario pull request follows its timeline; generated ones mirror their issue. */
export function pullPayload(world: FakeWorld, request: RouteRequest & { number: number }): Answer {
  const { fullName, number } = request;
  const pull = clone(pullFixture);
  const base = `https://api.github.com/repos/${fullName}`;
  const html = `https://github.com/${fullName}/pull/${number}`;
  const head = pull.head as JsonObject;
  const baseRef = pull.base as JsonObject;
  pull.url = `${base}/pulls/${number}`;
  pull.html_url = html;
  pull.number = number;
  pull.id = 1_800_000_000 + smallHash(`${fullName}#${number}`) % 100_000_000;
  head.repo = { ...(head.repo as JsonObject), full_name: fullName, name: fullName.split("/")[1] ?? "" };
  baseRef.repo = { ...(baseRef.repo as JsonObject), full_name: fullName, name: fullName.split("/")[1] ?? "" };
  if (fullName === FIXTURE_REPO && number === SCENARIO_PULL.number) {
    const s = world.scenario();
    head.sha = s.headSha;
    pull.state = s.pullState;
    pull.merged = s.merged;
    pull.updated_at = iso(Math.max(Date.parse(String(pull.updated_at)), s.pullUpdatedAt));
    pull.closed_at = s.pullState === "closed" ? iso(s.pullUpdatedAt) : null;
    pull.merged_at = s.merged ? iso(s.pullUpdatedAt) : null;
    return { status: 200, body: pull, cacheable: true };
  }
  const issue = world.issuesOf(fullName)?.find((i) => i.number === number && i.pull_request !== undefined);
  if (issue === undefined) return notFound("https://docs.github.com/rest/pulls/pulls#get-a-pull-request");
  pull.title = issue.title ?? "";
  pull.body = issue.body ?? null;
  pull.state = issue.state ?? "open";
  pull.user = issue.user ?? null;
  pull.created_at = issue.created_at ?? null;
  pull.updated_at = issue.updated_at ?? null;
  pull.closed_at = issue.closed_at ?? null;
  const mergedAt = (issue.pull_request as JsonObject).merged_at ?? null;
  pull.merged_at = mergedAt;
  pull.merged = mergedAt !== null;
  head.sha = digest(`${fullName}#${number}:head`).repeat(3).slice(0, 40);
  head.ref = `topic-${number}`;
  return { status: 200, body: pull, cacheable: true };
}

/** `GET /repos/{o}/{r}/issues` with state, since, sort, direction and paging; 422 on bad parameters. */
export function issuesPayload(world: FakeWorld, request: RouteRequest): Answer {
  const { fullName, url } = request;
  const params = url.searchParams;
  const list = world.issuesOf(fullName);
  if (list === undefined) return notFound();
  const state = params.get("state") ?? "open";
  const sort = params.get("sort") ?? "created";
  const direction = params.get("direction") ?? (sort === "created" || sort === "updated" ? "desc" : "desc");
  const perPageRaw = intParam(params.get("per_page"), 30);
  const page = intParam(params.get("page"), 1);
  const sinceRaw = params.get("since");
  const since = sinceRaw === null ? undefined : Date.parse(sinceRaw);
  if (
    !["open", "closed", "all"].includes(state) || !["created", "updated", "comments"].includes(sort) ||
    !["asc", "desc"].includes(direction) || perPageRaw === undefined || page === undefined ||
    (since !== undefined && Number.isNaN(since))
  ) {
    return {
      status: 422,
      body: {
        message: "Validation Failed",
        errors: [{ resource: "Issue", code: "invalid" }],
        documentation_url: "https://docs.github.com/rest/issues/issues#list-repository-issues",
        status: "422",
      },
      cacheable: false,
    };
  }
  const perPage = Math.min(100, Math.max(1, perPageRaw));
  const key = (i: JsonObject): number =>
    sort === "comments" ? Number(i.comments) : Date.parse(String(sort === "updated" ? i.updated_at : i.created_at));
  const filtered = list
    .filter((i) => state === "all" || i.state === state)
    .filter((i) => since === undefined || Date.parse(String(i.updated_at)) >= since)
    .sort((x, y) => (key(x) - key(y)) * (direction === "asc" ? 1 : -1) || Number(x.number) - Number(y.number));
  const last = Math.max(1, Math.ceil(filtered.length / perPage));
  const current = Math.max(1, page);
  return {
    status: 200,
    body: filtered.slice((current - 1) * perPage, current * perPage),
    ...linkFor(url, { page: current, last }),
    cacheable: true,
  };
}
