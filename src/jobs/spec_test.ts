/**
 * src/jobs/spec.ts: parseJobInput validates and normalizes once, at the boundary, and refuses with
 * the typed `invalid_argument` AppError naming the first issue's path and the spec's first example.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { AppError } from "../base/errors.ts";
import { type JobSpec, OPEN_WORLD_READ, parseJobInput } from "./spec.ts";

const spec: JobSpec<{ repo: string; limit: number; nested: { on: boolean } }> = {
  name: "test.spec",
  kind: "test.spec",
  description: "a spec for tests",
  inputSchema: z.object({
    repo: z.string().min(1),
    limit: z.number().int().min(1).max(10).default(5),
    nested: z.object({ on: z.boolean().default(false) }).default({ on: false }),
  }),
  annotations: { title: "Test", ...OPEN_WORLD_READ },
  examples: [{ repo: "o/r" }, { repo: "o/r", limit: 2 }],
};

/** The AppError `fn` throws (fails the test if it throws anything else or nothing). */
function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err;
  }
  assert.fail("expected an AppError");
}

Deno.test("parseJobInput: a valid input is normalized (defaults filled in) and unknown keys are dropped", () => {
  assert.deepEqual(parseJobInput(spec, { repo: "o/r" }), { repo: "o/r", limit: 5, nested: { on: false } });
  assert.deepEqual(parseJobInput(spec, { repo: "o/r", limit: 10, extra: 1 }), {
    repo: "o/r",
    limit: 10,
    nested: { on: false },
  });
});

Deno.test("parseJobInput: at the schema's bound accepted, past it invalid_argument with the field's path", () => {
  assert.equal(parseJobInput(spec, { repo: "o/r", limit: 10 }).limit, 10);
  const err = thrown(() => parseJobInput(spec, { repo: "o/r", limit: 11 }));
  assert.equal(err.code, "invalid_argument");
  assert.equal(err.retryable, false);
  assert.equal(err.data?.["path"], "$.limit");
  assert.match(err.message, /^Cannot accept arguments: \$\.limit: /);
  assert.deepEqual(err.data?.["example"], { repo: "o/r" }, "the first example only");
});

Deno.test("parseJobInput: a nested issue's path is dotted; a missing field is named", () => {
  assert.equal(thrown(() => parseJobInput(spec, { repo: "o/r", nested: { on: "yes" } })).data?.["path"], "$.nested.on");
  assert.equal(thrown(() => parseJobInput(spec, { limit: 1 })).data?.["path"], "$.repo");
});

Deno.test("parseJobInput: undefined and null inputs are read as {} (so a missing required field is the error)", () => {
  for (const input of [undefined, null]) {
    const err = thrown(() => parseJobInput(spec, input));
    assert.equal(err.code, "invalid_argument");
    assert.equal(err.data?.["path"], "$.repo");
  }
});

Deno.test("parseJobInput: a non-object input is refused at the root path $; a spec without examples has none", () => {
  const bare: JobSpec<{ repo: string }> = { ...spec, inputSchema: z.object({ repo: z.string() }), examples: [] };
  const err = thrown(() => parseJobInput(bare, "o/r"));
  assert.equal(err.data?.["path"], "$");
  assert.equal("example" in (err.data ?? {}), false);
  const { examples: _, ...noExamples } = bare;
  assert.equal("example" in (thrown(() => parseJobInput(noExamples, 42)).data ?? {}), false);
});

Deno.test("OPEN_WORLD_READ: a job that reads the outside world is open-world, neither read-only nor destructive", () => {
  assert.deepEqual(OPEN_WORLD_READ, {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  });
});
