// A Node-side stdio client for scripts/bench/mcp.ts: it spawns the bench server the way Node-based MCP hosts do
// (`child_process.spawn` with piped stdio, which the MCP SDK's StdioClientTransport calls through
// cross-spawn), so the server's stdout is whatever libuv gives a child: on Linux one end of a socketpair,
// not a pipe. Beside it, the same server with its stdout on a FIFO (a pipe of the default 64 KB capacity,
// as Python's and Deno's clients leave it), read by the same client, so the two differ only in the stdout.
// With `sdkStdio` in the spec, a third server is spawned and read by the official MCP SDK's own
// StdioClientTransport (v1, the module at that path: scripts/bench/node_sdk.ts links it), as the MCP Inspector
// and other hosts on that SDK read a server, so its figures come from a client nobody here wrote.
// It times `jobs.get` calls of 1 id and of 100 ids on each, over JSON-RPC messages, one request at a time,
// every round all of them in a seeded random order, and prints one JSON object on stdout:
//   { servers: [{ transport: "socket" | "fifo" | "sdk", stdout: "socket:[...]" | "/path/of/fifo", one: [ms, ...],
//     hundred: [ms, ...] }, ...] }
//
//   node --preserve-symlinks scripts/bench/node_host_client.mjs SPEC.json
//   (--preserve-symlinks: the SDK's packages are links into Deno's npm cache, resolved where they are linked)
//   SPEC: { command, args, env, dir (for the FIFO), ids (at least 100 job ids), rounds, warmup, seed,
//           sdkStdio? (the path of the SDK's dist/esm/client/stdio.js) }
//
// Plain JavaScript with Node's own modules only: Node 20 (the README's machine) runs it as it is; `mkfifo`
// (coreutils) makes the FIFO.

import { execFileSync, spawn } from "node:child_process";
import { closeSync, constants, openSync, readFileSync, readlinkSync } from "node:fs";
import { Socket } from "node:net";
import { pathToFileURL } from "node:url";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));

/**
 * Requests sent as JSON-RPC messages by `send` and settled by `deliver(message)` when their answers come back;
 * `fail(error)` rejects every pending request and each later one (the server is gone).
 */
function requester(send) {
  const pending = new Map();
  let exited;
  let nextId = 1;
  const deliver = (message) => {
    const settle = pending.get(message.id);
    if (settle === undefined) return;
    pending.delete(message.id);
    settle(message);
  };
  const fail = (error) => {
    exited ??= error;
    for (const settle of pending.values()) settle({ error: exited.message });
    pending.clear();
  };
  const request = (method, params) => {
    if (exited !== undefined) return Promise.reject(exited);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(
        id,
        (message) =>
          message.error === undefined
            ? resolve(message.result)
            : reject(new Error(`${method}: ${JSON.stringify(message.error)}`)),
      );
      send({ jsonrpc: "2.0", id, method, params });
    });
  };
  const notify = (method) => send({ jsonrpc: "2.0", method });
  return { deliver, fail, request, notify };
}

/** The bench server with its stdout on `transport`, and a request function over raw JSON-RPC lines. */
function startServer(transport) {
  let stdoutFd = "pipe", readFd;
  if (transport === "fifo") {
    const path = `${spec.dir}/node-host-${process.pid}.fifo`;
    execFileSync("mkfifo", [path]);
    // Opened for reading and writing first, so neither open waits for the other end.
    readFd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
    stdoutFd = openSync(path, constants.O_WRONLY);
  }
  const child = spawn(spec.command, spec.args, {
    stdio: ["pipe", stdoutFd, "inherit"],
    env: { ...process.env, ...spec.env },
  });
  if (typeof stdoutFd === "number") closeSync(stdoutFd);
  const stdout = readFd === undefined ? child.stdout : new Socket({ fd: readFd, readable: true, writable: false });
  const { deliver, fail, request, notify } = requester((message) => child.stdin.write(JSON.stringify(message) + "\n"));

  // Lines as the MCP SDK's ReadBuffer frames them: bytes appended, each line decoded and parsed whole.
  let buffered = Buffer.alloc(0);
  stdout.on("data", (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    for (let end = buffered.indexOf(10); end >= 0; end = buffered.indexOf(10)) {
      const message = JSON.parse(buffered.toString("utf8", 0, end));
      buffered = buffered.subarray(end + 1);
      deliver(message);
    }
  });
  // A server that cannot start or exits early fails every request (a write to its closed stdin is that too).
  child.once("error", fail);
  child.once("exit", (code, signal) => fail(new Error(`the server exited (${signal ?? `code ${code}`})`)));
  child.stdin.on("error", () => {});
  const close = async () => {
    const closed = new Promise((resolve) => child.once("close", resolve));
    child.stdin.end();
    await closed;
    stdout.destroy();
  };
  return { transport, pid: child.pid, kill: () => child.kill(), request, notify, close };
}

/** The bench server spawned and read by the SDK's StdioClientTransport (the module at `spec.sdkStdio`). */
async function startSdkServer() {
  const { StdioClientTransport } = await import(pathToFileURL(spec.sdkStdio).href);
  const client = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: { ...process.env, ...spec.env },
    stderr: "inherit",
  });
  const { deliver, fail, request, notify } = requester((message) => client.send(message).catch(fail));
  client.onmessage = deliver;
  client.onerror = fail;
  client.onclose = () => fail(new Error("the server closed its stdout"));
  await client.start();
  const close = () => client.close();
  return { transport: "sdk", pid: client.pid, kill: close, request, notify, close };
}

/** A seeded generator (mulberry32), so a run's order of calls can be repeated from its seed. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function timedGet(server, ids) {
  const started = performance.now();
  const result = await server.request("tools/call", { name: "jobs.get", arguments: { ids } });
  const ms = performance.now() - started;
  if (result.isError === true) throw new Error(`jobs.get failed: ${JSON.stringify(result).slice(0, 300)}`);
  return ms;
}

const servers = [];

async function main() {
  for (const transport of ["socket", "fifo", ...(spec.sdkStdio === undefined ? [] : ["sdk"])]) {
    const server = transport === "sdk" ? await startSdkServer() : startServer(transport);
    servers.push(server);
    await server.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "longcall-bench-node", version: "0" },
    });
    await server.notify("notifications/initialized");
  }
  const results = servers.map((server) => ({
    transport: server.transport,
    stdout: readlinkSync(`/proc/${server.pid}/fd/1`),
    one: [],
    hundred: [],
  }));
  const { ids, rounds, warmup } = spec;
  const next = random(spec.seed);
  for (let round = 0; round < warmup + rounds; round++) {
    const single = [ids[round % ids.length]];
    const start = (round * 37) % (ids.length - 100);
    const batch = ids.slice(start, start + 100);
    const calls = [];
    for (let s = 0; s < servers.length; s++) calls.push({ s, ids: single }, { s, ids: batch });
    for (let i = calls.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [calls[i], calls[j]] = [calls[j], calls[i]];
    }
    for (const call of calls) {
      const ms = await timedGet(servers[call.s], call.ids);
      if (round >= warmup) (call.ids.length === 1 ? results[call.s].one : results[call.s].hundred).push(ms);
    }
  }
  for (const server of servers) await server.close();
  process.stdout.write(JSON.stringify({ servers: results }) + "\n");
}

main().catch((error) => {
  console.error(`node_host_client: ${error instanceof Error ? error.message : String(error)}`);
  for (const server of servers) server.kill();
  process.exit(1);
});
