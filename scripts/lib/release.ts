/**
 * Release metadata generated from the build, never typed twice:
 *
 * - the `.mcpb` manifests (Claude Desktop bundles, manifest 0.3): `server.type: "binary"`, one
 *   bundle per CPU architecture with `platform_overrides` for darwin, win32 and linux (MCPB picks an
 *   override by OS only, so the five targets are spread over an x64 and an arm64 bundle), the
 *   GitHub token as a `sensitive` user_config entry, and the tools listed from the same tool
 *   definitions the server lists (`productTools`, instantiated over an in-memory store);
 * - `server.json` for the MCP Registry (schema 2025-12-11): name, description and version from
 *   `src/base/version.ts` (what `longcall --version` prints), stdio transport, one `mcpb` package
 *   per bundle pointing at its release asset with its `fileSha256`, and the environment variables
 *   longcall reads (from `ENV_VARS`, every one described below or explicitly not user-facing).
 *
 * @module
 */

import { silentLogger } from "../../src/base/log.ts";
import { VERSION } from "../../src/base/version.ts";
import { ENV_VARS, type EnvVar } from "../../src/cli/config.ts";
import { openRuntime } from "../../src/cli/runtime.ts";
import { GITHUB_API_URL_DEFAULT } from "../../src/github/api_root.ts";
import { productTools } from "../../src/mcp/product_tools.ts";
import { binaryName, type Target } from "../build.ts";

/** The Registry schema server.json is written for (kept as test data in fixtures/registry/). */
export const SERVER_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/** One line about longcall (the Registry allows at most 100 characters). */
export const SHORT_DESCRIPTION =
  "Durable, cancellable GitHub jobs (PR checks, issue sync) as MCP tasks, from one sandboxed binary";

const LONG_DESCRIPTION =
  "longcall runs long GitHub work (watching a pull request's CI, syncing issues and pull requests into a local " +
  "corpus) as durable, cancellable jobs in a local SQLite database. Hosts that speak the MCP Tasks extension get a " +
  "task handle; every other host gets a JobReference and jobs.get. The binary carries its Deno permissions: " +
  "network only to api.github.com, no subprocesses, no FFI.";

/** One `.mcpb` bundle: the binary each OS runs from it. */
export interface McpbBundle {
  arch: "x64" | "arm64";
  targets: { darwin: Target; win32: Target; linux: Target };
}

/**
 * The bundles. Windows on Arm runs the x64 binary through its emulation, so both bundles carry it.
 * Together they cover the five compile targets.
 */
export const MCPB_BUNDLES: readonly McpbBundle[] = [
  {
    arch: "x64",
    targets: { darwin: "x86_64-apple-darwin", win32: "x86_64-pc-windows-msvc", linux: "x86_64-unknown-linux-gnu" },
  },
  {
    arch: "arm64",
    targets: { darwin: "aarch64-apple-darwin", win32: "x86_64-pc-windows-msvc", linux: "aarch64-unknown-linux-gnu" },
  },
];

/** The release asset name of a bundle. */
export function mcpbFileName(bundle: McpbBundle, version = VERSION): string {
  return `longcall-${version}-${bundle.arch}.mcpb`;
}

/** The binaries a bundle contains, one per OS (deduplicated). */
export function bundleBinaries(bundle: McpbBundle): string[] {
  return [...new Set(Object.values(bundle.targets).map(binaryName))];
}

/** Name and description of every tool the shipped server lists (before `--read-only` filtering). */
export function listedTools(): { name: string; description: string }[] {
  // The tools over a control-only runtime (nothing runs), as the server lists them.
  const runtime = openRuntime({
    db: ":memory:",
    kinds: { product: { github: { baseUrl: GITHUB_API_URL_DEFAULT } } },
    log: silentLogger,
    execution: "none",
  });
  try {
    return productTools(runtime.control, runtime.store).map((t) => ({ name: t.name, description: t.description }));
  } finally {
    void runtime.close();
  }
}

/** What the Registry says about one environment variable, or `null` for one users do not set. */
interface EnvDoc {
  description: string;
  isSecret?: boolean;
  format?: "string" | "number" | "filepath";
  choices?: string[];
}

/**
 * Every variable of ENV_VARS (a new one fails type checking here until it is described). `null`:
 * read by longcall but not configuration a registry client should offer (platform variables, or
 * the HTTP endpoint's token, which a stdio package never uses).
 */
