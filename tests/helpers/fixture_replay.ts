/**
 * Replays GitHub's recorded responses (npm `@octokit/fixtures`, real answers of api.github.com
 * recorded by Octokit's maintainers, ids and tokens normalized) on 127.0.0.1, so longcall's real
 * REST client can be run against what GitHub actually sent.
 *
 * - A GET is matched by path and `page` (other query parameters are ignored: the client asks
 *   with its own parameters); several recordings of one request are served in order, the last
 *   one repeatedly.
 * - Headers are served as recorded (`content-length` and `connection` recomputed), with the
 *   recorded origin in `Link` and `Location` rewritten to the replay's, so the client follows
 *   GitHub's own `Link` (`/repositories/{id}/issues?page=2`) and redirects on loopback.
 * - `If-None-Match` equal to the recorded ETag answers 304, as GitHub does.
 *
 * @module
 */

import fixtures from "@octokit/fixtures";

/** One recorded exchange of a normalized fixture. */
export interface RecordedExchange {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  response: unknown;
}

/** One request the replay received. */
export interface ReplayRequest {
  path: string;
  conditional: boolean;
  authorized: boolean;
  status: number;
}

/** A running replay. */
export interface Replay extends AsyncDisposable {
  readonly url: string;
  readonly requests: readonly ReplayRequest[];
}

const RECORDED_ORIGIN = "https://api.github.com";

/** The GET exchanges of a recorded scenario, e.g. `api.github.com/paginate-issues`. */
export function recorded(name: string): RecordedExchange[] {
  const all = fixtures.get(name) as RecordedExchange[];
  return all.filter((x) => x.method.toLowerCase() === "get");
}

function keyOf(path: string): string {
  const url = new URL(path, RECORDED_ORIGIN);
  return `${url.pathname}|${url.searchParams.get("page") ?? "1"}`;
}

/** Serves `exchanges` on 127.0.0.1 until disposed. */
export function startReplay(exchanges: readonly RecordedExchange[]): Promise<Replay> {
  const byKey = new Map<string, RecordedExchange[]>();
  for (const x of exchanges) {
    const list = byKey.get(keyOf(x.path)) ?? [];
    list.push(x);
    byKey.set(keyOf(x.path), list);
  }
  const served = new Map<string, number>();
  const requests: ReplayRequest[] = [];
  return new Promise((resolve) => {
    let origin = "";
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: (addr) => {
        origin = `http://127.0.0.1:${addr.port}`;
        resolve({
          url: origin,
          requests,
          [Symbol.asyncDispose]: () => server.shutdown(),
        });
      },
    }, (req) => {
      const url = new URL(req.url);
      const key = keyOf(url.pathname + url.search);
      const list = byKey.get(key);
      const record = (status: number) =>
        requests.push({
          path: url.pathname + url.search,
          conditional: req.headers.has("if-none-match"),
          authorized: req.headers.has("authorization"),
          status,
        });
      if (req.method !== "GET" || list === undefined || list.length === 0) {
        record(599);
        return new Response(`no recording for ${req.method} ${url.pathname}${url.search}`, { status: 599 });
      }
      const n = served.get(key) ?? 0;
      served.set(key, n + 1);
      const x = list[Math.min(n, list.length - 1)] as RecordedExchange;
      const headers = new Headers();
      for (const [name, value] of Object.entries(x.headers)) {
        if (["content-length", "connection", "transfer-encoding"].includes(name.toLowerCase())) continue;
        headers.set(name, name === "link" || name === "location" ? value.replaceAll(RECORDED_ORIGIN, origin) : value);
      }
      const etag = headers.get("etag");
      if (x.status === 200 && etag !== null && req.headers.get("if-none-match") === etag) {
        headers.delete("content-type");
        record(304);
        return new Response(null, { status: 304, headers });
      }
      record(x.status);
      const body = x.status === 204 || x.status === 304 ? null : JSON.stringify(x.response);
      return new Response(body, { status: x.status, headers });
    });
  });
}
