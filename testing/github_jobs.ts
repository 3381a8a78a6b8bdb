/**
 * The GitHub job kinds in one process for tests and benchmarks: a fake GitHub on loopback and
 * the shipped runtime (src/cli/runtime.ts) over a temp SQLite store: the product's kinds (or
 * custom ones), an Executor on real time whose handlers run on a ManualClock shared with the
 * fake, and a JobControl wired to it.
 *
 * ```ts
 * await using h = await openGitHubHarness({ scenario: "checks_pass" });
 * const job = { kind: WATCH_KIND, input: { owner: "octo", repo: "widgets", number: 42 } };
 * const { result } = await runJob<WatchResult>(h, job);
 * ```
 *
 * @module
 */

import { productRegistry } from "../src/cli/product_runners.ts";
import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import { silentLogger } from "../src/base/log.ts";
import { SYNC_KIND } from "../src/github/sync_kind.ts";
import { syncSpec } from "../src/github/sync_spec.ts";
import { WATCH_KIND } from "../src/github/watch_kind.ts";
import { watchSpec } from "../src/github/watch_spec.ts";
import { type JobSpec, parseJobInput } from "../src/jobs/spec.ts";
import { openRuntime } from "../src/cli/runtime.ts";
import type { JobControl } from "../src/jobs/control.ts";
import type { Executor } from "../src/jobs/executor.ts";
import { type AnyJobKind, JobKindRegistry } from "../src/jobs/kinds.ts";
import type { JobRow } from "../src/store/job_rows.ts";
import { type FakeGitHub, type FakeGitHubOptions, startFakeGitHub } from "./fake_github.ts";
import { type TempDir, tempDir, type TempStore, tempStoreOf, waitForStatus } from "./temp.ts";

/** Job states that end a job. */
export const TERMINAL: JobRow["status"][] = ["succeeded", "failed", "cancelled"];

export interface GitHubHarness extends AsyncDisposable {
  readonly clock: ManualClock;
  readonly fake: FakeGitHub;
  readonly store: TempStore;
  readonly control: JobControl;
  readonly executor: Executor;
  readonly dir: TempDir;
}

export interface GitHubHarnessOptions extends Omit<FakeGitHubOptions, "now"> {
  /** Default: a ManualClock with autoAdvance (sleeps jump time). */
  clock?: ManualClock;
  /** Token the product's kinds send (default none: anonymous, so 304s are charged as GitHub does). */
  token?: string;
  /** The product's GitHub client fetches through this (a fault between the real client and the fake). */
  fetch?: typeof fetch;
  /**
   * Kinds over the store, the fake's URL and the harness's clock (default: the product's kinds, so the corpus
   * wiring is the shipped one).
   */
  kinds?: (store: TempStore, around: { baseUrl: string; clock: ManualClock }) => AnyJobKind[];
}

/** Opens a fake GitHub and the runtime (src/cli/runtime.ts) over a temp store, executing in this process. */
export async function openGitHubHarness(options: GitHubHarnessOptions = {}): Promise<GitHubHarness> {
  const { clock: given, kinds: makeKinds, token, fetch, ...fakeOptions } = options;
  const clock = given ?? new ManualClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  const dir = await tempDir("longcall-gh-");
  const fake = await startFakeGitHub({
    rateLimit: { anonymousLimit: 5_000 },
    // Every answer is checked against GitHub's REST description; dispose fails on a violation.
    validateOpenApi: true,
    ...fakeOptions,
    now: () => clock.now(),
  });
  const github = { baseUrl: fake.url, ...(token === undefined ? {} : { token }) };
  const runtime = openRuntime({
    db: dir.file("gh.db"),
    kinds: makeKinds === undefined
      ? { product: { github, runners: productRegistry, ...(fetch === undefined ? {} : { fetch }) } }
      : { registry: ({ store }) => new JobKindRegistry(makeKinds(tempStoreOf(store), { baseUrl: fake.url, clock })) },
    log: silentLogger,
    handlerClock: clock,
    execution: "in_process",
  });
  await runtime.execution.start();
  return {
    clock,
    fake,
    store: tempStoreOf(runtime.store),
    control: runtime.control,
    executor: runtime.execution.executor as Executor,
    dir,
    [Symbol.asyncDispose]: async () => {
      await runtime.close();
      await fake.close();
      await dir[Symbol.asyncDispose]();
      assert.deepEqual(fake.openApiViolations, [], "the fake GitHub answered something GitHub does not document");
    },
  };
}

/** The product's specs by kind: what the MCP tools and CLI commands validate with. */
const PRODUCT_SPECS: Readonly<Record<string, JobSpec<unknown>>> = {
  [WATCH_KIND]: watchSpec as JobSpec<unknown>,
  [SYNC_KIND]: syncSpec as JobSpec<unknown>,
};

/**
 * A product kind's request as the boundary makes it: `input` validated and normalized with the
 * kind's spec (throws its invalid_argument). Other kinds' inputs are returned unchanged.
 */
export function productRequest(kind: string, input: unknown): unknown {
  const spec = PRODUCT_SPECS[kind];
  return spec === undefined ? input : parseJobInput(spec, input);
}

/**
 * Submits a job of `job.kind` (a product kind's `job.input` normalized by its spec) and waits until it ends (at
 * most `options.timeoutMs`, 30 s by default); asserts it succeeded.
 */
export async function runJob<R>(
  h: GitHubHarness,
  job: { kind: string; input: unknown },
  options: { timeoutMs?: number } = {},
): Promise<{ row: JobRow; result: R }> {
  const { kind, input } = job;
  const { timeoutMs = 30_000 } = options;
  const submitted = await h.control.submit(kind, productRequest(kind, input));
  const row = await waitForStatus(h.store, submitted.id, { status: TERMINAL, timeoutMs });
  assert.equal(row.status, "succeeded", `job ended ${row.status}: ${JSON.stringify(row.error)}`);
  return { row, result: row.result as R };
}
