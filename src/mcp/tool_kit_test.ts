/**
 * src/mcp/tool_kit.ts: okResult (text content is the structuredContent's JSON; within
 * MCP_RESULT_BYTES_MAX at and past the bound, an `items` answer fitted item by item), errorResult
 * (the typed error shape, path and example lifted out of data, internal details kept local, an
 * unwrapped storage fault typed), parseArgs (typed invalid_argument) and withErrorOutput.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { AppError } from "../base/errors.ts";
import { MCP_RESULT_BYTES_MAX } from "../base/limits.ts";
import { SQLITE_FULL } from "../store/sqlite_codes.ts";
import { toolResultBytes } from "./fit_answer.ts";
import {
  errorResult,
  JsonObjectOutput,
  JsonValueOutput,
  okResult,
  parseArgs,
  type ToolError,
  ToolErrorOutput,
  withErrorOutput,
} from "./tool_kit.ts";

const wireBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

/**
 * An answer whose whole tool result is exactly `bytes` bytes. Each "x" counts twice (both copies);
 * one control character (6 + 7 bytes escaped) fixes the parity.
 */
function answerOfWireBytes(bytes: number): Record<string, unknown> {
  for (const lead of ["", "\u0001"]) {
    const base = toolResultBytes({ s: lead });
    if ((bytes - base) % 2 === 0) return { s: lead + "x".repeat((bytes - base) / 2) };
  }
  throw new Error("unreachable: the two leads differ in parity");
}

const errorOf = (r: { structuredContent?: Record<string, unknown> }) => r.structuredContent?.["error"] as ToolError;

// ---------------------------------------------------------------- okResult

Deno.test("okResult: the text content is exactly the structuredContent's JSON, and nothing else is added", () => {
  const answer = { id: "x", nested: { list: [1, "two", null] }, quote: 'say "hi"\n' };
  const r = okResult(answer);
  assert.deepEqual(Object.keys(r).sort(), ["content", "structuredContent"]);
  assert.equal(r.structuredContent, answer);
  assert.equal(r.content.length, 1);
  assert.equal(r.content[0]?.type, "text");
  assert.equal(r.content[0]?.text, JSON.stringify(answer));
  assert.deepEqual(JSON.parse(r.content[0]?.text ?? ""), r.structuredContent);
});

Deno.test("okResult: a result of exactly MCP_RESULT_BYTES_MAX is sent; one byte more without items is an internal error", () => {
  const at = okResult(answerOfWireBytes(MCP_RESULT_BYTES_MAX));
  assert.equal(at.isError, undefined);
  assert.equal(wireBytes(at), MCP_RESULT_BYTES_MAX);
  const past = okResult(answerOfWireBytes(MCP_RESULT_BYTES_MAX + 1));
  assert.equal(past.isError, true);
  const error = errorOf(past);
  assert.equal(error.code, "internal");
  assert.equal(
    error.message,
    `Cannot return result: ${MCP_RESULT_BYTES_MAX + 1} bytes is over the ${MCP_RESULT_BYTES_MAX}-byte limit`,
  );
});

Deno.test("okResult: non-ASCII answers are counted in UTF-8 bytes, not characters", () => {
  // 3 UTF-8 bytes per "€" in each copy: under the bound in characters, over it in bytes.
  const answer = { s: "€".repeat(Math.ceil(MCP_RESULT_BYTES_MAX / 4)) };
  assert.ok(JSON.stringify(answer).length * 2 < MCP_RESULT_BYTES_MAX);
  assert.equal(okResult(answer).isError, true);
});

Deno.test("okResult: an answer with items past the bound is fitted (items flagged truncated), never failed whole", () => {
  const items = Array.from({ length: 4 }, (_, i) => ({ i, text: "z".repeat(MCP_RESULT_BYTES_MAX / 4) }));
  const answer = { items, total: 4 };
  const r = okResult(answer);
  assert.equal(r.isError, undefined);
  assert.ok(wireBytes(r) <= MCP_RESULT_BYTES_MAX, `${wireBytes(r)} bytes`);
  assert.equal(r.content[0]?.text, JSON.stringify(r.structuredContent), "the text is the fitted answer's JSON");
  const fitted = r.structuredContent?.["items"] as { i: number; truncated?: boolean; omitted_bytes?: number }[];
  assert.equal(fitted.length, 4, "every item is kept");
  assert.ok(fitted.every((e, i) => e.i === i && e.truncated === true && (e.omitted_bytes ?? 0) > 0));
  assert.equal(r.structuredContent?.["total"], 4, "the answer's own fields stay whole");
  assert.equal(answer.items[0]?.text.length, MCP_RESULT_BYTES_MAX / 4, "the caller's answer is not mutated");
});

// ---------------------------------------------------------------- errorResult

Deno.test("errorResult: an AppError becomes {error: {code, message, retryable, retry_after_ms}} with a short text", () => {
  const r = errorResult(
    new AppError("overloaded", "Cannot submit job: too many", { retryable: true, retryAfterMs: 5 }),
  );
  assert.equal(r.isError, true);
  assert.deepEqual(r.structuredContent, {
    error: { code: "overloaded", message: "Cannot submit job: too many", retryable: true, retry_after_ms: 5 },
  });
  assert.deepEqual(r.content, [{ type: "text", text: "Error (overloaded): Cannot submit job: too many" }]);
  ToolErrorOutput.parse(r.structuredContent);
});

