/**
 * Distribution (issue 15): running from source with the shipped flags, `setup --print` launch
 * lines that survive the npx cache, and GitHub Enterprise builds and launch lines from the same
 * single source of flags.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { GITHUB_HOST_CHARS_MAX, GITHUB_HOST_LABEL_CHARS_MAX } from "../src/base/limits.ts";
import {
  auditFlags,
  EXPORT_CONDITIONS,
  GITHUB_API_HOST,
  githubApiUrlFor,
  launchFlags,
  netHostOf,
  parseGitHubHost,
  permissionFlags,
} from "../src/cli/permissions.ts";
import { ENV_VARS } from "../src/cli/config.ts";
import { isEphemeralPath, launchCommand, type LaunchContext, setupSnippet } from "../src/cli/setup_cmd.ts";
import { UsageError } from "../src/cli/exit.ts";
import { buildFlags, compileArgs, TARGETS } from "../scripts/build.ts";
import { probeToolsList } from "../scripts/lib/stdio_probe.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MAIN = `${ROOT}src/main.ts`;

async function run(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    env,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("deno.json enables worker-options, so `deno run` of src/main.ts needs no unstable flag", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as { unstable?: string[] };
  assert.ok(config.unstable?.includes("worker-options"), "deno.json unstable lists worker-options");
  const dir = await Deno.makeTempDir();
  try {
    const flags = permissionFlags().filter((f) => f !== "--unstable-worker-options");
    assert.equal(flags.length, permissionFlags().length - 1);
    // From another working directory too: Deno finds deno.json next to the main module.
    const r = await probeToolsList(Deno.execPath(), ["run", ...flags, MAIN, "serve", "--db", `${dir}/x.db`], {
      cwd: dir,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /unstable/i);
    assert.ok(r.tools.some((t) => t.name === "jobs.get"), r.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---- setup --print ---------------------------------------------------------------------------

function ctx(over: Partial<LaunchContext>): LaunchContext {
  return {
    mainModule: "file:///src/longcall/src/main.ts",
    execPath: "/usr/local/bin/deno",
    os: "linux",
    pathEnv: undefined,
    denoVersion: "2.9.6",
    isFile: () => false,
    netGranted: () => false,
    ...over,
  };
}

const NPX_DENO = "/home/ada/.npm/_npx/3f2a9c1d/node_modules/deno/deno";

/** Puts the running deno at `path` (a hard link: the same file under another path; a copy across filesystems). */
async function placeDeno(path: string): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  try {
    await Deno.link(Deno.execPath(), path);
  } catch {
    await Deno.copyFile(Deno.execPath(), path);
  }
}

Deno.test("isEphemeralPath() recognizes npm's npx cache and nothing else", () => {
  assert.ok(isEphemeralPath(NPX_DENO));
  assert.ok(isEphemeralPath("C:\\Users\\ada\\AppData\\Local\\npm-cache\\_npx\\3f2a\\node_modules\\deno\\deno.exe"));
  assert.ok(!isEphemeralPath("/usr/lib/node_modules/deno/deno"), "a global npm install stays");
  assert.ok(!isEphemeralPath("/home/ada/.deno/bin/deno"));
  assert.ok(!isEphemeralPath("/home/ada/my_npx/deno"));
});

Deno.test("launchCommand() keeps a stable deno and the source path, with the shipped flags", () => {
  const l = launchCommand(ctx({}));
  assert.equal(l.command, "/usr/local/bin/deno");
  assert.deepEqual(l.args, ["run", ...launchFlags(), "/src/longcall/src/main.ts", "serve"]);
  assert.deepEqual(l.env, {});
  assert.equal(l.warning, undefined);
});

Deno.test("launchCommand() replaces a deno inside the npx cache by the first stable deno on PATH", () => {
  const files = new Set(["/opt/npxbin/_npx/1/deno", "/usr/bin/deno", "/usr/local/bin/deno"]);
  const l = launchCommand(ctx({
    execPath: NPX_DENO,
    pathEnv: "/opt/npxbin/_npx/1::/nonexistent:/usr/bin:/usr/local/bin",
    isFile: (p) => files.has(p),
  }));
  assert.equal(l.command, "/usr/bin/deno");
  assert.equal(l.warning, undefined);
  assert.ok(!l.args.some(isEphemeralPath));
});

