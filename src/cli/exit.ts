/**
 * Process exit codes, shared by every command (the original system's set, plus gh-style
 * codes for `checks watch`).
 *
 * @module
 */

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_NOT_FOUND = 3;
/** `checks watch`: the watch ended while checks were still pending (timed out), like `gh pr checks`. */
export const EXIT_PENDING = 8;
export const EXIT_CANCELLED = 130;

/** A usage error: printed with the command's help hint, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Every exit code a command returns. */
export const EXIT_CODES = [EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_PENDING, EXIT_CANCELLED] as const;
/** One of {@linkcode EXIT_CODES}. */
export type ExitCode = typeof EXIT_CODES[number];
