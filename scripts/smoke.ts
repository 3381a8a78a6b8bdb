/**
 * Smoke test of a built longcall on the machine it runs on (the release workflow runs it on each
 * target's own runner; CI runs it on the bundle on Linux, macOS and Windows):
 *
 *   deno task smoke <binary> [--github-host HOST]
 *   deno task smoke --bundle dist/longcall.js [--github-host HOST]
 *
 * 1. `--version` prints `longcall <src/base/version.ts>`;
 * 2. `permissions --json` shows the shipped grants: flags equal to permissionFlags() for the host,
 *    no problems, run/ffi/sys denied, net granted to the GitHub host only, the MCP thread narrowed;
 * 3. a stdio `tools/list` with no --db and no LONGCALL_DB lists the product's tools and creates the
 *    database at the platform's default path (Windows LOCALAPPDATA, macOS Application Support, XDG).
 *
 * A bundle runs through this Deno with the flags from src/cli/permissions.ts; a binary carries its own.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { VERSION } from "../src/base/version.ts";
import { defaultDatabasePath } from "../src/cli/config.ts";
import { GITHUB_API_HOST, githubApiUrlFor, parseGitHubHost, permissionFlags } from "../src/cli/permissions.ts";
import { buildFlags } from "./build.ts";
import { listedTools } from "./lib/release.ts";
import { probeToolsList } from "./lib/stdio_probe.ts";

interface Report {
  flags: string[];
  problems: string[];
  rows: { descriptor: string; process_at_start: string; mcp_thread: string; network_worker: string }[];
}

/** Runs `command` as `new Deno.Command(command, options)` would, stdin closed, and decodes what it wrote. */
async function output(command: string, options: { args: string[]; env: Record<string, string> }) {
  const { args, env } = options;
  const out = await new Deno.Command(command, { args, env, stdin: "null", stdout: "piped", stderr: "piped" }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

/** Runs the three checks; throws an AssertionError naming the first that fails. */
export async function smoke(target: { binary: string } | { bundle: string }, githubHost = GITHUB_API_HOST) {
  const host = parseGitHubHost(githubHost);
  const flags = buildFlags(host);
  const [command, prefix] = "binary" in target
    ? [target.binary, [] as string[]]
    : [Deno.execPath(), ["run", ...flags, target.bundle]];
  const hostEnv: Record<string, string> = host === GITHUB_API_HOST
    ? {}
    : { LONGCALL_GITHUB_API_URL: githubApiUrlFor(host) };
  const dir = await Deno.makeTempDir({ prefix: "longcall-smoke-" });
  try {
    const version = await output(command, { args: [...prefix, "--version"], env: hostEnv });
    assert.equal(version.code, 0, `--version failed: ${version.stderr}`);
    assert.equal(version.stdout.trim(), `longcall ${VERSION}`);
    console.error(`ok: --version prints longcall ${VERSION}`);

    const sep = Deno.build.os === "windows" ? "\\" : "/";
    const audit = await output(command, {
      args: [...prefix, "permissions", "--json", "--db", `${dir}${sep}audit.db`],
      env: hostEnv,
    });
    assert.equal(audit.code, 0, `permissions --json failed: ${audit.stderr}`);
    const report = JSON.parse(audit.stdout) as Report;
    // The V8 flags of the launch line are not permissions: Deno cannot be asked about them.
    const permissions = permissionFlags({ githubHosts: [host] });
    assert.deepEqual(report.flags, permissions, "the flags are src/cli/permissions.ts's");
    assert.deepEqual(report.problems, []);
    const row = (d: string) => {
      const found = report.rows.find((r) => r.descriptor === d);
      assert.ok(found, `permissions --json has a row for ${d}`);
      return found;
    };
    const netHost = host.includes(":") ? host : `${host}:443`;
    assert.equal(row(`net ${netHost}`).process_at_start, "granted");
    assert.equal(row(`net ${netHost}`).network_worker, "granted");
    assert.equal(row("net example.com:443").process_at_start, "denied");
    for (const d of ["run *", "ffi", "sys"]) assert.equal(row(d).process_at_start, "denied", d);
    for (const r of report.rows) assert.equal(r.mcp_thread, "denied", `MCP thread: ${r.descriptor}`);
    console.error(`ok: permissions --json shows the shipped grants (net ${netHost} only; no run, ffi, sys)`);

    const dataEnv: Record<string, string> = Deno.build.os === "windows"
      ? { LOCALAPPDATA: `${dir}\\data` }
      : Deno.build.os === "darwin"
      ? { HOME: `${dir}/home` }
      : { XDG_DATA_HOME: `${dir}/data` };
    const expectedDb = defaultDatabasePath(Deno.build.os, dataEnv);
    const served = await probeToolsList(command, [...prefix, "serve"], {
      env: { ...hostEnv, ...dataEnv, LONGCALL_DB: "" },
    });
    assert.equal(served.code, 0, `serve failed: ${served.stderr}`);
    assert.equal(served.serverVersion, VERSION);
    assert.deepEqual(served.tools.map((t) => t.name), listedTools().map((t) => t.name));
    assert.ok((await Deno.stat(expectedDb)).isFile, `the default database ${expectedDb} was created`);
    console.error(`ok: stdio tools/list answered ${served.tools.length} tools; database at ${expectedDb}`);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  let parsed;
  try {
    parsed = parseArgs({
      args: Deno.args,
      options: { bundle: { type: "string" }, "github-host": { type: "string" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    console.error(`smoke: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(2);
  }
  const { values, positionals } = parsed;
  const binary = positionals[0];
  if ((binary === undefined) === (values.bundle === undefined)) {
    console.error("usage: deno task smoke <binary> | deno task smoke --bundle <longcall.js>  [--github-host HOST]");
    Deno.exit(2);
  }
  try {
    await smoke(binary === undefined ? { bundle: values.bundle ?? "" } : { binary }, values["github-host"]);
    console.error("smoke test passed");
  } catch (err) {
    console.error(`smoke test failed: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(1);
  }
}
