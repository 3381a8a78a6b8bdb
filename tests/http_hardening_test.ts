/**
 * HTTP that holds (issue 12, findings 3 and 4): request bodies are read under a deadline and
 * under per-client and total bounds (the oldest pending body is dropped with 408), so slow
 * clients cannot stop a well-behaved one; a bearer token is always required (generated into a
 * 0600 file next to the database when LONGCALL_HTTP_TOKEN is unset); `--http-no-auth` is loopback
 * only, warns on every start and never sees jobs of other authorities. Real sockets on 127.0.0.1,
 * real server children with explicit permission flags.
 */

import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/server";
import { AppError } from "../src/base/errors.ts";
import { HTTP_PENDING_BODIES_PER_CLIENT_MAX, MCP_MESSAGE_BYTES_MAX } from "../src/base/limits.ts";
import { silentLogger } from "../src/base/log.ts";
import { ensureHttpToken, httpTokenPath } from "../src/cli/http_token.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { mcpUrl } from "../src/cli/serve.ts";
import { type HttpBounds, serveOnHttp } from "../src/mcp/transports.ts";
import { denoExecPath, MODERN_PROTOCOL_VERSION, spawnHttpServer } from "../testing/mcp_clients.ts";
import { modernMeta, RawStdioServer, REPO_ROOT, serverArgs, spawnHttp, stdioServer } from "./helpers/longcall_procs.ts";
import { tempDir, waitFor } from "../testing/temp.ts";

type Json = Record<string, unknown>;

/** A modern JSON-RPC request line of `method` with `params` (its id `options.id`, default 1). */
const modernBody = (method: string, params: Json = {}, options: { id?: number | string } = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id: options.id ?? 1, method, params: { ...params, _meta: modernMeta() } });

/** POSTs `body` to `url` as a modern tools/list, with `options.headers` added or overriding. */
async function post(
  url: URL | string,
  body: BodyInit,
  options: { headers?: Record<string, string> } = {},
): Promise<Response> {
  const { headers = {} } = options;
  return await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
      "mcp-method": "tools/list",
      ...headers,
    },
    body,
  });
}

/** A modern tools/call of `call.name` with `call.args`; returns the tool result's structuredContent. */
async function callTool(
  url: URL,
  call: { name: string; args: Json },
  options: { headers?: Record<string, string> } = {},
): Promise<Json> {
  const { name, args } = call;
  const res = await post(url, modernBody("tools/call", { name, arguments: args }), {
    headers: { ...options.headers, "mcp-method": "tools/call", "mcp-name": name },
  });
  const body = await res.json() as Json;
  assert.equal(res.status, 200, JSON.stringify(body));
  return (body["result"] as Json)["structuredContent"] as Json;
}

/**
 * A client that sends `POST /mcp` headers announcing a 100-byte body, then one byte, then nothing.
 * Everything the server answers is kept in `received`.
 */
class SlowSocket {
  received = "";
  readonly ended: Promise<void>;
  private constructor(readonly conn: Deno.Conn) {
    this.ended = (async () => {
      const buf = new Uint8Array(4096);
      try {
        for (;;) {
          const n = await conn.read(buf);
          if (n === null) break;
          this.received += new TextDecoder().decode(buf.subarray(0, n));
        }
      } catch { /* reset or closed by us */ }
    })();
  }

  static async open(port: number, headers: Record<string, string> = {}): Promise<SlowSocket> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const head = [
      "POST /mcp HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      `MCP-Protocol-Version: ${MODERN_PROTOCOL_VERSION}`,
      "Content-Length: 100",
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ].join("\r\n");
    // The header block ends with an empty line; "{" is the single body byte of the hundred announced.
    await conn.write(new TextEncoder().encode(`${head}\r\n\r\n{`));
    return new SlowSocket(conn);
  }

  /** The HTTP status the server answered with, once it has. */
  get status(): number | undefined {
    const m = /^HTTP\/1\.1 (\d{3})/.exec(this.received);
    return m === null ? undefined : Number(m[1]);
  }

  /** Closes the socket and waits for its reader to stop. */
  async close(): Promise<void> {
    try {
      this.conn.close();
    } catch { /* already closed */ }
    await this.ended;
  }
}

const emptyFactory = () => new McpServer({ name: "t", version: "0.0.0" }, { capabilities: { tools: {} } });

