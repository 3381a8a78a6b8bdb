/**
 * The single source of truth for longcall's Deno permissions: the flags `deno compile`,
 * `deno task serve`, the bundle's launch line, the tests and `longcall permissions` all
 * use, and the narrower sets each part of the process keeps after start-up.
 *
 * | part            | keeps after start-up                                           |
 * |-----------------|----------------------------------------------------------------|
 * | MCP thread      | nothing: no net, no read, no write, no env (open DB kept)      |
 * | network worker  | net: the GitHub API host only; read/write: the database files  |
 *
 * Never granted anywhere: run (longcall never starts a process), ffi, sys.
 *
 * @module
 */

import { GITHUB_HOST_CHARS_MAX, GITHUB_HOST_LABEL_CHARS_MAX } from "../base/limits.ts";
import { ENV_VARS } from "./config.ts";

/** GitHub's API host, the only network destination of the shipped binary. */
export const GITHUB_API_HOST = "api.github.com";

/** Loopback addresses the optional `serve --http` endpoint may bind (revoked from the MCP thread once bound). */
export const HTTP_BIND_HOSTS = ["127.0.0.1", "[::1]"] as const;

/** Flags that must never appear: each would void part of the sandbox. */
export const FORBIDDEN_FLAGS = ["-A", "--allow-all", "--allow-run", "--allow-ffi", "--allow-sys"] as const;

/** Why each granted flag is there (docs/SECURITY.md and `longcall permissions` print these). */
export const FLAG_REASONS: Record<string, string> = {
  "--no-prompt": "never ask interactively: a server has no one to ask",
  "--unstable-worker-options": "lets the network worker get its own, narrower permission set",
  "--allow-net": "GitHub's API host for the network worker, plus loopback to bind the optional HTTP endpoint",
  "--allow-env": "only the variables longcall reads (listed), dropped after start-up",
  "--allow-read": "the database and token file paths are chosen at run time, so they cannot be fixed at " +
    "compile time; dropped from the MCP thread after start-up, and the worker keeps only the database files",
  "--allow-write": "same as --allow-read: the database is created at a run-time path; narrowed after start-up",
  "--conditions": "not a permission: npm packages resolve as in the bundle and the binaries, so the MCP SDK " +
    "loads its non-Node shims: no Node process polyfill and no JSON Schema library, which longcall does not use",
  "--v8-flags": "not a permission: a 1 MB young-generation semi-space keeps an idle server's memory small, and " +
    "V8's gc function lets each thread give memory back once it is idle",
};

/**
 * The V8 flags of the shipped launch line, after the permission flags (issue 14). A 1 MB semi-space
 * (V8's default grows it to 8-16 MB per isolate, and longcall runs two: the serving thread and the
 * network worker) took an idle bundle from about 112 to 95 MB after 1,000 `jobs.get` calls, the
 * hello server from 92 to 73 MB, with no measurable throughput cost (scripts/bench/mcp.ts).
 * `--expose-gc` defines V8's global `gc` function, which each isolate calls once it has been quiet
 * (src/base/idle_collect.ts): V8 keeps the heap a burst grew, and its own memory reducer never starts
 * in Deno. It grants nothing (code that can call `gc` can already allocate). Neither is a permission,
 * so `longcall permissions` cannot query them.
 *
 * No `--max-old-space-size`: a cap below 2,048 MB lowers V8's old-generation growing factor (1,000
 * `jobs.get` calls of 100 ids: about 145 MB uncapped, 101-124 MB at 128-1,536 MB), but a cap turns a
 * large live heap into a crash, and the bounds allow about 1.4 GiB in the serving thread (64 HTTP
 * requests in flight, each a 1 MiB message that JSON.parse can make 22 MiB of heap); a cap above that
 * with a margin no longer helps. Reasoned in scripts/bench/mcp.ts's RSS note; the measurements are in
 * docs/benchmarks.md's history (`git log -p docs/benchmarks.md`).
 */
export const V8_FLAGS: readonly string[] = ["--v8-flags=--max-semi-space-size=1,--expose-gc"];

/**
 * The npm export condition every launch line resolves with: `deno run` and `deno compile` take it as
 * {@linkcode RESOLUTION_FLAGS}, `deno bundle` (which has no flag for it) reads it from `DENO_CONDITIONS`
 * (scripts/build.ts). `browser` selects the MCP server SDK's own non-Node shims
 * (`@modelcontextprotocol/server/_shims`, the package's documented `browser` export): a stub `process`
 * instead of `node:process`, and the `@cfworker/json-schema` validator instead of ajv. longcall needs
 * neither: its stdio wire reads `Deno.stdin` (src/mcp/stdio_framing.ts, handed to `serveStdio` through
 * its `transport` option), and the SDK's JSON Schema validator serves only elicitation and JSON-Schema
 * tools, which longcall has none of. No other package longcall loads has a `browser` export.
 *
 * What loading Node's process polyfill and ajv cost a from-source start-up (about 170-200 ms here) is
 * measured by `deno task startup-ab --runs 31 --without-resolution before before=src/main.ts after=src/main.ts`:
 * when this flag was added, two runs put the medians 3.7 and 11.6 ms apart (per round 7.9 and 15.1 ms;
 * issue 14). docs/benchmarks.md measures the start-up as launched; tests/bundle_worker_test.ts proves the
 * bundle loads neither and still serves, tests/permissions_test.ts that this flag selects the same shims
 * from source.
 */
