/**
 * Routing: which endpoint a path is ({@linkcode classify}) and which handler answers it
 * ({@linkcode route}), after the repository-level refusals (private, unknown).
 *
 * @module
 */

import { type Answer, notFound } from "./answers.ts";
import {
  annotationsPayload,
  checkRunsPayload,
  checkSuitesPayload,
  rulesPayload,
  statusPayload,
  workflowRunsPayload,
} from "./checks.ts";
import { type EndpointKind, PRIVATE_REPO } from "./model.ts";
import { branchPayload, issuesPayload, pullPayload, repositoryAnswer } from "./repos.ts";
import type { FakeWorld } from "./world.ts";

/** The endpoint kind of a path and its captured segments (decoded). */
export function classify(pathname: string): { kind: EndpointKind; parts: string[] } {
  if (pathname === "/rate_limit") return { kind: "rate_limit", parts: [] };
  const seg = "([^/]+)";
  const decode = (m: RegExpExecArray) => m.slice(1).map((s) => decodeURIComponent(s ?? ""));
  let m = new RegExp(`^/repos/${seg}/${seg}/?$`).exec(pathname);
  if (m !== null) return { kind: "repository", parts: decode(m) };
  m = new RegExp(`^/repos/${seg}/${seg}/pulls/([1-9][0-9]*)$`).exec(pathname);
  if (m !== null) return { kind: "pull", parts: decode(m) };
  m = new RegExp(`^/repos/${seg}/${seg}/commits/(.+)/check-runs$`).exec(pathname);
  if (m !== null) return { kind: "check_runs", parts: decode(m) };
  m = new RegExp(`^/repos/${seg}/${seg}/commits/(.+)/status$`).exec(pathname);
  if (m !== null) return { kind: "status", parts: decode(m) };
  m = new RegExp(`^/repos/${seg}/${seg}/commits/(.+)/check-suites$`).exec(pathname);
  if (m !== null) return { kind: "check_suites", parts: decode(m) };
  m = new RegExp(`^/repos/${seg}/${seg}/actions/runs$`).exec(pathname);
  if (m !== null) return { kind: "workflow_runs", parts: decode(m) };
  m = new RegExp(`^/repos/${seg}/${seg}/check-runs/([1-9][0-9]*)/annotations$`).exec(pathname);
  if (m !== null) return { kind: "annotations", parts: decode(m) };
  m = new RegExp(`^/repos/${seg}/${seg}/rules/branches/(.+)$`).exec(pathname);
  if (m !== null) return { kind: "rules", parts: decode(m) };
  m = new RegExp(`^/repos/${seg}/${seg}/branches/(.+)$`).exec(pathname);
  if (m !== null) return { kind: "branch", parts: decode(m) };
  m = new RegExp(`^/repos/${seg}/${seg}/issues$`).exec(pathname);
  if (m !== null) return { kind: "issues", parts: decode(m) };
  return { kind: "unknown", parts: [] };
}

/** A request {@linkcode classify} sorted: its endpoint kind, the path's captured segments, and its URL. */
export interface ClassifiedRequest {
  kind: EndpointKind;
  parts: string[];
  url: URL;
}

/** The answer of a classified request: 403 for the private repository, 404 for unknown ones. */
export function route(world: FakeWorld, request: ClassifiedRequest): Answer {
  const { kind, parts, url } = request;
  const owner = parts[0] ?? "";
  const repo = parts[1] ?? "";
  const fullName = `${owner}/${repo}`;
  if (kind === "unknown") return notFound();
  if (fullName.toLowerCase() === PRIVATE_REPO) {
    return {
      status: 403,
      body: {
        message: "Resource not accessible by personal access token",
        documentation_url: "https://docs.github.com/rest/repos/repos#get-a-repository",
        status: "403",
      },
      cacheable: false,
    };
  }
  if (!world.knownRepo(fullName)) return notFound("https://docs.github.com/rest/repos/repos#get-a-repository");
  const repository = { fullName, url };
  const segment = parts[2] ?? "";
  switch (kind) {
    case "repository":
      return repositoryAnswer(world, repository);
    case "pull":
      return pullPayload(world, { ...repository, number: Number(parts[2]) });
    case "check_runs":
      return checkRunsPayload(world, { ...repository, ref: segment });
    case "status":
      return statusPayload(world, { ...repository, ref: segment });
    case "check_suites":
      return checkSuitesPayload(world, { ...repository, ref: segment });
    case "workflow_runs":
      return workflowRunsPayload(world, repository);
    case "annotations":
      return annotationsPayload(world, { ...repository, id: segment });
    case "rules":
      return rulesPayload(world, { ...repository, branch: segment });
    case "branch":
      return branchPayload(world, { ...repository, branch: segment });
    case "issues":
      return issuesPayload(world, repository);
    default:
      return notFound();
  }
}
