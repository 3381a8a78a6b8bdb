/**
 * Real longcall server processes for the MCP integration tests (tests/mcp_server_test.ts,
 * tests/tasks_test.ts): the test server (testing/test_server.ts, the product wiring
 * plus test job kinds as tools) started with the exact permission flags it needs, as a
 * stdio target for the official clients, as a streamable-HTTP child, or as a raw stdio
 * child whose every stdout byte the test sees (`RawStdioServer`).
 *
 * @module
 */

import assert from "node:assert/strict";
import { permissionFlags } from "../../src/cli/permissions.ts";
import { fileURLToPath as fromFileUrl } from "node:url";
import {
  assertExplicitPermissionFlags,
  denoExecPath,
  MODERN_PROTOCOL_VERSION,
  type SpawnedHttpServer,
  spawnHttpServer,
  type StdioTarget,
  TASKS_EXTENSION_ID,
} from "../../testing/mcp_clients.ts";

export const REPO_ROOT = fromFileUrl(new URL("../../", import.meta.url));

/**
 * `deno run` arguments of the shipped server (`src/main.ts serve` with src/cli/permissions.ts's flags)
 * granted `githubHost` instead of api.github.com, on simulated time, with the linger off (a watch still
 * running when a test closes the server must not outlive the test).
 */
export function shippedServeArgs(
  githubHost: string,
  db: string,
  options: { timeRate: number; extra?: readonly string[] },
): string[] {
  return [
    "run",
    ...permissionFlags({ githubHosts: [githubHost] }),
    `${REPO_ROOT}src/main.ts`,
    "serve",
    "--db",
    db,
    "--simulate-time-rate",
    String(options.timeRate),
    "--linger-ms",
    "0",
    ...(options.extra ?? []),
  ];
}
export const TEST_SERVER = fromFileUrl(new URL("../../testing/test_server.ts", import.meta.url));

/** Server logs are kept quiet unless a test run asks for them. */
const CHILD_LOG = Deno.env.get("LONGCALL_TEST_CHILD_LOG") ?? "warn";

/** The test server's extra `serve` flags and child environment. */
export interface ServerOptions {
  /** Extra `serve` flags, after `--db`. */
  flags?: readonly string[];
  /** Extra environment variables of the child (over `LONGCALL_LOG` and an empty `LONGCALL_HTTP_TOKEN`). */
  env?: Record<string, string>;
}

/**
 * `deno run` arguments for the test server on `db` (a file inside `dir`), with `options.flags` after `--db`:
 * read and write only the database directory, the environment, and loopback networking (HTTP mode).
 */
export function serverArgs(dir: string, db: string, options: Pick<ServerOptions, "flags"> = {}): string[] {
  const { flags = [] } = options;
  return [
    "run",
    "--no-prompt",
    `--allow-read=${dir}`,
    `--allow-write=${dir}`,
    "--allow-env",
    "--allow-net=127.0.0.1",
    TEST_SERVER,
    "serve",
    "--db",
    db,
    ...flags,
  ];
}

/** A stdio target for the official clients. */
export function stdioServer(dir: string, db: string, options: ServerOptions = {}): StdioTarget {
  const { flags = [], env = {} } = options;
  return {
    command: denoExecPath(),
    args: serverArgs(dir, db, { flags }),
    cwd: REPO_ROOT,
    env: { LONGCALL_LOG: CHILD_LOG, LONGCALL_HTTP_TOKEN: "", ...env },
  };
}

/**
 * Starts the test server over streamable HTTP on a free loopback port; MCP is at `url`. Without a
 * `LONGCALL_HTTP_TOKEN` in `options.env` it runs with `--http-no-auth` (the official clients here send no
 * token); pass a token to test authentication.
 */
export async function spawnHttp(
  dir: string,
  db: string,
  options: ServerOptions = {},
): Promise<SpawnedHttpServer & { mcpUrl: URL }> {
  const { flags = [], env = {} } = options;
  const noAuth = (env["LONGCALL_HTTP_TOKEN"] ?? "") === "" ? ["--http-no-auth"] : [];
  const server = await spawnHttpServer({
    command: denoExecPath(),
    args: serverArgs(dir, db, { flags: ["--http", ...noAuth, "--listen", "127.0.0.1:0", ...flags] }),
    cwd: REPO_ROOT,
    env: { LONGCALL_LOG: CHILD_LOG, LONGCALL_HTTP_TOKEN: "", ...env },
  }, { path: "/mcp" });
  return Object.assign(server, { mcpUrl: server.url });
}

/** A JSON-RPC message as read off a raw stdout line. */
export type Message = Record<string, unknown> & { id?: string | number; method?: string };

/** The modern `_meta` envelope (optionally declaring the tasks extension). */
export function modernMeta(declareTasks = false): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "0.0.0" },
    "io.modelcontextprotocol/clientCapabilities": declareTasks ? { extensions: { [TASKS_EXTENSION_ID]: {} } } : {},
  };
}

/**
 * A stdio server child driven with raw bytes: `send` writes one line, `request` waits for the
 * response with the same id, and `stdoutLines` keeps every line the server wrote to stdout
 * (stdout purity checks). Spawned with `Deno.Command` and explicit permission flags.
 */
export class RawStdioServer implements AsyncDisposable {
  readonly child: Deno.ChildProcess;
  readonly stdoutLines: string[] = [];
  readonly messages: Message[] = [];
  #stderr = "";
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #waiters: Array<{ match: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  #pumps: Promise<void>;
  #nextId = 0;
  #stdoutEnded = Promise.withResolvers<void>();

