/**
 * Memory goes back when a server is quiet (issue 14, src/base/idle_collect.ts): the shipped server,
 * a real child with the launch line's flags, collects in the serving thread and in the network worker
 * once quiet (the worker not before the quiet time after its job's end, a sync against the fake GitHub),
 * and keeps answering; without `--expose-gc` it says so at start. HTTP reports a request's arrival and
 * its response being handed back as activity.
 */

import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/server";
import { IDLE_COLLECT_AFTER_MS } from "../src/base/limits.ts";
import { silentLogger } from "../src/base/log.ts";
import { launchFlags, netHostOf, permissionFlags } from "../src/cli/permissions.ts";
import { SYNC_KIND } from "../src/github/sync_kind.ts";
import { startFakeGitHub } from "../testing/fake_github.ts";
import { serveOnHttp } from "../src/mcp/transports.ts";
import { denoExecPath, MODERN_PROTOCOL_VERSION } from "../testing/mcp_clients.ts";
import { tempDir, waitFor } from "../testing/temp.ts";
import { RawStdioServer, REPO_ROOT } from "./helpers/longcall_procs.ts";

/** The shipped server from source on a temp database, debug logs on stderr; `options.env` adds to its environment. */
function shippedServer(
  db: string,
  flags: readonly string[],
  options: { env?: Record<string, string> } = {},
): RawStdioServer {
  const { env = {} } = options;
  return new RawStdioServer({
    command: denoExecPath(),
    args: [
      "run",
      ...flags,
      `${REPO_ROOT}src/main.ts`,
      "serve",
      "--db",
      db,
      "--linger-ms",
      "0",
    ],
    cwd: REPO_ROOT,
    env: { LONGCALL_LOG: "debug", LONGCALL_HTTP_TOKEN: "", GITHUB_TOKEN: "", GH_TOKEN: "", ...env },
  });
}

async function initialize(server: RawStdioServer): Promise<void> {
  await server.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "idle-collect-test", version: "0" },
  });
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

const COLLECTED = (scope: string) =>
  new RegExp(
    `^(\\S+) debug \\[${scope}\\] collected garbage after idling \\{"heap_before":(\\d+),"heap_after":(\\d+),"ms":(\\d+)\\}$`,
    "m",
  );

Deno.test("serve: once quiet, the serving thread and the network worker each collect, and serving goes on", async () => {
  await using dir = await tempDir();
  await using server = shippedServer(`${dir.path}/jobs.db`, launchFlags());
  await initialize(server);
  // Requests keep the serving thread active for longer than the quiet time.
  const sent: number[] = [];
  const until = Date.now() + IDLE_COLLECT_AFTER_MS * 1.5;
  while (Date.now() < until) {
    sent.push(Date.now());
    await server.request("tools/list");
  }
  const lastSent = sent.at(-1)!;
  const collections = (scope: string) =>
    [...server.stderr().matchAll(new RegExp(COLLECTED(scope).source, "gm"))].map((m) => ({
      at: Date.parse(m[1]!),
      before: Number(m[2]),
      after: Number(m[3]),
      ms: Number(m[4]),
    }));
  // Waiting for the log lines (the observable event): the serving thread's collection after the last request,
  // the worker's (it had no message since its start-up) at any time.
  const timeoutMs = IDLE_COLLECT_AFTER_MS * 5;
  for (const [scope, after] of [["longcall", lastSent], ["longcall:worker", 0]] as const) {
    const c = await waitFor(`${scope} to collect`, () => collections(scope).find((c) => c.at > after), { timeoutMs });
    assert.ok(c.after < c.before, `${scope}: the committed heap shrank (${c.before} -> ${c.after} bytes)`);
  }
  // The serving thread never began a collection sooner than the quiet time after a request it was sent (the
  // line is logged when the collection ends, `ms` later; log times and `ms` are rounded, so 3 ms of slack).
  for (const c of collections("longcall")) {
    const began = c.at - c.ms - 1;
    const previous = sent.filter((t) => t <= began).at(-1);
    if (previous !== undefined) {
      assert.ok(
        began - previous >= IDLE_COLLECT_AFTER_MS - 3,
        `began collecting ${began - previous} ms after a request`,
      );
    }
  }
  const listed = await server.request("tools/list");
  assert.ok(Array.isArray((listed["result"] as { tools?: unknown })?.tools), "still serving after collecting");
});

