/**
 * A broken invariant in the executor's background work stops the process (house style, errors rule 1;
 * src/base/errors.ts AssertionError); an operating failure there is logged and retried. Real child processes
 * (tests/helpers/broken_invariant.ts).
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run tests/periodic_loops_process_test.ts
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { tempDir } from "../testing/temp.ts";

const HELPER = fileURLToPath(new URL("./helpers/broken_invariant.ts", import.meta.url));

async function run(mode: "assertion" | "error" | "claim", dir?: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-env",
      ...(dir === undefined ? [] : [`--allow-read=${dir}`, `--allow-write=${dir}`]),
      HELPER,
      mode,
      ...(dir === undefined ? [] : [`${dir}/jobs.db`]),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("PeriodicLoops in a process: an AssertionError stops the process at its first attempt; a plain error is retried", async () => {
  const broken = await run("assertion");
  assert.notEqual(broken.code, 0, broken.stdout);
  assert.equal(broken.stdout, "attempt 1\n", "no second attempt after a broken invariant");
  assert.match(broken.stderr, /AssertionError: the store broke an invariant/);

  const failing = await run("error");
  assert.equal(failing.code, 0, failing.stderr);
  assert.equal(failing.stdout, "attempt 1\nattempt 2\nattempt 3\nattempt 4\nattempt 5\ncleared\n");
  assert.equal((failing.stderr.match(/background attempt failed; retrying/g) ?? []).length, 4);
});

Deno.test("Executor in a process: an AssertionError from a claim stops the process instead of a claim retried every poll", async () => {
  await using dir = await tempDir("longcall-invariant-");
  const broken = await run("claim", dir.path);
  assert.notEqual(broken.code, 0, broken.stdout);
  assert.match(broken.stderr, /AssertionError: a claimed row lost its owner/);
  assert.doesNotMatch(broken.stdout, /survived/);
  assert.doesNotMatch(broken.stderr, /claim failed; retrying/);
});
