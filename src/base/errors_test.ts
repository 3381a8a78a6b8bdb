import assert from "node:assert/strict";
import { AppError, assert as invariant, AssertionError, boundedMessage, toJobError, unreachable } from "./errors.ts";
import { JOB_ERROR_DATA_BYTES_MAX, JOB_ERROR_MESSAGE_CHARS_MAX } from "./limits.ts";

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

Deno.test("toJobError(): a message at JOB_ERROR_MESSAGE_CHARS_MAX is kept; past it, its start is kept and the length said", () => {
  const at = "m".repeat(JOB_ERROR_MESSAGE_CHARS_MAX);
  assert.equal(new AppError("internal", at).toJobError().message, at);
  const past = "m".repeat(JOB_ERROR_MESSAGE_CHARS_MAX + 1);
  const stored = new AppError("internal", past).toJobError().message;
  assert.equal(stored.length <= JOB_ERROR_MESSAGE_CHARS_MAX, true, `${stored.length} characters`);
  assert.ok(stored.startsWith("mmmm"));
  assert.match(stored, new RegExp(`\\[${JOB_ERROR_MESSAGE_CHARS_MAX + 1} characters; shortened\\]$`));
  // A thrown non-AppError is bounded too.
  const internal = toJobError(new Error("x".repeat(100_000)));
  assert.ok(internal.message.length <= JOB_ERROR_MESSAGE_CHARS_MAX);
  assert.ok(internal.message.startsWith("Error: xxx"));
});

Deno.test("boundedMessage(): never splits a surrogate pair at the cut", () => {
  for (let shift = 0; shift < 3; shift++) {
    const text = "a".repeat(shift) + "😀".repeat(JOB_ERROR_MESSAGE_CHARS_MAX);
    const out = boundedMessage(text);
    assert.ok(out.length <= JOB_ERROR_MESSAGE_CHARS_MAX);
    // Re-encoding a lone surrogate would yield U+FFFD.
    assert.equal(new TextDecoder().decode(new TextEncoder().encode(out)), out);
  }
});

Deno.test("toJobError(): data within JOB_ERROR_DATA_BYTES_MAX is kept; past it, shortened into the same shape", () => {
  const small = { path: "$.owner", known: ["a", "b"] };
  assert.deepEqual(new AppError("invalid_argument", "bad", { data: small }).toJobError().data, small);
  const big = { path: "$.x", items: Array.from({ length: 5_000 }, (_, i) => `item-${i}`) };
  const data = new AppError("invalid_argument", "bad", { data: big }).toJobError().data as typeof big;
  assert.ok(new TextEncoder().encode(JSON.stringify(data)).length <= JOB_ERROR_DATA_BYTES_MAX);
  assert.equal(data.path, "$.x");
  assert.ok(Array.isArray(data.items) && data.items.length > 0 && data.items.length < big.items.length);
  assert.equal(data.items[0], "item-0");
});
