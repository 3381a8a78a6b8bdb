import assert from "node:assert/strict";
import { AppError, assert as invariant, AssertionError, toJobError, unreachable } from "./errors.ts";

Deno.test("AppError.toJobError() carries code, message and retryable; retry_after_ms and data only when set", () => {
  const plain = new AppError("not_found", "Cannot read job: no such id");
  assert.equal(plain.name, "AppError");
  assert.equal(plain.retryable, false, "not retryable unless said");
  assert.deepEqual(plain.toJobError(), { code: "not_found", message: "Cannot read job: no such id", retryable: false });
  const full = new AppError("rate_limited", "slow down", { retryable: true, retryAfterMs: 1_500, data: { a: 1 } });
  assert.deepEqual(full.toJobError(), {
    code: "rate_limited",
    message: "slow down",
    retryable: true,
    retry_after_ms: 1_500,
    data: { a: 1 },
  });
});

Deno.test("AppError keeps its cause only when one is given", () => {
  const cause = new Error("disk");
  assert.equal(new AppError("storage_unavailable", "x", { cause }).cause, cause);
  assert.equal("cause" in new AppError("storage_unavailable", "x"), false);
});

Deno.test("toJobError() projects an AppError as is and anything else as internal, without a stack", () => {
  assert.deepEqual(toJobError(new AppError("overloaded", "full", { retryable: true })), {
    code: "overloaded",
    message: "full",
    retryable: true,
  });
  const fromError = toJobError(new TypeError("bad thing"));
  assert.deepEqual(fromError, { code: "internal", message: "TypeError: bad thing", retryable: false });
  assert.deepEqual(toJobError("a string"), { code: "internal", message: "a string", retryable: false });
  assert.doesNotMatch(JSON.stringify(fromError), /at .*errors_test/, "no stack frames");
});

Deno.test("assert() passes a truthy condition and throws AssertionError with the message otherwise", () => {
  invariant(1, "never thrown");
  assert.throws(() => invariant(0, "rows must be owned"), (err: unknown) => {
    assert.ok(err instanceof AssertionError);
    assert.equal(err.name, "AssertionError");
    assert.equal(err.message, "rows must be owned");
    return true;
  });
});

Deno.test("unreachable() throws an AssertionError naming the value", () => {
  assert.throws(() => unreachable("odd" as never), (err: unknown) => {
    assert.ok(err instanceof AssertionError);
    assert.equal(err.message, 'unreachable: "odd"');
    return true;
  });
});
