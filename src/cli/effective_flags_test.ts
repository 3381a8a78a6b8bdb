/**
 * effectiveFlags() with an injected permission query (the real query in a real child under the
 * shipped flags: tests/permissions_test.ts): what it rebuilds from each grant, and every grant
 * beyond the shipped set reported as a problem.
 */

import assert from "node:assert/strict";
import { ENV_VARS } from "./config.ts";
import { effectiveFlags, ENV_PROBES, NET_PROBES } from "./effective_flags.ts";

/** A query answering "granted" for the descriptors `grants` accepts, "prompt" for the rest. */
function queryOf(grants: (d: Record<string, unknown>) => boolean) {
  const asked: Record<string, unknown>[] = [];
  const query = (d: Deno.PermissionDescriptor): Promise<Deno.PermissionState> => {
    const desc = d as unknown as Record<string, unknown>;
    asked.push(desc);
    return Promise.resolve(grants(desc) ? "granted" : "prompt");
  };
  return { query, asked };
}

const NO_PROMPT = !Deno.stdin.isTerminal() || !Deno.stderr.isTerminal() ? ["--no-prompt"] : [];
const SHIPPED_NET = ["api.github.com", "127.0.0.1", "[::1]"];
const DB = "/data/longcall/longcall.db";

/** The shipped grants: scoped net and env, read and write of the database directory. */
function shipped(d: Record<string, unknown>): boolean {
  if (d.name === "net") return SHIPPED_NET.includes(String(d.host));
  if (d.name === "env") return (ENV_VARS as readonly unknown[]).includes(d.variable);
  if (d.name === "read" || d.name === "write") return d.path === "/data/longcall";
  return false;
}

Deno.test("effectiveFlags() rebuilds the shipped set from scoped grants, with no problem", async () => {
  const { query } = queryOf(shipped);
  const r = await effectiveFlags({ githubHost: "api.github.com", db: DB, workerStarted: true, query });
  assert.deepEqual(r.flags, [
    ...NO_PROMPT,
    "--unstable-worker-options",
    `--allow-net=${SHIPPED_NET.join(",")}`,
    `--allow-env=${ENV_VARS.join(",")}`,
    "--allow-read=/data/longcall",
    "--allow-write=/data/longcall",
  ]);
  assert.deepEqual(r.problems, []);
  assert.ok(r.notes.some((n) => n.includes("scoped --allow-read/--allow-write")));
});

Deno.test("effectiveFlags() reports every probed net host and env variable granted beyond the shipped set", async () => {
  const { query } = queryOf((d) =>
    shipped(d) || (d.name === "net" && NET_PROBES.includes(d.host as typeof NET_PROBES[number])) ||
    (d.name === "env" && d.variable === ENV_PROBES[0])
  );
  const r = await effectiveFlags({ githubHost: "api.github.com", db: DB, workerStarted: false, query });
  for (const host of NET_PROBES) {
    assert.ok(r.problems.includes(`net to ${host} is granted beyond the shipped set`), host);
  }
  assert.ok(r.problems.includes(`env ${ENV_PROBES[0]} is granted beyond the shipped list`));
  assert.ok(!r.flags.includes("--unstable-worker-options"), "no worker started: the flag is not claimed");
  assert.ok(r.flags.some((f) => f.startsWith("--allow-net=") && f.endsWith(NET_PROBES.join(","))));
});

Deno.test("effectiveFlags() with every permission granted broadly is --allow-all and a forbidden flag", async () => {
  const { query } = queryOf((d) => Object.keys(d).length === 1); // only the broad descriptors {name}
  const r = await effectiveFlags({ githubHost: "api.github.com", db: DB, workerStarted: true, query });
  assert.deepEqual(r.flags, ["--allow-all"]);
  assert.deepEqual(r.problems, ["forbidden flag --allow-all"]);
  assert.deepEqual(r.notes, ["every permission is granted without scope (-A)"]);
});

Deno.test("effectiveFlags() names broad and scoped run, ffi, sys and import grants as problems", async () => {
  const { query } = queryOf((d) =>
    shipped(d) || (d.name === "run" && d.command === "git") || (d.name === "sys" && d.kind === "hostname") ||
    (d.name === "ffi" && Object.keys(d).length === 1) || (d.name === "import" && Object.keys(d).length === 1)
  );
  const r = await effectiveFlags({ githubHost: "api.github.com", db: DB, workerStarted: true, query });
  for (const flag of ["--allow-run=git", "--allow-ffi", "--allow-sys=hostname", "--allow-import"]) {
    assert.ok(r.flags.includes(flag), `${flag} in ${r.flags.join(" ")}`);
  }
  assert.deepEqual(r.problems, [
    "forbidden flag --allow-run=git",
    "forbidden flag --allow-ffi",
    "forbidden flag --allow-sys=hostname",
    "unexpected flag --allow-import",
  ]);
});

Deno.test("effectiveFlags() shows a read grant of the database file alone by the file, unscoped net and env as problems", async () => {
  const { query } = queryOf((d) =>
    (d.name === "net" && d.host === undefined) || (d.name === "env" && d.variable === undefined) ||
    ((d.name === "read" || d.name === "write") && d.path === DB)
  );
  const r = await effectiveFlags({ githubHost: "127.0.0.1:8080", db: DB, workerStarted: true, query });
  assert.ok(r.flags.includes(`--allow-read=${DB}`));
  assert.ok(r.flags.includes(`--allow-write=${DB}`));
  assert.ok(r.flags.includes("--allow-net") && r.flags.includes("--allow-env"));
  assert.ok(r.problems.includes("unscoped --allow-net"));
  assert.ok(r.problems.includes("unscoped --allow-env"));
});