Deno.test("launchCommand() on Windows looks for deno.exe along a ;-separated PATH", () => {
  const l = launchCommand(ctx({
    os: "windows",
    execPath: "C:\\npm-cache\\_npx\\ab\\node_modules\\deno\\deno.exe",
    pathEnv: "C:\\Windows;C:\\Users\\ada\\.deno\\bin\\",
    isFile: (p) => p === "C:\\Users\\ada\\.deno\\bin\\deno.exe",
  }));
  assert.equal(l.command, "C:\\Users\\ada\\.deno\\bin\\deno.exe");
});

Deno.test("launchCommand() falls back to an npx line with a warning when no stable deno exists", () => {
  const l = launchCommand(ctx({ execPath: NPX_DENO, pathEnv: "/usr/bin" }));
  assert.equal(l.command, "npx");
  assert.deepEqual(l.args.slice(0, 3), ["-y", "deno@2.9.6", "run"]);
  assert.ok(!l.args.some(isEphemeralPath), "never the cache path itself");
  assert.match(l.warning ?? "", /npx cache/);
  assert.match(l.warning ?? "", /3 s/);
});

Deno.test("launchCommand() of a compiled binary is the binary itself; another GitHub host needs its grant", () => {
  const compiled = { mainModule: "file:///tmp/deno-compile-longcall/src/main.ts", execPath: "/opt/longcall" };
  const l = launchCommand(ctx({ ...compiled, netGranted: (h) => h === "api.github.com:443" }));
  assert.deepEqual([l.command, ...l.args], ["/opt/longcall", "serve"]);
  assert.throws(
    () => launchCommand(ctx({ ...compiled, netGranted: (h) => h === "api.github.com:443" }), "ghe.example.com"),
    (err: unknown) =>
      err instanceof UsageError && /deno task compile --github-host ghe\.example\.com/.test(err.message),
  );
  const ghe = launchCommand(ctx({ ...compiled, netGranted: (h) => h === "ghe.example.com:443" }), "ghe.example.com");
  assert.deepEqual(ghe.args, ["serve"]);
  assert.deepEqual(ghe.env, { LONGCALL_GITHUB_API_URL: "https://ghe.example.com/api/v3" });
});

Deno.test("setupSnippet() carries LONGCALL_GITHUB_API_URL for another GitHub host in every host's format", () => {
  const l = launchCommand(ctx({}), "ghe.example.com:8443");
  const url = "https://ghe.example.com:8443/api/v3";
  assert.match(
    setupSnippet("claude-code", l).snippet,
    new RegExp(`^claude mcp add longcall -e LONGCALL_GITHUB_API_URL=${url} -- `),
  );
  for (const host of ["claude-desktop", "cursor"] as const) {
    const json = JSON.parse(setupSnippet(host, l).snippet);
    assert.deepEqual(json.mcpServers.longcall.env, { LONGCALL_GITHUB_API_URL: url });
  }
  assert.deepEqual(JSON.parse(setupSnippet("vscode", l).snippet).servers.longcall.env, {
    LONGCALL_GITHUB_API_URL: url,
  });
  // VS Code passes its own environment; the advice shows the secret-storage alternative as valid JSON.
  const vscodeComment = setupSnippet("vscode", l).advice.join("\n");
  const inputs = /"inputs": (\[.*\])/.exec(vscodeComment)?.[1];
  const env = /"env": (\{.*\})/.exec(vscodeComment)?.[1];
  assert.deepEqual(JSON.parse(inputs ?? ""), [{ type: "promptString", id: "github-token", password: true }]);
  assert.deepEqual(JSON.parse(env ?? ""), { GITHUB_TOKEN: "${input:github-token}" });
  assert.match(setupSnippet("codex", l).snippet, new RegExp(`env = \\{ LONGCALL_GITHUB_API_URL = "${url}" \\}`));
  assert.ok(!setupSnippet("codex", launchCommand(ctx({}))).snippet.includes("env ="), "no env line for github.com");
});

Deno.test("setupSnippet(codex) forwards every variable longcall reads but HOME and PATH by name, never a value", () => {
  // Codex clears a stdio server's environment but for HOME, PATH and a few shell basics, then adds env_vars.
  for (const l of [launchCommand(ctx({})), launchCommand(ctx({}), "ghe.example.com")]) {
    const { snippet } = setupSnippet("codex", l);
    const line = snippet.split("\n").find((x) => x.startsWith("env_vars = "));
    assert.ok(line !== undefined, snippet);
    // A TOML array of plain names is also JSON.
    const names = JSON.parse(line.slice("env_vars = ".length)) as string[];
    // A `deno run` line (from source or a bundle) also forwards Deno's own cache location.
    assert.deepEqual(names, [...ENV_VARS.filter((v) => v !== "HOME" && v !== "PATH"), "DENO_DIR"]);
    assert.doesNotMatch(snippet, /GITHUB_TOKEN\s*=/, "a token's value is never written into config.toml");
    for (const name of ["GITHUB_TOKEN", "GH_TOKEN", "LONGCALL_GITHUB_TOKEN_FILE", "LONGCALL_DB", "XDG_DATA_HOME"]) {
      assert.ok(names.some((n) => n === name), `${name} reaches the server`);
    }
  }
});

