/**
 * Test-only job kinds. Registered by in-process tests and by executor children
 * (tests/helpers/executor_child.ts), so both sides of a multi-process test agree on them.
 *
 * - `echo`: returns its input.
 * - `sleep {ms, steps?}`: sleeps in steps on the injected clock with the job's signal,
 *   reporting progress after each step.
 * - `fail {code, message, retryable?}`: throws an AppError.
 * - `partial`: returns a result whose outcome is "partial".
 * - `side_effect {path, token, ms?}`: appends `token\n` to a file, then sleeps `ms` (default 20)
 *   with the signal; proves a handler's side effect never runs twice.
 * - `hang`: ignores its signal and never settles (shutdown grace tests).
 * - `stubborn {ms}`: ignores its signal, sleeps `ms` on the real timer, then succeeds.
 *
 * @module
 */

import { AppError, type AppErrorCode } from "../src/base/errors.ts";
import { type AnyJobKind, defineJobKind, JobKindRegistry } from "../src/jobs/kinds.ts";

function record(input: unknown, kind: string): Record<string, unknown> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new AppError("invalid_argument", `Cannot submit ${kind}: the input must be an object`);
  }
  return input as Record<string, unknown>;
}

function int(value: unknown, name: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new AppError("invalid_argument", `Cannot submit: ${name} must be a non-negative integer`);
  }
  return value;
}

function str(value: unknown, name: string): string {
  if (typeof value !== "string") throw new AppError("invalid_argument", `Cannot submit: ${name} must be a string`);
  return value;
}

export const echoKind: AnyJobKind = defineJobKind<unknown, unknown>({
  kind: "echo",
  parse: (input) => input ?? null,
  run: (ctx) => Promise.resolve(ctx.request),
});

export interface SleepRequest {
  ms: number;
  steps: number;
}

export const sleepKind: AnyJobKind = defineJobKind<SleepRequest, { slept_ms: number }>({
  kind: "sleep",
  parse(input) {
    const r = record(input, "sleep");
    const steps = int(r.steps, "steps", 1);
    return { ms: int(r.ms, "ms"), steps: Math.max(1, steps) };
  },
  async run(ctx) {
    const { ms, steps } = ctx.request;
    for (let i = 0; i < steps; i++) {
      await ctx.clock.sleep(ms / steps, ctx.signal);
      ctx.report({ phase: "sleeping", completedItems: i + 1, totalItems: steps });
    }
    return { slept_ms: ms };
  },
});

export interface FailRequest {
  code: AppErrorCode;
  message: string;
  retryable: boolean;
}

export const failKind: AnyJobKind = defineJobKind<FailRequest, never>({
  kind: "fail",
  parse(input) {
    const r = record(input, "fail");
    return {
      code: str(r.code, "code") as AppErrorCode,
      message: str(r.message, "message"),
      retryable: r.retryable === true,
    };
  },
  run(ctx) {
    return Promise.reject(
      new AppError(ctx.request.code, ctx.request.message, { retryable: ctx.request.retryable }),
    );
  },
});

export const partialKind: AnyJobKind = defineJobKind<null, { items: number[]; complete: boolean }>({
  kind: "partial",
  parse: () => null,
  run: () => Promise.resolve({ items: [1, 2], complete: false }),
  outcome: (result) => result.complete ? "succeeded" : "partial",
});

export interface SideEffectRequest {
  path: string;
  token: string;
  ms: number;
}

export const sideEffectKind: AnyJobKind = defineJobKind<SideEffectRequest, { token: string }>({
  kind: "side_effect",
  parse(input) {
    const r = record(input, "side_effect");
    return { path: str(r.path, "path"), token: str(r.token, "token"), ms: int(r.ms, "ms", 20) };
  },
  async run(ctx) {
    await Deno.writeTextFile(ctx.request.path, `${ctx.request.token}\n`, { append: true });
    if (ctx.request.ms > 0) await ctx.clock.sleep(ctx.request.ms, ctx.signal);
    return { token: ctx.request.token };
  },
});

export const hangKind: AnyJobKind = defineJobKind<null, never>({
  kind: "hang",
  parse: () => null,
  run: () => new Promise<never>(() => {}),
});

export const stubbornKind: AnyJobKind = defineJobKind<{ ms: number }, { stubborn: true }>({
  kind: "stubborn",
  parse: (input) => ({ ms: int(record(input, "stubborn").ms, "ms") }),
  run: (ctx) => new Promise((resolve) => setTimeout(() => resolve({ stubborn: true }), ctx.request.ms)),
});

/** Every test kind. */
export const TEST_KINDS: readonly AnyJobKind[] = [
  echoKind,
  sleepKind,
  failKind,
  partialKind,
  sideEffectKind,
  hangKind,
  stubbornKind,
];

/** A fresh registry with every test kind plus `extra`. */
export function testRegistry(extra: readonly AnyJobKind[] = []): JobKindRegistry {
  return new JobKindRegistry([...TEST_KINDS, ...extra]);
}
