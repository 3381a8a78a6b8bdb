/**
 * The benchmark's Node host: scripts/bench/node_host_client.mjs, run by the machine's real `node`, its caller
 * `nodeHost` in scripts/bench/mcp.ts, and the official SDK it reads a third server with (scripts/bench/node_sdk.ts).
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { nodeHost } from "../scripts/bench/mcp.ts";
import { installNodeSdk, lockKeyParts, pinnedSdkVersion, sdkPackages } from "../scripts/bench/node_sdk.ts";
import { tempDir } from "../testing/temp.ts";

const CLIENT = fileURLToPath(new URL("../scripts/bench/node_host_client.mjs", import.meta.url));
const BENCH_SERVER = fileURLToPath(new URL("../scripts/bench/bench_server.ts", import.meta.url));

/** Runs the Node host client on a spec written into `dir`; its exit code, stdout and stderr. */
async function runClient(dir: string, spec: Record<string, unknown>) {
  const path = `${dir}/spec.json`;
  await Deno.writeTextFile(path, JSON.stringify({ dir, rounds: 3, warmup: 1, seed: 7, ...spec }));
  const out = await new Deno.Command("node", {
    args: ["--preserve-symlinks", CLIENT, path],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** Well-formed job ids of no stored job: each is answered as an item, not found. */
const unknownIds = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());

Deno.test("node host client: a Node-spawned server's stdout is a socket, the other a FIFO; every kept call timed", async () => {
  await using temp = await tempDir("longcall-node-host-");
  const dir = temp.path;
  const run = await runClient(dir, benchServerSpec(dir));
  assert.equal(run.code, 0, run.stderr);
  const { servers } = JSON.parse(run.stdout) as {
    servers: { transport: string; stdout: string; one: number[]; hundred: number[] }[];
  };
  assert.deepEqual(servers.map((s) => s.transport), ["socket", "fifo"]);
  assert.match(servers[0]?.stdout ?? "", /^socket:\[\d+\]$/, "libuv gives a spawned child's stdout a socketpair");
  assert.match(servers[1]?.stdout ?? "", /\/node-host-\d+\.fifo$/);
  for (const server of servers) {
    // Three kept rounds after one warm-up round, each timing one call of each size.
    assert.equal(server.one.length, 3);
    assert.equal(server.hundred.length, 3);
    for (const ms of [...server.one, ...server.hundred]) assert.ok(ms > 0 && Number.isFinite(ms), String(ms));
  }
});

Deno.test("node host client: a server that exits before answering fails the run with a message, not a hang", async () => {
  await using temp = await tempDir("longcall-node-host-");
  const dir = temp.path;
  const run = await runClient(dir, {
    command: Deno.execPath(),
    args: ["eval", "Deno.exit(3)"],
    env: {},
    ids: unknownIds(101),
  });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^node_host_client: initialize: .*the server exited \(code 3\)/m);
  assert.equal(run.stdout, "");
});

Deno.test("node host client: a server that cannot be started fails the run with a message", async () => {
  await using temp = await tempDir("longcall-node-host-");
  const dir = temp.path;
  const run = await runClient(dir, { command: `${dir}/no-such-server`, args: [], env: {}, ids: unknownIds(101) });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^node_host_client: initialize: .*ENOENT/m);
});

Deno.test("bench nodeHost: without a node command the Node rows are skipped with the reason; a failing one fails the bench", async () => {
  await using temp = await tempDir("longcall-node-host-");
  const store = { dir: temp.path, db: `${temp.path}/bench.db` };
  const ids = unknownIds(101);
  assert.deepEqual(await nodeHost(store, ids, { node: "longcall-no-such-node" }), {
    skipped: "no longcall-no-such-node on PATH",
  });
  await assert.rejects(
    () => nodeHost(store, ids, { node: "false" }),
    /^Error: bench: false .* failed \(exit code 1\)$/,
  );
});

/** The client spec's server part: the bench server on a database in `dir`, asked for 101 ids it has never seen. */
function benchServerSpec(dir: string) {
  const args = [
    "run",
    "--no-prompt",
    `--allow-read=${dir}`,
    `--allow-write=${dir}`,
    "--allow-env",
    "--deny-net",
    BENCH_SERVER,
    "serve",
    "--db",
    `${dir}/bench.db`,
  ];
  return { command: Deno.execPath(), args, env: { LONGCALL_LOG: "error" }, ids: unknownIds(101) };
}

Deno.test("node host client: with sdkStdio a third server is read by the official SDK's StdioClientTransport", async () => {
  await using temp = await tempDir("longcall-node-host-");
  const dir = temp.path;
  const sdk = await installNodeSdk(`${dir}/node-sdk`);
  assert.ok("stdio" in sdk, JSON.stringify(sdk));
  const run = await runClient(dir, {
    ...benchServerSpec(dir),
    sdkStdio: sdk.stdio,
  });
  assert.equal(run.code, 0, run.stderr);
  const { servers } = JSON.parse(run.stdout) as {
    servers: { transport: string; stdout: string; one: number[]; hundred: number[] }[];
  };
  assert.deepEqual(servers.map((s) => s.transport), ["socket", "fifo", "sdk"]);
  assert.match(servers[2]?.stdout ?? "", /^socket:\[\d+\]$/, "the SDK spawns through child_process too");
  assert.equal(servers[2]?.one.length, 3);
  assert.equal(servers[2]?.hundred.length, 3);
});

