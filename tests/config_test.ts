/**
 * The default database path per platform (issue 15: a binary launched by Claude Desktop on
 * Windows has no HOME), with the OS and the environment injected, and the variables it reads
 * in the single --allow-env list.
 */

import assert from "node:assert/strict";
import { AppError } from "../src/base/errors.ts";
import { defaultDatabasePath, ENV_VARS } from "../src/cli/config.ts";
import { permissionFlags } from "../src/cli/permissions.ts";

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

Deno.test("resolveDbPath() under the shipped flags creates the default database where the platform says", async () => {
  // A real child with the shipped flags and only the platform variables set: the database
  // appears at the default path (this machine's platform; the release workflow runs the same
  // start-up on Windows and macOS runners).
  const dir = await Deno.makeTempDir();
  try {
    const env: Record<string, string> = Deno.build.os === "windows"
      ? { LOCALAPPDATA: dir }
      : Deno.build.os === "darwin"
      ? { HOME: dir }
      : { XDG_DATA_HOME: dir, HOME: `${dir}/unused-home` };
    const expected = defaultDatabasePath(Deno.build.os, env);
    // clearEnv keeps the parent's own data-directory variables out; DENO_DIR keeps Deno's module
    // cache where it is (its default location depends on HOME, which this test changes).
    const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" }).output();
    const denoDir = (JSON.parse(new TextDecoder().decode(info.stdout)) as { denoDir: string }).denoDir;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...permissionFlags(), new URL("../src/main.ts", import.meta.url).pathname, "jobs", "list"],
      env: { ...env, DENO_DIR: denoDir },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const file = await Deno.stat(expected);
    assert.ok(file.isFile, `${expected} was created`);
    if (Deno.build.os !== "windows") {
      assert.equal((file.mode ?? 0) & 0o777, 0o600);
      const parent = await Deno.stat(expected.slice(0, expected.lastIndexOf("/")));
      assert.equal((parent.mode ?? 0) & 0o777, 0o700);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