export const EXPORT_CONDITIONS = "browser";

/** The launch line's module-resolution flag: {@linkcode EXPORT_CONDITIONS}. Not a permission. */
export const RESOLUTION_FLAGS: readonly string[] = [`--conditions=${EXPORT_CONDITIONS}`];

/** Options for the flag list. */
export interface FlagOptions {
  /** Hosts the network worker may reach (default GitHub's API host). Tests pass the fake's `127.0.0.1:PORT`. */
  githubHosts?: readonly string[];
}

/** The exact permission flags longcall runs with. */
export function permissionFlags(options: FlagOptions = {}): string[] {
  const hosts = options.githubHosts ?? [GITHUB_API_HOST];
  const net = [...new Set([...hosts, ...HTTP_BIND_HOSTS])];
  return [
    "--no-prompt",
    "--unstable-worker-options",
    `--allow-net=${net.join(",")}`,
    `--allow-env=${ENV_VARS.join(",")}`,
    "--allow-read",
    "--allow-write",
  ];
}

/**
 * Everything the shipped launch line passes before the script: {@linkcode permissionFlags}, then
 * {@linkcode RESOLUTION_FLAGS} and {@linkcode V8_FLAGS}.
 */
export function launchFlags(options: FlagOptions = {}): string[] {
  return [...permissionFlags(options), ...RESOLUTION_FLAGS, ...V8_FLAGS];
}

/** Checks a flag list against the forbidden set and the net scoping rule; returns the problems. */
export function auditFlags(flags: readonly string[]): string[] {
  const problems: string[] = [];
  for (const flag of flags) {
    const name = flag.split("=")[0] ?? flag;
    if ((FORBIDDEN_FLAGS as readonly string[]).includes(name)) problems.push(`forbidden flag ${flag}`);
    if (name === "--allow-net" && !flag.includes("=")) problems.push("unscoped --allow-net");
    if (name === "--allow-env" && !flag.includes("=")) problems.push("unscoped --allow-env");
    if (name === "--allow-import") problems.push(`unexpected flag ${flag}`);
    if (name === "--v8-flags" && !V8_FLAGS.includes(flag)) problems.push(`unexpected flag ${flag}`);
    if (name === "--conditions" && !RESOLUTION_FLAGS.includes(flag)) problems.push(`unexpected flag ${flag}`);
  }
  return problems;
}

/** The host (with port when not default) of a GitHub API base URL, as `--allow-net` spells it. */
export function netHostOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return url.port === "" ? url.hostname : `${url.hostname}:${url.port}`;
}

// Distribution (issue 15): GitHub Enterprise Server without code. `deno task compile
// --github-host HOST`, `deno task bundle --github-host HOST` and `longcall setup --print HOST
// --github-host HOST` all pass the host through permissionFlags({ githubHosts: [host] }), so
// the flags still come from this module: one GitHub host, loopback, never run, ffi or sys.

const HOST_LABEL = `[A-Za-z0-9](?:[A-Za-z0-9-]{0,${GITHUB_HOST_LABEL_CHARS_MAX - 2}}[A-Za-z0-9])?`;
const GITHUB_HOST_RE = new RegExp(`^(${HOST_LABEL}(?:\\.${HOST_LABEL})*)(?::(\\d{1,5}))?$`);

/**
 * Checks a `--github-host` value: one host name (letters, digits, dots, hyphens) with an optional
 * `:PORT`, nothing else (no scheme, path, comma-separated list or wildcard), so the flag it
 * produces still names exactly one GitHub host. Returns it lower-cased.
 *
 * @throws {TypeError} for anything else.
 */
export function parseGitHubHost(value: string): string {
  const m = GITHUB_HOST_RE.exec(value);
  const port = m?.[2] === undefined ? 443 : Number(m[2]);
  if (m === null || (m[1] ?? "").length > GITHUB_HOST_CHARS_MAX || port < 1 || port > 65535) {
    throw new TypeError(
      `Cannot use --github-host: expected one host name such as ghe.example.com or ghe.example.com:8443 ` +
        `(no scheme, path or list), current value is ${JSON.stringify(value)}`,
    );
  }
  return value.toLowerCase();
}

/**
 * The API base URL for a GitHub host, the value `LONGCALL_GITHUB_API_URL` must have for a
 * binary or launch line built for that host: `https://api.github.com` for GitHub itself,
 * `https://HOST/api/v3` for GitHub Enterprise Server. `netHostOf()` of the result is the host.
 */
export function githubApiUrlFor(host: string): string {
  const h = parseGitHubHost(host);
  return h === GITHUB_API_HOST ? `https://${GITHUB_API_HOST}` : `https://${h}/api/v3`;
}