Deno.test("errorResult: path and example are lifted out of data; data is dropped when nothing else is left; a non-string path stays in data", () => {
  const lifted = errorOf(errorResult(
    new AppError("invalid_argument", "bad", { data: { path: "$.ids", example: { ids: ["a"] } } }),
  ));
  assert.deepEqual(lifted, {
    code: "invalid_argument",
    message: "bad",
    retryable: false,
    path: "$.ids",
    example: { ids: ["a"] },
  });
  const kept = errorOf(errorResult(new AppError("invalid_argument", "bad", { data: { path: "$", known: [1] } })));
  assert.equal(kept.path, "$");
  assert.deepEqual(kept.data, { known: [1] }, "the rest of data stays");
  const notAString = errorOf(errorResult(new AppError("invalid_argument", "bad", { data: { path: 3, known: 1 } })));
  assert.equal("path" in notAString, false, "a non-string path is not a path");
  // It is not dropped either: it stays in data with the rest, as the AppError carried it.
  assert.deepEqual(notAString.data, { path: 3, known: 1 });
  const onlyPath = errorOf(errorResult(new AppError("invalid_argument", "bad", { data: { path: ["$", 0] } })));
  assert.equal("path" in onlyPath, false);
  assert.deepEqual(onlyPath.data, { path: ["$", 0] }, "data that holds only a non-string path is kept");
  for (const e of [lifted, kept, notAString, onlyPath]) ToolErrorOutput.parse({ error: e });
});

Deno.test("errorResult: anything else thrown is internal, and its message and stack stay local", () => {
  for (const thrown of [new Error("secret /home/me/x.db"), "a string", undefined, { code: "EPERM" }]) {
    const r = errorResult(thrown);
    assert.deepEqual(r.structuredContent, {
      error: { code: "internal", message: "Internal error; see the server log", retryable: false },
    });
    assert.doesNotMatch(r.content[0]?.text ?? "", /secret/);
  }
});

Deno.test("errorResult: an unwrapped SQLite storage fault is retryable storage_unavailable", () => {
  const fault = Object.assign(new Error("database or disk is full"), {
    code: "ERR_SQLITE_ERROR",
    errcode: SQLITE_FULL,
    errstr: "database or disk is full",
  });
  const error = errorOf(errorResult(fault));
  assert.equal(error.code, "storage_unavailable");
  assert.equal(error.retryable, true);
  assert.ok(typeof error.retry_after_ms === "number");
  assert.match(error.message, /^Cannot use the database: database or disk is full/);
});

// ---------------------------------------------------------------- parseArgs

const schema = z.object({ ids: z.array(z.string()).min(1).max(2), wait_ms: z.number().int().default(0) });

Deno.test("parseArgs: valid input is parsed with defaults; undefined and null are read as {}", () => {
  assert.deepEqual(parseArgs(schema, { ids: ["a"] }), { ids: ["a"], wait_ms: 0 });
  const optional = z.object({ n: z.number().default(3) });
  assert.deepEqual(parseArgs(optional, undefined), { n: 3 });
  assert.deepEqual(parseArgs(optional, null), { n: 3 });
});

Deno.test("parseArgs: at the array bound accepted, past it the typed invalid_argument with path and example", () => {
  assert.deepEqual(parseArgs(schema, { ids: ["a", "b"] }).ids, ["a", "b"]);
  const example = { ids: ["a"] };
  assert.throws(
    () => parseArgs(schema, { ids: ["a", "b", "c"] }, { example: example }),
    (err: unknown) =>
      err instanceof AppError && err.code === "invalid_argument" && err.data?.["path"] === "$.ids" &&
      err.data?.["example"] === example,
  );
  const r = errorResult((() => {
    try {
      parseArgs(schema, { ids: ["a"], wait_ms: 1.5 });
    } catch (err) {
      return err;
    }
  })());
  assert.equal(errorOf(r).code, "invalid_argument");
  assert.equal(errorOf(r).path, "$.wait_ms");
  assert.equal("example" in errorOf(r), false, "no example when none is given");
});

// ---------------------------------------------------------------- schemas

Deno.test("withErrorOutput: accepts the tool's own output or the typed error, nothing else", () => {
  const output = withErrorOutput(z.object({ id: z.string() }));
  assert.equal(output.safeParse({ id: "x" }).success, true);
  assert.equal(output.safeParse({ error: { code: "c", message: "m", retryable: false } }).success, true);
  assert.equal(output.safeParse({ error: { code: "c" } }).success, false);
  assert.equal(output.safeParse({ other: 1 }).success, false);
});

Deno.test("JsonValueOutput / JsonObjectOutput: advertise a constraining schema, not {}", () => {
  const value = z.toJSONSchema(JsonValueOutput) as { oneOf?: { type: string }[] };
  assert.deepEqual(value.oneOf?.map((b) => b.type), ["object", "array", "string", "number", "boolean", "null"]);
  const object = z.toJSONSchema(JsonObjectOutput) as { type?: string; additionalProperties?: unknown };
  assert.equal(object.type, "object");
  assert.equal(object.additionalProperties, true);
});