/** An in-process server with small bounds; `stats()` makes the pending bodies observable. */
function inProcess(bounds: Partial<HttpBounds>) {
  const serving = serveOnHttp(emptyFactory, {
    hostname: "127.0.0.1",
    port: 0,
    token: "tok",
    log: silentLogger,
    bounds: { bodyTimeoutMs: 60_000, pendingBodiesMax: 100, pendingBodiesPerClientMax: 100, ...bounds },
  });
  return serving;
}

const AUTH = { Authorization: "Bearer tok" };

for (const scope of ["per client", "in total"] as const) {
  Deno.test(`serveOnHttp(): pending bodies at the ${scope} bound stay; one more drops the oldest with 408`, async () => {
    const bound = 3;
    const serving = inProcess(
      scope === "per client" ? { pendingBodiesPerClientMax: bound } : { pendingBodiesMax: bound },
    );
    const port = await serving.port;
    const sockets: SlowSocket[] = [];
    try {
      for (let i = 0; i < bound; i++) sockets.push(await SlowSocket.open(port, AUTH));
      await waitFor("all pending", () => serving.stats().pendingBodies === bound ? true : undefined);
      assert.deepEqual(serving.stats(), { pendingBodies: bound, timedOut: 0, evicted: 0 });
      assert.ok(sockets.every((s) => s.received === ""), "at the bound nobody is answered");

      sockets.push(await SlowSocket.open(port, AUTH));
      await waitFor("the oldest answered", () => sockets[0]!.status);
      assert.equal(sockets[0]!.status, 408);
      assert.match(sockets[0]!.received, /had waited longest/);
      await waitFor("the newest pending", () => serving.stats().pendingBodies === bound ? true : undefined);
      assert.equal(serving.stats().evicted, 1);
      assert.ok(sockets.slice(1).every((s) => s.received === ""), "only the oldest was dropped");
    } finally {
      await Promise.all(sockets.map((s) => s.close()));
      await serving.close();
    }
  });
}

Deno.test("serveOnHttp(): a body that does not arrive within the deadline gets 408", async () => {
  const serving = inProcess({ bodyTimeoutMs: 200 });
  const port = await serving.port;
  const slow = await SlowSocket.open(port, AUTH);
  try {
    await waitFor("the 408", () => slow.status);
    assert.equal(slow.status, 408);
    assert.match(slow.received, /did not arrive within 200 ms/);
    assert.equal(serving.stats().timedOut, 1);
    assert.equal(serving.stats().pendingBodies, 0);
  } finally {
    await slow.close();
    await serving.close();
  }
});

Deno.test(`serveOnHttp(): a chunked body of ${MCP_MESSAGE_BYTES_MAX} bytes is read; one byte more gets 413`, async () => {
  const serving = inProcess({});
  const port = await serving.port;
  const url = `http://127.0.0.1:${port}/mcp`;
  const chunked = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        const bytes = new TextEncoder().encode(text);
        for (let i = 0; i < bytes.length; i += 65_536) c.enqueue(bytes.subarray(i, i + 65_536));
        c.close();
      },
    });
  const sized = (bytes: number) => {
    const base = modernBody("tools/list", { pad: "" });
    return modernBody("tools/list", { pad: "p".repeat(bytes - base.length) });
  };
  try {
    const at = await post(url, chunked(sized(MCP_MESSAGE_BYTES_MAX)), { headers: AUTH });
    assert.equal(at.status, 200);
    assert.ok(Array.isArray(((await at.json()) as { result: { tools: unknown } }).result.tools));
    const over = await post(url, chunked(sized(MCP_MESSAGE_BYTES_MAX + 1)), { headers: AUTH });
    assert.equal(over.status, 413);
    assert.equal(((await over.json()) as { error: { code: number } }).error.code, -32000);
  } finally {
    await serving.close();
  }
});

Deno.test("serveOnHttp() refuses to serve without a token unless --http-no-auth, and --http-no-auth off loopback", () => {
  const base = { port: 0, log: silentLogger };
  const refused = (options: Parameters<typeof serveOnHttp>[1], pattern: RegExp) =>
    assert.throws(
      () => serveOnHttp(emptyFactory, options),
      (err: unknown) => err instanceof AppError && err.code === "invalid_argument" && pattern.test(err.message),
    );
  refused({ ...base, hostname: "127.0.0.1" }, /a bearer token is required/);
  refused({ ...base, hostname: "0.0.0.0", noAuth: true }, /loopback addresses only/);
  refused({ ...base, hostname: "127.0.0.1", noAuth: true, token: "t" }, /exclude each other/);
});

