/**
 * The CLI entry's module loading (src/cli/main.ts): `serve` alone loads none of the other commands, and a
 * module that cannot load is one line on stderr and exit 1, not an uncaught error.
 */

import assert from "node:assert/strict";
import { EXIT_ERROR, EXIT_OK } from "./exit.ts";
import type { Command } from "./command.ts";
import { type CliModules, main, nearestCommand } from "./main.ts";

/** Runs `main` with console.error captured. */
async function mainCapturing(argv: string[], modules: CliModules): Promise<{ code: number; errors: string[] }> {
  const errors: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void errors.push(args.map(String).join(" "));
  try {
    return { code: await main(argv, modules), errors };
  } finally {
    console.error = original;
  }
}

const unloadable: CliModules = {
  mcp: () => Promise.reject(new Error("Module not found: serving.ts")),
  commands: () => Promise.reject(new Error("Module not found: commands.ts")),
  tasks: () => Promise.reject(new Error("Module not found: adapter.ts")),
};

Deno.test("main: a command module that cannot load is one stderr line and exit 1", async () => {
  const { code, errors } = await mainCapturing(["jobs", "list"], unloadable);
  assert.equal(code, EXIT_ERROR);
  assert.deepEqual(errors, ["longcall: internal error: cannot load its commands: Module not found: commands.ts"]);
});

Deno.test("main: serve --help loads neither the MCP layer nor the other commands", async () => {
  const loads: string[] = [];
  const counting: CliModules = {
    mcp: () => (loads.push("mcp"), unloadable.mcp()),
    commands: () => (loads.push("commands"), unloadable.commands()),
    tasks: () => (loads.push("tasks"), unloadable.tasks()),
  };
  const log = console.log;
  console.log = () => {};
  try {
    assert.equal(await main(["serve", "--help"], counting), EXIT_OK);
  } finally {
    console.log = log;
  }
  assert.deepEqual(loads, []);
});

Deno.test("nearestCommand(): a unique prefix, else the nearest within two edits, else nothing", () => {
  const cmds = ["serve", "jobs list", "jobs get", "checks watch", "sync", "search", "permissions", "setup"].map(
    (name): Command => ({
      name,
      summary: "",
      usage: "",
      options: {},
      examples: [],
      run: () => Promise.resolve(EXIT_OK),
    }),
  );
  assert.equal(nearestCommand("job", cmds), "jobs", "a prefix");
  assert.equal(nearestCommand("permission", cmds), "permissions");
  assert.equal(nearestCommand("jobss", cmds), "jobs", "it begins with a command");
  assert.equal(nearestCommand("serach", cmds), "search", "two edits");
  assert.equal(nearestCommand("Sync", cmds), "sync", "case is ignored");
  assert.equal(nearestCommand("se", cmds), undefined, "a prefix of three commands, and no command two edits away");
  assert.equal(nearestCommand("frobnicate", cmds), undefined);
  assert.equal(nearestCommand("x", cmds), undefined, "one character");
});
