/**
 * Errors callers are expected to catch: one coded family. Never serialized as-is onto
 * the wire; the MCP boundary projects them.
 *
 * @module
 */

import { truncateChars } from "./text.ts";
import { shrinkJson } from "./json_bound.ts";
import { JOB_ERROR_DATA_BYTES_MAX, JOB_ERROR_MESSAGE_CHARS_MAX } from "./limits.ts";

/** Codes of expected operating failures. */
export type AppErrorCode =
  | "invalid_argument"
  | "not_found"
  | "overloaded"
  | "store_busy"
  | "storage_unavailable"
  | "store_incompatible"
  | "process_lost"
  | "interrupted"
  | "internal"
  | "access_denied"
  | "rate_limited"
  | "transient"
  | "request_failed"
  | "budget_exhausted"
  | "github_invalid"
  /** A watch of the required checks only, on a repository whose branch rules (rulesets or classic protection) cannot be read. */
  | "required_checks_unavailable";

/** The typed error stored with a failed job and shown to clients. */
export interface JobError {
  code: AppErrorCode | string;
  message: string;
  retryable: boolean;
  retry_after_ms?: number;
  data?: Record<string, unknown>;
}

/** An expected failure with a stable code. */
export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly data: Record<string, unknown> | undefined;

  constructor(
    code: AppErrorCode,
    message: string,
    options: {
      retryable?: boolean;
      retryAfterMs?: number;
      data?: Record<string, unknown>;
      cause?: unknown;
    } = {},
  ) {
    super(
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "AppError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.data = options.data;
  }

  /** The stored/wire form, within {@linkcode JOB_ERROR_MESSAGE_CHARS_MAX} and {@linkcode JOB_ERROR_DATA_BYTES_MAX}. */
  toJobError(): JobError {
    const out: JobError = {
      code: this.code,
      message: boundedMessage(this.message),
      retryable: this.retryable,
    };
    if (this.retryAfterMs !== undefined) out.retry_after_ms = this.retryAfterMs;
    if (this.data !== undefined) out.data = boundedData(this.data);
    return out;
  }
}

/** Converts anything thrown by a handler into a stored error without leaking stacks, within the error bounds. */
export function toJobError(err: unknown): JobError {
  if (err instanceof AppError) return err.toJobError();
  return {
    code: "internal",
    message: boundedMessage(err instanceof Error ? `${err.name}: ${err.message}` : String(err)),
    retryable: false,
  };
}

/** A message of at most {@linkcode JOB_ERROR_MESSAGE_CHARS_MAX} characters: its start, and how much was left out. */
export function boundedMessage(message: string): string {
  if (message.length <= JOB_ERROR_MESSAGE_CHARS_MAX) return message;
  const note = ` [${message.length} characters; shortened]`;
  return truncateChars(message, JOB_ERROR_MESSAGE_CHARS_MAX - note.length).text + note;
}

/** Typed error data within {@linkcode JOB_ERROR_DATA_BYTES_MAX} JSON bytes, shortened into the same shape past it. */
function boundedData(data: Record<string, unknown>): Record<string, unknown> {
  return shrinkJson(data, JOB_ERROR_DATA_BYTES_MAX).value as Record<string, unknown>;
}

/** Thrown when an invariant is broken. In store/ and jobs/ this ends the process
 * rather than writing corrupt state; a restart is safe by design. */
export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

/** Asserts an invariant. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

/** Marks code that must never run. */
export function unreachable(value: never): never {
  throw new AssertionError(`unreachable: ${JSON.stringify(value)}`);
}
