/**
 * The shipped bundle (`deno task bundle`, scripts/build.ts) starts its network worker from an
 * embedded, self-contained script through a `blob:` URL: the worker reads no file to load its
 * code, so it holds no read grant beyond the database files, not even of the bundle itself. Proven
 * with the bundle as built for release, the shipped flags and real child processes; then the same
 * bundle watches a pull request end to end against the fake GitHub.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/bundle_worker_test.ts
 */

import assert from "node:assert/strict";
import { bundleEntries, bundleTo } from "../scripts/build.ts";
import { AppError } from "../src/base/errors.ts";
import { silentLogger } from "../src/base/log.ts";
import { productPolicies } from "../src/cli/product_kinds.ts";
import { productKinds } from "../src/cli/product_runners.ts";
import { watchSpec } from "../src/github/watch_spec.ts";
import { JobKindRegistry } from "../src/jobs/kinds.ts";
import { parseJobInput } from "../src/jobs/spec.ts";
import { systemClock } from "../src/base/clock.ts";
import { SYNC_KIND } from "../src/github/sync_kind.ts";
import { openStore } from "../src/store/store.ts";
import { netHostOf, permissionFlags } from "../src/cli/permissions.ts";
import { WATCH_KIND } from "../src/github/watch_kind.ts";
import { SCENARIO_PULL, startFakeGitHub } from "../testing/fake_github.ts";
import { REPO_ROOT } from "./helpers/longcall_procs.ts";
import { connectTaskHost, denoExecPath } from "../testing/mcp_clients.ts";
import { tempDir } from "../testing/temp.ts";

const RATE = 20;

/** Nothing from the test's own environment reaches the child (the shipped flags allow these variables). */
const CLEAN_ENV = {
  GITHUB_TOKEN: "",
  GH_TOKEN: "",
  LONGCALL_GITHUB_TOKEN_FILE: "",
  LONGCALL_HTTP_TOKEN: "",
  LONGCALL_DB: "",
  LONGCALL_LOG: "error",
};

interface Report {
  problems: string[];
  rows: { descriptor: string; process_at_start: string; mcp_thread: string; network_worker: string }[];
}

Deno.test("bundleEntries(): the generated entry embeds the worker before any longcall module runs", () => {
  const entries = bundleEntries("/repo/");
  assert.deepEqual(Object.keys(entries).sort(), ["embed_worker.ts", "entry.ts"]);
  const entry = entries["entry.ts"] ?? "";
  // ES modules evaluate in import order: the embedding module comes first.
  assert.ok(entry.indexOf(`import "./embed_worker.ts"`) < entry.indexOf("src/cli/main.ts"), entry);
  assert.match(entries["embed_worker.ts"] ?? "", /import code from "\.\/network_worker\.js" with \{ type: "text" \}/);
  assert.match(entries["embed_worker.ts"] ?? "", /"file:\/\/\/repo\/src\/cli\/worker_script\.ts"/);
  // The build checked src/mcp/tool_schemas.json, so the bundle trusts that very object (src/mcp/advertised.ts).
  assert.match(
    entries["embed_worker.ts"] ?? "",
    /import schemas from "file:\/\/\/repo\/src\/mcp\/tool_schemas\.json" with \{ type: "json" \}/,
  );
  assert.match(entries["embed_worker.ts"] ?? "", /^trustToolSchemas\(schemas\);$/m);
});

