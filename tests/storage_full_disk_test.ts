/**
 * Storage faults on a real, small filesystem (issue 12, finding 1): the database lives on a
 * tmpfs of a few MiB that the test fills to the last byte while a real server process (the
 * shipped tools and job kinds, GitHub faked on loopback) writes a watch's verdict, then frees
 * within the owner's lease. The verdict must land, and submissions meanwhile get a typed,
 * retryable `storage_unavailable` while reads keep answering.
 *
 * Mounting needs root (or CAP_SYS_ADMIN) on Linux; where it is not possible the test is
 * skipped and says why on stdout. The unit-level promises (with an injected fault) are in
 * tests/storage_faults_test.ts and always run.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/storage_full_disk_test.ts
 */

import assert from "node:assert/strict";
import { AppError } from "../src/base/errors.ts";
import { WATCH_KIND } from "../src/github/watch_kind.ts";
import { openStore } from "../src/store/store.ts";
import { STORE_FAULT_RETRY_AFTER_MS } from "../src/base/limits.ts";
import { type FakeCheck, SCENARIO_PULL, startFakeGitHub } from "../testing/fake_github.ts";
import { REPO_ROOT, TEST_SERVER } from "./helpers/longcall_procs.ts";
import { connectLegacyV1, denoExecPath } from "../testing/mcp_clients.ts";
import { waitFor } from "../testing/temp.ts";

const TMPFS_BYTES = 8 * 1024 * 1024;