Deno.test("serve: the network worker collects only a quiet time after its job's end", async () => {
  await using dir = await tempDir();
  // A sync of 2,000 threads (20 pages, progress after each) grows the worker's heap far past the growth
  // threshold, so a collection must follow the job; it may not come sooner than the quiet time after its end.
  const fake = await startFakeGitHub({ generatedRepos: { "octo/big": 2_000 } });
  try {
    await using server = shippedServer(dir.file("sync.db"), launchFlags({ githubHosts: [netHostOf(fake.url)] }), {
      env: { LONGCALL_GITHUB_API_URL: fake.url, LONGCALL_GITHUB_TOKEN_FILE: "" },
    });
    await initialize(server);
    const ref = await server.request("tools/call", { name: SYNC_KIND, arguments: { repositories: ["octo/big"] } });
    const id = (ref["result"] as { structuredContent: { id: string } }).structuredContent.id;
    const ended = await waitFor("the sync to end", async () => {
      const got = await server.request("tools/call", { name: "jobs.get", arguments: { ids: [id], wait_ms: 5_000 } });
      const item = (got["result"] as { structuredContent: { items: { value?: Record<string, unknown> }[] } })
        .structuredContent.items[0]?.value;
      if (item?.["execution_state"] !== "terminal") return undefined;
      assert.equal(item["outcome"], "succeeded", JSON.stringify(item));
      return Date.parse(String(item["completed_at"]));
    }, { timeoutMs: 60_000 });
    // When each collection began: the line is logged at its end, `ms` later (rounded, hence the slack below).
    const collections = () =>
      [...server.stderr().matchAll(new RegExp(COLLECTED("longcall:worker").source, "gm"))].map((m) => ({
        at: Date.parse(m[1]!),
        began: Date.parse(m[1]!) - Number(m[4]) - 1,
      }));
    const after = await waitFor("the worker to collect", () => collections().find((c) => c.at > ended), {
      timeoutMs: 20_000,
    });
    assert.ok(
      after.began - ended >= IDLE_COLLECT_AFTER_MS - 3,
      `began collecting ${after.began - ended} ms after the job ended`,
    );
  } finally {
    await fake.close();
  }
});

Deno.test("serve: without --expose-gc both threads say at start that they will not collect", async () => {
  await using dir = await tempDir();
  await using server = shippedServer(`${dir.path}/jobs.db`, permissionFlags());
  await initialize(server);
  await server.request("tools/list");
  const off = (scope: string) => `debug [${scope}] V8 exposes no gc function (--expose-gc): memory is not collected`;
  await waitFor("both threads to report no gc", () => {
    const err = server.stderr();
    return err.includes(off("longcall")) && err.includes(off("longcall:worker"));
  });
});

Deno.test("serveOnHttp(): onActivity hears a request arrive and its response handed back, refused ones too", async () => {
  let activity = 0;
  const serving = serveOnHttp(() => new McpServer({ name: "t", version: "0" }, { capabilities: { tools: {} } }), {
    hostname: "127.0.0.1",
    port: 0,
    token: "tok",
    log: silentLogger,
    onActivity: () => activity++,
  });
  try {
    const url = `http://127.0.0.1:${await serving.port}/mcp`;
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
    };
    const refused = await fetch(url, { method: "POST", headers, body: "{}" });
    await refused.body?.cancel();
    assert.equal(refused.status, 401);
    assert.equal(activity, 2);
    const missing = await fetch(`${url}/nope`, { method: "GET" });
    await missing.body?.cancel();
    assert.equal(missing.status, 404);
    assert.equal(activity, 4);
  } finally {
    await serving.close();
  }
});
