/**
 * The benchmark's Node host: scripts/bench/node_host_client.mjs, run by the machine's real `node`, and its
 * caller `nodeHost` in scripts/bench/mcp.ts.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { nodeHost } from "../scripts/bench/mcp.ts";
import { tempDir } from "../testing/temp.ts";

const CLIENT = fileURLToPath(new URL("../scripts/bench/node_host_client.mjs", import.meta.url));
const BENCH_SERVER = fileURLToPath(new URL("../scripts/bench/bench_server.ts", import.meta.url));

/** Runs the Node host client on a spec written into `dir`; its exit code, stdout and stderr. */
async function runClient(dir: string, spec: Record<string, unknown>) {
  const path = `${dir}/spec.json`;
  await Deno.writeTextFile(path, JSON.stringify({ dir, rounds: 3, warmup: 1, seed: 7, ...spec }));
  const out = await new Deno.Command("node", { args: [CLIENT, path], stdout: "piped", stderr: "piped" }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** Well-formed job ids of no stored job: each is answered as an item, not found. */
const unknownIds = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());

Deno.test("node host client: a Node-spawned server's stdout is a socket, the other a FIFO; every kept call timed", async () => {
  await using temp = await tempDir("longcall-node-host-");
  const dir = temp.path;
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
  const run = await runClient(dir, {
    command: Deno.execPath(),
    args,
    env: { LONGCALL_LOG: "error" },
    ids: unknownIds(101),
  });
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
