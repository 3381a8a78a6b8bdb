/**
 * The composition root (src/cli/runtime.ts): one `openRuntime` for every process, and one
 * permission set for the network worker, which `longcall permissions` audits as a server grants it.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/runtime_test.ts
 */

import assert from "node:assert/strict";
import { ManualClock } from "../src/base/clock.ts";
import { AppError } from "../src/base/errors.ts";
import { STORE_WAL_AUTOCHECKPOINT_PAGES, STORE_WAL_AUTOCHECKPOINT_PAGES_SERVING } from "../src/base/limits.ts";
import { silentLogger } from "../src/base/log.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { networkWorkerPermissions, openRuntime } from "../src/cli/runtime.ts";
import { productPolicies } from "../src/cli/product_kinds.ts";
import { productRegistry } from "../src/cli/product_runners.ts";
import { SYNC_KIND } from "../src/github/sync_kind.ts";
import { WATCH_KIND } from "../src/github/watch_kind.ts";
import { type Store, storeConnection } from "../src/store/store.ts";
import { networkWorkerScript } from "../src/cli/worker_script.ts";
import { REPO_ROOT } from "./helpers/longcall_procs.ts";
import { denoExecPath } from "../testing/mcp_clients.ts";
import { testRegistry } from "../testing/test_kinds.ts";
import { logLine } from "../testing/log_lines.ts";
import { tempDir, waitForStatus } from "../testing/temp.ts";

const MAIN = `${REPO_ROOT}src/main.ts`;
const CLEAN_ENV = { GITHUB_TOKEN: "", GH_TOKEN: "", LONGCALL_GITHUB_TOKEN_FILE: "", LONGCALL_HTTP_TOKEN: "" };

Deno.test("openRuntime: close() ends a waiting bounded read at once, with shutdown", async () => {
  await using dir = await tempDir("longcall-runtime-");
  const clock = new ManualClock(); // never advanced: only close() can end the wait
  const runtime = openRuntime({
    db: dir.file("a.db"),
    kinds: { registry: () => testRegistry() },
    log: silentLogger,
    execution: "none",
    clock,
  });
  const job = await runtime.control.submit("echo", { hello: 1 });
  const waiting = runtime.control.wait([job.id], null, { ms: 60_000, until: "terminal" });
  await runtime.close();
  assert.equal((await waiting).ended, "shutdown");
});

Deno.test("openRuntime: in_process runs admitted jobs; close() stops the executor and closes the store once", async () => {
  await using dir = await tempDir("longcall-runtime-");
  const runtime = openRuntime({
    db: dir.file("a.db"),
    kinds: { registry: () => testRegistry() },
    log: silentLogger,
    execution: "in_process",
  });
  assert.equal(runtime.execution.where, "in_process");
  await runtime.execution.start();
  const job = await runtime.control.submit("echo", { hello: 1 });
  const row = await waitForStatus(runtime.store, job.id, { status: "succeeded" });
  assert.deepEqual(row.result, { hello: 1 });
  await runtime.close();
  await runtime.close();
  assert.throws(() => runtime.store.rows.jobGet(job.id), "the store is closed");
});

Deno.test("openRuntime: execution none admits and reads jobs but runs none", async () => {
  await using dir = await tempDir("longcall-runtime-");
  const runtime = openRuntime({
    db: dir.file("a.db"),
    kinds: { registry: () => testRegistry() },
    log: silentLogger,
    execution: "none",
    admittedMax: 1,
  });
  try {
    assert.equal(runtime.execution.where, "none");
    assert.equal(runtime.execution.executor, undefined);
    await runtime.execution.start();
    const job = await runtime.control.submit("echo", null);
    assert.equal(runtime.control.get(job.id)?.status, "queued");
    await assert.rejects(
      runtime.control.submit("echo", null),
      (err) => err instanceof AppError && err.code === "overloaded",
      "admittedMax applies",
    );
    assert.deepEqual(await runtime.execution.linger().then((l) => l.running), 0);
  } finally {
    await runtime.close();
  }
});

