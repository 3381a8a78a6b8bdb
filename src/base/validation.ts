/**
 * Turns zod issues into the typed `invalid_argument` error clients see:
 * `{code, path, message, example?}`.
 *
 * @module
 */

import type { z } from "zod";
import { AppError } from "./errors.ts";

/** The first zod issue as an `invalid_argument` AppError with a JSON path and an example. */
export function zodToInvalidArgument(error: z.ZodError, example?: unknown): AppError {
  const issue = error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? "$" : "$." + issue.path.map(String).join(".");
  const message = issue === undefined ? "invalid input" : `${path}: ${issue.message}`;
  return new AppError("invalid_argument", `Cannot accept arguments: ${message}`, {
    data: { path, ...(example === undefined ? {} : { example }) },
  });
}

/**
 * Compile-time check that an output schema declares every field of a result type: `true` when it
 * does, else the names of the missing fields (so `const ok: Covers<S, T> = true` fails to compile
 * and says which fields a closed schema would reject at run time).
 */
export type Covers<Schema, T> = [Exclude<keyof T, keyof Schema>] extends [never] ? true
  : Exclude<keyof T, keyof Schema>;
