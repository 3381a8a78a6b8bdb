/**
 * The CLI's `--json` answers that mirror an MCP tool's are that tool's answer: `jobs get --json` (concise,
 * detailed, with a wait) and `jobs cancel --json` validate against jobs.get's and jobs.cancel's advertised
 * output schemas, `search --json` against corpus.search_threads'. The schemas are the ones the server lists
 * (src/mcp/tool_schemas.json, checked fresh by tests/advertised_schemas_test.ts), validated with Ajv
 * (draft 2020-12). Real child processes with the shipped flags, on a database prepared in-process.
 */

import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { systemClock } from "../src/base/clock.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { JobControl } from "../src/jobs/control.ts";
import { ADVERTISED_TARGET, schemaKey } from "../src/mcp/advertised.ts";
import { toolSchemas } from "../src/mcp/serving.ts";
import { openTempStore, tempDir } from "../testing/temp.ts";
import { testRegistry } from "../testing/test_kinds.ts";

const MAIN = new URL("../src/main.ts", import.meta.url).pathname;
const ajv = new Ajv2020({ strict: true, allErrors: true });

/** The JSON a CLI command prints, and its exit code. */
async function cliJson(args: string[]): Promise<{ code: number; json: unknown }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags(), MAIN, ...args, "--json"],
    env: { LONGCALL_LOG: "error" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.ok(stdout.trim().startsWith("{"), `${args.join(" ")}: ${stdout}${new TextDecoder().decode(out.stderr)}`);
  return { code: out.code, json: JSON.parse(stdout) };
}

/** Asserts `value` validates against `tool`'s advertised output schema. */
function assertAnswerOf(tool: string, value: unknown): void {
  const schema = toolSchemas[schemaKey(tool, "output", "output", { target: ADVERTISED_TARGET })];
  assert.ok(schema !== undefined, `${tool} advertises an output schema`);
  const validate = ajv.compile(schema);
  assert.ok(validate(value), `${tool}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 800)}`);
}

Deno.test("jobs get/cancel --json print exactly what jobs.get and jobs.cancel answer (their advertised schemas)", async () => {
  await using dir = await tempDir("longcall-cli-json-");
  const db = dir.file("jobs.db");
  const ids: string[] = [];
  {
    using store = openTempStore(db);
    const control = new JobControl(store.rows, testRegistry(), { clock: systemClock });
    for (let i = 0; i < 2; i++) ids.push((await control.submit("echo", { i })).id);
  }
  const [a, b] = ids as [string, string];
  const unknown = "0123456789ab-00000000-0000-4000-8000-000000000000";
  for (const extra of [[], ["--detailed"], ["--wait-ms", "1"]]) {
    const got = await cliJson(["jobs", "get", a, unknown, "not-an-id", ...extra, "--db", db]);
    assert.equal(got.code, 3, "not every id was found");
    assertAnswerOf("jobs.get", got.json);
  }
  const cancelled = await cliJson(["jobs", "cancel", b, unknown, "--db", db]);
  assertAnswerOf("jobs.cancel", cancelled.json);
});

Deno.test("search --json prints exactly what corpus.search_threads answers (its advertised schema)", async () => {
  await using dir = await tempDir("longcall-cli-json-");
  const db = dir.file("corpus.db");
  openTempStore(db)[Symbol.dispose]();
  const found = await cliJson(["search", "flaky", "test", "--repo", "never/synced", "--db", db]);
  assert.equal(found.code, 0);
  assertAnswerOf("corpus.search_threads", found.json);
  const everywhere = await cliJson(["search", "flaky", "--kind", "issue", "--state", "open", "--db", db]);
  assertAnswerOf("corpus.search_threads", everywhere.json);
});
