/**
 * Builds the shipped artefacts with the permission flags from src/cli/permissions.ts:
 *
 *   deno task bundle  [--github-host HOST]            dist/longcall.js + dist/longcall.run (the exact `deno run` line)
 *   deno task compile [--github-host HOST] [--dry-run] [TARGET...]
 *                                                     dist/longcall-<target> via `deno compile` (all targets by default)
 *   deno task flags   [--github-host HOST]            the flags as JSON (what the release workflow compares with)
 *
 * `--github-host HOST` builds for a GitHub Enterprise Server API host instead of api.github.com:
 * the same `permissionFlags()` with that one host, written to dist/github-host-<HOST>/, and the
 * launch line sets `LONGCALL_GITHUB_API_URL` to match. `--dry-run` prints the `deno compile`
 * command lines without running them.
 *
 * `deno compile` needs Deno's `denort` base binary, downloaded from Deno's server or taken
 * from DENORT_BIN. Where neither is available the compile step says so and how to fix it;
 * the bundle still works everywhere. Also writes SHA-256 checksums next to the outputs.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  auditFlags,
  GITHUB_API_HOST,
  githubApiUrlFor,
  parseGitHubHost,
  permissionFlags,
} from "../src/cli/permissions.ts";

export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;
export type Target = typeof TARGETS[number];

// fileURLToPath, not URL.pathname: on a Windows runner the root is D:\a\..., not /D:/a/...
const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const DIST = `${ROOT}dist`;

/** The file name of the binary for one target. */
export function binaryName(target: string): string {
  return `longcall-${target}${target.includes("windows") ? ".exe" : ""}`;
}

/** Where the artefacts for a GitHub host go: dist/ for api.github.com, dist/github-host-<HOST>/ otherwise. */
export function distDir(githubHost: string = GITHUB_API_HOST): string {
  return githubHost === GITHUB_API_HOST ? DIST : `${DIST}/github-host-${githubHost.replace(":", "_")}`;
}

export async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function deno(args: string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stdout: "inherit", stderr: "piped" })
    .output();
  const stderr = new TextDecoder().decode(out.stderr);
  await Deno.stderr.write(out.stderr);
  return { code: out.code, stderr };
}

/** The flags for a GitHub host, refused when the audit finds a problem. */
export function buildFlags(githubHost: string = GITHUB_API_HOST): string[] {
  const flags = permissionFlags({ githubHosts: [parseGitHubHost(githubHost)] });
  const problems = auditFlags(flags);
  if (problems.length > 0) throw new Error(`Cannot build: the permission flags have problems: ${problems.join("; ")}`);
  return flags;
}

function shellQuote(f: string): string {
  return /^[A-Za-z0-9_./:=@-]+$/.test(f) ? f : `'${f}'`;
}

/** `deno bundle` to <dist>/longcall.js, plus the launch line. */
export async function bundle(githubHost: string = GITHUB_API_HOST): Promise<{ path: string; runLine: string }> {
  const flags = buildFlags(githubHost);
  const dir = distDir(githubHost);
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir}/longcall.js`;
  const { code } = await deno(["bundle", "--platform", "deno", "--quiet", "-o", path, "src/main.ts"]);
  if (code !== 0) throw new Error(`deno bundle failed with exit code ${code}`);
  const env = githubHost === GITHUB_API_HOST ? "" : `LONGCALL_GITHUB_API_URL=${githubApiUrlFor(githubHost)} `;
  const runLine = `${env}deno run ${flags.map(shellQuote).join(" ")} ${path.slice(ROOT.length)} serve`;
  await Deno.writeTextFile(`${dir}/longcall.run`, `${runLine}\n`);
  await Deno.writeTextFile(`${dir}/longcall.js.sha256`, `${await sha256(path)}  longcall.js\n`);
  return { path, runLine };
}

/** The `deno compile` arguments for one target and GitHub host. */
export function compileArgs(target: string, githubHost: string = GITHUB_API_HOST): string[] {
  if (!(TARGETS as readonly string[]).includes(target)) {
    throw new TypeError(
      `Cannot compile: unknown target, expected one of ${TARGETS.join(", ")}, current value is ${target}`,
    );
  }
  const out = `${distDir(githubHost)}/${binaryName(target)}`;
  return ["compile", ...buildFlags(githubHost), "--target", target, "--output", out, "src/main.ts"];
}

/** `deno compile` for one target. Returns false (with an explanation printed) when denort is unavailable. */
export async function compile(target: string, githubHost: string = GITHUB_API_HOST): Promise<boolean> {
  const args = compileArgs(target, githubHost);
  const out = args[args.indexOf("--output") + 1] ?? "";
  await Deno.mkdir(distDir(githubHost), { recursive: true });
  const { code } = await deno(args);
  if (code !== 0) {
    const denort = Deno.env.get("DENORT_BIN") || undefined;
    console.error(
      [
        `\nCannot compile for ${target}: deno compile exited with ${code}.`,
        denort === undefined
          ? "deno compile needs Deno's denort base binary. It downloads it from Deno's download server, which is " +
            "not reachable from this machine, and DENORT_BIN is not set. Fix: run this task where Deno's download server is " +
            "reachable, or set DENORT_BIN to a denort binary for the target (from the denort-<target>.zip release " +
            "asset of Deno 2.9.6). Meanwhile `deno task bundle` builds dist/longcall.js, which runs with the same " +
            "flags (see dist/longcall.run)."
          : `DENORT_BIN is set to ${denort}; check that it is a denort (not deno) binary for ${target}.`,
      ].join("\n"),
    );
    return false;
  }
  await Deno.writeTextFile(`${out}.sha256`, `${await sha256(out)}  ${binaryName(target)}\n`);
  return true;
}

if (import.meta.main) {
  const [mode, ...rest] = Deno.args;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { "github-host": { type: "string" }, "dry-run": { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
    if (parsed.values["github-host"] !== undefined) parseGitHubHost(parsed.values["github-host"]);
  } catch (err) {
    console.error(`build: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(2);
  }
  const host = parsed.values["github-host"] === undefined
    ? GITHUB_API_HOST
    : parseGitHubHost(parsed.values["github-host"]);
  if (mode === "bundle") {
    const { path, runLine } = await bundle(host);
    console.log(`Wrote ${path}\nRun it with:\n  ${runLine}`);
  } else if (mode === "flags") {
    console.log(JSON.stringify(buildFlags(host)));
  } else if (mode === "compile") {
    const targets = parsed.positionals.length > 0 ? parsed.positionals : [...TARGETS];
    for (const t of targets) {
      if (!(TARGETS as readonly string[]).includes(t)) {
        console.error(`build: unknown target ${t}; expected one of ${TARGETS.join(", ")}`);
        Deno.exit(2);
      }
    }
    if (parsed.values["dry-run"] === true) {
      for (const t of targets) console.log(JSON.stringify(["deno", ...compileArgs(t, host)]));
      Deno.exit(0);
    }
    let ok = true;
    for (const t of targets) ok = await compile(t, host) && ok;
    Deno.exit(ok ? 0 : 1);
  } else {
    console.error(
      "usage: deno task bundle|flags [--github-host HOST] | deno task compile [--github-host HOST] [--dry-run] [TARGET...]",
    );
    Deno.exit(2);
  }
}
