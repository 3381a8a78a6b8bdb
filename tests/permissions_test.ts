/**
 * The permission model, proven with the shipped flags: what the serving thread and the
 * network worker can and cannot do, the audit command against the single source of
 * truth, and the bundle running with those flags. The pure flag building and audit are
 * unit-tested beside them in src/cli/permissions_test.ts.
 */

import assert from "node:assert/strict";
import { launchFlags, permissionFlags, RESOLUTION_FLAGS } from "../src/cli/permissions.ts";
import { startFakeGitHub } from "../testing/fake_github.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = `${ROOT}src/main.ts`;

/** Runs `deno` with `args` from the repository root, in `options.env` only, `options.stdin` written to its stdin. */
async function run(args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) {
  const { env = {}, stdin } = options;
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env,
    cwd: ROOT,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("deno task serve uses exactly the flags of the single source of truth", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as { tasks: Record<string, string> };
  assert.equal(config.tasks.serve, `deno run ${launchFlags().join(" ")} src/main.ts serve`);
});

Deno.test("the launch line resolves the MCP SDK's non-Node shims, as the bundle does (no Node process polyfill, no ajv)", async () => {
  // The SDK picks its shims by export condition; which one loaded shows in its JSON Schema validator's class.
  const probe = 'const m = await import("@modelcontextprotocol/server/_shims"); ' +
    "console.log(m.DefaultJsonSchemaValidator.name)";
  const shipped = await run(["eval", ...RESOLUTION_FLAGS, probe]);
  assert.equal(shipped.code, 0, shipped.stderr);
  assert.equal(shipped.stdout.trim(), "CfWorkerJsonSchemaValidator");
  const unflagged = await run(["eval", probe]);
  assert.equal(unflagged.code, 0, unflagged.stderr);
  assert.equal(unflagged.stdout.trim(), "AjvJsonSchemaValidator", "without the flag the SDK loads its Node shims");
});

