/**
 * `longcall permissions`: what Deno actually grants each part of a server, queried
 * descriptor by descriptor, before and after the serving thread narrows itself. The
 * same start-up sequence as `serve` (worker with explicit permissions, its entry run, then revoke).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { createLogger } from "../base/log.ts";
import type { Command } from "./command.ts";
import { envGet, logLevel, resolveDbPath } from "./config.ts";
import { EXIT_ERROR, EXIT_OK } from "./exit.ts";
import { effectiveFlags } from "./effective_flags.ts";
import { FLAG_REASONS, netHostOf, permissionFlags } from "./permissions.ts";
import { githubConfigFromEnv } from "./product_kinds.ts";
import { narrowServingThread } from "./serve.ts";
import { startNetworkWorker } from "./runtime.ts";
import type { WorkerPermissions } from "./worker_executor.ts";

/** One row of the report. */
export interface PermissionRow {
  descriptor: string;
  /** What the process has at start (granted by its flags). */
  process_at_start: Deno.PermissionState;
  /** The MCP thread after narrowing. */
  mcp_thread: Deno.PermissionState;
  /** The network worker. */
  network_worker: Deno.PermissionState;
}

/** With --no-prompt, "prompt" can never become "granted": report it as denied. */
function effective(state: Deno.PermissionState): Deno.PermissionState {
  return state === "prompt" ? "denied" : state;
}

function describe(d: Deno.PermissionDescriptor): string {
  switch (d.name) {
    case "net":
      return `net ${d.host ?? "*"}`;
    case "read":
    case "write":
      return `${d.name} ${d.path ?? "*"}`;
    case "env":
      return `env ${d.variable ?? "*"}`;
    case "run":
      return `run ${d.command ?? "*"}`;
    default:
      return d.name;
  }
}

/** What an audit asks about, besides what no server may have (example.com, env, run, ffi, sys). */
export interface AuditTargets {
  /** The database path. */
  db: string;
  /** The GitHub API host, with its port. */
  githubHost: string;
  /** $HOME (unset: /etc is read and /tmp written instead). */
  home: string | undefined;
  /** longcall's own code on disk (the bundle file, or src/main.ts), when it runs from a file. */
  code?: string;
}

/** The descriptors that matter for a review. */
export function auditDescriptors(targets: AuditTargets): Deno.PermissionDescriptor[] {
  const { db, githubHost, home, code } = targets;
  return [
    { name: "net", host: githubHost },
    { name: "net", host: "example.com:443" },
    { name: "net", host: "127.0.0.1:1" },
    { name: "read", path: db },
    { name: "write", path: db },
    // longcall's own code (the bundle file, or src/main.ts): a worker started from memory cannot read it.
    ...(code === undefined ? [] : [{ name: "read" as const, path: code }]),
    { name: "read", path: home ?? "/etc" },
    { name: "write", path: home ?? "/tmp" },
    { name: "env", variable: "GITHUB_TOKEN" },
    { name: "env", variable: "HOME" },
    { name: "run" },
    { name: "ffi" },
    { name: "sys" },
  ];
}

/** What `longcall permissions` reports. */
export interface PermissionReport {
  /** The flags this process runs with, rebuilt from Deno.permissions queries (src/cli/effective_flags.ts). */
  flags: string[];
  /** The flags longcall ships with (src/cli/permissions.ts), for comparison. */
  shipped_flags: string[];
  /** What the network worker was created with (src/cli/runtime.ts networkWorkerPermissions, as serve grants it). */
  network_worker_grants: WorkerPermissions;
  /** Every grant beyond the shipped set, and every forbidden flag. */
  problems: string[];
  /** What the queries cannot tell. */
  notes: string[];
  rows: PermissionRow[];
}

