/**
 * Job kinds are registered in code: `kind -> run(ctx)`. A kind runs with a
 * {@linkcode JobContext} on an already-normalized request and returns a result or throws (an
 * `AppError` for expected failures); its policy ({@linkcode JobPolicy}) is all the control side needs.
 *
 * @module
 */

import type { Clock } from "../base/clock.ts";
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

/**
 * What the control side knows of a kind: its name and small zod-free policies (no store, no
 * client). `Req` is the normalized request, `Res` the stored result. Requests are validated
 * and normalized at the boundary (the MCP tool or CLI command, with the kind's spec, e.g.
 * src/github/watch_spec.ts) before `JobControl.submit` sees them.
 */
export interface JobPolicy<Req, Res> {
  readonly kind: string;
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
  /** What the job is about, in a few words (a watch: `owner/repo#n`), for lists that show many jobs. */
  subject?(request: Req): string;
}

/** A kind that runs: its policy and its runner. Exists only where jobs execute. */
export interface JobKind<Req, Res> extends JobPolicy<Req, Res> {
  run(ctx: JobContext<Req>): Promise<Res>;
}

/** A policy with its types erased, for the registry. */
export interface AnyJobPolicy {
  readonly kind: string;
  outcome?(result: unknown): string;
  firstPollAfterMs?(request: unknown): number;
  materialProgress?(message: string | null): string | undefined;
  subject?(request: unknown): string;
}

/** A kind with its types erased, for the registry. */
export interface AnyJobKind extends AnyJobPolicy {
  run(ctx: JobContext<unknown>): Promise<unknown>;
}

/** Erases a kind's types for registration. */
export function defineJobKind<Req, Res>(kind: JobKind<Req, Res>): AnyJobKind {
  return kind as unknown as AnyJobKind;
}

/** Erases a policy's types for registration. */
export function defineJobPolicy<Req, Res>(policy: JobPolicy<Req, Res>): AnyJobPolicy {
  return policy as unknown as AnyJobPolicy;
}

/**
 * The kinds a process knows: runnable kinds where jobs execute (an Executor needs `run`), or only
 * their policies where jobs are admitted and read (a JobControl).
 */
export class JobKindRegistry<K extends AnyJobPolicy = AnyJobKind> {
  readonly #kinds = new Map<string, K>();

  constructor(kinds: readonly K[] = []) {
    for (const k of kinds) this.register(k);
  }

  register(kind: K): void {
    if (this.#kinds.has(kind.kind)) {
      throw new TypeError(`Cannot register job kind: "${kind.kind}" is already registered`);
    }
    this.#kinds.set(kind.kind, kind);
  }

  get(kind: string): K | undefined {
    return this.#kinds.get(kind);
  }

  names(): string[] {
    return [...this.#kinds.keys()];
  }
}
