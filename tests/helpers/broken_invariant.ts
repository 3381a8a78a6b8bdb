/**
 * A process whose background work meets a broken invariant: spawned by tests/periodic_loops_process_test.ts.
 *
 * - `assertion` / `error`: a PeriodicLoops attempt (src/jobs/periodic_loops.ts) throws an AssertionError / a
 *   plain Error. Prints `attempt N` per attempt; after 5 attempts it clears the loop and exits 0 on its own.
 * - `claim DB`: an Executor on a real store at DB whose claim statement breaks an invariant (the store method
 *   throws an AssertionError, as its own asserts do); a job is submitted so that a claim runs. Prints
 *   `submitted`, then `survived` and exits 0 if the process outlives the claim by 2 s.
 *
 *   deno run --allow-read --allow-write --allow-env tests/helpers/broken_invariant.ts assertion|error|claim [DB]
 *
 * @module
 */

import { systemClock } from "../../src/base/clock.ts";
import { AssertionError } from "../../src/base/errors.ts";
import { createLogger } from "../../src/base/log.ts";
import { JobControl } from "../../src/jobs/control.ts";
import { Executor } from "../../src/jobs/executor.ts";
import { PeriodicLoops } from "../../src/jobs/periodic_loops.ts";
import { openStore } from "../../src/store/store.ts";
import { testRegistry } from "../../testing/test_kinds.ts";

const [mode, db] = Deno.args;
const log = createLogger("warn");

if (mode === "claim") {
  const store = openStore(db ?? ":memory:");
  // The real statement never runs: the store answers the claim with a broken invariant.
  store.rows.jobClaimBatchIfOwnerLive = () => Promise.reject(new AssertionError("a claimed row lost its owner"));
  const registry = testRegistry();
  const executor = new Executor(store.rows, registry, { clock: systemClock, log });
  const control = new JobControl(store.rows, registry, { clock: systemClock, onSubmitted: () => executor.wake() });
  await executor.start();
  await control.submit("echo", { i: 1 });
  console.log("submitted");
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  console.log("survived");
  await executor.stop();
  store.close();
} else {
  const loops = new PeriodicLoops(log, () => true);
  let attempts = 0;
  const done = Promise.withResolvers<void>();
  loops.every(1, () => {
    attempts++;
    console.log(`attempt ${attempts}`);
    if (attempts === 5) {
      loops.clear();
      done.resolve();
      return Promise.resolve();
    }
    return Promise.reject(
      mode === "assertion" ? new AssertionError("the store broke an invariant") : new Error("busy"),
    );
  });
  await done.promise;
  console.log("cleared");
}
