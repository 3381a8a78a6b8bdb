/**
 * The default database path per platform (issue 15: a binary launched by Claude Desktop on
 * Windows has no HOME), with the OS and the environment injected, and the variables it reads
 * in the single --allow-env list. The same start-up in a real child: tests/config_test.ts.
 */

import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import { defaultDatabasePath, ENV_VARS, type EnvVar, resolveDbPath } from "./config.ts";
import { permissionFlags } from "./permissions.ts";

Deno.test("defaultDatabasePath() on Windows is %LOCALAPPDATA%\\longcall\\longcall.db and ignores HOME", () => {
  assert.equal(
    defaultDatabasePath("windows", { LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local", HOME: "/home/ada" }),
    "C:\\Users\\ada\\AppData\\Local\\longcall\\longcall.db",
  );
  assert.equal(
    defaultDatabasePath("windows", { LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local\\" }),
    "C:\\Users\\ada\\AppData\\Local\\longcall\\longcall.db",
    "a trailing separator is not doubled",
  );
});

Deno.test("defaultDatabasePath() on Windows without LOCALAPPDATA is an invalid_argument naming the variable", () => {
  for (const env of [{}, { LOCALAPPDATA: "" }, { HOME: "C:\\Users\\ada", XDG_DATA_HOME: "C:\\data" }]) {
    assert.throws(() => defaultDatabasePath("windows", env), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.code, "invalid_argument");
      assert.match(err.message, /on windows: LOCALAPPDATA is not set; pass --db PATH or set LONGCALL_DB/);
      return true;
    });
  }
});

Deno.test("defaultDatabasePath() on macOS is ~/Library/Application Support/longcall, not XDG", () => {
  assert.equal(
    defaultDatabasePath("darwin", { HOME: "/Users/ada", XDG_DATA_HOME: "/Users/ada/.xdg" }),
    "/Users/ada/Library/Application Support/longcall/longcall.db",
  );
  assert.throws(() => defaultDatabasePath("darwin", { XDG_DATA_HOME: "/x" }), /on darwin: HOME is not set/);
});

Deno.test("defaultDatabasePath() on Linux is $XDG_DATA_HOME/longcall, else ~/.local/share/longcall", () => {
  assert.equal(
    defaultDatabasePath("linux", { XDG_DATA_HOME: "/data/", HOME: "/home/ada" }),
    "/data/longcall/longcall.db",
  );
  assert.equal(
    defaultDatabasePath("linux", { XDG_DATA_HOME: "", HOME: "/home/ada" }),
    "/home/ada/.local/share/longcall/longcall.db",
  );
  assert.equal(
    defaultDatabasePath("freebsd", { HOME: "/home/ada" }),
    "/home/ada/.local/share/longcall/longcall.db",
    "other POSIX systems follow XDG too",
  );
  assert.throws(
    () => defaultDatabasePath("linux", { LOCALAPPDATA: "C:\\x" }),
    /on linux: neither XDG_DATA_HOME nor HOME is set/,
  );
});

Deno.test("every variable the default path reads is in ENV_VARS and so in the shipped --allow-env", () => {
  const env = permissionFlags().find((f) => f.startsWith("--allow-env="))?.slice("--allow-env=".length).split(",");
  for (const name of ["LOCALAPPDATA", "HOME", "XDG_DATA_HOME", "LONGCALL_DB"]) {
    assert.ok((ENV_VARS as readonly string[]).includes(name), name);
    assert.ok(env?.includes(name), `--allow-env lists ${name}`);
  }
});

/** An injected environment: only the given variables are set. */
const envOf = (vars: Partial<Record<EnvVar, string>>) => (name: EnvVar) => vars[name];

Deno.test("resolveDbPath() takes --db first, then LONGCALL_DB, then this platform's default", () => {
  const vars = { LONGCALL_DB: "/from/env.db", HOME: "/home/ada", XDG_DATA_HOME: "/data", LOCALAPPDATA: "C:\\L" };
  assert.equal(resolveDbPath("/from/flag.db", envOf(vars)), "/from/flag.db");
  assert.equal(resolveDbPath(undefined, envOf(vars)), "/from/env.db");
  assert.throws(
    () => resolveDbPath("", envOf(vars)),
    /Cannot use --db: expected a database file path, current value is empty/,
    "an empty --db (an unset variable in a script) is refused, never read as the default database",
  );
  const { LONGCALL_DB: _unset, ...platform } = vars;
  const expected = defaultDatabasePath(Deno.build.os, platform);
  assert.equal(resolveDbPath(undefined, envOf(platform)), expected);
  assert.equal(
    resolveDbPath(undefined, envOf({ ...platform, LONGCALL_DB: "" })),
    expected,
    "an empty LONGCALL_DB is unset",
  );
});

Deno.test("resolveDbPath() with nothing to go on is this platform's invalid_argument", () => {
  assert.throws(
    () => resolveDbPath(undefined, envOf({})),
    (err: unknown) =>
      err instanceof AppError && err.code === "invalid_argument" &&
      err.message.startsWith(`Cannot choose a database path on ${Deno.build.os}: `),
  );
});