Deno.test("HTTP server: 70 slow clients holding bodies open do not stop a well-behaved client", async () => {
  await using dir = await tempDir();
  const TOKEN = "slow-" + crypto.randomUUID();
  await using server = await spawnHttp(dir.path, dir.file("jobs.db"), { env: { LONGCALL_HTTP_TOKEN: TOKEN } });
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const slow: SlowSocket[] = [];
  const anonymous: SlowSocket[] = [];
  try {
    // Without the token they are answered at once, before any body is read.
    for (let i = 0; i < 70; i++) anonymous.push(await SlowSocket.open(server.port));
    await waitFor("401 for all", () => anonymous.every((s) => s.status !== undefined) ? true : undefined, {
      timeoutMs: 20_000,
    });
    assert.ok(anonymous.every((s) => s.status === 401));

    // With the token: all but the per-client bound are dropped as newer ones arrive.
    for (let i = 0; i < 70; i++) slow.push(await SlowSocket.open(server.port, auth));
    const dropped = 70 - HTTP_PENDING_BODIES_PER_CLIENT_MAX;
    await waitFor(
      "the oldest slow clients answered 408",
      () => slow.filter((s) => s.status === 408).length === dropped ? true : undefined,
      { timeoutMs: 20_000 },
    );
    const stillOpen = slow.filter((s) => s.received === "");
    assert.equal(stillOpen.length, HTTP_PENDING_BODIES_PER_CLIENT_MAX);

    const res = await post(server.mcpUrl, modernBody("tools/list"), { headers: auth });
    const body = await res.json() as Json;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(Array.isArray((body["result"] as Json)["tools"]));
    // Served while the slow clients still hold their bodies open, so it did not wait for their body deadline
    // (which would have answered them 408), and it displaced at most one of them.
    assert.ok(stillOpen.filter((s) => s.received === "").length >= HTTP_PENDING_BODIES_PER_CLIENT_MAX - 1);
  } finally {
    await Promise.all([...slow, ...anonymous].map((s) => s.close()));
  }
});

