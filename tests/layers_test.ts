import assert from "node:assert/strict";
import { checkFolders, checkLayers } from "../scripts/check_layers.ts";

Deno.test("checkLayers() finds no import against the layer arrows and no misplaced side effect", async () => {
  assert.deepEqual(await checkLayers(new URL("../src", import.meta.url).pathname), []);
});

Deno.test("checkLayers() reports a store module importing mcp and a fetch outside github", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/src/store`, { recursive: true });
    await Deno.mkdir(`${dir}/src/mcp`, { recursive: true });
    await Deno.mkdir(`${dir}/src/corpus`, { recursive: true });
    await Deno.writeTextFile(`${dir}/src/mcp/x.ts`, "export const x = 1;\n");
    await Deno.writeTextFile(`${dir}/src/store/bad.ts`, 'import { x } from "../mcp/x.ts";\nexport const y = x;\n');
    await Deno.writeTextFile(`${dir}/src/corpus/net.ts`, 'export const z = () => fetch("http://x");\n');
    const problems = await checkLayers(`${dir}/src`);
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(problems.join("\n"), /store may not import mcp/);
    assert.match(problems.join("\n"), /fetch\( belongs to github/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkLayers() lets only github/transport.ts call fetch, not another github/ module", async () => {
  const call = 'export const z = () => fetch("http://127.0.0.1/");\n';
  const problems = await problemsIn({
    "github/transport.ts":
      'export const t = (f: typeof fetch) => f;\nexport const s = () => fetch("http://127.0.0.1/");\n',
    "github/client.ts": call,
    // A property named fetch is not the global call.
    "github/requester.ts": "export const r = (o: { fetch: () => void }) => o.fetch();\n",
  });
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(
    problems[0] ?? "",
    /^github\/client\.ts: fetch\( belongs to github\/transport\.ts \(every GitHub request/,
  );
});

/** Runs checkLayers over a temp src/ holding `files` (path under src/ -> text). */
async function problemsIn(files: Record<string, string>): Promise<string[]> {
  const dir = await Deno.makeTempDir();
  try {
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(`${dir}/src/${path.slice(0, Math.max(0, path.lastIndexOf("/")))}`, { recursive: true });
      await Deno.writeTextFile(`${dir}/src/${path}`, text);
    }
    return await checkLayers(`${dir}/src`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("checkLayers() lets only serve.ts and main.ts of cli/ import mcp/", async () => {
  const imports = 'import { x } from "../mcp/x.ts";\nexport const y = x;\n';
  const problems = await problemsIn({
    "mcp/x.ts": "export const x = 1;\n",
    "cli/serve.ts": imports,
    "cli/main.ts": imports,
    "cli/jobs_cmd.ts": imports,
    "cli/runtime.ts": imports,
    "cli/network_worker.ts": 'export { x } from "../mcp/x.ts";\n',
    // Other arrows out of cli/ stay open to every cli/ module.
    "jobs/j.ts": "export const j = 1;\n",
    "cli/other.ts": 'import { j } from "../jobs/j.ts";\nexport const k = j;\n',
  });
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(
    problems[0] ?? "",
    /^cli\/(jobs_cmd|network_worker|runtime)\.ts: cli may not import mcp .*only the modules/,
  );
  assert.match(problems.join("\n"), /cli\/runtime\.ts: cli may not import mcp/);
  assert.match(problems.join("\n"), /cli\/jobs_cmd\.ts: cli may not import mcp/);
  assert.match(problems.join("\n"), /cli\/network_worker\.ts: cli may not import mcp/);
});

Deno.test("checkLayers() lets src/main.ts load only mcp/serving.ts of mcp/, and sees import() as an import", async () => {
  const problems = await problemsIn({
    "mcp/serving.ts": "export const s = 1;\n",
    "mcp/server.ts": "export const t = 1;\n",
    "cli/main.ts": "export const run = (m: unknown) => m;\n",
    "main.ts": 'const m = () => import("./mcp/serving.ts");\nconst n = () => import( "./mcp/server.ts");\n' +
      'import { run } from "./cli/main.ts";\nrun([m, n]);\n',
    // A dynamic import is an import like any other: cli/ modules other than serve.ts and main.ts may not.
    "cli/jobs_cmd.ts": 'export const late = () => import("../mcp/server.ts");\n',
  });
  assert.equal(problems.length, 2, problems.join("\n"));
  assert.match(problems.join("\n"), /^main\.ts: main may import only mcp\/serving\.ts of mcp \(\.\/mcp\/server\.ts\)/m);
  assert.match(problems.join("\n"), /^cli\/jobs_cmd\.ts: cli may not import mcp \(\.\.\/mcp\/server\.ts\)/m);
});

Deno.test("checkLayers() lets src/main.ts load only tasks/adapter.ts of tasks/", async () => {
  const problems = await problemsIn({
    "tasks/adapter.ts": "export const a = 1;\n",
    "tasks/task_projection.ts": "export const p = 1;\n",
    "cli/main.ts": "export const run = (m: unknown) => m;\n",
    "main.ts":
      'const t = () => import("./tasks/adapter.ts");\nconst p = () => import("./tasks/task_projection.ts");\n' +
      'import { run } from "./cli/main.ts";\nrun([t, p]);\n',
  });
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(
    problems.join("\n"),
    /^main\.ts: main may import only tasks\/adapter\.ts of tasks \(\.\/tasks\/task_projection\.ts\)/m,
  );
});

Deno.test("checkLayers() reports stdout written outside the terminal commands and the stdio framing", async () => {
  const problems = await problemsIn({
    "mcp/stdio_framing.ts": "export const w = (b: Uint8Array) => Deno.stdout.write(b);\n",
    "cli/jobs_cmd.ts": 'console.log("ok");\n',
    "cli/serve.ts": 'console.log("corrupts the protocol stream");\n',
    "jobs/a.ts": 'console.info("info goes to stdout in Deno");\n',
    "corpus/b.ts": "export const w = (b: Uint8Array) => Deno.stdout.write(b);\n",
    "github/c.ts": 'import process from "node:process";\nprocess.stdout.write("x");\n',
    "store/d.ts":
      'console.error("stderr is fine");\nconsole.warn("so is this");\n// console.log("a comment is not code")\n',
    "mcp/transports.ts": 'import { serveStdio } from "@modelcontextprotocol/server/stdio";\nexport { serveStdio };\n',
    "mcp/other.ts": 'import { serveStdio } from "@modelcontextprotocol/server/stdio";\nexport { serveStdio };\n',
  });
  const flagged = flaggedFiles(problems);
  assert.deepEqual(
    flagged,
    ["cli/serve.ts", "corpus/b.ts", "github/c.ts", "jobs/a.ts", "mcp/other.ts"],
    problems.join("\n"),
  );
  assert.match(problems.join("\n"), /cli\/serve\.ts: a stdout write belongs to mcp\/stdio_framing\.ts, cli\/main\.ts/);
  assert.match(problems.join("\n"), /mcp\/other\.ts: the SDK's stdio server belongs to mcp\/transports\.ts/);
});

Deno.test("checkLayers() reports a signal handler outside serve.ts and follow_job.ts", async () => {
  const listen = 'Deno.addSignalListener("SIGINT", () => {});\n';
  const problems = await problemsIn({
    "cli/serve.ts": listen,
    "cli/follow_job.ts": listen + 'Deno.removeSignalListener("SIGINT", () => {});\n',
    "cli/jobs_cmd.ts": listen,
    "jobs/e.ts": 'Deno.removeSignalListener("SIGTERM", () => {});\n',
    "github/f.ts": 'import process from "node:process";\nprocess.on("SIGINT", () => {});\n',
  });
  const flagged = flaggedFiles(problems);
  assert.deepEqual(flagged, ["cli/jobs_cmd.ts", "github/f.ts", "jobs/e.ts"], problems.join("\n"));
  assert.match(problems.join("\n"), /a signal handler belongs to cli\/serve\.ts, cli\/follow_job\.ts/);
});

Deno.test("checkLayers() reports new Worker( outside worker_executor.ts", async () => {
  const start = 'export const w = () => new Worker(new URL("./m.ts", import.meta.url), { type: "module" });\n';
  const problems = await problemsIn({ "cli/worker_executor.ts": start, "cli/serve.ts": start, "jobs/g.ts": start });
  const flagged = flaggedFiles(problems);
  assert.deepEqual(flagged, ["cli/serve.ts", "jobs/g.ts"], problems.join("\n"));
  assert.match(problems.join("\n"), /new Worker\( belongs to cli\/worker_executor\.ts/);
});

Deno.test("checkLayers() reports Deno.permissions.revoke outside serve.ts", async () => {
  const revoke = 'export const r = () => Deno.permissions.revoke({ name: "net" });\n';
  const query = 'export const q = () => Deno.permissions.query({ name: "net" });\n';
  const problems = await problemsIn({
    "cli/serve.ts": revoke,
    "cli/permissions_cmd.ts": revoke + query,
    "cli/q.ts": query,
  });
  assert.deepEqual(problems.map((p) => p.slice(0, p.indexOf(":"))), ["cli/permissions_cmd.ts"], problems.join("\n"));
  assert.match(problems[0] ?? "", /Deno\.permissions\.revoke belongs to cli\/serve\.ts \(the serving thread narrows/);
});

/** Runs checkFolders over a temp root holding `files` (path under the root -> text). */
async function folderProblemsIn(files: Record<string, string>): Promise<string[]> {
  const dir = await Deno.makeTempDir();
  try {
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
      await Deno.writeTextFile(`${dir}/${path}`, text);
    }
    return await checkFolders(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The files a problem list names, sorted. */
function flaggedFiles(problems: string[]): string[] {
  return problems.map((p) => p.slice(0, p.indexOf(":"))).sort();
}

Deno.test("checkFolders() finds no import between top-level folders against the rules and no misplaced test file", async () => {
  assert.deepEqual(await checkFolders(new URL("..", import.meta.url).pathname), []);
});

Deno.test("checkFolders() reports scripts/ importing tests/, statically, as a re-export or with import()", async () => {
  const problems = await folderProblemsIn({
    "tests/helpers/h.ts": "export const h = 1;\n",
    "testing/t.ts": "export const t = 1;\n",
    "scripts/a.ts": 'import { h } from "../tests/helpers/h.ts";\nexport const a = h;\n',
    "scripts/lib/b.ts": 'export { h } from "../../tests/helpers/h.ts";\n',
    "scripts/c.ts": 'export const c = () => import("../tests/helpers/h.ts");\n',
    // Allowed: the shared support, a comment, a path given to a child process.
    "scripts/d.ts": 'import { t } from "../testing/t.ts";\n// import { h } from "../tests/helpers/h.ts";\n' +
      'export const d = [t, new URL("../tests/helpers/h.ts", import.meta.url)];\n',
  });
  assert.deepEqual(flaggedFiles(problems), ["scripts/a.ts", "scripts/c.ts", "scripts/lib/b.ts"], problems.join("\n"));
  assert.match(
    problems.join("\n"),
    /scripts\/a\.ts: scripts\/ may not import tests\/ \(\.\.\/tests\/helpers\/h\.ts\): tests\/ imports scripts\//,
  );
});

Deno.test("checkFolders() reports testing/ importing tests/ or scripts/, and lets it import src/ and fixtures/", async () => {
  const problems = await folderProblemsIn({
    "src/base/x.ts": "export const x = 1;\n",
    "fixtures/f.json": "{}\n",
    "scripts/s.ts": "export const s = 1;\n",
    "tests/helpers/h.ts": "export const h = 1;\n",
    "testing/ok.ts":
      'import { x } from "../src/base/x.ts";\nimport f from "../fixtures/f.json" with { type: "json" };\n' +
      "export const ok = [x, f];\n",
    "testing/u.ts": 'import { s } from "../scripts/s.ts";\nexport const u = s;\n',
    "testing/deep/v.ts": 'export * from "../../tests/helpers/h.ts";\n',
  });
  assert.deepEqual(flaggedFiles(problems), ["testing/deep/v.ts", "testing/u.ts"], problems.join("\n"));
  assert.match(problems.join("\n"), /testing\/u\.ts: testing\/ may not import scripts\/ .*makes a cycle/);
  assert.match(problems.join("\n"), /testing\/deep\/v\.ts: testing\/ may not import tests\//);
});

Deno.test("checkFolders() reports runtime src/ importing tests/, scripts/ or testing/ (its unit tests may use testing/); tests/ may import all three", async () => {
  const problems = await folderProblemsIn({
    "scripts/s.ts": "export const s = 1;\n",
    "testing/t.ts": "export const t = 1;\n",
    "tests/helpers/h.ts": "export const h = 1;\n",
    "src/base/a.ts": 'import { t } from "../../testing/t.ts";\nexport const a = t;\n',
    "src/mcp/b.ts": 'import "../../scripts/s.ts";\n',
    "src/cli/c.ts": 'export const c = () => import("../../tests/helpers/h.ts");\n',
    "src/jobs/d.ts": "export const d = 1;\n",
    // A unit test beside its module may use the shared test support, never tests/ or scripts/.
    "src/jobs/d_test.ts": 'import { t } from "../../testing/t.ts";\nimport { d } from "./d.ts";\nconsole.log(t, d);\n',
    "src/jobs/e_test.ts": 'import { s } from "../../scripts/s.ts";\nconsole.log(s);\n',
    "tests/all_test.ts": 'import { s } from "../scripts/s.ts";\nimport { t } from "../testing/t.ts";\n' +
      'import { h } from "./helpers/h.ts";\nimport { d } from "../src/jobs/d.ts";\nconsole.log(s, t, h, d);\n',
  });
  assert.deepEqual(
    flaggedFiles(problems),
    ["src/base/a.ts", "src/cli/c.ts", "src/jobs/e_test.ts", "src/mcp/b.ts"],
    problems.join("\n"),
  );
  assert.match(problems.join("\n"), /src\/base\/a\.ts: src\/ may not import testing\/ .*runtime code ships alone/);
  assert.match(problems.join("\n"), /src\/mcp\/b\.ts: src\/ may not import scripts\//);
  assert.match(problems.join("\n"), /src\/cli\/c\.ts: src\/ may not import tests\//);
});

Deno.test("checkFolders() reports a test file in testing/, scripts/ or tests/helpers/, where it would never run or run by mistake", async () => {
  const problems = await folderProblemsIn({
    "testing/fake_test.ts": "",
    "testing/test.ts": "",
    "scripts/x.test.ts": "",
    "tests/helpers/h_test.ts": "",
    // Support files named test_* are fine, and suites belong in tests/.
    "testing/test_server.ts": "",
    "tests/helpers/test_kinds.ts": "",
    "tests/ok_test.ts": "",
  });
  assert.deepEqual(
    flaggedFiles(problems),
    ["scripts/x.test.ts", "testing/fake_test.ts", "testing/test.ts", "tests/helpers/h_test.ts"],
    problems.join("\n"),
  );
  assert.match(
    problems.join("\n"),
    /testing\/fake_test\.ts: no test files under testing\/ \(deno task test does not run/,
  );
});

Deno.test("checkLayers() reports new WorkerExecutor( outside runtime.ts and storeConnection( outside store/", async () => {
  const worker = 'export const w = () => new WorkerExecutor("x", { net: [], read: [], write: [] }, log);\n';
  const raw = "export const c = (s) => storeConnection(s);\n";
  const problems = await problemsIn({
    "cli/runtime.ts": worker,
    "cli/serve.ts": worker,
    "store/store.ts": raw,
    "cli/main.ts": raw,
    "jobs/h.ts": raw,
  });
  const flagged = flaggedFiles(problems);
  assert.deepEqual(flagged, ["cli/main.ts", "cli/serve.ts", "jobs/h.ts"], problems.join("\n"));
  assert.match(problems.join("\n"), /new WorkerExecutor\( belongs to cli\/runtime\.ts/);
  assert.match(problems.join("\n"), /the raw store connection belongs to store/);
});

Deno.test("checkLayers() lets the github commands and their printer write stdout, not the blocking run or the status line", async () => {
  const print = 'console.log("answer");\n';
  const problems = await problemsIn({
    "cli/checks_watch_cmd.ts": print,
    "cli/sync_cmd.ts": print,
    "cli/search_cmd.ts": print,
    "cli/github_print.ts": print,
    "cli/follow_job.ts": print,
    "cli/status_line.ts": print,
    "cli/github_cmd.ts": print,
  });
  const flagged = flaggedFiles(problems);
  assert.deepEqual(flagged, ["cli/follow_job.ts", "cli/github_cmd.ts", "cli/status_line.ts"], problems.join("\n"));
});

Deno.test("checkFolders() reports new JobControl( or new Executor( in src/ or testing/ outside cli/runtime.ts", async () => {
  const build = "export const b = () => [new JobControl(rows, registry, o), new Executor(rows, registry, o)];\n";
  const problems = await folderProblemsIn({
    "src/cli/runtime.ts": build,
    "src/cli/jobs_cmd.ts": "export const c = () => new JobControl(rows, registry, o);\n",
    "src/jobs/e.ts": "export const e = () => new Executor(rows, registry, o);\n",
    "testing/temp.ts": build,
    // Unit tests of the classes and the raw-store benchmark build them; so may a comment, and
    // the network worker's proxy is another class.
    "tests/jobs_test.ts": build,
    "src/jobs/projection_test.ts": build,
    "scripts/bench/store.ts": build,
    "src/cli/worker.ts": "// new Executor(rows, registry, o)\nexport const w = () => new WorkerExecutor(u, p, l);\n",
  });
  assert.deepEqual(
    flaggedFiles(problems),
    ["src/cli/jobs_cmd.ts", "src/jobs/e.ts", "testing/temp.ts", "testing/temp.ts"],
    problems.join("\n"),
  );
  assert.match(
    problems.join("\n"),
    /src\/cli\/jobs_cmd\.ts: new JobControl\( belongs to src\/cli\/runtime\.ts \(the runtime is assembled in one/,
  );
  assert.match(problems.join("\n"), /src\/jobs\/e\.ts: new Executor\( belongs to src\/cli\/runtime\.ts/);
});

Deno.test("checkLayers() lets mcp/ reach only store/tx.ts and store/store.ts, and tasks/ only store/job_rows.ts", async () => {
  const problems = await problemsIn({
    "store/tx.ts": "export const tx = 1;\n",
    "store/store.ts": "export const st = 1;\n",
    "store/job_rows.ts": "export const jr = 1;\n",
    "mcp/tool_kit.ts": 'import { tx } from "../store/tx.ts";\nexport const a = tx;\n',
    "mcp/product_tools.ts": 'import { st } from "../store/store.ts";\nexport const b = st;\n',
    // Another mcp/ module, and an allowed one reaching another store/ file.
    "mcp/server.ts": 'import { st } from "../store/store.ts";\nexport const c = st;\n',
    "mcp/tool_kit_helper.ts": 'import { jr } from "../store/job_rows.ts";\nexport const d = jr;\n',
    "tasks/adapter.ts": 'import { jr } from "../store/job_rows.ts";\nexport const e = jr;\n',
    "tasks/task_projection.ts": 'import { st } from "../store/store.ts";\nexport const f = st;\n',
    // A unit test builds its fixtures from any store/ module.
    "mcp/server_test.ts": 'import { jr } from "../store/job_rows.ts";\nexport const g = jr;\n',
  });
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(problems.join("\n"), /^mcp\/server\.ts: mcp may not import store .*storage-fault/m);
  assert.match(problems.join("\n"), /^mcp\/tool_kit_helper\.ts: mcp may not import store/m);
  assert.match(
    problems.join("\n"),
    /^tasks\/task_projection\.ts: tasks may import only store\/job_rows\.ts of store \(\.\.\/store\/store\.ts\)/m,
  );
});