Deno.test("the network worker's code loads no zod: its bundle has the kinds and no zod module", async () => {
  await using dir = await tempDir("longcall-worker-code-");
  const out = await new Deno.Command(denoExecPath(), {
    args: ["bundle", "--platform", "deno", "--quiet", "-o", dir.file("w.js"), "src/cli/network_worker_entry.ts"],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  // The bundler names each module it includes in a `// path` comment line.
  const modules = (await Deno.readTextFile(dir.file("w.js"))).split("\n").filter((l) => /^\/\/ \S+$/.test(l));
  assert.ok(modules.includes("// src/github/watch_kind.ts"), "the worker bundle has the kinds");
  assert.ok(modules.includes("// src/github/watch_runner.ts"), "and their runners");
  assert.deepEqual(modules.filter((l) => /zod|_spec\.ts$|\/spec\.ts$/.test(l)), []);
});

Deno.test("the worker's kinds only run; the specs validate with zod at the boundary; policies carry no runner", async () => {
  await using dir = await tempDir("longcall-run-only-");
  const store = openStore(dir.file("x.db"));
  try {
    const gh = { baseUrl: "http://127.0.0.1:1" };
    const request = { owner: "octo", repo: "widgets", number: 42 };
    // Validated and normalized once, where the request enters (the MCP tool, the CLI command).
    assert.equal(parseJobInput(watchSpec, request).until, "terminal");
    assert.throws(
      () => parseJobInput(watchSpec, { ...request, number: 0 }),
      (err) => err instanceof AppError && err.code === "invalid_argument",
    );
    // Where jobs execute (the worker): runners, and nothing that parses.
    const running = new JobKindRegistry(productKinds(store, { github: gh, log: silentLogger, clock: systemClock }));
    // Where they are only admitted (the serving thread beside a worker): policies, no runner.
    const admitting = new JobKindRegistry(productPolicies());
    for (const kind of [WATCH_KIND, SYNC_KIND]) {
      assert.equal(typeof running.get(kind)?.run, "function", `${kind} runs`);
      assert.equal("parse" in (running.get(kind) ?? {}), false, `${kind} has no parse`);
      assert.ok(admitting.get(kind) !== undefined && !("run" in (admitting.get(kind) ?? {})), `${kind}: policy only`);
    }
  } finally {
    store.close();
  }
});

Deno.test("the shipped bundle's worker starts from memory: it cannot read the bundle or any file but the database", async () => {
  await using dir = await tempDir("longcall-bundle-worker-");
  const bundle = dir.file("longcall.js");
  await bundleTo(bundle);
  // Built with the SDK's non-Node shims (EXPORT_CONDITIONS): no Node process polyfill, no ajv (so no text of
  // longcall's may name it either); the end-to-end test below proves the same bundle still serves stdio.
  const code = await Deno.readTextFile(bundle);
  assert.doesNotMatch(code, /from\s*"node:process"/);
  assert.doesNotMatch(code, /ajv/i);
  assert.match(code, /cfworker|CfWorker/);
  const github = "127.0.0.1:45678";
  const db = dir.file("x.db");
  const out = await new Deno.Command(denoExecPath(), {
    args: ["run", ...permissionFlags({ githubHosts: [github] }), bundle, "permissions", "--json", "--db", db],
    env: { ...CLEAN_ENV, LONGCALL_GITHUB_API_URL: `http://${github}` },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const report = JSON.parse(new TextDecoder().decode(out.stdout)) as Report;
  assert.deepEqual(report.problems, []);
  const row = (d: string) => {
    const found = report.rows.find((x) => x.descriptor === d);
    assert.ok(found, `a row for ${d}`);
    return found;
  };
  // The bundle file itself: readable by the process at start, by neither thread afterwards.
  assert.equal(row(`read ${bundle}`).process_at_start, "granted");
  assert.equal(row(`read ${bundle}`).network_worker, "denied", "the worker holds no read of its own code");
  assert.equal(row(`read ${db}`).network_worker, "granted");
  assert.equal(row(`write ${db}`).network_worker, "granted");
  assert.equal(row(`net ${github}`).network_worker, "granted");
  // Everything else the worker is asked about is denied; the serving thread holds nothing.
  const workerGranted = report.rows.filter((r) => r.network_worker === "granted").map((r) => r.descriptor);
  assert.deepEqual(workerGranted.sort(), [`net ${github}`, `read ${db}`, `write ${db}`].sort());
  for (const r of report.rows) assert.equal(r.mcp_thread, "denied", `MCP thread: ${r.descriptor}`);
});

Deno.test("the shipped bundle watches a pull request end to end against the fake GitHub (worker from memory)", async () => {
  await using dir = await tempDir("longcall-bundle-watch-");
  const bundle = dir.file("longcall.js");
  await bundleTo(bundle);
  const t0 = Date.now();
  const fake = await startFakeGitHub({ scenario: "checks_pass", now: () => t0 + (Date.now() - t0) * RATE });
  const host = await connectTaskHost({
    command: denoExecPath(),
    args: [
      "run",
      ...permissionFlags({ githubHosts: [netHostOf(fake.url)] }),
      bundle,
      "serve",
      "--db",
      dir.file("watch.db"),
      "--simulate-time-rate",
      String(RATE),
      "--linger-ms",
      "0",
    ],
    cwd: REPO_ROOT,
    env: { ...CLEAN_ENV, LONGCALL_GITHUB_API_URL: fake.url },
  }, { clientInfo: { name: "bundle-watch", version: "1.0.0" } });
  try {
    const call = await host.callToolAsTask(WATCH_KIND, { ...SCENARIO_PULL } as never);
    assert.equal(call.outcome.status, "completed", JSON.stringify(call.outcome));
    const result = (call.outcome as { result: { structuredContent?: Record<string, unknown> } }).result;
    assert.equal(result.structuredContent?.outcome, "succeeded", JSON.stringify(result));
    assert.ok(fake.counts.total > 0, "the worker reached the fake GitHub");
  } finally {
    await host.close();
    await fake.close();
  }
});
