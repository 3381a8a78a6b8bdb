/**
 * Release artefacts built from the compiled binaries (scripts/lib/release.ts says what is in them):
 *
 *   deno task mcpb [--repository OWNER/NAME] [--bin-dir DIR] [--out-dir DIR]
 *       For each bundle (x64, arm64): writes <out>/mcpb-<arch>/manifest.json, validates it with the
 *       official tool (`mcpb validate`, npm @anthropic-ai/mcpb, pinned in deno.json), and, when every
 *       binary it needs is in <bin-dir> (default dist/), packs <out>/longcall-<version>-<arch>.mcpb with
 *       `mcpb pack` plus a .sha256. Where a binary is missing (deno compile cannot run without Deno's
 *       denort download) it still writes and validates the manifest, names the missing binaries and
 *       exits 1, so a release can never ship an incomplete bundle.
 *
 *   deno task release-meta --repository OWNER/NAME [--dist DIR] [--tag vX.Y.Z]
 *       Writes <dist>/server.json for the MCP Registry from the packed bundles (their SHA-256) and
 *       validates it against the Registry's schema; `--tag` must be `v` + `longcall --version`.
 *
 * `--repository` defaults to $GITHUB_REPOSITORY (set in GitHub Actions).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { VERSION } from "../src/base/version.ts";
import { DIST, sha256 } from "./build.ts";
import {
  bundleBinaries,
  listedTools,
  MCPB_BUNDLES,
  mcpbFileName,
  mcpbManifest,
  type PackedBundle,
  serverJson,
} from "./lib/release.ts";
import { serverJsonProblems } from "./lib/registry_schema.ts";

/**
 * The official bundle tool as pinned in deno.json's imports ("@anthropic-ai/mcpb"), read from there
 * (import.meta.resolve would give the package's library entry, not its command).
 */
export const MCPB_CLI: string = await (async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url))) as {
    imports: Record<string, string>;
  };
  const spec = config.imports["@anthropic-ai/mcpb"];
  if (spec === undefined) throw new Error('Cannot find the mcpb tool: deno.json imports has no "@anthropic-ai/mcpb"');
  return spec;
})();

/** Runs `mcpb <args>` under Deno with the permissions it needs (no net, no run). */
export async function mcpb(args: string[]): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--allow-read", "--allow-write", "--allow-env", MCPB_CLI, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    output: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Builds (or, with binaries missing, only writes and validates) the bundles. */
export async function buildMcpb(options: { repository?: string; binDir: string; outDir: string }): Promise<{
  manifests: string[];
  packed: PackedBundle[];
  missing: string[];
}> {
  const tools = listedTools();
  const manifests: string[] = [];
  const packed: PackedBundle[] = [];
  const missing = new Set<string>();
  for (const bundle of MCPB_BUNDLES) {
    const stage = `${options.outDir}/mcpb-${bundle.arch}`;
    await Deno.remove(stage, { recursive: true }).catch(() => {});
    await Deno.mkdir(`${stage}/bin`, { recursive: true });
    const manifest = `${stage}/manifest.json`;
    const text = JSON.stringify(mcpbManifest(bundle, tools, { repository: options.repository }), null, 2);
    await Deno.writeTextFile(manifest, text + "\n");
    const v = await mcpb(["validate", manifest]);
    if (v.code !== 0) {
      throw new Error(`Cannot build the ${bundle.arch} bundle: mcpb validate refused ${manifest}:\n${v.output}`);
    }
    console.error(`mcpb validate ${manifest}: ok`);
    manifests.push(manifest);
    const absent = [];
    for (const name of bundleBinaries(bundle)) {
      if (!await exists(`${options.binDir}/${name}`)) absent.push(name);
    }
    if (absent.length > 0) {
      for (const a of absent) missing.add(a);
      continue;
    }
    for (const name of bundleBinaries(bundle)) {
      await Deno.copyFile(`${options.binDir}/${name}`, `${stage}/bin/${name}`);
      // Artifact downloads drop the executable bit; mcpb pack stores the mode in the zip.
      if (Deno.build.os !== "windows") await Deno.chmod(`${stage}/bin/${name}`, 0o755);
    }
    const fileName = mcpbFileName(bundle);
    const out = `${options.outDir}/${fileName}`;
    const p = await mcpb(["pack", stage, out]);
    if (p.code !== 0) throw new Error(`Cannot pack ${out}: mcpb pack failed:\n${p.output}`);
    const digest = await sha256(out);
    await Deno.writeTextFile(`${out}.sha256`, `${digest}  ${fileName}\n`);
    packed.push({ bundle, fileName, sha256: digest });
    console.error(`packed ${out} (sha256 ${digest})`);
  }
  return { manifests, packed, missing: [...missing] };
}