/** Mounts a tmpfs of `bytes` on a fresh directory, or says why it cannot. */
function tryMountTmpfs(bytes: number): { dir: string } | { reason: string } {
  if (Deno.build.os !== "linux") return { reason: `tmpfs mounts are Linux-only (this is ${Deno.build.os})` };
  let dir: string;
  try {
    dir = Deno.makeTempDirSync({ prefix: "longcall-fulldisk-" });
  } catch (err) {
    return { reason: `cannot create a mount point: ${err}` };
  }
  try {
    const out = new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", `size=${bytes},mode=0700`, "tmpfs", dir],
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
    if (out.success) return { dir };
    Deno.removeSync(dir);
    return { reason: `mount -t tmpfs failed: ${new TextDecoder().decode(out.stderr).trim() || `exit ${out.code}`}` };
  } catch (err) {
    Deno.removeSync(dir);
    return { reason: `cannot run mount: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function unmount(dir: string): void {
  new Deno.Command("umount", { args: [dir] }).outputSync();
  Deno.removeSync(dir, { recursive: true });
}

/** Fills the filesystem holding `path` until ENOSPC; returns the bytes written. */
async function fill(path: string): Promise<number> {
  const file = await Deno.open(path, { create: true, write: true });
  const chunk = new Uint8Array(64 * 1024).fill(0x5a);
  let written = 0;
  try {
    let size = chunk.length;
    while (size >= 1) {
      try {
        written += await file.write(chunk.subarray(0, size));
      } catch {
        size = Math.floor(size / 2); // the last partial blocks
      }
    }
  } finally {
    file.close();
  }
  return written;
}

const mounted = tryMountTmpfs(TMPFS_BYTES);
if ("reason" in mounted) {
  console.log(`storage_full_disk_test: skipped, a small filesystem could not be mounted: ${mounted.reason}`);
} else {
  // Mounted only to learn whether mounting works; the test mounts its own.
  unmount(mounted.dir);
}

const done = (name: string): FakeCheck => ({ name, status: "completed", conclusion: "success" });
const running = (name: string): FakeCheck => ({ name, status: "in_progress" });

type ToolAnswer = { isError?: boolean; structuredContent?: Record<string, unknown> };

Deno.test({
  name: "A full disk while a watch writes its verdict: the verdict lands once space returns within the lease",
  ignore: "reason" in mounted,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const m = tryMountTmpfs(TMPFS_BYTES);
  if ("reason" in m) throw new Error(`mount worked a moment ago, now: ${m.reason}`);
  const dir = m.dir;
  // 40 checks with long names: the verdict is a result of several pages, not a one-page update.
  const names = Array.from({ length: 40 }, (_, i) => `integration / linux-x64 / shard ${i} ${"x".repeat(120)}`);
  const fake = await startFakeGitHub({
    scenario: [{ atMs: 0, checks: names.map(running) }, { atMs: 600_000, checks: names.map(done) }],
    // The server runs anonymous: at GitHub's 60/h the watch would pace its polls minutes apart.
    rateLimit: { anonymousLimit: 5_000 },
  });
  const client = await connectLegacyV1({
    command: denoExecPath(),
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      "--allow-env",
      "--allow-net=127.0.0.1",
      TEST_SERVER,
      "serve",
      "--product",
      "--db",
      `${dir}/longcall.db`,
      "--heartbeat-ms",
      "2000",
      "--lease-ms",
      "60000",
      // The watch's 5 s polls and 30 s settle wait pass 10 times faster: its verdict comes well within the lease.
      "--time-rate",
      "10",
    ],
    cwd: REPO_ROOT,
    env: { LONGCALL_LOG: "error", LONGCALL_HTTP_TOKEN: "", LONGCALL_GITHUB_API_URL: fake.url },
    stderr: "inherit",
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    await client.callTool({ name, arguments: args }) as ToolAnswer;
  const job = async (id: string) => {
    const r = await call("jobs.get", { ids: [id] });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    const items = r.structuredContent?.items as { value?: Record<string, unknown> }[];
    return items[0]?.value ?? {};
  };
  try {
    const submitted = await call(WATCH_KIND, { ...SCENARIO_PULL, poll_interval_ms: 5_000 });
    assert.notEqual(submitted.isError, true, JSON.stringify(submitted));
    const id = String(submitted.structuredContent?.id);
    await waitFor("the watch to poll GitHub", async () => (await job(id)).phase === "waiting_for_checks", {
      timeoutMs: 30_000,
    });
    const checkReads = () => fake.requests.filter((r) => r.kind === "check_runs").length;
    await waitFor("a first poll", () => checkReads() > 0, { timeoutMs: 30_000 });

    // The disk fills; then CI turns green, so the watch's next polls reach a verdict while it is full.
    const filled = await fill(`${dir}/filler`);
    assert.ok(filled > 0);
    const readsBefore = checkReads();
    fake.advance(600_000);
    await waitFor("the verdict polls", () => checkReads() >= readsBefore + 2, { timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    // Submissions are refused, typed and retryable; reads keep answering.
    const refused = await call(WATCH_KIND, { ...SCENARIO_PULL, number: 43 });
    assert.equal(refused.isError, true, JSON.stringify(refused));
    const error = refused.structuredContent?.error as Record<string, unknown>;
    assert.equal(error.code, "storage_unavailable", JSON.stringify(error));
    assert.equal(error.retryable, true);
    assert.equal(error.retry_after_ms, STORE_FAULT_RETRY_AFTER_MS);
    const during = await job(id);
    assert.equal(during.execution_state, "running", "nothing could be written: still running");

    // Space returns within the lease: the kept verdict is written.
    await Deno.remove(`${dir}/filler`);
    await waitFor("the verdict to land", async () => (await job(id)).execution_state === "terminal", {
      timeoutMs: 30_000,
    });
    const after = await job(id);
    assert.equal(after.outcome, "succeeded", JSON.stringify(after));
    const again = await call(WATCH_KIND, { ...SCENARIO_PULL, number: 43 });
    assert.notEqual(again.isError, true, "admitted again once space returned");
  } finally {
    await client.close();
    await fake.close();
    unmount(dir);
  }
});

Deno.test({
  name: "Start-up on a full disk names the database and the fault, never 'internal error'",
  ignore: "reason" in mounted,
}, async () => {
  const m = tryMountTmpfs(1024 * 1024);
  if ("reason" in m) throw new Error(`mount worked a moment ago, now: ${m.reason}`);
  try {
    await fill(`${m.dir}/filler`);
    const db = `${m.dir}/fresh.db`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        `--allow-read=${m.dir}`,
        `--allow-write=${m.dir}`,
        "--allow-env",
        "--deny-net",
        `${REPO_ROOT}src/main.ts`,
        // The command that creates a database (the read commands never do).
        "serve",
        "--db",
        db,
      ],
      env: { LONGCALL_LOG: "warn", LONGCALL_DB: "", LONGCALL_LINGER_MS: "0" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.ok(stderr.includes(db), stderr);
    assert.match(stderr, /database or disk is full|disk I\/O error/);
    assert.doesNotMatch(stderr, /internal error/i);
  } finally {
    unmount(m.dir);
  }
});

Deno.test({
  name:
    "Creating a database with only part of it fitting: storage_unavailable with SQLite's reason at every amount of free space",
  ignore: "reason" in mounted,
}, async () => {
  const m = tryMountTmpfs(1024 * 1024);
  if ("reason" in m) throw new Error(`mount worked a moment ago, now: ${m.reason}`);
  try {
    const filler = `${m.dir}/filler`;
    const filled = await fill(filler);
    // From a full disk to room for part of the schema: SQLite rolls a failed transaction back itself at some
    // of these, and the ROLLBACK or COMMIT that followed used to replace its error with "no transaction is active".
    const refused: number[] = [];
    for (let free = 0; free <= 96 * 1024; free += 8 * 1024) {
      await Deno.truncate(filler, filled - free);
      const db = `${m.dir}/fresh-${free}.db`;
      try {
        openStore(db).close();
      } catch (err) {
        assert.ok(err instanceof AppError, `${free} bytes free: ${err}`);
        assert.equal(err.code, "storage_unavailable", `${free} bytes free: ${err.message}`);
        assert.match(err.message, /database or disk is full|disk I\/O error/, `${free} bytes free`);
        refused.push(free);
      }
      for (const suffix of ["", "-wal", "-shm", "-journal"]) await Deno.remove(`${db}${suffix}`).catch(() => {});
    }
    assert.ok(refused.includes(0) && refused.length >= 4, `refused at ${refused.join(", ")} bytes free`);
  } finally {
    unmount(m.dir);
  }
});