Deno.test("setupSnippet(codex): a compiled binary's entry forwards no DENO_DIR (it reads no module cache)", () => {
  const compiled = {
    mainModule: "file:///tmp/deno-compile-longcall/src/main.ts",
    execPath: "/opt/longcall",
    netGranted: (h: string) => h === "api.github.com:443",
  };
  const line = setupSnippet("codex", launchCommand(ctx(compiled))).snippet.split("\n").find((x) =>
    x.startsWith("env_vars")
  );
  const names = JSON.parse(line?.slice("env_vars = ".length) ?? "[]") as string[];
  assert.ok(names.includes("GITHUB_TOKEN") && !names.includes("DENO_DIR"), line);
});

Deno.test("setupSnippet(): the snippet parses as the host's format on its own; the advice is apart", () => {
  for (const l of [launchCommand(ctx({})), launchCommand(ctx({}), "ghe.example.com")]) {
    for (const host of ["claude-desktop", "cursor", "vscode"] as const) {
      const { snippet, advice } = setupSnippet(host, l);
      assert.doesNotThrow(() => JSON.parse(snippet), host);
      assert.ok(advice.length > 0 && advice[0]!.startsWith("Merge into"), host);
    }
    const codex = setupSnippet("codex", l).snippet;
    assert.ok(codex.split("\n").every((line) => /^(\[mcp_servers\.longcall\]|[a-z_]+ = .+)$/.test(line)), codex);
    assert.doesNotMatch(setupSnippet("claude-code", l).snippet, /\n/, "one command line");
  }
});

Deno.test("setupSnippet(claude-desktop) says how a token reaches a server Claude Desktop starts", () => {
  const text = setupSnippet("claude-desktop", launchCommand(ctx({}))).advice.join(" ");
  assert.match(text, /GITHUB_TOKEN/);
  assert.match(text, /LONGCALL_GITHUB_TOKEN_FILE/);
  assert.match(text, /\.mcpb bundle/);
});

