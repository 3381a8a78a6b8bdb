/**
 * Payload builders for what the fake answers outside the scenario: users, labels, reactions, apps,
 * repositories (full and minimal) and the deterministically generated issues and pull requests of
 * `generatedRepos`. Each builds every property GitHub's REST description requires.
 *
 * @module
 */

import repositoryFixture from "../../fixtures/github/repository.json" with { type: "json" };
import { clone, digest, iso, smallHash } from "./answers.ts";
import { FIXTURE_REPO, type Json, type JsonObject } from "./model.ts";

const GENERATED_BASE_MS = Date.UTC(2024, 0, 1);
const LOREM = "Steps to reproduce, expected behaviour and actual behaviour are described below. " +
  "The widget renders, then the layout shifts when data arrives late; a retry fixes it. ";

/** A complete `simple-user` (every property GitHub's description requires); `options.type` is `User` by default. */
export function userPayload(
  login: string,
  id: number,
  options: { type?: "User" | "Organization" } = {},
): JsonObject {
  const type = options.type ?? "User";
  const api = `https://api.github.com/users/${login}`;
  return {
    login,
    id,
    node_id: `U_gen${digest(login)}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: "",
    url: api,
    html_url: `https://github.com/${login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type,
    site_admin: false,
  };
}

/** A complete `label` of the repository whose API URL is `repoApi`. */
export function labelPayload(
  repoApi: string,
  label: { id: number; name: string; color: string; description: string },
): JsonObject {
  const { id, name, color, description } = label;
  return {
    id,
    node_id: `LA_gen${digest(`${repoApi}:${name}`)}`,
    url: `${repoApi}/labels/${encodeURIComponent(name)}`,
    name,
    description,
    color,
    default: id === 1,
  };
}

/** A complete `reaction-rollup`. */
export function reactionsPayload(url: string, total: number): JsonObject {
  return {
    url,
    total_count: total,
    "+1": total,
    "-1": 0,
    laugh: 0,
    confused: 0,
    heart: 0,
    hooray: 0,
    eyes: 0,
    rocket: 0,
  };
}

/** Item `i` (from 1) of a generated repository: every 4th a pull request, every 3rd closed. */
export function generatedIssue(fullName: string, i: number): JsonObject {
  const [owner = "", repo = ""] = fullName.split("/");
  const created = GENERATED_BASE_MS + i * 3_600_000;
  const updated = created + ((i * 7919) % 2000) * 60_000;
  const isPr = i % 4 === 0;
  const closed = i % 3 === 0;
  const base = `https://api.github.com/repos/${owner}/${repo}`;
  const labels: Json[] = [];
  if (i % 5 === 0) {
    labels.push(labelPayload(base, { id: 1, name: "bug", color: "d73a4a", description: "Something isn't working" }));
  }
  if (i % 7 === 0) {
    labels.push(
      labelPayload(base, { id: 4, name: "enhancement", color: "a2eeef", description: "New feature or request" }),
    );
  }
  const html = `https://github.com/${owner}/${repo}/${isPr ? "pull" : "issues"}/${i}`;
  const item: JsonObject = {
    url: `${base}/issues/${i}`,
    repository_url: base,
    labels_url: `${base}/issues/${i}/labels{/name}`,
    comments_url: `${base}/issues/${i}/comments`,
    events_url: `${base}/issues/${i}/events`,
    html_url: html,
    id: 3_000_000_000 + smallHash(fullName) % 1_000_000 * 10_000 + i,
    node_id: `I_gen${digest(`${fullName}#${i}`)}`,
    number: i,
    title: `${isPr ? "Change" : "Problem"} ${i}: ${["layout", "tooltip", "legend", "axis", "theme"][i % 5]} ${
      ["shifts", "flickers", "overflows", "misaligns", "crashes"][(i * 3) % 5]
    }`,
    user: userPayload(`user${i % 97}`, 10_000 + (i % 97)),
    labels,
    state: closed ? "closed" : "open",
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: (i * 13) % 9,
    created_at: iso(created),
    updated_at: iso(updated),
    closed_at: closed ? iso(updated) : null,
    author_association: "CONTRIBUTOR",
    body: `Generated item ${i} of ${fullName}. ${LOREM.repeat(1 + (i % 3))}`.trim(),
    state_reason: closed ? "completed" : null,
    reactions: reactionsPayload(`${base}/issues/${i}/reactions`, i % 4),
  };
  if (isPr) {
    item.draft = false;
    item.pull_request = {
      url: `${base}/pulls/${i}`,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      merged_at: closed ? iso(updated) : null,
    };
  }
  return item;
}

/** An app (`integration`) as GitHub nests it in check runs and suites. */
export function appPayload(slug: string): JsonObject {
  const id = slug === "github-actions" ? 15368 : 100_000 + smallHash(`app:${slug}`) % 100_000;
  const name = slug === "github-actions" ? "GitHub Actions" : slug;
  return {
    id,
    slug,
    node_id: `MDM6QXBw${digest(`app:${slug}`)}`,
    owner: slug === "github-actions"
      ? userPayload("github", 9919, { type: "Organization" })
      : clone(repositoryFixture.owner),
    name,
    description: "",
    external_url: `https://github.com/apps/${slug}`,
    html_url: `https://github.com/apps/${slug}`,
    created_at: "2018-07-30T09:30:17Z",
    updated_at: "2024-04-10T20:33:16Z",
    permissions: { checks: "write", metadata: "read" },
    events: ["check_run", "check_suite"],
  };
}

/** The fixture repository renamed to `fullName`, with its id and open-issue count. */
export function repositoryPayload(fullName: string, fields: { id: number; openIssues: number }): JsonObject {
  const { id, openIssues } = fields;
  const [owner = "", name = ""] = fullName.split("/");
  const repo = clone(repositoryFixture);
  repo.id = id;
  repo.name = name;
  repo.full_name = fullName;
  repo.owner = { ...(repo.owner as JsonObject), login: owner };
  repo.html_url = `https://github.com/${fullName}`;
  repo.url = `https://api.github.com/repos/${fullName}`;
  repo.open_issues_count = openIssues;
  repo.open_issues = openIssues;
  if (fullName !== FIXTURE_REPO) repo.description = `Generated repository ${fullName} for benchmarks.`;
  return repo;
}

/**
 * A `minimal-repository`, as GitHub nests it in check suites and workflow runs: the identity,
 * owner and URL-template properties of the repository (no counts, dates or clone URLs).
 */
export function minimalRepositoryPayload(fullName: string): JsonObject {
  const repo = repositoryPayload(fullName, { id: Number(repositoryFixture.id), openIssues: 0 });
  const identity = ["id", "node_id", "name", "full_name", "private", "owner", "html_url", "description", "fork", "url"];
  return Object.fromEntries(
    Object.entries(repo).filter(([k]) =>
      identity.includes(k) ||
      (k.endsWith("_url") && !["git_url", "ssh_url", "clone_url", "svn_url", "mirror_url"].includes(k))
    ),
  ) as JsonObject;
}
