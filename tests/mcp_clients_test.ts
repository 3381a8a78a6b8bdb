/**
 * Proves testing/mcp_clients.ts against the spike server (tests/helpers/spike_server.ts).
 *
 *   deno test --allow-env=OSTYPE,HOME,LOGNAME,PATH,SHELL,TERM,USER,NODE_V8_COVERAGE \
 *     --allow-run="$(deno eval 'console.log(Deno.execPath())')" --allow-net=127.0.0.1 tests/mcp_clients_test.ts
 */
import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import { tempDir } from "../testing/temp.ts";
import {
  connectLegacyV1,
  connectTaskHost,
  connectV2,
  DENO_CACHE_ENV_VARS,
  denoExecPath,
  type HttpTarget,
  type SpawnedHttpServer,
  spawnHttpServer,
  type StdioTarget,
  TASKS_EXTENSION_ID,
} from "../testing/mcp_clients.ts";

const REPO_ROOT = fromFileUrl(new URL("../", import.meta.url));
const SPIKE = fromFileUrl(new URL("./helpers/spike_server.ts", import.meta.url));
const SILENT = fromFileUrl(new URL("./helpers/silent_server.ts", import.meta.url));
const CACHE_ENV_PROBE = fromFileUrl(new URL("./helpers/cache_env_probe.ts", import.meta.url));

/** Stdio spike: an explicit deny flag keeps node:child_process from injecting -A. */
function stdioSpike(): StdioTarget {
  return {
    command: denoExecPath(),
    args: ["run", "--no-prompt", "--deny-net", SPIKE, "--stdio"],
    cwd: REPO_ROOT,
  };
}

async function withHttpSpike(
  fn: (target: HttpTarget, server: SpawnedHttpServer) => Promise<void>,
): Promise<void> {
  const server = await spawnHttpServer({
    command: denoExecPath(),
    args: ["run", "--no-prompt", "--allow-net=127.0.0.1", SPIKE, "--http", "0"],
    cwd: REPO_ROOT,
  });
  try {
    await fn({ url: server.url }, server);
  } finally {
    await server.close();
  }
}

function textOf(result: unknown): string | undefined {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content;
  return content?.find((block) => block.type === "text")?.text;
}

const targets: Array<[string, (fn: (target: StdioTarget | HttpTarget) => Promise<void>) => Promise<void>]> = [
  ["stdio", (fn) => fn(stdioSpike())],
  ["http", (fn) => withHttpSpike((target) => fn(target))],
];

