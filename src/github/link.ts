/**
 * RFC 8288 `Link` header parsing, enough for GitHub's pagination
 * (`<https://api.github.com/...&page=2>; rel="next", <...>; rel="last"`).
 *
 * @module
 */

/** Maps each `rel` value to its target URL (first occurrence wins). */
export function parseLinkHeader(header: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (header === null || header === undefined || header === "") return out;
  const pattern = /<([^>]*)>((?:\s*;\s*[^;,]+)*)/g;
  for (const match of header.matchAll(pattern)) {
    const target = match[1] ?? "";
    const params = match[2] ?? "";
    for (const param of params.split(";")) {
      const eq = param.indexOf("=");
      if (eq < 0) continue;
      const key = param.slice(0, eq).trim().toLowerCase();
      if (key !== "rel") continue;
      const value = param.slice(eq + 1).trim().replace(/^"|"$/g, "");
      for (const rel of value.split(/\s+/)) {
        if (rel !== "" && !out.has(rel)) out.set(rel, target);
      }
    }
  }
  return out;
}

/** The `rel="next"` target, if any. */
export function nextLink(header: string | null | undefined): string | undefined {
  return parseLinkHeader(header).get("next");
}
