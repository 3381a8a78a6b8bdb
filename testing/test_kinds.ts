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

/**
 * Requests arrive as the test tools' schemas (testing/test_server.ts) or the test itself left
 * them (no kind parses): each run reads its fields defensively and fills the defaults.
 */
function field(request: unknown, name: string): unknown {
  return typeof request === "object" && request !== null ? (request as Record<string, unknown>)[name] : undefined;
}

function int(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : fallback;
}

export const echoKind: AnyJobKind = defineJobKind<unknown, unknown>({
  kind: "echo",
  run: (ctx) => Promise.resolve(ctx.request ?? null),
});

export interface SleepRequest {
  ms: number;
  steps?: number;
}

export const sleepKind: AnyJobKind = defineJobKind<SleepRequest, { slept_ms: number }>({
  kind: "sleep",
  async run(ctx) {
    const ms = int(field(ctx.request, "ms"), 0);
    const steps = Math.max(1, int(field(ctx.request, "steps"), 1));
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
  retryable?: boolean;
}

export const failKind: AnyJobKind = defineJobKind<FailRequest, never>({
  kind: "fail",
  run(ctx) {
    return Promise.reject(
      new AppError(ctx.request.code, ctx.request.message, { retryable: ctx.request.retryable === true }),
    );
  },
});

export const partialKind: AnyJobKind = defineJobKind<null, { items: number[]; complete: boolean }>({
  kind: "partial",
  run: () => Promise.resolve({ items: [1, 2], complete: false }),
  outcome: (result) => result.complete ? "succeeded" : "partial",
});

export interface SideEffectRequest {
  path: string;
  token: string;
  ms?: number;
}

export const sideEffectKind: AnyJobKind = defineJobKind<SideEffectRequest, { token: string }>({
  kind: "side_effect",
  async run(ctx) {
    await Deno.writeTextFile(ctx.request.path, `${ctx.request.token}\n`, { append: true });
    const ms = int(ctx.request.ms, 20);
    if (ms > 0) await ctx.clock.sleep(ms, ctx.signal);
    return { token: ctx.request.token };
  },
});

export const hangKind: AnyJobKind = defineJobKind<null, never>({
  kind: "hang",
  run: () => new Promise<never>(() => {}),
});

export const stubbornKind: AnyJobKind = defineJobKind<{ ms: number }, { stubborn: true }>({
  kind: "stubborn",
  run: (ctx) => new Promise((resolve) => setTimeout(() => resolve({ stubborn: true }), int(ctx.request.ms, 0))),
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