for (const [kind, withTarget] of targets) {
  Deno.test(`v1 legacy client lists tools and calls echo (${kind})`, () =>
    withTarget(async (target) => {
      const client = await connectLegacyV1(target);
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((tool) => tool.name).sort(), ["echo", "slow"]);
        const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
        assert.equal(textOf(result), "hi");
        // legacy initialize result must not advertise the tasks extension
        const caps = client.getServerCapabilities() as Record<string, unknown> | undefined;
        assert.ok(caps !== undefined);
        assert.equal((caps["extensions"] as Record<string, unknown> | undefined)?.[TASKS_EXTENSION_ID], undefined);
        // and a legacy slow call is a normal result
        const slow = await client.callTool({ name: "slow", arguments: { ms: 1 } });
        assert.equal(textOf(slow), "slept 1ms");
      } finally {
        await client.close();
      }
    }));

  Deno.test(`v2 legacy client (${kind})`, () =>
    withTarget(async (target) => {
      await using conn = await connectV2(target, { era: "legacy" });
      assert.equal(conn.client.getProtocolEra(), "legacy");
      assert.equal(conn.pid === undefined, kind === "http");
      assert.equal(conn.client.getDiscoverResult(), undefined);
      assert.equal(conn.client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION_ID], undefined);
      const result = await conn.client.callTool({ name: "echo", arguments: { text: "legacy" } });
      assert.equal(textOf(result), "legacy");
      // tasks/* do not exist on the legacy era
      const raw = await conn.rawRequest("tasks/get", { taskId: "x" });
      assert.equal(raw.kind, "error");
      assert.equal(raw.kind === "error" ? raw.error.code : 0, -32601);
    }));

  Deno.test(`v2 modern client: discover, capability, non-declaring slow is a normal result (${kind})`, () =>
    withTarget(async (target) => {
      await using conn = await connectV2(target, { era: "modern" });
      assert.equal(conn.client.getProtocolEra(), "modern");
      assert.equal(conn.client.getNegotiatedProtocolVersion(), "2026-07-28");
      const discover = conn.client.getDiscoverResult();
      assert.ok(discover !== undefined, "server/discover happened");
      assert.deepEqual(discover.supportedVersions, ["2026-07-28"]);
      assert.deepEqual(conn.client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION_ID], {});
      const { tools } = await conn.client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ["echo", "slow"]);
      const slow = await conn.client.callTool({ name: "slow", arguments: { ms: 1 } });
      assert.equal(textOf(slow), "slept 1ms");
      // raw, without declaring the extension: still a normal result
      const raw = await conn.rawRequest("tools/call", { name: "slow", arguments: { ms: 1 } });
      assert.equal(raw.kind, "result");
      assert.equal(raw.kind === "result" ? raw.result["resultType"] : undefined, "complete");
      // raw, declaring it: a CreateTaskResult
      const task = await conn.rawRequest("tools/call", { name: "slow", arguments: { ms: 1 } }, {
        declareTasks: true,
      });
      assert.equal(task.kind === "result" ? task.result["resultType"] : undefined, "task");
    }));

  Deno.test(`task host: slow becomes a task and settles completed (${kind})`, () =>
    withTarget(async (target) => {
      await using host = await connectTaskHost(target);
      assert.equal(host.session.capabilities.execution, true);
      const call = await host.callToolAsTask("slow", { ms: 100 });
      assert.equal(call.kind, "task");
      assert.ok(call.taskId !== undefined);
      assert.equal(call.initial?.["resultType"], "task");
      assert.equal(call.initial?.["status"], "working");
      assert.equal(call.initial?.["pollIntervalMs"], 20);
      assert.equal(call.outcome.status, "completed");
      assert.equal(call.outcome.status === "completed" ? textOf(call.outcome.result) : "", "slept 100ms");
      assert.ok(call.polls >= 1, `polled ${call.polls} times`);
      assert.equal(host.tasksGetPolls, call.polls);
      assert.equal(call.lastTask?.status, "completed");

      // raw task requests
      const got = await host.tasksGet(call.taskId);
      assert.equal(got.kind === "result" ? got.result["status"] : undefined, "completed");
      const cancelled = await host.tasksCancel(call.taskId);
      assert.deepEqual(cancelled.kind === "result" ? cancelled.result["resultType"] : undefined, "complete");
      const unknown = await host.tasksGet("no-such-task");
      assert.equal(unknown.kind === "error" ? unknown.error.code : 0, -32602);
      const undeclared = await host.tasksGet(call.taskId, { declareTasks: false });
      assert.equal(undeclared.kind === "error" ? undeclared.error.code : 0, -32021);
      const removed = await host.rawRequest("tasks/list", {}, { declareTasks: true });
      assert.equal(removed.kind === "error" ? removed.error.code : 0, -32601);
      const internal = await host.rawRequest("spike/throw", { kind: "plain" });
      assert.deepEqual(internal, { kind: "error", error: { code: -32603, message: "boom" } });
      const withData = await host.rawRequest("spike/throw", { kind: "protocol" });
      assert.deepEqual(withData, {
        kind: "error",
        error: { code: -32603, message: "internal", data: { detail: "x" } },
      });
      // echo through the session is an immediate result
      const echo = await host.callToolAsTask("echo", { text: "now" });
      assert.equal(echo.kind, "immediate");
      assert.equal(echo.outcome.status === "completed" ? textOf(echo.outcome.result) : "", "now");
    }));
}

Deno.test("modern request with an unsupported protocol version gets -32022 (http)", () =>
  withHttpSpike(async (target) => {
    await using conn = await connectV2(target, { era: "modern" });
    const raw = await conn.rawRequest("tools/list", {}, {
      meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
    });
    assert.equal(raw.kind, "error");
    if (raw.kind === "error") {
      assert.equal(raw.error.code, -32022);
      assert.deepEqual(raw.error.data, { supported: ["2026-07-28"], requested: "2099-01-01" });
    }
  }));

