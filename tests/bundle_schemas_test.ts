/**
 * The shipped bundle advertises its tools' JSON Schemas precomputed at build time
 * (scripts/tool_schemas.ts, embedded by scripts/build.ts; see src/mcp/advertised.ts): its
 * `tools/list` must be exactly what the server from source converts at run time (listed by the v1 SDK
 * Client), and a second listing must not change.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/bundle_schemas_test.ts
 */

import assert from "node:assert/strict";
import { bundleTo } from "../scripts/build.ts";
import { productToolSchemas } from "../scripts/tool_schemas.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { REPO_ROOT } from "./helpers/longcall_procs.ts";
import { connectLegacyV1, denoExecPath } from "../testing/mcp_clients.ts";
import { tempDir } from "../testing/temp.ts";

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

Deno.test("the bundle's precomputed tool schemas equal the ones the server converts from source", async () => {
  await using dir = await tempDir("longcall-bundle-schemas-");
  const bundle = dir.file("longcall.js");
  await bundleTo(bundle);
  const fromBundle = await listTwice(bundle, dir.file("b.db"));
  const fromSource = await listTwice(`${REPO_ROOT}/src/main.ts`, dir.file("s.db"));
  assert.ok(fromSource.first.length >= 5, "the product lists its tools");
  assert.deepEqual(fromBundle.first, fromSource.first);
  assert.deepEqual(fromBundle.second, fromBundle.first, "a second listing is the same");
  assert.deepEqual(fromSource.second, fromSource.first, "a second listing is the same");
  // The bundle really carries every one of them (tests/advertised_schemas_test.ts proves the server
  // then answers from them). The bundle is minified, so no function name can be looked for: each
  // precomputed key is, as the embedded JSON text spells it inside a JS string literal (JSON writes
  // the key's NUL separators as \u0000, whose backslash the literal doubles).
  const text = await Deno.readTextFile(bundle);
  for (const key of Object.keys(await productToolSchemas())) {
    const tool = key.split("\u0000")[0] as string;
    assert.ok(fromSource.first.some((t) => t.name === tool), `${tool}: precomputed and listed`);
    const spelled = JSON.stringify(key).slice(1, -1).replaceAll("\\", "\\\\").split('"')[0] as string;
    assert.ok(text.includes(spelled), `${tool}: its precomputed schema ${spelled} is embedded in the bundle`);
  }
});
