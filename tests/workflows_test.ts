/**
 * The GitHub workflows (.github/workflows/release.yml, ci.yml), parsed with npm `yaml`: every
 * `deno task` they run exists in deno.json, no step types a permission flag (they all come from
 * src/cli/permissions.ts through the tasks), the release builds and smoke-tests the five targets
 * on their own runners and publishes checksums, provenance, the .mcpb bundles and server.json.
 * Also runs the smoke script itself (scripts/smoke.ts) on the bundle.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { TARGETS } from "../scripts/build.ts";
import { smoke } from "../scripts/smoke.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  "runs-on": string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  strategy?: { matrix: { include?: Record<string, string>[]; runner?: string[] } };
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

async function workflow(name: string): Promise<Workflow> {
  return parse(await Deno.readTextFile(`${ROOT}.github/workflows/${name}`)) as Workflow;
}

async function tasks(): Promise<Record<string, string>> {
  return (JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as { tasks: Record<string, string> }).tasks;
}

function runs(wf: Workflow): { job: string; run: string }[] {
  return Object.entries(wf.jobs).flatMap(([job, j]) =>
    j.steps.flatMap((s) => s.run === undefined ? [] : [{ job, run: s.run }])
  );
}

/** Permission-like flags a workflow must never type (they belong to src/cli/permissions.ts). */
const TYPED_FLAG =
  /(^|\s)(-A|--allow-[a-z-]+|--deny-[a-z-]+|--unstable[a-z-]*|--no-prompt|-P\b|--permission-set)(?=[\s=]|$)/;

for (const file of ["release.yml", "ci.yml"]) {
  Deno.test(`${file}: every deno task it runs exists, and it runs deno only through tasks, typing no flag`, async () => {
    const wf = await workflow(file);
    const known = await tasks();
    const lines = runs(wf);
    assert.ok(lines.length > 0);
    let taskRuns = 0;
    for (const { job, run } of lines) {
      for (const m of run.matchAll(/\bdeno\s+task\s+([A-Za-z0-9:_-]+)/g)) {
        taskRuns++;
        assert.ok(
          m[1] !== undefined && m[1] in known,
          `${file} job ${job} runs deno task ${m[1]}, which deno.json lacks`,
        );
      }
      assert.doesNotMatch(run, /\bdeno\s+(run|compile|bundle|test|install|eval)\b/, `${file} job ${job}: ${run}`);
      assert.doesNotMatch(run, /\bnpx\b/, `${file} job ${job} starts something through npx: ${run}`);
      assert.doesNotMatch(run, TYPED_FLAG, `${file} job ${job} types a permission flag: ${run}`);
    }
    assert.ok(taskRuns > 0);
    // deno.lock is what every job runs with: the first task of a job that runs any is `deno task locked`
    // (deno install --frozen), which fails on a lock that no longer matches deno.json.
    for (const [job, j] of Object.entries(wf.jobs)) {
      const first = j.steps.map((s) => /\bdeno\s+task\s+([A-Za-z0-9:_-]+)/.exec(s.run ?? "")?.[1]).find(Boolean);
      if (first !== undefined) assert.equal(first, "locked", `${file} job ${job} runs deno task ${first} first`);
    }
    assert.equal(known["locked"], "deno install --frozen");
    for (const job of Object.values(wf.jobs)) {
      const setup = job.steps.find((s) => s.uses?.startsWith("denoland/setup-deno@"));
      assert.ok(setup, "every job installs Deno");
      assert.equal(setup.with?.["deno-version"], "${{ env.DENO_VERSION }}");
    }
    assert.equal((wf as unknown as { env: Record<string, string> }).env.DENO_VERSION, Deno.version.deno);
    assert.deepEqual(wf.permissions, { contents: "read" }, "read-only by default");
  });
}

Deno.test("the tasks the workflows run build with the flags of src/cli/permissions.ts", async () => {
  const known = await tasks();
  assert.match(known.compile ?? "", /scripts\/build\.ts compile$/);
  assert.match(known.bundle ?? "", /scripts\/build\.ts bundle$/);
  assert.match(known.smoke ?? "", /scripts\/smoke\.ts$/);
  const build = await Deno.readTextFile(`${ROOT}scripts/build.ts`);
  assert.match(build, /launchFlags\(\{ githubHosts: \[parseGitHubHost\(githubHost\)\] \}\)/);
  assert.doesNotMatch(build, /"--allow-(net|env|read|write)[="]/, "build.ts types no permission flag of its own");
});

