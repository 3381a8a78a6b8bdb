/**
 * Where the GitHub REST API is unless configured otherwise, and the check every configured API root
 * passes. On its own so that a process which only admits GitHub jobs (the serving thread, whose jobs run
 * in the network worker) reads the default and checks its configuration without loading the client.
 *
 * @module
 */

import { isLoopbackHost } from "../base/net.ts";

/** github.com's REST API root (GHES: `https://host/api/v3`). */
export const GITHUB_API_URL_DEFAULT = "https://api.github.com";

/**
 * `raw` with any user information (`user:password@`) replaced by `***@`, for messages. Read as the URL parser
 * reads it (which also takes `http:user:pass@host` and backslashes); a value it cannot parse keeps nothing
 * before its last `@`.
 */
export function withoutCredentials(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    const at = raw.lastIndexOf("@");
    return at < 0 ? raw : `***${raw.slice(at)}`;
  }
  if (url.username === "" && url.password === "") return raw;
  return `${url.protocol}//***@${url.host}${url.pathname}${url.search}${url.hash}`;
}

/**
 * The API root `raw` names, checked: an http(s) URL with no query, fragment or credentials, and not plain
 * http off loopback when a token would be sent. `options.name` is what messages call it (default "the GitHub
 * API URL"); they quote the value without any credentials it holds.
 *
 * @throws {TypeError} for any other value.
 */
export function apiRoot(raw: string, options: { token?: string | undefined; name?: string } = {}): URL {
  const { token, name = "the GitHub API URL" } = options;
  const refuse = (reason: string) =>
    new TypeError(`Cannot use ${name}: ${reason}, current value is ${JSON.stringify(withoutCredentials(raw))}`);
  let base: URL;
  try {
    base = new URL(raw);
  } catch {
    throw refuse("it is not a URL (expected https://HOST[/PATH])");
  }
  if (base.protocol !== "https:" && base.protocol !== "http:") throw refuse("it is not http or https");
  if (base.username !== "" || base.password !== "") {
    throw refuse("it holds credentials (give a token in GITHUB_TOKEN instead)");
  }
  if (base.search !== "" || base.hash !== "") throw refuse("it has a query or a fragment");
  if (token !== undefined && token !== "" && base.protocol === "http:" && !isLoopbackHost(base.hostname)) {
    throw refuse("a token is never sent over plain http off loopback");
  }
  return base;
}