Deno.test("closing a stdio connection ends stdin and the child exits", async () => {
  const conn = await connectV2(stdioSpike(), { era: "modern" });
  const pid = conn.pid;
  assert.ok(pid !== undefined);
  await conn.close();
  assert.equal(conn.pid, undefined);
  assert.throws(() => Deno.kill(pid, "SIGCONT"), "child is gone");
});

Deno.test("assertExplicitPermissionFlags refuses a deno run without permission flags", async () => {
  await assert.rejects(
    connectV2({ command: denoExecPath(), args: ["run", "--no-prompt", SPIKE, "--stdio"] }, { era: "legacy" }),
    /explicit permission flag/,
  );
});

Deno.test({
  name: "v2 modern over stdio with the SDK's default sibling probe (two spawns)",
  // The SDK's sibling reaper leaves an unref'd 1 s timer behind.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using conn = await connectV2(stdioSpike(), { era: "modern", stdioProbe: "sibling" });
    assert.equal(conn.client.getProtocolEra(), "modern");
    const result = await conn.client.callTool({ name: "echo", arguments: { text: "sib" } });
    assert.equal(textOf(result), "sib");
  },
});

/** True while `pid` names a process (signal 0 is not offered; SIGCONT does nothing to a running one). */
function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

for (const sdk of ["v1", "v2"] as const) {
  Deno.test(`a failed connect leaves no child behind, even one that ignores the end of its stdin (${sdk})`, async () => {
    await using dir = await tempDir("longcall-silent-");
    const pidFile = dir.file("pid");
    const target: StdioTarget = {
      command: denoExecPath(),
      args: ["run", "--no-prompt", `--allow-write=${pidFile}`, SILENT, pidFile],
      cwd: REPO_ROOT,
    };
    // Long enough for the child to have written its pid on a loaded machine (it never answers anyway).
    const connect = sdk === "v1"
      ? connectLegacyV1(target, { connectTimeoutMs: 2_000 })
      : connectV2(target, { era: "legacy", connectTimeoutMs: 2_000 });
    await assert.rejects(connect, /timed out/i);
    const pid = Number(await Deno.readTextFile(pidFile));
    assert.ok(Number.isInteger(pid) && pid > 0, `pid file: ${pid}`);
    // Both SDKs close the transport on their own when connecting fails, with unref'd kill timers; before the
    // helpers killed it, this child outlived its host (a demo that failed this way left its servers running).
    assert.equal(alive(pid), false, `child ${pid} still running after the failed connect`);
  });
}

Deno.test("a stdio child finds Deno's cache through DENO_DIR when its HOME has none", async () => {
  assert.deepEqual([...DENO_CACHE_ENV_VARS], ["DENO_DIR", "XDG_CACHE_HOME"]);
  await using dir = await tempDir("longcall-cache-env-");
  const info = await new Deno.Command(denoExecPath(), { args: ["info", "--json"], stdout: "piped" }).output();
  const denoDir = (JSON.parse(new TextDecoder().decode(info.stdout)) as { denoDir: string }).denoDir;
  // The probe and the server it starts run with --cached-only: a server that looked in HOME's (empty) cache
  // fails at once instead of downloading every package, as it did when only the SDK's defaults reached it.
  const out = await new Deno.Command(denoExecPath(), {
    args: [
      "run",
      "--no-prompt",
      "--cached-only",
      "--allow-read",
      `--allow-write=${dir.path}`,
      "--allow-env",
      `--allow-run=${denoExecPath()}`,
      CACHE_ENV_PROBE,
      dir.file("jobs.db"),
    ],
    cwd: REPO_ROOT,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: dir.file("home"), DENO_DIR: denoDir, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  assert.equal(out.code, 0, text(out.stderr));
  const { tools } = JSON.parse(text(out.stdout).trim().split("\n").pop() ?? "") as { tools: number };
  assert.ok(tools >= 1, text(out.stdout));
});