Deno.test("release.yml: on a version tag, deno task ok, then the five targets compiled and smoke-tested on their own runners", async () => {
  const wf = await workflow("release.yml");
  assert.deepEqual(wf.on, { push: { tags: ["v*"] } });
  assert.ok(wf.jobs.check?.steps.some((s) => s.run === "deno task ok"));
  const build = wf.jobs.build;
  assert.ok(build);
  assert.equal(build.needs, "check");
  const include = build.strategy?.matrix.include ?? [];
  assert.deepEqual(include.map((i) => i.target), [...TARGETS]);
  const runnerOs = (r: string) => r.startsWith("ubuntu") ? "linux" : r.startsWith("macos") ? "darwin" : "windows";
  for (const i of include) {
    const t = i.target ?? "";
    const os = t.includes("linux") ? "linux" : t.includes("darwin") ? "darwin" : "windows";
    assert.equal(runnerOs(i.runner ?? ""), os, `${t} runs on its own OS`);
    const arm = t.startsWith("aarch64");
    assert.equal(/arm|macos-latest|macos-1[4-9]$/.test(i.runner ?? ""), arm, `${t} runs on its own CPU (${i.runner})`);
    assert.equal(i.ext, t.includes("windows") ? ".exe" : "");
  }
  const steps = build.steps.map((s) => s.run ?? "");
  assert.ok(steps.includes("deno task compile ${{ matrix.target }}"));
  assert.ok(steps.includes("deno task smoke dist/longcall-${{ matrix.target }}${{ matrix.ext }}"));
});

Deno.test("release.yml: checksums, build provenance, the .mcpb bundles and server.json are attached to the release", async () => {
  const wf = await workflow("release.yml");
  const release = wf.jobs.release;
  assert.ok(release);
  assert.equal(release.needs, "build");
  assert.deepEqual(release.permissions, { contents: "write", "id-token": "write", attestations: "write" });
  const runs = release.steps.map((s) => s.run ?? "").join("\n");
  assert.match(runs, /sha256sum -c longcall-\*\.sha256/);
  assert.match(runs, /deno task mcpb --repository "\$GITHUB_REPOSITORY"/);
  assert.match(runs, /deno task release-meta --repository "\$GITHUB_REPOSITORY" --tag "\$GITHUB_REF_NAME"/);
  const attest = release.steps.find((s) => s.uses?.startsWith("actions/attest-build-provenance@"));
  assert.ok(attest);
  const subjects = String(attest.with?.["subject-path"]).trim().split("\n");
  for (const t of TARGETS) assert.ok(subjects.includes(`dist/longcall-${t}${t.includes("windows") ? ".exe" : ""}`), t);
  assert.ok(subjects.includes("dist/longcall-*.mcpb") && subjects.includes("dist/server.json"));
  const publish = release.steps.find((s) => s.run?.startsWith("gh release create"));
  assert.ok(publish?.run);
  for (const t of TARGETS) {
    assert.ok(publish.run.includes(`dist/longcall-${t}${t.includes("windows") ? ".exe" : ""}`), t);
  }
  for (const asset of ["dist/longcall-*.sha256", "dist/longcall-*.mcpb", "dist/server.json"]) {
    assert.ok(publish.run.includes(asset), asset);
  }
  // Each file once: the first pattern already takes the bundles' .mcpb.sha256 files, and GitHub refuses a second
  // asset of the same name.
  const patterns = publish.run.split(/\s+/).filter((w) => w.startsWith("dist/"));
  const matches = (pattern: string, name: string) =>
    new RegExp(`^${pattern.replaceAll(".", "\\.").replaceAll("*", "[^/]*")}$`).test(name);
  for (const name of ["dist/longcall-0.1.0-x64.mcpb.sha256", "dist/longcall-x86_64-apple-darwin.sha256"]) {
    assert.equal(patterns.filter((p) => matches(p, name)).length, 1, `${name} is uploaded once`);
  }
});

Deno.test("ci.yml: pull requests run deno task ok and smoke-test the bundle on Linux, macOS and Windows", async () => {
  const wf = await workflow("ci.yml");
  assert.ok("pull_request" in wf.on);
  assert.ok(wf.jobs.ok?.steps.some((s) => s.run === "deno task ok"));
  const smokeJob = wf.jobs["bundle-smoke"];
  assert.deepEqual(smokeJob?.strategy?.matrix.runner, ["ubuntu-latest", "macos-latest", "windows-latest"]);
  const steps = smokeJob?.steps.map((s) => s.run) ?? [];
  assert.ok(steps.includes("deno task bundle") && steps.includes("deno task smoke --bundle dist/longcall.js"));
});

Deno.test("scripts/smoke.ts passes on a bundle with the shipped flags and catches a binary that is not longcall", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bundle = `${dir}/longcall.js`;
    const b = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--platform", "deno", "--quiet", "-o", bundle, `${ROOT}src/main.ts`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(b.code, 0, new TextDecoder().decode(b.stderr));
    await smoke({ bundle });
    // deno itself answers --version, but not with longcall's version: the smoke test must fail.
    await assert.rejects(smoke({ binary: Deno.execPath() }), assert.AssertionError);
    const bad = await new Deno.Command(Deno.execPath(), {
      args: ["task", "smoke", "--bundle", bundle, "--github-host", "a.example.com,b.example.com"],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(bad.code, 1);
    assert.match(new TextDecoder().decode(bad.stderr), /smoke test failed: Cannot use --github-host/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
