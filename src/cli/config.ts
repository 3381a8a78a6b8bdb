/**
 * Configuration from flags and the environment. Only cli/ reads the environment; every
 * other layer receives plain values. Secrets (tokens) are read here and passed on,
 * never stored or logged.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { type LogLevel, parseLogLevel } from "../base/log.ts";

/** Environment variables longcall reads (the single list that --allow-env is built from). */
export const ENV_VARS = [
  "LONGCALL_DB",
  "LONGCALL_LOG",
  "LONGCALL_HTTP_TOKEN",
  "LONGCALL_GITHUB_API_URL",
  "LONGCALL_GITHUB_TOKEN_FILE",
  "LONGCALL_RETENTION_MS",
  "LONGCALL_SYNCHRONOUS",
  "LONGCALL_LINGER_MS",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "XDG_DATA_HOME",
  "HOME",
  "NO_COLOR",
  // Distribution (issue 15): the Windows data directory for the default database path, and
  // PATH, where `setup --print` looks for a stable `deno` (never read by `serve`).
  "LOCALAPPDATA",
  "PATH",
] as const;

export type EnvVar = typeof ENV_VARS[number];

/** Reads one variable, treating a denied permission as unset. */
export function envGet(name: EnvVar): string | undefined {
  try {
    const v = Deno.env.get(name);
    return v === "" ? undefined : v;
  } catch {
    return undefined;
  }
}

/** The variables the default database path may depend on. */
export interface DataDirEnv {
  XDG_DATA_HOME?: string | undefined;
  HOME?: string | undefined;
  LOCALAPPDATA?: string | undefined;
}

function nonEmpty(v: string | undefined): v is string {
  return v !== undefined && v !== "";
}

/**
 * The default database path, by each platform's convention for per-user application data:
 *
 * | os      | path                                                    |
 * |---------|---------------------------------------------------------|
 * | windows | `%LOCALAPPDATA%\longcall\longcall.db`                    |
 * | darwin  | `$HOME/Library/Application Support/longcall/longcall.db` |
 * | other   | `$XDG_DATA_HOME/longcall/longcall.db`, else `$HOME/.local/share/longcall/longcall.db` |
 *
 * @throws {AppError} `invalid_argument` when the variables the platform needs are unset.
 */
export function defaultDatabasePath(os: typeof Deno.build.os, env: DataDirEnv): string {
  const fail = (vars: string): never => {
    throw new AppError(
      "invalid_argument",
      `Cannot choose a database path on ${os}: ${vars}; pass --db PATH or set LONGCALL_DB`,
    );
  };
  if (os === "windows") {
    if (!nonEmpty(env.LOCALAPPDATA)) return fail("LOCALAPPDATA is not set");
    return `${env.LOCALAPPDATA.replace(/[\\/]+$/, "")}\\longcall\\longcall.db`;
  }
  if (os === "darwin") {
    if (!nonEmpty(env.HOME)) return fail("HOME is not set");
    return `${env.HOME.replace(/\/+$/, "")}/Library/Application Support/longcall/longcall.db`;
  }
  const base = nonEmpty(env.XDG_DATA_HOME)
    ? env.XDG_DATA_HOME
    : nonEmpty(env.HOME)
    ? `${env.HOME.replace(/\/+$/, "")}/.local/share`
    : fail("neither XDG_DATA_HOME nor HOME is set");
  return `${base.replace(/\/+$/, "")}/longcall/longcall.db`;
}

/**
 * The database path: `--db`, else `LONGCALL_DB`, else the platform's default. `env` defaults to
 * the process's environment (tests inject one). An empty `--db` (`--db "$UNSET_VAR"`) is refused
 * rather than read as unset: it would otherwise open the user's real database.
 *
 * @throws {AppError} `invalid_argument` for an empty `--db`.
 */
export function resolveDbPath(flag: string | undefined, env: (name: EnvVar) => string | undefined = envGet): string {
  if (flag === "") {
    throw new AppError("invalid_argument", "Cannot use --db: expected a database file path, current value is empty");
  }
  if (flag !== undefined) return flag;
  const db = env("LONGCALL_DB");
  if (db !== undefined && db !== "") return db;
  return defaultDatabasePath(Deno.build.os, {
    XDG_DATA_HOME: env("XDG_DATA_HOME"),
    HOME: env("HOME"),
    LOCALAPPDATA: env("LOCALAPPDATA"),
  });
}

/** SQLite's name for a database that lives in memory only. */
const IN_MEMORY = ":memory:";

/**
 * The database a command that only reads (or cancels) stored work opens: `path` when a file is there,
 * else an empty in-memory database, so a mistyped --db or a fresh machine gets the command's empty
 * answer and no new file; `missing` says which (the command tells the user on stderr).
 */
export function existingDbOr(path: string, exists: (path: string) => boolean = fileExists): {
  db: string;
  missing: boolean;
} {
  return path === IN_MEMORY || exists(path) ? { db: path, missing: false } : { db: IN_MEMORY, missing: true };
}

function fileExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (err) {
    // Anything but absence (a denied read, say) is left to the open, which reports it.
    return !(err instanceof Deno.errors.NotFound);
  }
}

/**
 * The database a read command opens for `--db` (see {@linkcode resolveDbPath}): {@linkcode existingDbOr}, with a
 * note on stderr when nothing is there.
 */
export function dbForReading(flag: string | undefined): string {
  const path = resolveDbPath(flag);
  const { db, missing } = existingDbOr(path);
  if (missing) {
    console.error(
      `note: no database at ${path} yet (nothing was submitted or synced there; --db or LONGCALL_DB picks another)`,
    );
  }
  return db;
}

/** Log level from `LONGCALL_LOG` (debug, info, warn, error, silent). */
export function logLevel(): LogLevel {
  return parseLogLevel(envGet("LONGCALL_LOG"));
}
