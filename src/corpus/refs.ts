/**
 * Validation of what the corpus input schemas (src/corpus/inputs.ts) keep as strings: `owner/repo`
 * names and `owner/repo#n` thread references. Bad input throws `invalid_argument` naming the
 * offending entry's JSON path (`$.threads.1`, as src/base/validation.ts names zod's issues) and an
 * example of a valid value.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { isFullRepositoryName, parseThreadRefText } from "../base/names.ts";
import type { ThreadKey } from "../store/corpus_types.ts";

/** Example values used in error data. */
export const EXAMPLE_REPOSITORY = "denoland/deno";
/** Example thread reference used in error data. */
export const EXAMPLE_THREAD_REF = "denoland/deno#123";

/** Throws `invalid_argument` for `path` with `refusal.message` and an example of a valid value (`refusal.example`). */
export function invalidArgument(path: string, refusal: { message: string; example: unknown }): never {
  const { message, example } = refusal;
  throw new AppError("invalid_argument", message, { data: { path, example } });
}

/** A parsed thread reference: `key` is the input as given, the rest is canonical. */
export interface ThreadRef extends ThreadKey {
  key: string;
}

/**
 * Parses `owner/repo`.
 *
 * @throws {AppError} `invalid_argument` unless `value` is a GitHub repository name.
 */
export function parseRepositoryName(value: unknown, path: string): string {
  if (typeof value !== "string" || !isFullRepositoryName(value)) {
    invalidArgument(path, {
      message: `Cannot read ${path}: expected a repository as owner/repo; current value is ${JSON.stringify(value)}`,
      example: EXAMPLE_REPOSITORY,
    });
  }
  return value;
}

/**
 * Parses `owner/repo#n` (GitHub's naming rules; n a positive 32-bit integer without leading zeros).
 *
 * @throws {AppError} `invalid_argument` on any other shape.
 */
export function parseThreadRef(value: unknown, path: string): ThreadRef {
  const fail = (): never =>
    invalidArgument(path, {
      message: `Cannot read ${path}: expected a thread reference as owner/repo#number; current value is ${
        JSON.stringify(value)
      }`,
      example: EXAMPLE_THREAD_REF,
    });
  if (typeof value !== "string") return fail();
  const parts = parseThreadRefText(value);
  if (parts === undefined) return fail();
  return { key: value, repository: `${parts.owner}/${parts.repo}`, number: parts.number };
}
