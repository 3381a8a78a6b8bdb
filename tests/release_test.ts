/**
 * Release metadata (issue 15): the `.mcpb` manifests checked by the official bundle tool
 * (`mcpb validate`, npm @anthropic-ai/mcpb run under Deno; fetched from the npm registry into
 * Deno's cache on the first run), their tools equal to what a real server lists, and `server.json`
 * validated against the MCP Registry's published schema (fixtures/registry/).
 *
 * `deno compile` cannot run here (no denort download), so the packing tests use small placeholder
 * files in place of the five binaries: what they check is the packing (the zip, its modes, the
 * digests in server.json); the release workflow packs the real binaries with the same task.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";
import { VERSION } from "../src/base/version.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { binaryName, sha256, TARGETS } from "../scripts/build.ts";
import { mcpb } from "../scripts/release.ts";
import {
  bundleBinaries,
  ENV_DOCS,
  listedTools,
  MCPB_BUNDLES,
  mcpbFileName,
  mcpbManifest,
  SERVER_SCHEMA_URL,
  serverJson,
} from "../scripts/lib/release.ts";
import { serverJsonProblems } from "../scripts/lib/registry_schema.ts";
import { probeToolsList } from "../scripts/lib/stdio_probe.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MAIN = `${ROOT}src/main.ts`;

async function run(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

async function versionPrinted(): Promise<string> {
  const r = await run(["run", ...permissionFlags(), MAIN, "--version"]);
  assert.equal(r.code, 0, r.stderr);
  const m = /^longcall (\S+)$/.exec(r.stdout.trim());
  assert.ok(m, r.stdout);
  return m[1] ?? "";
}

/** Placeholder files named like the five binaries (see the module comment). */
async function placeholderBinaries(dir: string): Promise<void> {
  for (const t of TARGETS) await Deno.writeTextFile(`${dir}/${binaryName(t)}`, `placeholder for ${t}\n`);
}

