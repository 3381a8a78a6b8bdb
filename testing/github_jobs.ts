/**
 * The GitHub job kinds in one process for tests and benchmarks: a fake GitHub on loopback,
 * a temp SQLite store, the product's kinds (or custom ones), an Executor on real time whose
 * handlers run on a ManualClock shared with the fake, and a JobControl wired to it.
 *
 * ```ts
 * await using h = await openGitHubHarness({ scenario: "checks_pass" });
 * const { result } = await runJob<WatchResult>(h, WATCH_KIND, { owner: "octo", repo: "widgets", number: 42 });
 * ```
 *
 * @module
 */

import assert from "node:assert/strict";
import { ManualClock, systemClock } from "../src/base/clock.ts";
import { silentLogger } from "../src/base/log.ts";
import { productKinds } from "../src/cli/product.ts";
import { JobControl } from "../src/jobs/control.ts";
import { Executor } from "../src/jobs/executor.ts";
import { type AnyJobKind, JobKindRegistry } from "../src/jobs/kinds.ts";
import type { JobRow } from "../src/store/job_rows.ts";
import type { Store } from "../src/store/store.ts";
import { type FakeGitHub, type FakeGitHubOptions, startFakeGitHub } from "./fake_github.ts";
import { openTempStore, type TempDir, tempDir, type TempStore, waitForStatus } from "./temp.ts";

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
  /** Kinds over the store (default: the product's kinds, so the corpus wiring is the shipped one). */
  kinds?: (store: Store, baseUrl: string, clock: ManualClock) => AnyJobKind[];
}

/** Opens a fake GitHub, a store, the kinds, an Executor and a JobControl. */
export async function openGitHubHarness(options: GitHubHarnessOptions = {}): Promise<GitHubHarness> {
  const { clock: given, kinds: makeKinds, token, ...fakeOptions } = options;
  const clock = given ?? new ManualClock(Date.UTC(2026, 0, 1), { autoAdvance: true });
  const dir = await tempDir("longcall-gh-");
  const fake = await startFakeGitHub({
    rateLimit: { anonymousLimit: 5_000 },
    // Every answer is checked against GitHub's REST description; dispose fails on a violation.
    validateOpenApi: true,
    ...fakeOptions,
    now: () => clock.now(),
  });
  const store = openTempStore(dir.file("gh.db"));
  const kinds = makeKinds?.(store, fake.url, clock) ??
    productKinds(store, { baseUrl: fake.url, ...(token === undefined ? {} : { token }) }, silentLogger, clock);
  const registry = new JobKindRegistry(kinds);
  const executor = new Executor(store.rows, registry, { clock: systemClock, handlerClock: clock, log: silentLogger });
  const control = new JobControl(store.rows, registry, {
    clock: systemClock,
    onSubmitted: () => executor.wake(),
    onCancelRequested: (ids) => executor.abortLocal(ids),
  });
  await executor.start();
  return {
    clock,
    fake,
    store,
    control,
    executor,
    dir,
    [Symbol.asyncDispose]: async () => {
      await executor.stop();
      store.close();
      await fake.close();
      await dir[Symbol.asyncDispose]();
      assert.deepEqual(fake.openApiViolations, [], "the fake GitHub answered something GitHub does not document");
    },
  };
}

/** Submits a job and waits until it ends; asserts it succeeded (a result was stored). */
export async function runJob<R>(
  h: GitHubHarness,
  kind: string,
  input: unknown,
  timeoutMs = 30_000,
): Promise<{ row: JobRow; result: R }> {
  const submitted = await h.control.submit(kind, input);
  const row = await waitForStatus(h.store, submitted.id, TERMINAL, timeoutMs);
  assert.equal(row.status, "succeeded", `job ended ${row.status}: ${JSON.stringify(row.error)}`);
  return { row, result: row.result as R };
}
