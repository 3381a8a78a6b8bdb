/**
 * Options and flag parsing shared by `checks watch`, `sync`, `search` and `serve`.
 *
 * @module
 */

import { SIMULATE_TIME_RATE_MAX } from "../base/limits.ts";
import { isLoopbackHost } from "../base/net.ts";
import { withoutCredentials } from "../github/api_root.ts";
import { apiUrlFromEnv } from "./product_kinds.ts";
import { intOption } from "./command.ts";
import { UsageError } from "./exit.ts";

export const dbOption = {
  type: "string",
  help: "Database path (default $LONGCALL_DB or the user data dir)",
  value: "PATH",
} as const;
export const jsonOption = {
  type: "boolean",
  help: "Print one JSON document on stdout (progress still goes to stderr)",
} as const;
export const rateOption = {
  type: "string",
  help: `Simulations against a fake GitHub on loopback only (refused otherwise): run the job's time N x faster ` +
    `(1..${SIMULATE_TIME_RATE_MAX})`,
  value: "N",
} as const;

/** Parsed option values. */
export type Values = Record<string, string | boolean | string[] | undefined>;

/** How {@link oneOf} reads one flag: its name, the values it takes, and its value when unset. */
export interface OneOfSpec<T extends string> {
  /** The flag's name without the dashes, as error messages show it. */
  name: string;
  /** The values the flag takes. */
  allowed: readonly T[];
  /** The value when the flag is unset. */
  fallback: T;
}

/** A flag that takes one of `spec.allowed` (default `spec.fallback`). */
export function oneOf<T extends string>(value: unknown, spec: OneOfSpec<T>): T {
  const { name, allowed, fallback } = spec;
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`Cannot use --${name}: expected one of ${allowed.join(", ")}, current value is ${value}`);
}

/** `--kind` of `sync` and `search`: which threads (issues, pull requests or both). */
export const THREAD_KIND_FLAG: OneOfSpec<"issue" | "pull_request" | "both"> = {
  name: "kind",
  allowed: ["issue", "pull_request", "both"],
  fallback: "both",
};

/** `--state` of `sync` and `search`: open, closed or all threads. */
export const THREAD_STATE_FLAG: OneOfSpec<"open" | "closed" | "all"> = {
  name: "state",
  allowed: ["open", "closed", "all"],
  fallback: "all",
};

/**
 * `--simulate-time-rate`, for simulations against a fake GitHub on loopback only: `options.apiUrl` (default the
 * configured LONGCALL_GITHUB_API_URL, else api.github.com) must name a loopback host. Against GitHub itself a
 * compressed clock would end a watch's grace and timeout early and give false verdicts (`no_checks`).
 */
export function simulateRate(values: Values, options: { apiUrl?: string } = {}): number | undefined {
  if (values["simulate-time-rate"] === undefined) return undefined;
  const rate = intOption(values["simulate-time-rate"], {
    name: "simulate-time-rate",
    min: 1,
    max: SIMULATE_TIME_RATE_MAX,
    fallback: 1,
  });
  const apiUrl = options.apiUrl ?? apiUrlFromEnv();
  let host = "";
  try {
    host = new URL(apiUrl).hostname;
  } catch { /* not a URL: refused below, as not loopback (the GitHub settings' own check names it) */ }
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      "Cannot use --simulate-time-rate: it is for a simulated GitHub on loopback (LONGCALL_GITHUB_API_URL=" +
        `http://127.0.0.1:PORT), current GitHub API URL is ${JSON.stringify(withoutCredentials(apiUrl))}`,
    );
  }
  return rate;
}