Deno.test("the .mcpb manifests pass `mcpb validate` and carry a binary server with a sensitive GitHub token", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const tools = listedTools();
    for (const bundle of MCPB_BUNDLES) {
      const m = mcpbManifest(bundle, tools, { repository: "example-org/longcall" }) as {
        manifest_version: string;
        version: string;
        server: {
          type: string;
          mcp_config: {
            args: string[];
            env: Record<string, string>;
            platform_overrides: Record<string, { command: string }>;
          };
        };
        user_config: Record<string, { sensitive?: boolean; type: string }>;
      };
      assert.equal(m.manifest_version, "0.3");
      assert.equal(m.version, VERSION);
      assert.equal(m.server.type, "binary");
      assert.deepEqual(Object.keys(m.server.mcp_config.platform_overrides).sort(), ["darwin", "linux", "win32"]);
      assert.deepEqual(m.server.mcp_config.args, ["serve"]);
      assert.deepEqual(m.server.mcp_config.env, { GITHUB_TOKEN: "${user_config.github_token}" });
      assert.equal(m.user_config.github_token?.sensitive, true);
      // The official library's substitution, for a user who left the optional token empty: an empty
      // GITHUB_TOKEN (anonymous), never the placeholder's literal text.
      for (const userConfig of [{}, { github_token: "" }]) {
        const manifest: Parameters<typeof getMcpConfigForManifest>[0]["manifest"] = JSON.parse(JSON.stringify(m));
        const config = await getMcpConfigForManifest({
          manifest,
          extensionPath: "/ext",
          systemDirs: {},
          userConfig,
          pathSeparator: "/",
        });
        assert.deepEqual(config?.env, { GITHUB_TOKEN: "" }, JSON.stringify(userConfig));
      }
      const path = `${dir}/manifest-${bundle.arch}.json`;
      await Deno.writeTextFile(path, JSON.stringify(m));
      const v = await mcpb(["validate", path]);
      assert.equal(v.code, 0, v.output);
      assert.match(v.output, /Manifest schema validation passes/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`mcpb validate` refuses a manifest that is not a valid 0.3 binary bundle (the check is live)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const good = mcpbManifest(MCPB_BUNDLES[0]!, listedTools()) as { server: Record<string, unknown> };
    const path = `${dir}/manifest.json`;
    await Deno.writeTextFile(path, JSON.stringify({ ...good, server: { ...good.server, type: "deno" } }));
    const v = await mcpb(["validate", path]);
    assert.equal(v.code, 1, v.output);
    assert.match(v.output, /Manifest validation failed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the bundles cover the five compile targets, one override per OS", () => {
  const covered = new Set(MCPB_BUNDLES.flatMap((b) => Object.values(b.targets)));
  assert.deepEqual([...covered].sort(), [...TARGETS].sort());
  for (const b of MCPB_BUNDLES) {
    assert.ok(b.targets.darwin.includes("apple-darwin") && b.targets.win32.includes("windows"));
    assert.ok(b.targets.linux.includes("linux"));
    assert.ok(b.targets.darwin.startsWith(b.arch === "x64" ? "x86_64" : "aarch64"));
    assert.ok(b.targets.linux.startsWith(b.arch === "x64" ? "x86_64" : "aarch64"));
  }
});

Deno.test("the manifest's tools are exactly the tools a real server lists (one source of tool definitions)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const served = await probeToolsList(Deno.execPath(), [
      "run",
      ...permissionFlags(),
      MAIN,
      "serve",
      "--db",
      `${dir}/x.db`,
    ]);
    assert.equal(served.code, 0, served.stderr);
    const manifest = mcpbManifest(MCPB_BUNDLES[0]!, listedTools()) as {
      tools: { name: string; description: string }[];
    };
    assert.deepEqual(manifest.tools, served.tools.map((t) => ({ name: t.name, description: t.description })));
    assert.ok(manifest.tools.length >= 8);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("server.json validates against the Registry's 2025-12-11 schema with the version longcall prints", async () => {
  const version = await versionPrinted();
  const packed = MCPB_BUNDLES.map((bundle, i) => ({
    bundle,
    fileName: mcpbFileName(bundle),
    sha256: `${i}`.repeat(64),
  }));
  const doc = serverJson("example-org/longcall", packed) as {
    $schema: string;
    name: string;
    version: string;
    description: string;
    packages: {
      registryType: string;
      identifier: string;
      fileSha256: string;
      transport: { type: string };
      environmentVariables: { name: string; isSecret?: boolean }[];
    }[];
  };
  assert.deepEqual(await serverJsonProblems(doc), []);
  assert.equal(doc.$schema, SERVER_SCHEMA_URL);
  assert.equal(doc.version, version);
  assert.equal(doc.name, "io.github.example-org/longcall");
  assert.equal(doc.packages.length, MCPB_BUNDLES.length);
  for (const [i, p] of doc.packages.entries()) {
    assert.equal(p.registryType, "mcpb");
    assert.equal(p.transport.type, "stdio");
    assert.equal(
      p.identifier,
      `https://github.com/example-org/longcall/releases/download/v${version}/longcall-${version}-${
        MCPB_BUNDLES[i]?.arch
      }.mcpb`,
    );
    const vars = new Map(p.environmentVariables.map((v) => [v.name, v]));
    assert.equal(vars.get("GITHUB_TOKEN")?.isSecret, true);
    assert.equal(vars.get("GH_TOKEN")?.isSecret, true);
    const described = Object.entries(ENV_DOCS).filter(([, d]) => d !== null).map(([n]) => n).sort();
    assert.deepEqual([...vars.keys()].sort(), described);
  }
});

Deno.test("the Registry schema refuses a broken server.json (the validation is live)", async () => {
  const packed = [{ bundle: MCPB_BUNDLES[0]!, fileName: mcpbFileName(MCPB_BUNDLES[0]!), sha256: "a".repeat(64) }];
  const doc = serverJson("example-org/longcall", packed) as Record<string, unknown> & {
    packages: Record<string, unknown>[];
  };
  const badSha = { ...doc, packages: [{ ...doc.packages[0], fileSha256: "not-a-digest" }] };
  assert.ok((await serverJsonProblems(badSha)).some((p) => p.includes("fileSha256")));
  assert.notDeepEqual(await serverJsonProblems({ ...doc, description: "x".repeat(101) }), []);
  const { version: _v, ...noVersion } = doc;
  assert.notDeepEqual(await serverJsonProblems(noVersion), []);
  assert.throws(() => serverJson("not a repo", packed), TypeError);
  assert.throws(() => serverJson("example-org/longcall", []), RangeError);
});

Deno.test("deno task mcpb without the binaries writes and validates both manifests, names what is missing, exits 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/bin`);
    const r = await run(["task", "mcpb", "--bin-dir", `${dir}/bin`, "--out-dir", `${dir}/out`]);
    assert.equal(r.code, 1, r.stderr);
    for (const b of MCPB_BUNDLES) {
      assert.match(r.stderr, new RegExp(`mcpb validate ${dir}/out/mcpb-${b.arch}/manifest.json: ok`));
      const m = JSON.parse(await Deno.readTextFile(`${dir}/out/mcpb-${b.arch}/manifest.json`));
      assert.equal(m.version, VERSION);
    }
    for (const t of TARGETS) assert.ok(r.stderr.includes(binaryName(t)), `names ${binaryName(t)}`);
    assert.match(r.stderr, /Cannot pack the \.mcpb bundles: missing binaries/);
    for (const b of MCPB_BUNDLES) {
      await assert.rejects(Deno.stat(`${dir}/out/${mcpbFileName(b)}`), Deno.errors.NotFound);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task mcpb packs each bundle with mcpb pack, and release-meta writes a valid server.json of their digests", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/bin`);
    await placeholderBinaries(`${dir}/bin`);
    const r = await run([
      "task",
      "mcpb",
      "--bin-dir",
      `${dir}/bin`,
      "--out-dir",
      `${dir}/out`,
      "--repository",
      "example-org/longcall",
    ]);
    assert.equal(r.code, 0, r.stderr);
    for (const b of MCPB_BUNDLES) {
      const file = `${dir}/out/${mcpbFileName(b)}`;
      const listing = await new Deno.Command("unzip", { args: ["-Z", file], stdout: "piped" }).output();
      const text = new TextDecoder().decode(listing.stdout);
      assert.match(text, / manifest\.json\n/);
      for (const name of bundleBinaries(b)) {
        assert.match(text, new RegExp(`rwxr-xr-x .* bin/${name.replace(".", "\\.")}\\n`));
      }
      assert.equal(await Deno.readTextFile(`${file}.sha256`), `${await sha256(file)}  ${mcpbFileName(b)}\n`);
    }
    const wrongTag = await run([
      "task",
      "release-meta",
      "--dist",
      `${dir}/out`,
      "--repository",
      "example-org/longcall",
      "--tag",
      "v9.9.9",
    ]);
    assert.equal(wrongTag.code, 1);
    assert.match(
      wrongTag.stderr,
      new RegExp(`does not match longcall --version \\(${VERSION.replaceAll(".", "\\.")}\\)`),
    );
    const meta = await run([
      "task",
      "release-meta",
      "--dist",
      `${dir}/out`,
      "--repository",
      "example-org/longcall",
      "--tag",
      `v${VERSION}`,
    ]);
    assert.equal(meta.code, 0, meta.stderr);
    const doc = JSON.parse(await Deno.readTextFile(`${dir}/out/server.json`)) as {
      packages: { identifier: string; fileSha256: string }[];
    };
    assert.deepEqual(await serverJsonProblems(doc), []);
    for (const [i, b] of MCPB_BUNDLES.entries()) {
      assert.equal(doc.packages[i]?.fileSha256, await sha256(`${dir}/out/${mcpbFileName(b)}`));
      assert.ok(doc.packages[i]?.identifier.endsWith(`/v${VERSION}/${mcpbFileName(b)}`));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("release-meta refuses without a repository (exit 2) and without the bundles (exit 1)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const noRepo = await new Deno.Command(Deno.execPath(), {
      args: ["task", "release-meta", "--dist", dir],
      cwd: ROOT,
      env: { GITHUB_REPOSITORY: "" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(noRepo.code, 2);
    assert.match(new TextDecoder().decode(noRepo.stderr), /pass --repository OWNER\/NAME/);
    const noBundles = await run(["task", "release-meta", "--dist", dir, "--repository", "example-org/longcall"]);
    assert.equal(noBundles.code, 1);
    assert.match(noBundles.stderr, /missing longcall-.*\.mcpb.*run `deno task mcpb` first/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