export const ENV_DOCS: Record<EnvVar, EnvDoc | null> = {
  GITHUB_TOKEN: {
    description: "GitHub token for authenticated requests (read-only scopes suffice); without one, 60 requests/h",
    isSecret: true,
  },
  GH_TOKEN: { description: "Alternative to GITHUB_TOKEN (used when GITHUB_TOKEN is unset)", isSecret: true },
  LONGCALL_GITHUB_TOKEN_FILE: {
    description: "File holding the GitHub token (used when neither GITHUB_TOKEN nor GH_TOKEN is set)",
    format: "filepath",
  },
  LONGCALL_DB: {
    description: "Database path (default: the platform's per-user data directory, longcall/longcall.db)",
    format: "filepath",
  },
  LONGCALL_GITHUB_API_URL: {
    description: "GitHub API base URL; the released binary may reach only https://api.github.com " +
      "(build another with deno task compile --github-host HOST)",
  },
  LONGCALL_LOG: {
    description: "Log level on stderr",
    choices: ["debug", "info", "warn", "error", "silent"],
  },
  LONGCALL_RETENTION_MS: { description: "How long finished jobs are kept, in milliseconds", format: "number" },
  LONGCALL_SYNCHRONOUS: { description: "SQLite durability", choices: ["NORMAL", "FULL"] },
  LONGCALL_LINGER_MS: {
    description: "How long a stdio server whose host went away keeps running its jobs, in milliseconds " +
      "(0 = stop them at once; default: each job's own deadline, at most 30 min)",
    format: "number",
  },
  LONGCALL_HTTP_TOKEN: null,
  XDG_DATA_HOME: null,
  HOME: null,
  NO_COLOR: null,
  LOCALAPPDATA: null,
  PATH: null,
};

/** What {@link mcpbManifest} adds to a bundle's manifest beyond its tools. */
export interface McpbManifestOptions {
  /** `OWNER/NAME` on GitHub: the manifest's repository and homepage (none when unset). */
  repository?: string | undefined;
}

/** The manifest of one `.mcpb` bundle. */
export function mcpbManifest(
  bundle: McpbBundle,
  tools: { name: string; description: string }[],
  options: McpbManifestOptions = {},
): Record<string, unknown> {
  const { repository } = options;
  const command = (target: Target) => `\${__dirname}/bin/${binaryName(target)}`;
  return {
    manifest_version: "0.3",
    name: "longcall",
    display_name: "longcall",
    version: VERSION,
    description: SHORT_DESCRIPTION,
    long_description: LONG_DESCRIPTION,
    author: { name: "longcall contributors" },
    ...(repository === undefined ? {} : {
      repository: { type: "git", url: `https://github.com/${repository}` },
      homepage: `https://github.com/${repository}`,
    }),
    server: {
      type: "binary",
      entry_point: `bin/${binaryName(bundle.targets.linux)}`,
      mcp_config: {
        command: command(bundle.targets.linux),
        args: ["serve"],
        env: { GITHUB_TOKEN: "${user_config.github_token}" },
        platform_overrides: {
          darwin: { command: command(bundle.targets.darwin) },
          win32: { command: command(bundle.targets.win32) },
          linux: { command: command(bundle.targets.linux) },
        },
      },
    },
    tools,
    tools_generated: false,
    user_config: {
      github_token: {
        type: "string",
        title: "GitHub token",
        description: "A GitHub token for authenticated requests (read-only access suffices). Leave empty to run " +
          "anonymously (60 requests per hour). Stored by the host's secure storage, never by longcall.",
        sensitive: true,
        required: false,
        // Left empty, the host substitutes this default: with none, the official library (mcpb
        // getMcpConfigForManifest) passes the literal "${user_config.github_token}" as the token.
        default: "",
      },
    },
    compatibility: { platforms: ["darwin", "win32", "linux"] },
    keywords: ["github", "ci", "pull-requests", "tasks", "jobs"],
  };
}

/** One packed bundle: its asset file name and digest. */
export interface PackedBundle {
  bundle: McpbBundle;
  fileName: string;
  sha256: string;
}

/** `server.json` for the MCP Registry. `repository` is `OWNER/NAME` on GitHub. */
export function serverJson(repository: string, packed: readonly PackedBundle[]): Record<string, unknown> {
  const m = /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(repository);
  if (m === null) {
    throw new TypeError(
      `Cannot write server.json: expected the repository as OWNER/NAME, current value is ${repository}`,
    );
  }
  if (packed.length === 0) throw new RangeError("Cannot write server.json: no .mcpb bundle, current value is []");
  const environmentVariables = ENV_VARS.flatMap((name) => {
    const doc = ENV_DOCS[name];
    if (doc === null) return [];
    return [{
      name,
      description: doc.description,
      isRequired: false,
      ...(doc.isSecret === true ? { isSecret: true } : {}),
      ...(doc.format === undefined ? {} : { format: doc.format }),
      ...(doc.choices === undefined ? {} : { choices: doc.choices }),
    }];
  });
  return {
    $schema: SERVER_SCHEMA_URL,
    name: `io.github.${m[1]}/${m[2]}`,
    title: "longcall",
    description: SHORT_DESCRIPTION,
    version: VERSION,
    repository: { url: `https://github.com/${repository}`, source: "github" },
    websiteUrl: `https://github.com/${repository}#install`,
    packages: packed.map((p) => ({
      registryType: "mcpb",
      identifier: `https://github.com/${repository}/releases/download/v${VERSION}/${p.fileName}`,
      version: VERSION,
      fileSha256: p.sha256,
      transport: { type: "stdio" },
      environmentVariables,
    })),
  };
}
