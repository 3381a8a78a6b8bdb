/**
 * What every host run stands on: closers run in reverse ({@linkcode Resources}), temporary
 * directories, the fake GitHub on a scaled clock, a loopback front that rate-limits one repository,
 * the real longcall server child with its explicit permission flags, and its stderr tail.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { ENV_VARS } from "../../src/cli/config.ts";
import { type FakeGitHub, startFakeGitHub } from "../fake_github.ts";
import { denoExecPath, type StdioTarget } from "../mcp_clients.ts";

/** The repository root (the server runs `src/main.ts` from here). */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Closers run last-in first-out; `closeAll` is idempotent and never throws (for Ctrl-C paths too). */
export class Resources {
  #closers: Array<() => Promise<void> | void> = [];
  #closing: Promise<void> | undefined;

  defer(closer: () => Promise<void> | void): void {
    this.#closers.push(closer);
  }

  closeAll(): Promise<void> {
    this.#closing ??= (async () => {
      while (this.#closers.length > 0) {
        const closer = this.#closers.pop();
        try {
          await closer?.();
        } catch { /* best effort: keep closing the rest */ }
      }
      this.#closing = undefined;
    })();
    return this.#closing;
  }
}

/** A temporary directory removed by `resources`. */
export async function tempDir(resources: Resources, prefix = "longcall-eval-"): Promise<string> {
  const path = await Deno.makeTempDir({ prefix });
  resources.defer(() => Deno.remove(path, { recursive: true }).catch(() => {}));
  return path;
}

/** A fake GitHub whose clock runs `rate` times faster than real time, closed by `resources`. */
export async function startScaledFake(
  resources: Resources,
  rate: number,
  options: { generatedRepos?: Record<string, number> } = {},
): Promise<FakeGitHub> {
  const t0 = Date.now();
  const fake = await startFakeGitHub({
    scenario: "no_checks",
    now: () => t0 + (Date.now() - t0) * rate,
    ...(options.generatedRepos === undefined ? {} : { generatedRepos: options.generatedRepos }),
  });
  resources.defer(() => fake.close());
  return fake;
}

/** A loopback front of the fake that rate-limits the first request for one repository. */
export interface RateLimitFront {
  readonly url: string;
  /** Secondary-limit answers it gave. */
  readonly limited: number;
}

/**
 * Starts a front on 127.0.0.1 that answers the first request under `/repos/{front.repository}` with GitHub's
 * secondary-rate-limit 403 (`retry-after: 60`) and forwards every other request to the fake at `front.fakeUrl`
 * unchanged. The fake can only limit "the next N requests", whichever repository they are for; this pins the limit
 * to one.
 */
export function startRateLimitFront(
  resources: Resources,
  front: { fakeUrl: string; repository: string },
): Promise<RateLimitFront> {
  const { fakeUrl, repository } = front;
  const prefix = `/repos/${repository}`;
  let limited = 0;
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: (addr) => {
        resolve({
          url: `http://127.0.0.1:${addr.port}`,
          get limited() {
            return limited;
          },
        });
      },
    }, async (req) => {
      const url = new URL(req.url);
      if (limited === 0 && (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`))) {
        limited++;
        const body = {
          message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
          documentation_url:
            "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
          status: "403",
        };
        return new Response(JSON.stringify(body), {
          status: 403,
          headers: {
            "content-type": "application/json; charset=utf-8",
            "retry-after": "60",
            "x-ratelimit-limit": "60",
            "x-ratelimit-remaining": "50",
            "x-ratelimit-resource": "core",
          },
        });
      }
      const headers = new Headers(req.headers);
      headers.delete("host");
      const res = await fetch(`${fakeUrl}${url.pathname}${url.search}`, { method: req.method, headers });
      const out = new Headers(res.headers);
      out.delete("content-encoding");
      out.delete("content-length");
      return new Response(res.status === 304 ? null : await res.arrayBuffer(), { status: res.status, headers: out });
    });
    resources.defer(() => server.shutdown());
  });
}

/** Where a server child runs and what it talks to. */
export interface ServerSpec {
  /** Directory the server may read and write (holds the database). */
  dir: string;
  db: string;
  githubUrl: string;
  rate: number;
}

/**
 * The stdio target of a real longcall server with explicit permission flags: read and write only its own
 * directory (plus read of `src/`, where the network worker loads its code from), the environment variables
 * longcall reads, and loopback networking. Tokens of the parent environment are blanked: the child only
 * ever talks to the fake on 127.0.0.1, anonymously.
 */
export function serverTarget(spec: ServerSpec): StdioTarget {
  return {
    command: denoExecPath(),
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      `--allow-read=${spec.dir},${REPO_ROOT}src`,
      `--allow-write=${spec.dir}`,
      `--allow-env=${ENV_VARS.join(",")}`,
      "--allow-net=127.0.0.1",
      `${REPO_ROOT}src/main.ts`,
      "serve",
      "--db",
      spec.db,
      "--simulate-time-rate",
      String(spec.rate),
      // No linger: a run ends by closing the client, and its server must not outlive it.
      "--linger-ms",
      "0",
    ],
    cwd: REPO_ROOT,
    env: {
      LONGCALL_GITHUB_API_URL: spec.githubUrl,
      LONGCALL_LOG: "error",
      // A token, as a real user sets one (the fake accepts any): 304s are then free, as on GitHub. An
      // anonymous server would pace its watch to GitHub's 60/h and answer minutes later.
      GITHUB_TOKEN: "eval-token",
      GH_TOKEN: "",
      LONGCALL_GITHUB_TOKEN_FILE: "",
      LONGCALL_HTTP_TOKEN: "",
      LONGCALL_DB: "",
    },
    stderr: "pipe",
  };
}

/** The last few KB a server wrote to stderr (shown when a run breaks). */
export class StderrTail {
  #text = "";
  append(chunk: string): void {
    this.#text = (this.#text + chunk).slice(-8_192);
  }
  get text(): string {
    return this.#text;
  }
}

interface NodeStream {
  on(event: "data", listener: (chunk: unknown) => void): unknown;
}

/** Appends a stdio client transport's server stderr to `tail`. */
export function drainStderr(transport: unknown, tail: StderrTail): void {
  const stream = (transport as { stderr?: NodeStream | null } | undefined)?.stderr;
  stream?.on(
    "data",
    (chunk) => tail.append(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk as Uint8Array)),
  );
}

/** The server child's pid of a stdio client transport. */
export function pidOf(transport: unknown): number | undefined {
  const pid = (transport as { pid?: number | null } | undefined)?.pid;
  return typeof pid === "number" ? pid : undefined;
}

/** SIGKILL, as a crash (nothing runs in the child afterwards). */
export function killHard(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    Deno.kill(pid, "SIGKILL");
  } catch { /* already gone */ }
}

/** A real-time sleep that an abort ends early. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
