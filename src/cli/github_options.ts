/**
 * Options and flag parsing shared by `checks watch`, `sync`, `search` and `serve`.
 *
 * @module
 */

import { SIMULATE_TIME_RATE_MAX } from "../base/limits.ts";
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
  help: `Simulations against a fake GitHub only: run the job's time N x faster (1..${SIMULATE_TIME_RATE_MAX})`,
  value: "N",
} as const;

/** Parsed option values. */
export type Values = Record<string, string | boolean | string[] | undefined>;

/** A flag that takes one of `allowed` (default `fallback`). */
export function oneOf<T extends string>(value: unknown, allowed: readonly T[], flag: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`Cannot use --${flag}: expected one of ${allowed.join(", ")}, current value is ${value}`);
}

/** `--simulate-time-rate` (simulations against a fake GitHub only). */
export function simulateRate(values: Values): number | undefined {
  return values["simulate-time-rate"] === undefined
    ? undefined
    : intOption(values["simulate-time-rate"], "simulate-time-rate", 1, SIMULATE_TIME_RATE_MAX, 1);
}
