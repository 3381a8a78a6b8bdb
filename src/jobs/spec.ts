/**
 * A job kind's spec: what a caller may ask for and what it gets back, with no dependency (no
 * store, no client). `mcp/` turns a spec into a tool (src/mcp/tools.ts `jobTool`), a CLI command
 * maps its flags onto the spec's input; both validate and normalize with {@linkcode parseJobInput}
 * once, at the boundary, and `JobControl.submit` admits the normalized request. The runner (what
 * `run`s the job) lives apart, where jobs execute (e.g. src/github/watch_runner.ts).
 *
 * Only types come from zod here: this module and the kinds' policies load without it.
 *
 * @module
 */

import type { z } from "zod";
import { zodToInvalidArgument } from "../base/validation.ts";

/** How a tool that submits the job behaves, as MCP annotations spell it (all four hints). */
export interface JobAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A job kind's spec. `Req` is the normalized request the input schema produces. */
export interface JobSpec<Req = unknown> {
  /** The tool's name (the product's job tools are named after their kind). */
  readonly name: string;
  /** The job kind it submits. */
  readonly kind: string;
  readonly description: string;
  /** Validates and normalizes (defaults filled in) the caller's arguments into the request. */
  readonly inputSchema: z.ZodType<Req>;
  /**
   * The stored result's schema, as a completed task carries it (default: any JSON value); a function,
   * so the schema is built only when it is first read (advertising or a test), not at module load.
   */
  readonly resultSchema?: () => z.ZodType;
  readonly annotations: JobAnnotations;
  /** Valid arguments; the first is shown with an invalid_argument error. */
  readonly examples?: readonly Record<string, unknown>[];
}

/** Hints of a job that reads the outside world (GitHub) and writes only local observations. */
export const OPEN_WORLD_READ = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/**
 * Validates and normalizes `input` with the spec's schema.
 *
 * @throws {AppError} `invalid_argument` with the first issue's path and the spec's first example.
 */
export function parseJobInput<Req>(spec: JobSpec<Req>, input: unknown): Req {
  const parsed = spec.inputSchema.safeParse(input ?? {});
  if (!parsed.success) throw zodToInvalidArgument(parsed.error, spec.examples?.[0]);
  return parsed.data;
}
