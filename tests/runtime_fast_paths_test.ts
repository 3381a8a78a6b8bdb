/**
 * `openRuntime`'s `fastPaths` (src/cli/runtime.ts): by default a submission wakes the in-process
 * executor at once and a persisted cancel aborts its handler at once; with `fastPaths: false`
 * both wait for the executor's own polls, as for a job another process admitted or cancelled
 * (what openHarness's `wire: false` asks for, testing/temp.ts).
 *
 *   deno test --allow-read --allow-write --allow-env tests/runtime_fast_paths_test.ts
 */

import assert from "node:assert/strict";
import { silentLogger } from "../src/base/log.ts";
import { openRuntime, type Runtime } from "../src/cli/runtime.ts";
import { testRegistry } from "../testing/test_kinds.ts";
import { heartbeatsPass, tempDir, waitForStatus } from "../testing/temp.ts";

/** An in-process runtime whose claim and cancel polls never come during a test. */
async function withRuntime(fastPaths: boolean | undefined, fn: (runtime: Runtime) => Promise<void>): Promise<void> {
  await using dir = await tempDir("longcall-fast-paths-");
  const runtime = openRuntime({
    db: dir.file("a.db"),
    kinds: { registry: () => testRegistry() },
    log: silentLogger,
    execution: "in_process",
    executor: { claimPollMs: 60_000, cancelPollMs: 60_000, heartbeatMs: 20, leaseMs: 60_000 },
    ...(fastPaths === undefined ? {} : { fastPaths }),
  });
  try {
    await runtime.execution.start();
    await fn(runtime);
  } finally {
    await runtime.close();
  }
}

const ownerOf = (runtime: Runtime) => runtime.execution.executor?.ownerId ?? "";

Deno.test("openRuntime: by default a submission runs at once and a cancel aborts the running handler at once", async () => {
  await withRuntime(undefined, async (runtime) => {
    const echo = await runtime.control.submit("echo", { a: 1 });
    assert.deepEqual((await waitForStatus(runtime.store, echo.id, { status: "succeeded" })).result, { a: 1 });
    const sleep = await runtime.control.submit("sleep", { ms: 60_000 });
    await waitForStatus(runtime.store, sleep.id, { status: "running" });
    assert.equal((await runtime.control.cancel(sleep.id)).effect, "requested");
    await waitForStatus(runtime.store, sleep.id, { status: "cancelled" });
  });
});

Deno.test("openRuntime: fastPaths false leaves a submission to the claim poll and a cancel to the cancel poll", async () => {
  await withRuntime(false, async (runtime) => {
    const sleep = await runtime.control.submit("sleep", { ms: 60_000 });
    // Three heartbeats: a wake on submit (a microtask away) would have claimed the job by now.
    await heartbeatsPass(runtime.store, ownerOf(runtime), { count: 3 });
    assert.equal(runtime.store.rows.jobGet(sleep.id)?.status, "queued", "nothing woke the executor");
    runtime.execution.wake(); // what the claim poll would do
    await waitForStatus(runtime.store, sleep.id, { status: "running" });

    assert.equal((await runtime.control.cancel(sleep.id)).effect, "requested");
    await heartbeatsPass(runtime.store, ownerOf(runtime), { count: 3 });
    assert.equal(runtime.store.rows.jobGet(sleep.id)?.status, "running", "nothing aborted the handler");
    runtime.execution.abortLocal([sleep.id]); // what the cancel poll would do
    await waitForStatus(runtime.store, sleep.id, { status: "cancelled" });
  });
});
