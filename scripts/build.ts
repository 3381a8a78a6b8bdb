/**
 * Builds the shipped artefacts with the permission flags from src/cli/permissions.ts:
 *
 *   deno task bundle            dist/longcall.js + dist/longcall.run (the exact `deno run` line)
 *   deno task compile [TARGET]  dist/longcall-<target> via `deno compile` (all targets by default)
 *
 * `deno compile` needs Deno's `denort` base binary, downloaded from Deno's server or taken
 * from DENORT_BIN. Where neither is available the compile step says so and how to fix it;
 * the bundle still works everywhere. Also writes SHA-256 checksums next to the outputs.
 *
 * @module
 */

import { auditFlags, permissionFlags } from "../src/cli/permissions.ts";

export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

const ROOT = new URL("..", import.meta.url).pathname;
const DIST = `${ROOT}dist`;

async function sha256(path: string): Promise<string> {
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

function checkFlags(flags: string[]): void {
  const problems = auditFlags(flags);
  if (problems.length > 0) throw new Error(`Cannot build: the permission flags have problems: ${problems.join("; ")}`);
}

/** `deno bundle` to dist/longcall.js, plus the launch line. */
export async function bundle(): Promise<{ path: string; runLine: string }> {
  const flags = permissionFlags();
  checkFlags(flags);
  await Deno.mkdir(DIST, { recursive: true });
  const path = `${DIST}/longcall.js`;
  const { code } = await deno(["bundle", "--platform", "deno", "--quiet", "-o", path, "src/main.ts"]);
  if (code !== 0) throw new Error(`deno bundle failed with exit code ${code}`);
  const runLine = `deno run ${flags.map((f) => f.includes(",") || f.includes("[") ? `'${f}'` : f).join(" ")} ` +
    `dist/longcall.js serve`;
  await Deno.writeTextFile(`${DIST}/longcall.run`, `${runLine}\n`);
  await Deno.writeTextFile(`${DIST}/longcall.js.sha256`, `${await sha256(path)}  longcall.js\n`);
  return { path, runLine };
}

/** `deno compile` for one target. Returns false (with an explanation printed) when denort is unavailable. */
export async function compile(target: string): Promise<boolean> {
  const flags = permissionFlags();
  checkFlags(flags);
  await Deno.mkdir(DIST, { recursive: true });
  const out = `${DIST}/longcall-${target}${target.includes("windows") ? ".exe" : ""}`;
  const { code } = await deno(["compile", ...flags, "--target", target, "--output", out, "src/main.ts"]);
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
  await Deno.writeTextFile(`${out}.sha256`, `${await sha256(out)}  ${out.slice(DIST.length + 1)}\n`);
  return true;
}

if (import.meta.main) {
  const [mode, ...rest] = Deno.args;
  if (mode === "bundle") {
    const { path, runLine } = await bundle();
    console.log(`Wrote ${path}\nRun it with:\n  ${runLine}`);
  } else if (mode === "compile") {
    const targets = rest.length > 0 ? rest : [...TARGETS];
    let ok = true;
    for (const t of targets) ok = await compile(t) && ok;
    Deno.exit(ok ? 0 : 1);
  } else {
    console.error("usage: deno task bundle | deno task compile [TARGET...]");
    Deno.exit(2);
  }
}
