/**
 * The default database path per platform (issue 15: a binary launched by Claude Desktop on
 * Windows has no HOME) in a real child under the shipped flags. The rules with the OS and the
 * environment injected, and the variables in the single --allow-env list: src/cli/config_test.ts.
 */

import assert from "node:assert/strict";
import { defaultDatabasePath, existingDbOr } from "../src/cli/config.ts";
import { permissionFlags } from "../src/cli/permissions.ts";

Deno.test("resolveDbPath() under the shipped flags creates the default database where the platform says", async () => {
  // A real child with the shipped flags and only the platform variables set: the database
  // appears at the default path (this machine's platform; the release workflow runs the same
  // start-up on Windows and macOS runners). `serve` makes it (the read commands never create one);
  // with stdin at its end it stops at once.
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
      args: ["run", ...permissionFlags(), new URL("../src/main.ts", import.meta.url).pathname, "serve"],
      env: { ...env, DENO_DIR: denoDir, LONGCALL_LINGER_MS: "0" },
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

Deno.test("existingDbOr(): the path when a file is there, else an in-memory database and missing", () => {
  assert.deepEqual(existingDbOr("/a/jobs.db", () => true), { db: "/a/jobs.db", missing: false });
  assert.deepEqual(existingDbOr("/a/jobs.db", () => false), { db: ":memory:", missing: true });
  assert.deepEqual(existingDbOr(":memory:", () => false), { db: ":memory:", missing: false }, "asked for memory");
});
