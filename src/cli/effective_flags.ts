/**
 * The permission flags a process actually runs with, reconstructed from `Deno.permissions.query`
 * (Deno has no API that lists granted scopes, so specific descriptors are queried: the broad
 * form of each permission, each shipped scope, and a few scopes beyond the shipped set that an
 * attacker would want). Every grant beyond the shipped set (src/cli/permissions.ts) is a problem.
 *
 * @module
 */

import { ENV_VARS } from "./config.ts";
import { auditFlags, HTTP_BIND_HOSTS } from "./permissions.ts";

/** Network destinations probed beyond the shipped set: any public host, every address, cloud metadata. */
export const NET_PROBES = ["example.com:443", "0.0.0.0:80", "localhost:80", "169.254.169.254:80"] as const;
/** Environment variables probed beyond the shipped list (secrets a broad grant would expose). */
export const ENV_PROBES = ["AWS_SECRET_ACCESS_KEY", "SSH_AUTH_SOCK", "USER"] as const;
/** Commands probed for a scoped `--allow-run`. */
export const RUN_PROBES = ["sh", "bash", "git", "curl", "deno"] as const;
/** `Deno.permissions` sys kinds probed for a scoped `--allow-sys`. */
export const SYS_PROBES = ["hostname", "osRelease", "networkInterfaces", "uid", "homedir"] as const;

/** What the queries found. */
export interface EffectiveFlags {
  /** The flags in effect, in the shipped list's order where they match it. */
  flags: string[];
  /** Grants beyond the shipped set, and forbidden flags. */
  problems: string[];
  /** What could not be queried (stated, never guessed). */
  notes: string[];
}

type Query = (d: Deno.PermissionDescriptor) => Promise<Deno.PermissionState>;

const defaultQuery: Query = async (d) => (await Deno.permissions.query(d)).state;

/** Options of {@linkcode effectiveFlags}. */
export interface EffectiveOptions {
  /** `host[:port]` of the GitHub API (the shipped net scope). */
  githubHost: string;
  /** The database path (a scoped read/write grant is reported by its directory). */
  db: string;
  /** Whether a worker with its own permissions started (proves `--unstable-worker-options`). */
  workerStarted: boolean;
  /** Injected for unit tests; default `Deno.permissions.query`. */
  query?: Query;
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash > 0 ? path.slice(0, slash) : slash === 0 ? "/" : ".";
}

/** Queries Deno and rebuilds the flag list this process runs with. */
export async function effectiveFlags(options: EffectiveOptions): Promise<EffectiveFlags> {
  const query = options.query ?? defaultQuery;
  const granted = async (d: Deno.PermissionDescriptor) => (await query(d)) === "granted";
  const problems: string[] = [];
  const notes: string[] = [];
  const flags: string[] = [];

  const broad = {
    net: await granted({ name: "net" }),
    env: await granted({ name: "env" }),
    read: await granted({ name: "read" }),
    write: await granted({ name: "write" }),
    run: await granted({ name: "run" }),
    ffi: await granted({ name: "ffi" }),
    sys: await granted({ name: "sys" }),
    import: await granted({ name: "import" }),
  };
  if (Object.values(broad).every((v) => v)) {
    flags.push("--allow-all");
    return { flags, problems: auditFlags(flags), notes: ["every permission is granted without scope (-A)"] };
  }

  // Prompts: not queryable. Deno prompts only on a terminal; without one no prompt can happen.
  if (!Deno.stdin.isTerminal() || !Deno.stderr.isTerminal()) flags.push("--no-prompt");
  else notes.push("whether --no-prompt was given cannot be queried on a terminal");
  if (options.workerStarted) flags.push("--unstable-worker-options");

  if (broad.net) {
    flags.push("--allow-net");
  } else {
    const shipped = [...new Set([options.githubHost, ...HTTP_BIND_HOSTS])];
    const hosts: string[] = [];
    for (const host of shipped) if (await granted({ name: "net", host })) hosts.push(host);
    for (const host of NET_PROBES) {
      if (await granted({ name: "net", host })) {
        hosts.push(host);
        problems.push(`net to ${host} is granted beyond the shipped set`);
      }
    }
    if (hosts.length > 0) flags.push(`--allow-net=${hosts.join(",")}`);
  }

  if (broad.env) {
    flags.push("--allow-env");
  } else {
    const vars: string[] = [];
    for (const variable of ENV_VARS) if (await granted({ name: "env", variable })) vars.push(variable);
    for (const variable of ENV_PROBES) {
      if (await granted({ name: "env", variable })) {
        vars.push(variable);
        problems.push(`env ${variable} is granted beyond the shipped list`);
      }
    }
    if (vars.length > 0) flags.push(`--allow-env=${vars.join(",")}`);
  }

  for (const name of ["read", "write"] as const) {
    if (broad[name]) flags.push(`--allow-${name}`);
    else if (await granted({ name, path: dirOf(options.db) })) flags.push(`--allow-${name}=${dirOf(options.db)}`);
    else if (await granted({ name, path: options.db })) flags.push(`--allow-${name}=${options.db}`);
  }
  if (!broad.read || !broad.write) notes.push("a scoped --allow-read/--allow-write is shown by the database's scope");

  if (broad.run) {
    flags.push("--allow-run");
  } else {
    const commands: string[] = [];
    for (const command of RUN_PROBES) if (await granted({ name: "run", command })) commands.push(command);
    if (commands.length > 0) flags.push(`--allow-run=${commands.join(",")}`);
  }
  if (broad.ffi) flags.push("--allow-ffi");
  if (broad.sys) {
    flags.push("--allow-sys");
  } else {
    const kinds: string[] = [];
    for (const kind of SYS_PROBES) {
      if (await granted({ name: "sys", kind } as Deno.PermissionDescriptor)) kinds.push(kind);
    }
    if (kinds.length > 0) flags.push(`--allow-sys=${kinds.join(",")}`);
  }
  if (broad.import) flags.push("--allow-import");

  problems.unshift(...auditFlags(flags));
  return { flags, problems, notes };
}
