/**
 * The shipped bundle advertises its tools' JSON Schemas precomputed (src/mcp/tool_schemas.json,
 * checked against a fresh conversion when scripts/build.ts bundles; see src/mcp/advertised.ts): its
 * `tools/list` must be exactly what the server from source lists (listed by the v1 SDK Client), both
 * must be the committed set, and a second listing must not change. Both tests run one bundle, built once.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/bundle_schemas_test.ts
 */

import assert from "node:assert/strict";
import { bundleTo } from "../scripts/build.ts";
import { TOOL_SCHEMAS_FILE } from "../scripts/tool_schemas.ts";
import { ADVERTISED_TARGET, schemaKey } from "../src/mcp/advertised.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { RawStdioServer, REPO_ROOT } from "./helpers/longcall_procs.ts";
import { connectLegacyV1, denoExecPath } from "../testing/mcp_clients.ts";
import { tempDir, waitFor } from "../testing/temp.ts";
import { ADVERTISED_CHECK_DELAY_MS } from "../src/base/limits.ts";

const CLEAN_ENV = {
  GITHUB_TOKEN: "",
  GH_TOKEN: "",
  LONGCALL_GITHUB_TOKEN_FILE: "",
  LONGCALL_DB: "",
  LONGCALL_LOG: "error",
};

async function listTwice(entry: string, db: string) {
  const client = await connectLegacyV1({
    command: denoExecPath(),
    args: ["run", ...permissionFlags(), entry, "serve", "--linger-ms", "0", "--db", db],
    env: CLEAN_ENV,
    cwd: REPO_ROOT,
  });
  try {
    const first = await client.listTools();
    const second = await client.listTools();
    return { first: first.tools, second: second.tools };
  } finally {
    await client.close();
  }
}

/** The shipped bundle, built once for this file's tests (into a directory removed when the run ends). */
let built: Promise<string> | undefined;
function shippedBundle(): Promise<string> {
  built ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "longcall-bundle-schemas-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    const bundle = `${dir}/longcall.js`;
    await bundleTo(bundle);
    return bundle;
  })();
  return built;
}

Deno.test("the bundle and the server from source list exactly the committed tool schemas, twice alike", async () => {
  await using dir = await tempDir("longcall-bundle-schemas-");
  const bundle = await shippedBundle();
  const fromBundle = await listTwice(bundle, dir.file("b.db"));
  const fromSource = await listTwice(`${REPO_ROOT}/src/main.ts`, dir.file("s.db"));
  assert.ok(fromSource.first.length >= 5, "the product lists its tools");
  assert.deepEqual(fromBundle.first, fromSource.first);
  assert.deepEqual(fromBundle.second, fromBundle.first, "a second listing is the same");
  assert.deepEqual(fromSource.second, fromSource.first, "a second listing is the same");
  // Both list exactly the committed set (src/mcp/tool_schemas.json): the bundle trusts it without
  // converting, the server from source answers from it and checks it (tests/advertised_schemas_test.ts).
  const key = (tool: string, slot: "input" | "output") =>
    schemaKey({ tool, slot, io: slot }, { target: ADVERTISED_TARGET });
  const committed = JSON.parse(await Deno.readTextFile(TOOL_SCHEMAS_FILE)) as Record<string, unknown>;
  const listed: Record<string, unknown> = {};
  for (const t of fromBundle.first) {
    listed[key(t.name, "input")] = t.inputSchema;
    if (t.outputSchema !== undefined) listed[key(t.name, "output")] = t.outputSchema;
  }
  // The SDK lists an object schema with `type: "object"`, which zod's conversion leaves out of some.
  assert.deepEqual(Object.keys(listed).sort(), Object.keys(committed).sort());
  for (const [k, schema] of Object.entries(committed)) {
    assert.deepEqual(listed[k], { type: "object", ...(schema as Record<string, unknown>) }, k);
  }
});

/**
 * Lists tools, then pings, over raw lines with debug logging; everything the server wrote to stderr once it
 * has exited. With `options.untilChecked`, waits for the check of the precomputed schemas before ending stdin.
 */
async function listThenPing(entry: string, db: string, options: { untilChecked?: boolean } = {}): Promise<string> {
  const { untilChecked = false } = options;
  const server = new RawStdioServer({
    command: denoExecPath(),
    args: ["run", ...permissionFlags(), entry, "serve", "--linger-ms", "0", "--db", db],
    env: { ...CLEAN_ENV, LONGCALL_LOG: "debug" },
    cwd: REPO_ROOT,
  });
  try {
    await server.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "trust-test", version: "0" },
    });
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await server.request("tools/list");
    await server.request("ping");
    if (untilChecked) {
      await waitFor("the check of the precomputed schemas", () => /equal their conversion/.test(server.stderr()));
    }
  } finally {
    await server.endStdin();
    await server.exited();
  }
  return server.stderr();
}

Deno.test("the bundle trusts its precomputed schemas and never checks them; from source the same listing is checked", async () => {
  await using dir = await tempDir("longcall-bundle-trust-");
  const bundle = await shippedBundle();
  const fromSource = await listThenPing(`${REPO_ROOT}/src/main.ts`, dir.file("s.db"), { untilChecked: true });
  assert.match(
    fromSource,
    new RegExp(`checking them against their conversion later.*"after_ms":${ADVERTISED_CHECK_DELAY_MS}`),
    "from source: scheduled",
  );
  assert.match(fromSource, /the precomputed tool schemas equal their conversion/, "from source: checked");
  // A check is scheduled (and logged) while the listing is answered, so it would be in the stderr of a server
  // that has exited since.
  const fromBundle = await listThenPing(bundle, dir.file("b.db"));
  assert.match(fromBundle, /serving/, "the bundle logged at debug level");
  assert.doesNotMatch(
    fromBundle,
    /checking them against their conversion|equal their conversion|is stale|could not convert/,
    "the bundle: never checked",
  );
});
