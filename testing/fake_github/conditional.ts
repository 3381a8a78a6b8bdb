/**
 * Conditional requests as GitHub answers them: the token of a request, strong ETags per
 * representation and token, `If-None-Match` matching, and the `cache-control` of a 200.
 *
 * @module
 */

import { digest } from "./answers.ts";

/** The token of `Authorization: Bearer|token T`, undefined for anonymous requests. */
export function tokenOf(req: Request): string | undefined {
  const auth = req.headers.get("authorization");
  if (auth === null) return undefined;
  const m = /^(?:bearer|token)\s+(.+)$/i.exec(auth.trim());
  return m?.[1];
}

/** The ETag of a representation (the body text and its `Link`) for a token (a validator from one
 * token does not match for another, as GitHub's do not). */
export function etagOf(representation: { text: string; link: string | undefined }, token: string | undefined): string {
  const { text, link } = representation;
  return `"${digest(`${text}|${link ?? ""}|${token === undefined ? "" : digest(token)}`)}"`;
}

/** The `cache-control` of a cacheable 200. */
export function cacheControlOf(token: string | undefined): string {
  return token === undefined ? "public, max-age=60, s-maxage=60" : "private, max-age=60";
}

/** Whether an `If-None-Match` header matches the ETag (weak comparison, `*` matches all). */
export function etagMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === bare);
}
