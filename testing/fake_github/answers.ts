/**
 * What a route answers before the rate-limit and conditional-request layer sees it ({@linkcode Answer}),
 * GitHub's paging (`per_page`, `page`, `Link`), and the stable digests and time format every payload uses.
 *
 * @module
 */

import { type Json, type JsonObject, SCENARIO_SHA_FIRST } from "./model.ts";

/** What a route handler reads of a request: the repository the path names and the URL. */
export interface RouteRequest {
  /** `owner/repo`, as the path spells it. */
  fullName: string;
  /** The request's URL: its query carries the filters and paging, and `Link` headers are built from it. */
  url: URL;
}

/** A route's answer: status, body, `Link`, and whether a 200 may become a 304. */
export interface Answer {
  status: number;
  body: Json;
  link?: string;
  /** Whether a 200 may be answered 304. */
  cacheable: boolean;
}

export function notFound(doc = "https://docs.github.com/rest"): Answer {
  return { status: 404, body: { message: "Not Found", documentation_url: doc, status: "404" }, cacheable: false };
}

/** GitHub's 422 for a commit reference it does not know. */
export function noCommit(ref: string, doc: string): Answer {
  return {
    status: 422,
    body: { message: `No commit found for SHA: ${ref}`, documentation_url: doc, status: "422" },
    cacheable: false,
  };
}

/** The SHA a reference names: itself when it is one, else the scenario's first head. */
export function shaOf(ref: string): string {
  return /^[0-9a-f]{40}$/.test(ref) ? ref : SCENARIO_SHA_FIRST;
}

/** GitHub's paging parameters: `per_page` 30 by default, at most 100; `page` from 1. */
export function pageParams(params: URLSearchParams): { perPage: number; page: number } {
  const perPage = Math.min(PER_PAGE_MAX, intParam(params.get("per_page"), PER_PAGE_DEFAULT) ?? PER_PAGE_DEFAULT) ||
    PER_PAGE_DEFAULT;
  const page = Math.max(1, intParam(params.get("page"), 1) ?? 1);
  return { perPage, page };
}

/** GitHub's default and largest `per_page`. */
const PER_PAGE_DEFAULT = 30;
const PER_PAGE_MAX = 100;

/**
 * An integer query parameter's value (`params.get(name)`): `fallback` when absent (null), undefined when not a
 * non-negative integer.
 */
export function intParam(raw: string | null, fallback: number): number | undefined {
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/** The `Link` header of page `pages.page` of `pages.last` (GitHub's prev/next/last/first rels). */
export function linkFor(url: URL, pages: { page: number; last: number }): { link?: string } {
  const { page, last } = pages;
  if (last <= 1) return {};
  const at = (p: number) => {
    const u = new URL(url.href);
    u.searchParams.set("page", String(p));
    return `<${u.href}>`;
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`${at(page - 1)}; rel="prev"`);
  if (page < last) rels.push(`${at(page + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (page > 1) rels.push(`${at(1)}; rel="first"`);
  return rels.length === 0 ? {} : { link: rels.join(", ") };
}

/**
 * One page of `all`, as GitHub pages a list: the slice the `page` and `per_page` of `url`'s query ask for
 * (30 by default, 100 at most) and the Link header to the others.
 */
export function pageOf<T>(all: readonly T[], url: URL): { items: T[]; link?: string } {
  const { perPage, page } = pageParams(url.searchParams);
  return {
    items: all.slice((page - 1) * perPage, page * perPage),
    ...linkFor(url, { page, last: Math.max(1, Math.ceil(all.length / perPage)) }),
  };
}

/** A deep copy of a fixture, as a JSON object. */
export function clone(value: unknown): JsonObject {
  return structuredClone(value) as JsonObject;
}

/** GitHub's timestamp format (whole seconds, `Z`). */
export function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** FNV-1a over UTF-16 code units, two lanes: a stable 64-bit-ish hex digest. */
export function digest(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
    b = (b ^ (b >>> 13)) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/** A stable small number from a text (ids). */
export function smallHash(text: string): number {
  return parseInt(digest(text).slice(0, 7), 16);
}