Deno.test("HTTP server without LONGCALL_HTTP_TOKEN: a generated token in a 0600 file, its path on stderr, reused on restart", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const start = () =>
    spawnHttpServer({
      command: denoExecPath(),
      args: serverArgs(dir.path, db, { flags: ["--http", "--listen", "127.0.0.1:0"] }),
      cwd: REPO_ROOT,
      env: { LONGCALL_LOG: "info", LONGCALL_HTTP_TOKEN: "" },
    });
  const path = httpTokenPath(db);
  let token = "";
  {
    await using server = await start();
    const info = await Deno.stat(path);
    assert.equal((info.mode ?? 0) & 0o777, 0o600);
    token = (await Deno.readTextFile(path)).trim();
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.ok(server.stderr().includes(`written to ${path}`), server.stderr());
    assert.ok(!server.stderr().includes(token), "the token itself is never printed");
    const url = new URL("/mcp", server.url);
    const anonymous = await post(url, modernBody("tools/list"));
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const ok = await post(url, modernBody("tools/list"), { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    // The scheme is case-insensitive (RFC 7235); the token is not.
    const lower = await post(url, modernBody("tools/list"), { headers: { Authorization: `bearer ${token}` } });
    assert.equal(lower.status, 200);
    await lower.body?.cancel();
    const wrongCase = await post(url, modernBody("tools/list"), {
      headers: { Authorization: `Bearer ${token.toUpperCase()}` },
    });
    assert.equal(wrongCase.status, 401);
    await wrongCase.body?.cancel();
  }
  {
    await using server = await start();
    assert.ok(server.stderr().includes(`read from ${path}`), server.stderr());
    assert.equal((await Deno.readTextFile(path)).trim(), token, "the same token after a restart");
    const ok = await post(new URL("/mcp", server.url), modernBody("tools/list"), {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  }
  await Deno.chmod(path, 0o644);
  const refused = await new Deno.Command(denoExecPath(), {
    args: serverArgs(dir.path, db, { flags: ["--http", "--listen", "127.0.0.1:0"] }),
    cwd: REPO_ROOT,
    env: { LONGCALL_HTTP_TOKEN: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.notEqual(refused.code, 0);
  const stderr = new TextDecoder().decode(refused.stderr);
  assert.match(stderr, /its mode is 0644, but only its owner may read it/);
  assert.ok(!stderr.includes(token) && !new TextDecoder().decode(refused.stdout).includes(token));
});

Deno.test("--http-no-auth: warned on every start, loopback only, and blind to jobs of a token or the local authority", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const TOKEN = "owner-" + crypto.randomUUID();
  await using withToken = await spawnHttp(dir.path, db, { env: { LONGCALL_HTTP_TOKEN: TOKEN } });
  await using noAuth = await spawnHttp(dir.path, db);
  assert.match(noAuth.stderr(), /WARNING: --http-no-auth: HTTP requests are NOT authenticated/);

  const tokenJob = (await callTool(withToken.mcpUrl, { name: "test.sleep", args: { ms: 30_000, steps: 300 } }, {
    headers: { Authorization: `Bearer ${TOKEN}` },
  }))["id"] as string;
  await using local = new RawStdioServer(stdioServer(dir.path, db));
  const localCall = await local.modern("tools/call", { name: "test.sleep", arguments: { ms: 30_000, steps: 300 } });
  const localJob = ((localCall["result"] as Json)["structuredContent"] as Json)["id"] as string;
  const ownJob = (await callTool(noAuth.mcpUrl, { name: "test.echo", args: { hello: 1 } }))["id"] as string;

  const got = await callTool(noAuth.mcpUrl, { name: "jobs.get", args: { ids: [tokenJob, localJob, ownJob] } });
  assert.deepEqual((got["items"] as Json[]).map((i) => i["reason"] ?? i["item_status"]), [
    "not_found",
    "not_found",
    "complete",
  ]);
  const cancelled = await callTool(noAuth.mcpUrl, { name: "jobs.cancel", args: { ids: [tokenJob, localJob] } });
  assert.deepEqual((cancelled["items"] as Json[]).map((i) => i["reason"]), ["not_found", "not_found"]);
  // Nothing changed for the owners.
  const seen = await callTool(withToken.mcpUrl, { name: "jobs.get", args: { ids: [tokenJob] } }, {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  assert.equal("cancellation_requested" in ((seen["items"] as Json[])[0]!["value"] as Json), false);

  for (
    const [flags, env, pattern] of [
      [["--http", "--http-no-auth", "--listen", "0.0.0.0:0"], {}, /loopback addresses only|loopback only/],
      [
        ["--http", "--http-no-auth", "--listen", "127.0.0.1:0"],
        { LONGCALL_HTTP_TOKEN: "x" },
        /LONGCALL_HTTP_TOKEN is set/,
      ],
    ] as const
  ) {
    const out = await new Deno.Command(denoExecPath(), {
      args: serverArgs(dir.path, dir.file("other.db"), { flags }),
      cwd: REPO_ROOT,
      env: { LONGCALL_HTTP_TOKEN: "", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.notEqual(out.code, 0);
    assert.match(new TextDecoder().decode(out.stderr), pattern);
  }
});

Deno.test("longcall serve --http-no-auth without --http is a usage error (exit 2)", async () => {
  await using dir = await tempDir();
  const out = await new Deno.Command(denoExecPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir.path},${REPO_ROOT}`,
      "--allow-env",
      "src/main.ts",
      "serve",
      "--http-no-auth",
      "--db",
      dir.file("x.db"),
    ],
    cwd: REPO_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /--http-no-auth: it applies only with --http/);
});

Deno.test("longcall serve: --listen without --http, or a bad --listen, is a usage error before anything is created", async () => {
  await using dir = await tempDir();
  for (
    const [flags, pattern] of [
      [["--listen", "127.0.0.1:9999"], /Cannot use --listen: it applies only with --http/],
      [
        ["--http", "--listen", "bad"],
        /Cannot use --listen: expected HOST:PORT such as 127\.0\.0\.1:8765, current value is bad/,
      ],
      [["--http", "--listen", "127.0.0.1:65536"], /Cannot use --listen: expected HOST:PORT/],
    ] as const
  ) {
    const out = await new Deno.Command(denoExecPath(), {
      args: [
        "run",
        "--no-prompt",
        `--allow-read=${dir.path},${REPO_ROOT}`,
        `--allow-write=${dir.path}`,
        "--allow-env",
        "src/main.ts",
        "serve",
        ...flags,
        "--db",
        dir.file("x.db"),
      ],
      cwd: REPO_ROOT,
      env: { LONGCALL_HTTP_TOKEN: "" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2, flags.join(" "));
    assert.match(new TextDecoder().decode(out.stderr), pattern);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir.path)), [], "no database, no token file");
  }
});

Deno.test("mcpUrl(): the serving line's url is the endpoint on the port the server got; IPv6 in brackets", () => {
  assert.equal(mcpUrl("127.0.0.1", 4242), "http://127.0.0.1:4242/mcp");
  assert.equal(mcpUrl("::1", 8765), "http://[::1]:8765/mcp");
});

Deno.test("longcall serve --listen with the shipped flags: localhost binds 127.0.0.1; an address they do not grant is a usage error, not an internal one", async () => {
  await using dir = await tempDir();
  const serve = (listen: string) => ({
    command: denoExecPath(),
    args: [
      "run",
      ...permissionFlags({ githubHosts: ["api.github.com"] }),
      "src/main.ts",
      "serve",
      "--http",
      "--http-no-auth",
      "--listen",
      listen,
      "--db",
      dir.file("x.db"),
    ],
    cwd: REPO_ROOT,
    env: { LONGCALL_HTTP_TOKEN: "", LONGCALL_LOG: "error" },
  });
  for (const listen of ["127.0.0.2:0", "0.0.0.0:8765", "[::2]:0", "example.com:8765"]) {
    const target = serve(listen);
    const out = await new Deno.Command(target.command, {
      args: target.args,
      cwd: target.cwd,
      env: target.env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 2, `${listen}: ${stderr}`);
    assert.match(
      stderr,
      /Cannot use --listen: this process may bind loopback only \(127\.0\.0\.1 or \[::1\], what longcall's permission flags grant\), not /,
    );
    assert.doesNotMatch(stderr, /internal error/);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir.path)), [], "no database, no token file");
  }
  // Loopback is the code's rule too: a process granted everything still refuses to serve other interfaces.
  const wide = serve("0.0.0.0:0");
  const everything = await new Deno.Command(wide.command, {
    // With a token, not --http-no-auth (which has a loopback rule of its own).
    args: ["run", "-A", ...wide.args.slice(wide.args.indexOf("src/main.ts")).filter((a) => a !== "--http-no-auth")],
    cwd: wide.cwd,
    env: { ...wide.env, LONGCALL_HTTP_TOKEN: "a-token-of-the-test" },
    // A server that did bind would serve until killed: the test then fails on its exit code, not by hanging.
    signal: AbortSignal.timeout(20_000),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(everything.code, 2, new TextDecoder().decode(everything.stderr));
  assert.match(new TextDecoder().decode(everything.stderr), /Cannot use --listen: this process may bind loopback only/);
  const server = await spawnHttpServer(serve("localhost:0"), { path: "/mcp" });
  try {
    // Bound to 127.0.0.1 (whatever localhost resolves to first here): a request there reaches the server.
    const answer = await fetch(`http://127.0.0.1:${server.url.port}/mcp`, { method: "GET" });
    await answer.body?.cancel();
    assert.ok(answer.status >= 200 && answer.status < 600, "the server answered on 127.0.0.1");
  } finally {
    await server.close();
  }
});

Deno.test("ensureHttpToken() creates a 0600 token once, then refuses a directory, a symlink or an empty file", async () => {
  await using dir = await tempDir();
  const db = dir.file("a.db");
  const first = await ensureHttpToken(db);
  assert.equal(first.created, true);
  assert.equal(((await Deno.stat(first.path)).mode ?? 0) & 0o777, 0o600);
  assert.deepEqual(await ensureHttpToken(db), { ...first, created: false });

  const refused = async (make: (path: string) => Promise<void>, pattern: RegExp) => {
    const other = dir.file(`${crypto.randomUUID()}.db`);
    await make(httpTokenPath(other));
    await assert.rejects(
      ensureHttpToken(other),
      (err: unknown) => err instanceof AppError && err.code === "access_denied" && pattern.test(err.message),
    );
  };
  await refused((path) => Deno.mkdir(path), /not a regular file/);
  await refused((path) => Deno.symlink(first.path, path), /not a regular file/);
  await refused(async (path) => {
    await Deno.writeTextFile(path, "\n", { mode: 0o600 });
    await Deno.chmod(path, 0o600);
  }, /it is empty/);
});
