/**
 * The commit a measurement ran on, for the reports that `deno task eval` and `deno task bench` write.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The commit the run measured, and whether src/, scripts/, testing/ or tests/ differed from it. */
export async function revision(): Promise<string> {
  try {
    const git = (gitArgs: string[]) =>
      new Deno.Command("git", { args: gitArgs, cwd: ROOT, stdout: "piped", stderr: "null" }).output();
    const head = await git(["rev-parse", "--short", "HEAD"]);
    if (!head.success) return "unknown";
    const dirty = await git(["status", "--porcelain", "--", "src", "scripts", "testing", "tests"]);
    const sha = new TextDecoder().decode(head.stdout).trim();
    return dirty.stdout.length > 0 ? `${sha} with uncommitted changes` : sha;
  } catch {
    return "unknown";
  }
}
