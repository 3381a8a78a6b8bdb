/**
 * Configuration from flags and the environment. Only cli/ reads the environment; every
 * other layer receives plain values. Secrets (tokens) are read here and passed on,
 * never stored or logged.
 *
 * @module
 */

import { type LogLevel, parseLogLevel } from "../base/log.ts";
import { defaultDatabasePath } from "../store/db.ts";

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

/** The database path: `--db`, else `LONGCALL_DB`, else the XDG default. */
export function resolveDbPath(flag: string | undefined): string {
  if (flag !== undefined && flag !== "") return flag;
  const env = envGet("LONGCALL_DB");
  if (env !== undefined) return env;
  const xdg = envGet("XDG_DATA_HOME");
  const home = envGet("HOME");
  return defaultDatabasePath({
    ...(xdg === undefined ? {} : { XDG_DATA_HOME: xdg }),
    ...(home === undefined ? {} : { HOME: home }),
  });
}

/** Log level from `LONGCALL_LOG` (debug, info, warn, error, silent). */
export function logLevel(): LogLevel {
  return parseLogLevel(envGet("LONGCALL_LOG"));
}
