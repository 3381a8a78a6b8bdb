/**
 * Runs one of the side-by-side measurement scripts of scripts/bench/ (`deno task startup-ab`,
 * `deno task store-guards`) as its task does, for the tests of their refusals and reports.
 *
 * @module
 */

import { REPO_ROOT } from "./longcall_procs.ts";

/** What a script run printed, and its exit code. */
export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `scripts/bench/<name>` with the permissions its task grants, from the repository root. */
export async function benchScript(name: string, ...args: string[]): Promise<ScriptRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      `${REPO_ROOT}scripts/bench/${name}`,
      ...args,
    ],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}
