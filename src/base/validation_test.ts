import assert from "node:assert/strict";
import { z } from "zod";
import { AppError } from "./errors.ts";
import { type Covers, zodToInvalidArgument } from "./validation.ts";

const Schema = z.object({ owner: z.string(), pull: z.object({ number: z.number().int() }) });

function issueOf(input: unknown): z.ZodError {
  const parsed = Schema.safeParse(input);
  assert.equal(parsed.success, false);
  return (parsed as { error: z.ZodError }).error;
}

Deno.test("zodToInvalidArgument() names the first issue's JSON path and adds the example when given", () => {
  const err = zodToInvalidArgument(issueOf({ owner: "o", pull: { number: 1.5 } }), { owner: "o", pull: { number: 1 } });
  assert.ok(err instanceof AppError);
  assert.equal(err.code, "invalid_argument");
  assert.equal(err.retryable, false);
  assert.match(err.message, /^Cannot accept arguments: \$\.pull\.number: /);
  assert.deepEqual(err.data, { path: "$.pull.number", example: { owner: "o", pull: { number: 1 } } });
});

Deno.test("zodToInvalidArgument() at the root says $ and leaves example out when none is given", () => {
  const err = zodToInvalidArgument(issueOf("not an object"));
  assert.equal(err.data?.path, "$");
  assert.equal("example" in (err.data ?? {}), false);
  assert.match(err.message, /^Cannot accept arguments: \$: /);
});

Deno.test("zodToInvalidArgument() with no issue at all says invalid input", () => {
  const err = zodToInvalidArgument(new z.ZodError([]));
  assert.equal(err.message, "Cannot accept arguments: invalid input");
  assert.deepEqual(err.data, { path: "$" });
});

Deno.test("Covers<Schema, T> is true when the schema declares every field, else the missing names", () => {
  const covered: Covers<{ a: unknown; b: unknown }, { a: 1; b: 2 }> = true;
  const missing: Covers<{ a: unknown }, { a: 1; b: 2 }> = "b";
  assert.equal(covered, true);
  assert.equal(missing, "b");
});