Deno.test("openRuntime: a network worker needs the product's kinds and no injected fetch or clock (TypeError)", async () => {
  await using dir = await tempDir("longcall-runtime-");
  const worker = {
    networkWorker: { moduleUrl: new URL("../src/main.ts", import.meta.url), logLevel: "error" as const },
  };
  const github = { baseUrl: "http://127.0.0.1:1" };
  assert.throws(
    () =>
      openRuntime({
        db: dir.file("a.db"),
        kinds: { registry: () => testRegistry() },
        log: silentLogger,
        execution: worker,
      }),
    (err) => err instanceof TypeError && /only the product's kinds/.test(err.message),
  );
  assert.throws(
    () =>
      openRuntime({
        db: dir.file("b.db"),
        kinds: { product: { github, fetch } },
        log: silentLogger,
        execution: worker,
      }),
    (err) => err instanceof TypeError && /injected fetch or handler clock/.test(err.message),
  );
  assert.throws(
    () =>
      openRuntime({
        db: dir.file("c.db"),
        kinds: { registry: () => testRegistry() },
        log: silentLogger,
        handlerClock: new ManualClock(0),
        timeRate: 10,
        execution: "in_process",
      }),
    (err) => err instanceof TypeError && /handlerClock or timeRate/.test(err.message),
  );
  for (const name of ["a.db", "b.db", "c.db"]) {
    await assert.rejects(Deno.stat(dir.file(name)), Deno.errors.NotFound, `${name}: refused before opening`);
  }
});