/** Writes and validates server.json from the packed bundles in `dist`. */
export async function writeServerJson(repository: string, dist: string): Promise<string> {
  const packed: PackedBundle[] = [];
  const absent: string[] = [];
  for (const bundle of MCPB_BUNDLES) {
    const fileName = mcpbFileName(bundle);
    if (!await exists(`${dist}/${fileName}`)) {
      absent.push(fileName);
      continue;
    }
    packed.push({ bundle, fileName, sha256: await sha256(`${dist}/${fileName}`) });
  }
  if (absent.length > 0) {
    throw new Error(`Cannot write server.json: missing ${absent.join(", ")} in ${dist}; run \`deno task mcpb\` first`);
  }
  const doc = serverJson(repository, packed);
  const problems = await serverJsonProblems(doc);
  if (problems.length > 0) {
    throw new Error(`Cannot write server.json: the Registry schema refuses it: ${problems.join("; ")}`);
  }
  const path = `${dist}/server.json`;
  await Deno.writeTextFile(path, JSON.stringify(doc, null, 2) + "\n");
  return path;
}

if (import.meta.main) {
  const [mode, ...rest] = Deno.args;
  let values;
  try {
    values = parseArgs({
      args: rest,
      options: {
        repository: { type: "string" },
        "bin-dir": { type: "string" },
        "out-dir": { type: "string" },
        dist: { type: "string" },
        tag: { type: "string" },
      },
      strict: true,
    }).values;
  } catch (err) {
    console.error(`release: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(2);
  }
  const repository = values.repository ?? (Deno.env.get("GITHUB_REPOSITORY") || undefined);
  try {
    if (mode === "mcpb") {
      const outDir = values["out-dir"] ?? DIST;
      const r = await buildMcpb({
        ...(repository === undefined ? {} : { repository }),
        binDir: values["bin-dir"] ?? DIST,
        outDir,
      });
      if (r.missing.length > 0) {
        console.error(
          `\nManifests written and validated: ${r.manifests.join(", ")}.\nCannot pack the .mcpb bundles: missing ` +
            `binaries in ${values["bin-dir"] ?? DIST}: ${
              r.missing.join(", ")
            }. Build them with \`deno task compile\` ` +
            "(it needs Deno's denort download; see its message), or download them from a release into that directory.",
        );
        Deno.exit(1);
      }
    } else if (mode === "server-json") {
      if (values.tag !== undefined && values.tag !== `v${VERSION}`) {
        console.error(
          `release-meta: the tag ${values.tag} does not match longcall --version (${VERSION}); expected v${VERSION}`,
        );
        Deno.exit(1);
      }
      if (repository === undefined) {
        console.error(
          "release-meta: Cannot write server.json: pass --repository OWNER/NAME (or set GITHUB_REPOSITORY)",
        );
        Deno.exit(2);
      }
      console.log(`Wrote ${await writeServerJson(repository, values.dist ?? DIST)}`);
    } else {
      console.error(
        "usage: deno task mcpb [--repository OWNER/NAME] [--bin-dir DIR] [--out-dir DIR] | " +
          "deno task release-meta --repository OWNER/NAME [--dist DIR] [--tag vX.Y.Z]",
      );
      Deno.exit(2);
    }
  } catch (err) {
    console.error(`release: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(1);
  }
}