Deno.test("node host client: an SDK module that cannot be loaded fails the run with a message", async () => {
  await using temp = await tempDir("longcall-node-host-");
  const dir = temp.path;
  const run = await runClient(dir, {
    ...benchServerSpec(dir),
    sdkStdio: `${dir}/no-such-sdk/stdio.js`,
  });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^node_host_client: .*no-such-sdk/m);
});

Deno.test("installNodeSdk: a package missing from Deno's npm cache is skipped with its name, nothing downloaded", async () => {
  await using temp = await tempDir("longcall-node-sdk-");
  const sdk = await installNodeSdk(`${temp.path}/node-sdk`, { npmCache: `${temp.path}/empty-cache` });
  assert.ok("skipped" in sdk);
  assert.match(
    sdk.skipped,
    /^@modelcontextprotocol\/sdk@[\d.]+ is not in Deno's npm cache \(.*empty-cache\/registry\.npmjs\.org\)$/,
  );
});

Deno.test("lockKeyParts: the name and the version of plain, scoped and peer-qualified lock keys", () => {
  assert.deepEqual(lockKeyParts("zod@4.6.7"), { name: "zod", version: "4.6.7" });
  assert.deepEqual(lockKeyParts("@hono/node-server@2.1.9_hono@4.13.19"), {
    name: "@hono/node-server",
    version: "2.1.9",
  });
  assert.deepEqual(lockKeyParts("x@1.0.0_@scope+peer@2.0.0"), { name: "x", version: "1.0.0" });
  assert.throws(() => lockKeyParts("@scope/name"), /has no version/);
});

Deno.test("sdkPackages: the SDK's closure from deno.lock, refs by name or key; the nearest version wins a name", () => {
  const lock = {
    npm: {
      "@modelcontextprotocol/sdk@1.0.0_zod@4.0.0": { dependencies: ["a", "zod@4.0.0"] },
      "a@1.0.0": { dependencies: ["zod@3.0.0", "b"] },
      "b@2.0.0": {},
      "zod@3.0.0": {},
      "zod@4.0.0": {},
      "unrelated@9.9.9": {},
    },
  };
  assert.deepEqual(
    [...sdkPackages(lock, "1.0.0")],
    [
      ["@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk@1.0.0_zod@4.0.0"],
      ["a", "a@1.0.0"],
      ["zod", "zod@4.0.0"],
      ["b", "b@2.0.0"],
    ],
  );
  assert.throws(() => sdkPackages(lock, "2.0.0"), /Cannot find @modelcontextprotocol\/sdk@2\.0\.0 in deno\.lock/);
  const ambiguous = { npm: { ...lock.npm, "@modelcontextprotocol/sdk@1.0.0_zod@4.0.0": { dependencies: ["zod"] } } };
  assert.throws(() => sdkPackages(ambiguous, "1.0.0"), /Cannot resolve "zod" in deno\.lock: 2 versions/);
});

Deno.test("sdkPackages: the real deno.lock gives the pinned SDK with the packages its stdio transport imports", async () => {
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const lock = JSON.parse(await Deno.readTextFile(new URL("../deno.lock", import.meta.url)));
  const packages = sdkPackages(lock, pinnedSdkVersion(denoJson));
  for (const name of ["@modelcontextprotocol/sdk", "cross-spawn", "which", "isexe", "zod"]) {
    assert.ok(packages.has(name), name);
  }
});

Deno.test("pinnedSdkVersion: the version deno.json pins; a map without it is an error that says what it found", async () => {
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.match(pinnedSdkVersion(denoJson), /^\d+\.\d+\.\d+$/);
  assert.equal(
    pinnedSdkVersion({ imports: { "@modelcontextprotocol/sdk/": "npm:/@modelcontextprotocol/sdk@1.2.3/" } }),
    "1.2.3",
  );
  assert.throws(
    () => pinnedSdkVersion({ imports: {} }),
    /^Error: Cannot find the pinned @modelcontextprotocol\/sdk: deno.json maps "@modelcontextprotocol\/sdk\/" to ""$/,
  );
});

Deno.test("bench nodeHost: the SDK's server joins the other two; an SDK that could not be installed is the reason", async () => {
  await using temp = await tempDir("longcall-node-host-");
  const store = { dir: temp.path, db: `${temp.path}/bench.db` };
  const ids = unknownIds(101);
  const short = { rounds: 2, warmup: 1 };
  const withSdk = await nodeHost(store, ids, { ...short, sdk: await installNodeSdk(`${temp.path}/node-sdk`) });
  assert.ok("servers" in withSdk);
  assert.deepEqual(withSdk.servers.map((s) => [s.transport, s.one.length, s.hundred.length]), [
    ["socket", 2, 2],
    ["fifo", 2, 2],
    ["sdk", 2, 2],
  ]);
  assert.equal(withSdk.sdkSkipped, undefined);
  const without = await nodeHost(store, ids, { ...short, sdk: { skipped: "not in the cache" } });
  assert.ok("servers" in without);
  assert.deepEqual(without.servers.map((s) => s.transport), ["socket", "fifo"]);
  assert.equal(without.sdkSkipped, "not in the cache");
});
