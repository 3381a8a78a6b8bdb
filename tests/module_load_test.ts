/**
 * scripts/bench/module_load.ts: the bench row that measures what loading our modules one by one costs a
 * start-up from source. Its refusals, its count of the modules a path loads statically, and one real round.
 */

import assert from "node:assert/strict";
import { measureModuleLoad, sourceModulesOf } from "../scripts/bench/module_load.ts";
import { launchFlags } from "../src/cli/permissions.ts";
import { tempDir } from "../testing/temp.ts";

const src = (path: string) => new URL(`../src/${path}`, import.meta.url).href;

Deno.test("measureModuleLoad() refuses a round count that is not a positive integer", async () => {
  await using dir = await tempDir();
  for (const runs of [0, -1, 1.5, Number.NaN]) {
    await assert.rejects(
      () => measureModuleLoad(dir.path, { flags: launchFlags(), runs }),
      (err: unknown) => err instanceof RangeError && err.message.includes(`current value is ${runs}`),
    );
  }
});

Deno.test("sourceModulesOf() counts the modules of src/ an entry loads statically, not those it imports dynamically", async () => {
  await using dir = await tempDir();
  const entry = dir.file("entry.ts");
  await Deno.writeTextFile(
    entry,
    `export { VERSION } from "${src("base/version.ts")}";\n` +
      `export const later = () => import("${src("cli/main.ts")}");\n`,
  );
  // The entry itself is outside src/; version.ts imports nothing.
  assert.equal(await sourceModulesOf(entry), 1);
  await Deno.writeTextFile(entry, `export * from "${src("cli/main.ts")}";\n`);
  assert.ok(await sourceModulesOf(entry) > 20, "the CLI's static graph is many modules");
});

Deno.test("measureModuleLoad() with one round: both sides import, and the serve path is many modules", async () => {
  await using dir = await tempDir();
  const load = await measureModuleLoad(dir.path, { flags: launchFlags(), runs: 1 });
  assert.equal(load.runs, 1);
  assert.ok(load.sourceMs > 0 && load.bundledMs > 0, JSON.stringify(load));
  // src/cli/main.ts and src/mcp/serving.ts with their static imports: the MCP layer and the CLI.
  assert.ok(load.modules > 50, `modules: ${load.modules}`);
  const bundle = await Deno.readTextFile(dir.file("serve_path.js"));
  assert.match(bundle, /from "@modelcontextprotocol\/server"/, "the SDK stays outside the bundle");
  assert.match(bundle, /from "zod"/, "zod stays outside the bundle");
  // Only what serve loads before it answers: not the other commands, the worker's code or the Tasks adapter.
  for (const absent of ["otherCommands", "runNetworkWorker", "registerTasksExtension"]) {
    assert.doesNotMatch(bundle, new RegExp(`function ${absent}\\(`), `${absent} is not on the serve path`);
  }
});
