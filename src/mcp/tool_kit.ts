/**
 * What every longcall tool shares: schemas advertised to clients but validated by us (so
 * a bad argument becomes a typed `invalid_argument` tool result rather than the SDK's
 * free-text error), bounded results, and the projection of AppErrors onto tool results.
 *
 * @module
 */

import { z } from "zod";
import { AppError, type JobError } from "../base/errors.ts";
import { MCP_RESULT_BYTES_MAX } from "../base/limits.ts";
import { zodToInvalidArgument } from "../base/validation.ts";
import { isStorageFault, storageUnavailable } from "../store/tx.ts";
import { recordAnswerText } from "./answer_text.ts";
import { fitItems, surelyFitsJson, toolResultBytesOfText } from "./fit_answer.ts";

/** A tool result as the SDK's callback type wants it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A successful tool result carrying `structured` as structuredContent and, for clients
 * that read only text, the same JSON as text (no second copy in prose: model-visible
 * bytes matter). The whole result (both copies) stays within {@linkcode MCP_RESULT_BYTES_MAX}:
 * an answer with an `items` list is fitted by shortening its largest items, each flagged
 * `truncated: true` with `omitted_bytes` (see src/mcp/fit_answer.ts), never failed whole.
 *
 * The result is single-use: hand it to the SDK once and keep no reference. Over stdio a large
 * answer's result is emptied once its line is written (src/mcp/answer_text.ts `releaseAnswer`), so a
 * tool that cached and returned it again would return an empty result.
 */
export function okResult(structured: Record<string, unknown>): ToolResult {
  let answer = structured;
  // Serialized once: the text content is this JSON, and the size check reads it instead of
  // serializing the answer again (and counts bytes only when a cheap bound cannot tell).
  let text = JSON.stringify(answer);
  const bytes = surelyFitsJson(text) ? 0 : toolResultBytesOfText(text);
  if (bytes > MCP_RESULT_BYTES_MAX) {
    const fitted = fitItems(structured);
    if (fitted === undefined) {
      // Never exceed the result bound: callers bound their own payloads, so this is a last line.
      return errorResult(
        new AppError("internal", `Cannot return result: ${bytes} bytes is over the ${MCP_RESULT_BYTES_MAX}-byte limit`),
      );
    }
    answer = fitted;
    text = JSON.stringify(answer);
  }
  // The stdio transport writes this text for the structuredContent too (src/mcp/answer_text.ts).
  const result: ToolResult = { content: [{ type: "text", text }], structuredContent: answer };
  recordAnswerText(answer, text, { result });
  return result;
}

/**
 * Any JSON value. `z.unknown()` would advertise `{}`, a schema without a single validation keyword,
 * which strict clients (MCP Inspector `--strict`) flag as constraining nothing.
 */
export const JsonValueOutput = z.unknown().meta({
  // One type per branch (a value has exactly one JSON type): Ajv's strict mode rejects a `type` array,
  // and zod would collapse an `anyOf` of bare types into one.
  oneOf: ["object", "array", "string", "number", "boolean", "null"].map((type) => ({ type })),
});

/** A JSON object with any members (advertised `additionalProperties: true`, not `{}`). */
export const JsonObjectOutput = z.record(z.string(), z.unknown()).meta({ additionalProperties: true });

/** The typed error clients see inside `structuredContent.error`. */
export interface ToolError extends JobError {
  path?: string;
  example?: unknown;
}

/**
 * The `structuredContent` of an `isError` result, as {@linkcode errorResult} builds it.
 * Advertised next to each tool's own output (see {@linkcode withErrorOutput}): clients that
 * validate structuredContent against the declared schema even on `isError` results (the v1
 * `@modelcontextprotocol/sdk` Client does) would otherwise reject every typed error.
 */
export const ToolErrorOutput = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    retryable: z.boolean(),
    retry_after_ms: z.number().int().optional(),
    path: z.string().optional(),
    example: JsonValueOutput.optional(),
    data: JsonObjectOutput.optional(),
  }),
});

/** A tool's declared output, or the typed error every tool may return instead. */
export function withErrorOutput(output: z.ZodType): z.ZodType {
  return z.union([output, ToolErrorOutput]);
}

/** Projects an AppError (or anything thrown) onto an `isError` tool result; internal details stay local. */
export function errorResult(thrown: unknown): ToolResult {
  // A storage fault that reached a tool unwrapped (a read on a failing disk) is still typed and retryable.
  const err = isStorageFault(thrown) ? storageUnavailable(thrown, "use") : thrown;
  const error: ToolError = err instanceof AppError
    ? { ...err.toJobError() }
    : { code: "internal", message: "Internal error; see the server log", retryable: false };
  if (err instanceof AppError && error.data !== undefined) {
    const { path, example, ...rest } = error.data as { path?: unknown; example?: unknown };
    // Only a string is a path (ToolErrorOutput's shape); anything else stays in data, never dropped.
    if (typeof path === "string") error.path = path;
    else if (path !== undefined) (rest as Record<string, unknown>).path = path;
    if (example !== undefined) error.example = example;
    if (Object.keys(rest).length === 0) delete error.data;
    else error.data = rest;
  }
  return {
    content: [{ type: "text", text: `Error (${error.code}): ${error.message}` }],
    structuredContent: { error },
    isError: true,
  };
}

/**
 * Validates `input` with `schema`, throwing the typed `invalid_argument` AppError (with `options.example`, a
 * valid input, in its data).
 */
export function parseArgs<S extends z.ZodType>(
  schema: S,
  input: unknown,
  options: { example?: unknown } = {},
): z.output<S> {
  const { example } = options;
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) throw zodToInvalidArgument(parsed.error, example);
  return parsed.data;
}
