// A Node-side stdio client for scripts/bench/mcp.ts: it spawns the bench server the way Node-based MCP hosts do
// (`child_process.spawn` with piped stdio, which the MCP SDK's StdioClientTransport calls through
// cross-spawn), so the server's stdout is whatever libuv gives a child: on Linux one end of a socketpair,
// not a pipe. Beside it, the same server with its stdout on a FIFO (a pipe of the default 64 KB capacity,
// as Python's and Deno's clients leave it), read by the same client, so the two differ only in the stdout.
// It times `jobs.get` calls of 1 id and of 100 ids on each, over raw JSON-RPC lines, one request at a time,
// every round all four calls in a seeded random order, and prints one JSON object on stdout:
//   { servers: [{ transport: "socket" | "fifo", stdout: "socket:[...]" | "/path/of/fifo", one: [ms, ...],
//     hundred: [ms, ...] }, ...] }
//
//   node scripts/bench/node_host_client.mjs SPEC.json
//   SPEC: { command, args, env, dir (for the FIFO), ids (at least 100 job ids), rounds, warmup, seed }
//
// Plain JavaScript with Node's own modules only: Node 20 (the README's machine) runs it as it is; `mkfifo`
// (coreutils) makes the FIFO.

import { execFileSync, spawn } from "node:child_process";
import { closeSync, constants, openSync, readFileSync, readlinkSync } from "node:fs";
import { Socket } from "node:net";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));

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

  // Lines as the MCP SDK's ReadBuffer frames them: bytes appended, each line decoded and parsed whole.
  let buffered = Buffer.alloc(0);
  const pending = new Map();
  stdout.on("data", (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    for (let end = buffered.indexOf(10); end >= 0; end = buffered.indexOf(10)) {
      const message = JSON.parse(buffered.toString("utf8", 0, end));
      buffered = buffered.subarray(end + 1);
      const settle = pending.get(message.id);
      if (settle === undefined) continue;
      pending.delete(message.id);
      settle(message);
    }
  });
  // A server that cannot start or exits early fails every request (a write to its closed stdin is that too).
  let exited;
  const fail = (error) => {
    exited ??= error;
    for (const settle of pending.values()) settle({ error: exited.message });
    pending.clear();
  };
  child.once("error", fail);
  child.once("exit", (code, signal) => fail(new Error(`the server exited (${signal ?? `code ${code}`})`)));
  child.stdin.on("error", () => {});
  let nextId = 1;
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
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  };
  const close = async () => {
    const closed = new Promise((resolve) => child.once("close", resolve));
    child.stdin.end();
    await closed;
    stdout.destroy();
  };
  return { transport, child, request, close };
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
  for (const transport of ["socket", "fifo"]) {
    const server = startServer(transport);
    servers.push(server);
    await server.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "longcall-bench-node", version: "0" },
    });
    server.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  }
  const results = servers.map((server) => ({
    transport: server.transport,
    stdout: readlinkSync(`/proc/${server.child.pid}/fd/1`),
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
  for (const server of servers) server.child.kill();
  process.exit(1);
});