Deno.test("the serving thread cannot reach the network, run a process or touch files after narrowing", async () => {
  const fake = await startFakeGitHub();
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/secret.txt`;
    await Deno.writeTextFile(file, "secret");
    const host = new URL(fake.url).host;
    const r = await run([
      "run",
      ...permissionFlags({ githubHosts: [host] }),
      // Deno lets a thread import from its default hosts (esm.sh, jsr.io, ...) with no flag; a test may not
      // contact them, so a grant for the loopback host stands in, and the narrowing must revoke it too.
      `--allow-import=${host}`,
      `${ROOT}tests/helpers/narrowed_probe.ts`,
      `${dir}/x.db`,
      `${fake.url}/rate_limit`,
      file,
      `${fake.url}/module.js`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const outcome = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}");
    assert.deepEqual(outcome, {
      fetch_github: "NotCapable",
      fetch_other: "NotCapable",
      command: "NotCapable",
      child_process: outcome.child_process === "allowed" ? "(spawned!)" : outcome.child_process,
      read_file: "NotCapable",
      write_file: "NotCapable",
      env: "NotCapable",
      database_read: "allowed",
      database_write: "allowed",
      remote_import: "denied",
    });
    assert.notEqual(outcome.child_process, "allowed");
    assert.equal(fake.counts.total, 0, "no request may reach the fake GitHub from the serving thread");
  } finally {
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("longcall permissions reports the worker's net scoped to the GitHub host and the MCP thread empty", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const github = "127.0.0.1:45678";
    const r = await run([
      "run",
      ...permissionFlags({ githubHosts: [github] }),
      MAIN,
      "permissions",
      "--json",
      "--db",
      `${dir}/x.db`,
    ], { env: { LONGCALL_GITHUB_API_URL: `http://${github}` } });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as {
      flags: string[];
      problems: string[];
      notes: string[];
      rows: { descriptor: string; process_at_start: string; mcp_thread: string; network_worker: string }[];
    };
    assert.deepEqual(report.flags, permissionFlags({ githubHosts: [github] }));
    assert.deepEqual(report.problems, []);
    assert.ok(report.notes.some((n) => n.startsWith("import is not a row")), "the report says how import is handled");
    const row = (d: string) => {
      const found = report.rows.find((x) => x.descriptor === d);
      assert.ok(found, d);
      return found;
    };
    for (const r of report.rows) assert.equal(r.mcp_thread, "denied", `MCP thread: ${r.descriptor}`);
    assert.equal(row(`net ${github}`).network_worker, "granted");
    assert.equal(row("net example.com:443").network_worker, "denied");
    assert.equal(row("net 127.0.0.1:1").network_worker, "denied");
    assert.equal(row(`read ${dir}/x.db`).network_worker, "granted");
    assert.equal(row(`write ${dir}/x.db`).network_worker, "granted");
    const home = Deno.env.get("HOME");
    if (home !== undefined) assert.equal(row(`read ${home}`).network_worker, "denied");
    assert.equal(row("env GITHUB_TOKEN").network_worker, "denied");
    for (const d of ["run *", "ffi", "sys"]) {
      assert.equal(row(d).process_at_start, "denied");
      assert.equal(row(d).network_worker, "denied");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("longcall permissions (human): the table's columns stay aligned past a long database path", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = `${dir}/${"a-rather-long-directory-name/".repeat(3)}x.db`;
    const r = await run(["run", ...permissionFlags(), MAIN, "permissions", "--db", db]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n");
    const header = lines.findIndex((l) => l.startsWith("descriptor "));
    const table = lines.slice(header, lines.indexOf("", header));
    assert.ok(table.some((l) => l.startsWith(`write ${db} `)), "the long path is a row");
    const column = (l: string) => l.search(/ (at start|granted|denied|prompt) /);
    assert.deepEqual(new Set(table.map(column)).size, 1, table.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const INIT = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
].map((m) => JSON.stringify(m)).join("\n") + "\n";

Deno.test("the bundle serves MCP over stdio with the shipped flags", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bundle = `${dir}/longcall.js`;
    const b = await run(["bundle", "--platform", "deno", "--quiet", "-o", bundle, MAIN]);
    assert.equal(b.code, 0, b.stderr);
    const r = await run(["run", ...permissionFlags(), bundle, "serve", "--db", `${dir}/x.db`], { stdin: INIT });
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const list = lines.find((m) => m.id === 2);
    const names = (list?.result?.tools ?? []).map((t: { name: string }) => t.name);
    assert.ok(names.includes("github.wait_pull_request_checks"), r.stderr);
    assert.ok(names.includes("jobs.get"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const denort = Deno.env.get("DENORT_BIN");
if (denort === undefined || denort === "") {
  console.log(
    "permissions_test: skipping the compiled-binary test: DENORT_BIN is not set and Deno's download server " +
      "(where deno compile gets denort) is not reachable here",
  );
}
Deno.test({
  name: "the compiled binary serves MCP over stdio (needs DENORT_BIN)",
  ignore: denort === undefined || denort === "",
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const out = `${dir}/longcall`;
      const c = await run(["compile", ...permissionFlags(), "--output", out, MAIN], {
        env: { DENORT_BIN: denort ?? "" },
      });
      assert.equal(c.code, 0, c.stderr);
      const child = new Deno.Command(out, {
        args: ["serve", "--db", `${dir}/x.db`],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(INIT));
      await w.close();
      const o = await child.output();
      assert.match(new TextDecoder().decode(o.stdout), /jobs\.get/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("serve refuses to start, exit 1 with a clear message, when its GitHub host was not granted", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await run(["run", ...permissionFlags(), MAIN, "serve", "--db", `${dir}/x.db`], {
      env: { LONGCALL_GITHUB_API_URL: "https://ghe.example.com/api/v3" },
      stdin: "",
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Cannot start the network worker with net ghe\.example\.com/);
    assert.equal(r.stdout, "", "nothing but protocol messages on stdout, and here none");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve narrows only after the network worker loaded its code (no worker failure at start-up)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (let i = 0; i < 3; i++) {
      // stdin ends at once: the server shuts down right after start-up, the moment a
      // too-early revoke used to break the worker's own module loads.
      const r = await run(["run", ...permissionFlags(), MAIN, "serve", "--db", `${dir}/x.db`], { stdin: INIT });
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /network worker/, r.stderr);
      assert.match(r.stdout, /"id":2/, "tools/list was answered");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