Deno.test("openRuntime: with a network worker the serving connection leaves checkpoints to the worker's (backstop only)", async () => {
  await using dir = await tempDir("longcall-runtime-checkpoints-");
  const autocheckpoint = (store: Store) =>
    (storeConnection(store).db.prepare("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number })
      .wal_autocheckpoint;
  const served = openRuntime({
    db: dir.file("a.db"),
    kinds: { product: { github: { baseUrl: "http://127.0.0.1:9" } } },
    log: silentLogger,
    execution: { networkWorker: { moduleUrl: new URL("../src/main.ts", import.meta.url).href, logLevel: "silent" } },
  });
  try {
    assert.equal(autocheckpoint(served.store), STORE_WAL_AUTOCHECKPOINT_PAGES_SERVING);
  } finally {
    await served.close();
  }
  // Without a network worker (jobs in this thread, as in the worker itself through this same openRuntime, or none
  // at all) the connection keeps the default threshold.
  for (const execution of ["in_process", "none"] as const) {
    const runtime = openRuntime({
      db: dir.file("b.db"),
      kinds: { registry: () => testRegistry() },
      log: silentLogger,
      execution,
    });
    try {
      assert.equal(autocheckpoint(runtime.store), STORE_WAL_AUTOCHECKPOINT_PAGES, execution);
    } finally {
      await runtime.close();
    }
  }
});

/** Runs a longcall command to its end, `options.stdin` (default none) on its stdin; returns its exit code, stdout and stderr. */
async function longcall(args: string[], env: Record<string, string>, options: { stdin?: string } = {}) {
  const { stdin = "" } = options;
  const child = new Deno.Command(denoExecPath(), {
    args,
    cwd: REPO_ROOT,
    env: { ...CLEAN_ENV, ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const out = await child.output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout), stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("networkWorkerPermissions: what a real serve grants its worker is what `longcall permissions --json` audits", async () => {
  await using dir = await tempDir("longcall-runtime-grants-");
  const github = "127.0.0.1:45679";
  const db = dir.file("x.db");
  const env = { LONGCALL_GITHUB_API_URL: `http://${github}`, LONGCALL_LOG: "debug" };
  const flags = permissionFlags({ githubHosts: [github] });

  // A real server: its worker is started with the grants it logs (then the host goes away at once).
  const served = await longcall(["run", ...flags, MAIN, "serve", "--db", db, "--linger-ms", "0"], env);
  assert.equal(served.code, 0, served.stderr);
  const logged = logLine(served.stderr, "network worker created").fields as {
    net: string[];
    read: string[];
    write: string[];
  };
  const servedGrants = { net: logged.net, read: logged.read, write: logged.write };

  const audited = await longcall(["run", ...flags, MAIN, "permissions", "--json", "--db", db], env);
  assert.equal(audited.code, 0, audited.stderr);
  const report = JSON.parse(audited.stdout) as { network_worker_grants: unknown; problems: string[] };
  assert.deepEqual(report.problems, []);
  assert.deepEqual(report.network_worker_grants, servedGrants, "the audit and the server grant the same set");
  // Both are the one definition, for this database and GitHub host, from source.
  const script = networkWorkerScript(new URL("../src/main.ts", import.meta.url).href);
  assert.deepEqual(servedGrants, networkWorkerPermissions({ db, githubBaseUrl: `http://${github}`, script }));
  assert.deepEqual(servedGrants.net, [github], "net: the GitHub host only");
  assert.ok(servedGrants.write.every((p) => p.startsWith(db)), "write: the database files only");
});

Deno.test("JobControl.find: a visible row, expired once retention ended, not_found for unknown ids and other authorities", async () => {
  await using dir = await tempDir("longcall-runtime-");
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const runtime = openRuntime({
    db: dir.file("a.db"),
    kinds: { registry: () => testRegistry() },
    log: silentLogger,
    clock,
    execution: "none",
    retentionMs: 60_000,
  });
  try {
    const { control } = runtime;
    const job = await control.submit("echo", null, { authority: "token-a" });
    assert.equal((control.find(job.id, "token-a") as { row: { id: string } }).row.id, job.id);
    assert.deepEqual(control.find(job.id, "token-b"), { missing: "not_found" }, "another token's job is not found");
    assert.deepEqual(control.find("no-such-job"), { missing: "not_found" });
    // Cancelling a queued job ends it at once; its retention starts then.
    await control.cancel(job.id, "token-a");
    clock.advance(59_999);
    assert.ok("row" in control.find(job.id, null), "the local authority sees it until retention ends");
    clock.advance(1);
    assert.deepEqual(control.find(job.id, "token-a"), { missing: "expired" });
    assert.deepEqual(control.find(job.id, null), { missing: "expired" });
    assert.deepEqual(control.find(job.id, "token-b"), { missing: "not_found" }, "expiry is not told to others");
    assert.equal(control.get(job.id, "token-a"), undefined);
  } finally {
    await runtime.close();
  }
});

Deno.test("openRuntime: the product's kinds run in this process only with their runners (TypeError before opening)", async () => {
  await using dir = await tempDir("longcall-runtime-");
  const github = { baseUrl: "http://127.0.0.1:1" };
  assert.throws(
    () =>
      openRuntime({ db: dir.file("a.db"), kinds: { product: { github } }, log: silentLogger, execution: "in_process" }),
    (err) => err instanceof TypeError && /kinds\.product\.runners is missing \(pass productRegistry/.test(err.message),
  );
  await assert.rejects(Deno.stat(dir.file("a.db")), Deno.errors.NotFound, "refused before opening");
  // With no execution the policies alone admit: no runner is needed.
  const admitting = openRuntime({
    db: dir.file("b.db"),
    kinds: { product: { github } },
    log: silentLogger,
    execution: "none",
  });
  try {
    assert.deepEqual(admitting.registry.names().sort(), [SYNC_KIND, WATCH_KIND].sort());
    assert.equal(admitting.execution.where, "none");
  } finally {
    await admitting.close();
  }
  const running = openRuntime({
    db: dir.file("c.db"),
    kinds: { product: { github, runners: productRegistry } },
    log: silentLogger,
    execution: "in_process",
  });
  try {
    assert.equal(running.execution.where, "in_process");
    assert.deepEqual(running.registry.names().sort(), [SYNC_KIND, WATCH_KIND].sort());
  } finally {
    await running.close();
  }
});

Deno.test("openRuntime: kinds given as policies alone admit and read with execution none, and refuse any other", async () => {
  await using dir = await tempDir("longcall-runtime-");
  for (
    const execution of ["in_process", { networkWorker: { moduleUrl: "file:///x.ts", logLevel: "error" } }] as const
  ) {
    assert.throws(
      () => openRuntime({ db: dir.file("a.db"), kinds: { policies: productPolicies() }, log: silentLogger, execution }),
      (err) => err instanceof TypeError && /Cannot run jobs from kinds' policies alone/.test(err.message),
    );
  }
  await assert.rejects(Deno.stat(dir.file("a.db")), Deno.errors.NotFound, "refused before opening");
  const reading = openRuntime({
    db: dir.file("b.db"),
    kinds: { policies: productPolicies() },
    log: silentLogger,
    execution: "none",
  });
  try {
    assert.deepEqual(reading.registry.names().sort(), [SYNC_KIND, WATCH_KIND].sort());
    assert.equal(reading.execution.where, "none");
  } finally {
    await reading.close();
  }
});
