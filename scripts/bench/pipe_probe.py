#!/usr/bin/env python3
"""Does a larger stdio pipe take the step out of jobs.get answers over 64 KB?

A probe for docs/benchmarks.md's pipe rows, in Python because Deno has no fcntl: it starts
scripts/bench/bench_server.ts with its stdout on a pipe, raises that pipe to 1 MiB with
F_SETPIPE_SZ (Linux) when asked, submits 1,000 test.echo jobs, then times jobs.get windows of
several sizes in random order over raw JSON-RPC lines and prints each window's p50 and p99 (ms).

    python3 scripts/bench/pipe_probe.py default   # the pipe as Deno.Command and Python leave it (Node: a socket)
    python3 scripts/bench/pipe_probe.py large     # the same pipe raised to 1 MiB

Not part of `deno task bench`; stdlib only; needs `deno` on PATH and runs from the repository root.
"""

import fcntl
import json
import os
import random
import subprocess
import sys
import tempfile
import time

F_SETPIPE_SZ = 1031  # linux/fcntl.h
WINDOWS = [1, 60, 66, 72, 78, 100]
ROUNDS = 1000
WARMUP = 100


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "default"
    if mode not in ("default", "large"):
        raise SystemExit("usage: pipe_probe.py default|large")
    work = tempfile.mkdtemp()
    server = subprocess.Popen(
        ["deno", "run", "--no-prompt", "--allow-read", f"--allow-write={work}", "--allow-env", "--deny-net",
         "--v8-flags=--max-semi-space-size=1,--expose-gc", "scripts/bench/bench_server.ts", "serve",
         "--db", f"{work}/probe.db", "--admitted-max", "5000"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, "LONGCALL_LOG": "error"}, bufsize=0)
    out = server.stdout.fileno()
    if mode == "large":
        print("pipe capacity", fcntl.fcntl(out, F_SETPIPE_SZ, 1 << 20), "bytes")
    pending = b""
    next_id = 0

    def rpc(method: str, params: dict) -> dict:
        nonlocal pending, next_id
        next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
        server.stdin.write(line.encode() + b"\n")
        while True:
            while b"\n" not in pending:
                chunk = os.read(out, 1 << 21)
                if not chunk:
                    raise SystemExit("server closed its stdout")
                pending += chunk
            end = pending.index(b"\n")
            message = json.loads(pending[:end])
            pending = pending[end + 1:]
            if message.get("id") == next_id:
                return message

    rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "pipe-probe", "version": "0"}})
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    ids = [rpc("tools/call", {"name": "test.echo", "arguments": {"n": n}})["result"]["structuredContent"]["id"]
           for n in range(1000)]
    time.sleep(2)  # the echo jobs end
    times = {size: [] for size in WINDOWS}
    for round_ in range(WARMUP + ROUNDS):
        for size in random.sample(WINDOWS, len(WINDOWS)):
            start = (round_ * 37) % (len(ids) - size)
            t0 = time.perf_counter()
            rpc("tools/call", {"name": "jobs.get", "arguments": {"ids": ids[start:start + size]}})
            if round_ >= WARMUP:
                times[size].append((time.perf_counter() - t0) * 1000)
    for size in WINDOWS:
        ordered = sorted(times[size])
        print(f"{size:3d} ids  p50 {ordered[len(ordered) // 2]:.2f} ms  p99 {ordered[int(len(ordered) * 0.99)]:.2f} ms")
    server.stdin.close()
    server.wait()


if __name__ == "__main__":
    main()