/** Runs the audit. The calling thread ends narrowed, exactly like a server. */
export async function auditPermissions(db: string): Promise<PermissionReport> {
  const github = githubConfigFromEnv();
  const githubHost = netHostOf(github.baseUrl);
  const code = Deno.mainModule.startsWith("file:") ? fileURLToPath(Deno.mainModule) : undefined;
  const descriptors = auditDescriptors({
    db,
    githubHost: githubHost.includes(":") ? githubHost : `${githubHost}:443`,
    home: envGet("HOME"),
    ...(code === undefined ? {} : { code }),
  });
  const atStart: Deno.PermissionState[] = [];
  for (const d of descriptors) atStart.push((await Deno.permissions.query(d)).state);
  // Queried before anything is revoked: what the process was started with. Creating the worker
  // below with its own permission set needs --unstable-worker-options (it throws otherwise).
  const inEffect = await effectiveFlags({ githubHost, db, workerStarted: true });
  // The worker a server starts (src/cli/runtime.ts): the same script and the same grants.
  const worker = startNetworkWorker({
    db,
    githubBaseUrl: github.baseUrl,
    moduleUrl: Deno.mainModule,
    log: createLogger(logLevel(), { scope: "longcall:permissions" }),
  });
  let workerStates: Deno.PermissionState[];
  try {
    // As serve does: narrow once the worker's entry runs. From source the worker then loads the rest of its
    // code, to answer the audit, under its own grants alone.
    await worker.executor.entered();
    await narrowServingThread();
    workerStates = await worker.executor.audit(descriptors);
  } finally {
    await worker.executor.stop();
    worker.script.release();
  }
  const rows: PermissionRow[] = [];
  for (const [i, d] of descriptors.entries()) {
    rows.push({
      descriptor: describe(d),
      process_at_start: effective(atStart[i] ?? "denied"),
      mcp_thread: effective((await Deno.permissions.query(d)).state),
      network_worker: effective(workerStates[i] ?? "denied"),
    });
  }
  return {
    flags: inEffect.flags,
    shipped_flags: permissionFlags({ githubHosts: [githubHost] }),
    network_worker_grants: worker.permissions,
    problems: inEffect.problems,
    notes: [
      ...inEffect.notes,
      "import is not a row: Deno imports from its default hosts (deno.land, jsr.io, esm.sh, ...) without a flag and " +
      "its queries answer prompt either way; the serving thread revokes import and the network worker is created " +
      "with import: false",
    ],
    rows,
  };
}

/** The `permissions` command. */
export function permissionsCommand(): Command {
  return {
    name: "permissions",
    acceptsArguments: false,
    summary: "Show what Deno grants each part of a longcall server (queried, not assumed).",
    usage: "longcall permissions [--json] [--check] [--db PATH]",
    description: [
      "Runs the server's start-up sequence (network worker with its own permissions, then the",
      "serving thread revokes everything it no longer needs) and queries Deno for each descriptor",
      "that matters to a review. The flags shown are the ones this process runs with, rebuilt from",
      "those queries; every grant beyond the shipped set is listed as a problem. Compare with",
      "docs/SECURITY.md.",
    ].join("\n"),
    options: {
      json: { type: "boolean", help: "Print JSON for scripts" },
      check: { type: "boolean", help: "Exit 1 when any problem is found (for CI and install scripts)" },
      db: { type: "string", help: "Database path to audit (default $LONGCALL_DB or the user data dir)", value: "PATH" },
    },
    examples: [
      "longcall permissions",
      "longcall permissions --check",
      "longcall permissions --json | jq '.rows[] | select(.mcp_thread==\"granted\")'",
    ],
    async run(values) {
      const db = resolveDbPath(values.db as string | undefined);
      const report = await auditPermissions(db);
      const { flags, problems, rows } = report;
      if (values.json === true) {
        console.log(JSON.stringify(report, null, 2));
      } else {
        console.log("Flags in effect (queried from Deno):");
        for (const f of flags) console.log(`  ${f.padEnd(40)} ${FLAG_REASONS[f.split("=")[0] ?? f] ?? ""}`);
        console.log(`Shipped flags (src/cli/permissions.ts): ${report.shipped_flags.join(" ")}`);
        for (const n of report.notes) console.log(`Note: ${n}`);
        console.log("");
        // As wide as the longest descriptor (a database path can be long), so the columns stay aligned.
        const width = Math.max(34, ...rows.map((r) => r.descriptor.length));
        console.log(`${"descriptor".padEnd(width)} ${"at start".padEnd(9)} ${"MCP thread".padEnd(11)} network worker`);
        for (const r of rows) {
          console.log(
            `${r.descriptor.padEnd(width)} ${r.process_at_start.padEnd(9)} ${
              r.mcp_thread.padEnd(11)
            } ${r.network_worker}`,
          );
        }
        console.log(
          problems.length === 0 ? "\nProblems: none" : `\nProblems:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
        );
      }
      return problems.length > 0 && values.check === true ? EXIT_ERROR : EXIT_OK;
    },
  };
}
