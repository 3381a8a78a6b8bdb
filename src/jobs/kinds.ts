/**
 * Job kinds are registered in code: `kind -> run(ctx)`. A kind validates and normalizes
 * its request (`parse`), runs with an {@linkcode JobContext}, and returns a result or
 * throws (an `AppError` for expected failures).
 *
 * @module
 */

import type { Clock } from "../base/clock.ts";
import { AppError } from "../base/errors.ts";
import type { Logger } from "../base/log.ts";

/** Progress a handler reports; writes are throttled by the executor. */
export interface Progress {
  phase?: string;
  message?: string;
  completedItems?: number;
  totalItems?: number;
  /** When the handler will next observe the outside world (ms since epoch): poll guidance. */
  nextPollAt?: number;
}

/** What a running handler gets. */
export interface JobContext<Req> {
  readonly id: string;
  readonly kind: string;
  readonly request: Req;
  /** Aborted on cancellation, shutdown or loss of ownership. */
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly log: Logger;
  /** Records progress (throttled; phase changes are written at once). */
  report(progress: Progress): void;
  /** Appends a bounded job event. */
  event(level: "info" | "warn" | "error", message: string): void;
}

/** A job kind. `Req` is the normalized request, `Res` the stored result. */
export interface JobKind<Req, Res> {
  readonly kind: string;
  /** Validates and normalizes raw input; throws `AppError("invalid_argument")`. */
  parse(input: unknown): Req;
  run(ctx: JobContext<Req>): Promise<Res>;
  /** The job's outcome word for a successful result (default `succeeded`). */
  outcome?(result: Res): string;
  /**
   * Milliseconds (on the handler's clock) from the job's start until its first observation that
   * can show something new: the first poll guidance of a queued job (default: about a second).
   */
  firstPollAfterMs?(request: Req): number;
  /**
   * The material part of a running job's progress message (a watch: its CI signature), so a
   * waiting reader wakes when it changes and not when a poll counter moves (src/jobs/wait.ts).
   */
  materialProgress?(message: string | null): string | undefined;
}

/** A kind with its types erased, for the registry. */
export interface AnyJobKind {
  readonly kind: string;
  parse(input: unknown): unknown;
  run(ctx: JobContext<unknown>): Promise<unknown>;
  outcome?(result: unknown): string;
  firstPollAfterMs?(request: unknown): number;
  materialProgress?(message: string | null): string | undefined;
}

/**
 * The `parse` of a kind in a registry that only runs jobs (the network worker): requests were
 * validated and normalized when admitted, so this one refuses to admit anything.
 */
export function runOnlyParse(kind: string): (input: unknown) => never {
  return () => {
    throw new AppError(
      "internal",
      `Cannot admit a ${kind} job here: this registry only runs jobs; requests are validated when admitted`,
    );
  };
}

/** Erases a kind's types for registration. */
export function defineJobKind<Req, Res>(kind: JobKind<Req, Res>): AnyJobKind {
  return kind as unknown as AnyJobKind;
}

/** The kinds an executor can run and a control side can admit. */
export class JobKindRegistry {
  readonly #kinds = new Map<string, AnyJobKind>();

  constructor(kinds: readonly AnyJobKind[] = []) {
    for (const k of kinds) this.register(k);
  }

  register(kind: AnyJobKind): void {
    if (this.#kinds.has(kind.kind)) {
      throw new TypeError(`Cannot register job kind: "${kind.kind}" is already registered`);
    }
    this.#kinds.set(kind.kind, kind);
  }

  get(kind: string): AnyJobKind | undefined {
    return this.#kinds.get(kind);
  }

  names(): string[] {
    return [...this.#kinds.keys()];
  }
}