  constructor(target: StdioTarget) {
    assertExplicitPermissionFlags(target);
    this.child = new Deno.Command(target.command, {
      args: target.args,
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
      ...(target.env === undefined ? {} : { env: target.env }),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#pumps = Promise.all([this.#pumpStdout(), this.#pumpStderr()]).then(() => {});
  }

  async #pumpStdout(): Promise<void> {
    let buffered = "";
    for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl).replace(/\r$/, "");
        buffered = buffered.slice(nl + 1);
        this.stdoutLines.push(line);
        let message: Message;
        try {
          message = JSON.parse(line) as Message;
        } catch {
          continue; // kept in stdoutLines; purity checks report it
        }
        this.messages.push(message);
        for (const w of [...this.#waiters]) {
          if (w.match(message)) {
            this.#waiters.splice(this.#waiters.indexOf(w), 1);
            w.resolve(message);
          }
        }
      }
    }
    if (buffered.length > 0) this.stdoutLines.push(buffered);
    this.#stdoutEnded.resolve();
  }

  async #pumpStderr(): Promise<void> {
    for await (const chunk of this.child.stderr.pipeThrough(new TextDecoderStream())) this.#stderr += chunk;
  }

  /** Everything the server wrote to stderr so far. */
  stderr(): string {
    return this.#stderr;
  }

  /** Writes `line` plus a newline (a string is sent verbatim; anything else as JSON). Ignores a closed pipe. */
  async send(line: string | Record<string, unknown>): Promise<void> {
    const text = typeof line === "string" ? line : JSON.stringify(line);
    try {
      await this.#writer.write(new TextEncoder().encode(text + "\n"));
    } catch (err) {
      if (!(err instanceof Deno.errors.BrokenPipe) && !String(err).includes("closed")) throw err;
    }
  }

  /** Writes raw bytes (no newline added): invalid UTF-8, partial lines. Ignores a closed pipe. */
  async sendBytes(bytes: Uint8Array): Promise<void> {
    try {
      await this.#writer.write(bytes);
    } catch (err) {
      if (!(err instanceof Deno.errors.BrokenPipe) && !String(err).includes("closed")) throw err;
    }
  }

  /** Waits for the first message (already read or still to come) matching `match`; rejects after
   * `options.timeoutMs` (10 s by default). */
  waitFor(what: string, match: (m: Message) => boolean, options: { timeoutMs?: number } = {}): Promise<Message> {
    const { timeoutMs = 10_000 } = options;
    const seen = this.messages.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w.resolve !== done);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${this.#stderr}`));
      }, timeoutMs);
      const done = (m: Message) => {
        clearTimeout(timer);
        resolve(m);
      };
      this.#waiters.push({ match, resolve: done });
    });
  }

  /** Sends a request with a fresh id and waits for its response (at most `options.timeoutMs`, 10 s by default). */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    options: { timeoutMs?: number } = {},
  ): Promise<Message> {
    const { timeoutMs = 10_000 } = options;
    const id = `t${++this.#nextId}`;
    const response = this.waitFor(
      `response to ${method} (${id})`,
      (m) => m.id === id && m.method === undefined,
      { timeoutMs },
    );
    await this.send({ jsonrpc: "2.0", id, method, params });
    return await response;
  }

  /** A modern request: `_meta` envelope attached (declaring the tasks extension with `options.declareTasks`). */
  modern(
    method: string,
    params: Record<string, unknown> = {},
    options: { declareTasks?: boolean } = {},
  ): Promise<Message> {
    return this.request(method, { ...params, _meta: modernMeta(options.declareTasks ?? false) });
  }

  /** Ends stdin (EOF): the graceful shutdown path a host takes. */
  async endStdin(): Promise<void> {
    try {
      await this.#writer.close();
    } catch { /* already closed */ }
  }

  /** Waits for the process to exit (all output read). */
  async exited(): Promise<Deno.CommandStatus> {
    const status = await this.child.status;
    await this.#pumps;
    return status;
  }

  /** Waits for the server to close its stdout. */
  stdoutEnded(): Promise<void> {
    return this.#stdoutEnded.promise;
  }

  /** Asserts that every stdout line so far is a JSON-RPC 2.0 message (stdout purity). */
  assertStdoutPure(): void {
    assert.ok(this.stdoutLines.length > 0, "the server wrote something to stdout");
    for (const [i, line] of this.stdoutLines.entries()) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        assert.fail(`stdout line ${i} is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
      }
      const m = parsed as Message;
      assert.equal(m["jsonrpc"], "2.0", `stdout line ${i} is not JSON-RPC 2.0: ${line.slice(0, 200)}`);
      const isResponse = "id" in m && ("result" in m || "error" in m);
      const isNotificationOrRequest = typeof m.method === "string";
      assert.ok(isResponse || isNotificationOrRequest, `stdout line ${i} is neither response nor request: ${line}`);
    }
  }

  /** Ends stdin, then SIGKILLs the child if it has not exited within `graceMs`. */
  async close(graceMs = 5_000): Promise<Deno.CommandStatus> {
    await this.endStdin();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const status = await Promise.race([
      this.child.status,
      new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), graceMs)),
    ]);
    clearTimeout(timer);
    if (status === undefined) {
      try {
        this.child.kill("SIGKILL");
      } catch { /* gone */ }
    }
    return await this.exited();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Parses the JSON text of a tool result's first text block. */
export function textJson(result: unknown): unknown {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content;
  const text = content?.find((c) => c.type === "text")?.text;
  assert.ok(text !== undefined, `tool result has a text block: ${JSON.stringify(result)}`);
  return JSON.parse(text);
}

/** Sleeps `ms` on the real timer. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
