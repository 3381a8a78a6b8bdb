import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import { GITHUB_NUMBER_MAX } from "../base/limits.ts";
import {
  EXAMPLE_REPOSITORY,
  EXAMPLE_THREAD_REF,
  invalidArgument,
  parseRepositoryName,
  parseThreadRef,
} from "./refs.ts";

/** The invalid_argument `fn` throws, checked for its data: the path and the example. */
function refused(fn: () => unknown, data: { path: string; example: unknown }): AppError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, "invalid_argument");
    assert.deepEqual(err.data, data);
    return err;
  }
  assert.fail(`expected invalid_argument at ${data.path}`);
}

Deno.test("invalidArgument: throws invalid_argument with the path and an example in data", () => {
  const err = refused(() => invalidArgument("a.b", { message: "Cannot read a.b: nope", example: 7 }), {
    path: "a.b",
    example: 7,
  });
  assert.equal(err.message, "Cannot read a.b: nope");
  assert.equal(err.retryable, false);
});

Deno.test("parseRepositoryName: returns owner/repo as given", () => {
  assert.equal(parseRepositoryName("denoland/deno", "r"), "denoland/deno");
  assert.equal(parseRepositoryName("Deno-Land/deno_std.x", "r"), "Deno-Land/deno_std.x", "case is kept");
  assert.equal(
    parseRepositoryName(`${"a".repeat(39)}/${"b".repeat(100)}`, "r"),
    `${"a".repeat(39)}/${"b".repeat(100)}`,
  );
});

Deno.test("parseRepositoryName: every other shape is invalid_argument naming the path and value", () => {
  const bad: unknown[] = [
    "denoland",
    "a/b/c",
    "a/.",
    "a/..",
    "/b",
    "a/",
    "-a/b",
    "a-/b",
    "a--b/c",
    "a/-b",
    "a b/c",
    "a/b#1",
    `${"a".repeat(40)}/b`,
    `a/${"b".repeat(101)}`,
    "",
    42,
    null,
    undefined,
    ["a/b"],
  ];
  for (const value of bad) {
    const err = refused(() => parseRepositoryName(value, "repositories[3]"), {
      path: "repositories[3]",
      example: EXAMPLE_REPOSITORY,
    });
    assert.equal(
      err.message,
      `Cannot read repositories[3]: expected a repository as owner/repo; current value is ${JSON.stringify(value)}`,
    );
  }
});

Deno.test("parseThreadRef: owner/repo#n keeps the input as key and splits repository and number", () => {
  assert.deepEqual(parseThreadRef("denoland/deno#123", "t"), {
    key: "denoland/deno#123",
    repository: "denoland/deno",
    number: 123,
  });
  assert.deepEqual(parseThreadRef(`o/r#${GITHUB_NUMBER_MAX}`, "t"), {
    key: `o/r#${GITHUB_NUMBER_MAX}`,
    repository: "o/r",
    number: GITHUB_NUMBER_MAX,
  }, "the largest GitHub number is accepted");
});

Deno.test("parseThreadRef: every rejection is invalid_argument with the thread example", () => {
  const bad: unknown[] = [
    "denoland/deno",
    "denoland/deno#",
    "denoland/deno#0",
    "denoland/deno#012",
    "denoland/deno#-1",
    "denoland/deno#1.5",
    "denoland/deno#1e3",
    "denoland/deno# 1",
    "denoland/deno#1 ",
    " denoland/deno#1",
    `denoland/deno#${GITHUB_NUMBER_MAX + 1}`,
    "denoland/deno#12345678901",
    "denoland/deno#1#2",
    "denoland#1",
    "a/b/c#1",
    "a/..#1",
    "a/.#1",
    "-a/b#1",
    "https://github.com/denoland/deno/pull/1",
    "",
    1,
    null,
    { repository: "a/b", number: 1 },
  ];
  for (const value of bad) {
    const err = refused(() => parseThreadRef(value, "threads[0]"), { path: "threads[0]", example: EXAMPLE_THREAD_REF });
    assert.equal(
      err.message,
      `Cannot read threads[0]: expected a thread reference as owner/repo#number; current value is ${
        JSON.stringify(value)
      }`,
    );
  }
});