Deno.test("setup --print from a deno in the npx cache prints the PATH deno, and the line still works once the cache is gone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A real npx-cache layout holding the running deno, and a stable deno elsewhere on PATH
    // (both placed here, so the test does not depend on where this deno was installed).
    const npxDeno = `${dir}/_npx/5e1f/node_modules/deno/deno`;
    await placeDeno(npxDeno);
    const stableDir = `${dir}/stable`;
    await placeDeno(`${stableDir}/deno`);
    const setup = await new Deno.Command(npxDeno, {
      args: ["run", ...permissionFlags(), MAIN, "setup", "--print", "claude-desktop"],
      env: { PATH: `${dir}/_npx/5e1f/node_modules/deno:${stableDir}` },
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(setup.stdout);
    assert.equal(setup.code, 0, new TextDecoder().decode(setup.stderr));
    assert.doesNotMatch(stdout, /_npx/);
    // stdout is the snippet alone: valid JSON as it stands; the advice went to stderr.
    const server = JSON.parse(stdout).mcpServers.longcall as { command: string; args: string[] };
    assert.match(new TextDecoder().decode(setup.stderr), /^# Merge into claude_desktop_config\.json/m);
    assert.equal(server.command, `${stableDir}/deno`);
    await Deno.remove(`${dir}/_npx`, { recursive: true }); // `npm cache clean`
    const db = ["--db", `${dir}/x.db`];
    const r = await probeToolsList(server.command, [...server.args, ...db], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.tools.some((t) => t.name === "github.wait_pull_request_checks"), r.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("setup --print warns on stderr and prints an npx line when only the npx-cache deno exists", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const npxDeno = `${dir}/_npx/5e1f/node_modules/deno/deno`;
    await placeDeno(npxDeno);
    const setup = await new Deno.Command(npxDeno, {
      args: ["run", ...permissionFlags(), MAIN, "setup", "--print", "claude-code"],
      env: { PATH: `${dir}/_npx/5e1f/node_modules/deno:${dir}/empty` },
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(setup.stdout);
    const stderr = new TextDecoder().decode(setup.stderr);
    assert.equal(setup.code, 0, stderr);
    assert.match(
      stdout,
      new RegExp(`^claude mcp add longcall -- npx -y deno@${Deno.version.deno.replaceAll(".", "\\.")} run `),
    );
    assert.doesNotMatch(stdout, /_npx/);
    assert.match(stderr, /warning: .*npx cache/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---- GitHub Enterprise Server ----------------------------------------------------------------

Deno.test("parseGitHubHost() accepts one host[:port] and refuses lists, schemes, paths and wildcards", () => {
  assert.equal(parseGitHubHost("GHE.Example.com"), "ghe.example.com");
  assert.equal(parseGitHubHost("ghe.example.com:8443"), "ghe.example.com:8443");
  for (
    const bad of [
      "",
      "a.com,b.com",
      "https://ghe.example.com",
      "ghe.example.com/api/v3",
      "*.example.com",
      "-x.com",
      "h:0",
      "h:65536",
      "h:",
    ]
  ) {
    assert.throws(() => parseGitHubHost(bad), TypeError, bad);
  }
});

Deno.test("parseGitHubHost() at and past GITHUB_HOST_CHARS_MAX and GITHUB_HOST_LABEL_CHARS_MAX", () => {
  const label = (n: number) => "a".repeat(n);
  assert.equal(
    parseGitHubHost(`${label(GITHUB_HOST_LABEL_CHARS_MAX)}.com`),
    `${label(GITHUB_HOST_LABEL_CHARS_MAX)}.com`,
  );
  assert.throws(() => parseGitHubHost(`${label(GITHUB_HOST_LABEL_CHARS_MAX + 1)}.com`), TypeError);
  // Labels of 63 joined by dots, cut to exactly the limit (and one more).
  const name = (n: number) => Array.from({ length: 5 }, () => label(63)).join(".").slice(0, n).replace(/\.$/, "b");
  const atLimit = name(GITHUB_HOST_CHARS_MAX);
  assert.equal(atLimit.length, GITHUB_HOST_CHARS_MAX);
  assert.equal(parseGitHubHost(`${atLimit}:8443`), `${atLimit}:8443`, "the port does not count");
  const past = name(GITHUB_HOST_CHARS_MAX + 1);
  assert.equal(past.length, GITHUB_HOST_CHARS_MAX + 1);
  assert.throws(() => parseGitHubHost(past), TypeError);
});

Deno.test("githubApiUrlFor() is the URL whose net host is the granted host", () => {
  assert.equal(githubApiUrlFor(GITHUB_API_HOST), "https://api.github.com");
  for (const h of ["ghe.example.com", "ghe.example.com:8443"]) {
    assert.equal(netHostOf(githubApiUrlFor(h)), h);
    assert.ok(buildFlags(h).includes(`--allow-net=${h},127.0.0.1,[::1]`));
  }
});

Deno.test("deno task compile --github-host builds each target with the one host and no run, ffi or sys", async () => {
  const r = await run(["task", "compile", "--dry-run", "--github-host", "ghe.example.com"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n").filter((l) => l.startsWith("[")).map((l) => JSON.parse(l) as string[]);
  assert.deepEqual(lines.map((l) => l[l.indexOf("--target") + 1]), [...TARGETS]);
  for (const line of lines) {
    assert.deepEqual(line.slice(0, 2), ["deno", "compile"]);
    const flags = permissionFlags({ githubHosts: ["ghe.example.com"] });
    assert.deepEqual(line.slice(2, 2 + flags.length), flags);
    assert.deepEqual(auditFlags(line), []);
    assert.ok(line.includes(`--conditions=${EXPORT_CONDITIONS}`), "resolved like the bundle");
    assert.match(line[line.indexOf("--output") + 1] ?? "", /dist\/github-host-ghe\.example\.com\/longcall-/);
    // The bundle, without the project's configuration: no npm package is embedded (the lock's would be).
    assert.match(line.at(-1) ?? "", /dist\/github-host-ghe\.example\.com\/longcall\.js$/);
    assert.ok(line.includes("--no-config") && line.includes("--no-lock"), line.join(" "));
  }
  assert.deepEqual(compileArgs("x86_64-pc-windows-msvc").slice(1, 1 + launchFlags().length), launchFlags());
});

Deno.test("deno task compile: a binary for this machine that is not longcall (DENORT_BIN naming deno) fails the build and is removed", async () => {
  // deno compile accepts deno itself as its base binary and writes a binary that is deno: nothing else tells.
  const host = "compile-check.example.com";
  const dir = `${ROOT}dist/github-host-${host}`;
  try {
    const r = await run(["task", "compile", "--github-host", host, Deno.build.target], { DENORT_BIN: Deno.execPath() });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /the binary deno compile wrote is not longcall \(its --version printed "deno /);
    const left = (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).filter((n) => n.startsWith("longcall-"));
    assert.deepEqual(left, [], "neither the binary nor a checksum is left");
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("deno task compile and bundle refuse a --github-host that is not one host (exit 2, nothing built)", async () => {
  for (const task of ["compile", "bundle", "flags"]) {
    const r = await run(["task", task, "--github-host", "ghe.example.com,evil.example.com"]);
    assert.equal(r.code, 2, `${task}: ${r.stderr}`);
    assert.match(r.stderr, /Cannot use --github-host: expected one host name/);
  }
});

Deno.test("deno task bundle --github-host writes a launch line that serves with that host granted to the worker", async () => {
  const host = "ghe.example.com";
  const r = await run(["task", "bundle", "--github-host", host]);
  assert.equal(r.code, 0, r.stderr);
  const dir = `${ROOT}dist/github-host-${host}`;
  const line = (await Deno.readTextFile(`${dir}/longcall.run`)).trim();
  assert.equal(
    line,
    `LONGCALL_GITHUB_API_URL=https://${host}/api/v3 deno run ${
      launchFlags({ githubHosts: [host] }).map((f) => f.includes(",") ? `'${f}'` : f).join(" ")
    } ${dir}/longcall.js serve`,
  );
  const tmp = await Deno.makeTempDir();
  try {
    const flags = buildFlags(host);
    const env = { LONGCALL_GITHUB_API_URL: githubApiUrlFor(host) };
    const audit = await run(
      ["run", ...flags, `${dir}/longcall.js`, "permissions", "--json", "--db", `${tmp}/x.db`],
      env,
    );
    assert.equal(audit.code, 0, audit.stderr);
    const rows = (JSON.parse(audit.stdout) as { rows: { descriptor: string; network_worker: string }[] }).rows;
    assert.equal(rows.find((x) => x.descriptor === `net ${host}:443`)?.network_worker, "granted");
    assert.equal(rows.find((x) => x.descriptor === "net example.com:443")?.network_worker, "denied");
    // The built bundle starts its worker from memory: the worker cannot read the bundle file.
    assert.equal(rows.find((x) => x.descriptor === `read ${dir}/longcall.js`)?.network_worker, "denied");
    // With an empty Deno cache and --cached-only: the bundle carries its modules (the README says a host entry
    // running it needs no DENO_DIR), so it serves without the cache that built it and without the registry.
    const served = await probeToolsList(Deno.execPath(), [
      "run",
      "--cached-only",
      ...flags,
      `${dir}/longcall.js`,
      "serve",
      "--db",
      `${tmp}/x.db`,
    ], { env: { ...env, DENO_DIR: `${tmp}/empty-deno-dir` } });
    assert.equal(served.code, 0, served.stderr);
    assert.ok(served.tools.length > 0, served.stderr);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("setup --print --github-host prints a line that starts the server for that host", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await run([
      "run",
      ...permissionFlags(),
      MAIN,
      "setup",
      "--print",
      "vscode",
      "--github-host",
      "ghe.example.com",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const server = JSON.parse(r.stdout).servers.longcall as {
      command: string;
      args: string[];
      env: Record<string, string>;
    };
    assert.deepEqual(server.env, { LONGCALL_GITHUB_API_URL: "https://ghe.example.com/api/v3" });
    assert.ok(server.args.includes("--allow-net=ghe.example.com,127.0.0.1,[::1]"));
    assert.deepEqual(auditFlags(server.args), []);
    const served = await probeToolsList(server.command, [...server.args, "--db", `${dir}/x.db`], {
      env: server.env,
      cwd: dir,
    });
    assert.equal(served.code, 0, served.stderr);
    assert.doesNotMatch(served.stderr, /Cannot start the network worker/);
    assert.ok(served.tools.length > 0);
    const bad = await run(["run", ...permissionFlags(), MAIN, "setup", "--print", "vscode", "--github-host", "a,b"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Cannot use --github-host/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
