import assert from "node:assert/strict";
import { type Command, commandHelp, intOption, parseCommandArgs } from "./command.ts";
import { UsageError } from "./exit.ts";

const cmd: Command = {
  name: "demo",
  summary: "Does a demo.",
  usage: "longcall demo [options] ARG",
  description: "Longer words.",
  options: {
    db: { type: "string", help: "Database path", value: "PATH" },
    json: { type: "boolean", short: "j", help: "Print JSON" },
    repo: { type: "string", multiple: true, help: "A repository (repeatable)", value: "OWNER/REPO" },
  },
  examples: ["longcall demo --db x.db a"],
  run: () => Promise.resolve(0),
};

Deno.test("parseCommandArgs() parses strings, booleans, short flags, repeated options and positionals", () => {
  const r = parseCommandArgs(cmd, ["--db", "a.db", "-j", "--repo", "a/b", "--repo", "c/d", "one", "two"]);
  assert.deepEqual({ ...r.values }, { db: "a.db", json: true, repo: ["a/b", "c/d"] });
  assert.deepEqual(r.positionals, ["one", "two"]);
  assert.equal(r.help, false);
  assert.equal(parseCommandArgs(cmd, ["-h"]).help, true);
  assert.equal(parseCommandArgs(cmd, ["--help"]).help, true);
});

Deno.test("parseCommandArgs() refuses an unknown option and a string option without a value as UsageError", () => {
  for (const argv of [["--nope"], ["--db"], ["--json=1"]]) {
    assert.throws(() => parseCommandArgs(cmd, argv), (err: unknown) => err instanceof UsageError, argv.join(" "));
  }
});

Deno.test("parseCommandArgs(): a command that takes options only refuses an argument; --help still answers", () => {
  const optionsOnly = { ...cmd, acceptsArguments: false };
  assert.throws(
    () => parseCommandArgs(optionsOnly, ["running"]),
    (e) => e instanceof UsageError && e.message === `Cannot use the argument "running": ${cmd.name} takes options only`,
  );
  assert.equal(parseCommandArgs(optionsOnly, ["--help", "x"]).help, true);
  assert.deepEqual(parseCommandArgs(optionsOnly, []).positionals, []);
  assert.deepEqual(parseCommandArgs(cmd, ["a"]).positionals, ["a"], "others take arguments");
});

Deno.test("intOption() takes decimal digits only: 1e2, 0x10, padded and 100.0 are refused", () => {
  for (const bad of ["1e2", "0x10", " 5 ", "100.0", "", "+5"]) {
    assert.throws(
      () => intOption(bad, { name: "limit", min: 0, max: 1000, fallback: 1 }),
      UsageError,
      JSON.stringify(bad),
    );
  }
  assert.equal(intOption("-3", { name: "n", min: -5, max: 5, fallback: 1 }), -3);
});

Deno.test("parseCommandArgs(): an unknown option is named with the command's options, in one balanced line", () => {
  assert.throws(
    () => parseCommandArgs(cmd, ["--bogus"]),
    (e) =>
      e instanceof UsageError &&
      e.message === "Cannot use --bogus: demo has no such option (its options: --db, --json, --repo)",
  );
});

Deno.test("intOption() names options.from in its message when the value came from elsewhere", () => {
  assert.throws(
    () => intOption("x", { name: "linger-ms", min: 0, max: 5, fallback: 0, from: "LONGCALL_LINGER_MS" }),
    (e) => e instanceof UsageError && e.message.startsWith("Cannot use LONGCALL_LINGER_MS: expected an integer"),
  );
});

Deno.test("intOption() accepts min and max, refuses min - 1 and max + 1, and falls back when unset", () => {
  assert.equal(intOption("1", { name: "limit", min: 1, max: 100, fallback: 20 }), 1);
  assert.equal(intOption("100", { name: "limit", min: 1, max: 100, fallback: 20 }), 100);
  assert.equal(intOption(undefined, { name: "limit", min: 1, max: 100, fallback: 20 }), 20);
  for (const bad of ["0", "101", "1.5", "ten", "", true]) {
    assert.throws(
      () => intOption(bad, { name: "limit", min: 1, max: 100, fallback: 20 }),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message === `Cannot use --limit: expected an integer from 1 to 100, current value is ${bad}`,
      String(bad),
    );
  }
});

Deno.test("commandHelp() lists usage, summary, description, every option with its value, --help and the examples", () => {
  const help = commandHelp(cmd);
  const lines = help.split("\n");
  assert.equal(lines[0], "Usage: longcall demo [options] ARG");
  assert.ok(lines.includes("Does a demo."));
  assert.ok(lines.includes("Longer words."));
  assert.ok(lines.some((l) => /^ {6}--db PATH +Database path$/.test(l)), help);
  assert.ok(lines.some((l) => /^ {2}-j, --json +Print JSON$/.test(l)), help);
  assert.ok(lines.some((l) => /^ {2}-h, --help +Show this help$/.test(l)), help);
  assert.deepEqual(lines.slice(-2), ["Examples:", "  longcall demo --db x.db a"]);
  const bare = commandHelp({ ...cmd, description: undefined, examples: [] } as unknown as Command);
  assert.doesNotMatch(bare, /Examples:/);
  assert.doesNotMatch(bare, /Longer words/);
});
