/**
 * src/cli/http_token.ts on real files in a temp dir: the token file is created owner-only (0600)
 * with a fresh 256-bit token, reused by later calls, and refused (access_denied) when it grants
 * group or others anything, is not a regular file (a directory, a symlink) or is empty.
 *
 *   deno test --allow-read --allow-write src/cli/http_token_test.ts
 */

import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import { ensureHttpToken, httpTokenPath } from "./http_token.ts";

/** A temp dir removed on dispose, with the database path inside it. */
async function tempDb(): Promise<{ db: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "http_token_test_" });
  return {
    db: `${dir}/x.db`,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Asserts `p` rejects with access_denied whose message matches `pattern`. */
async function refused(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, "access_denied");
    assert.match(err.message, pattern);
    return true;
  });
}

Deno.test("httpTokenPath: the token file sits next to the database", () => {
  assert.equal(httpTokenPath("/data/longcall.db"), "/data/longcall.db.http-token");
});

Deno.test("ensureHttpToken: creates <db>.http-token with mode 0600 and a fresh 64-hex-digit token", async () => {
  await using t = await tempDb();
  const first = await ensureHttpToken(t.db);
  assert.equal(first.created, true);
  assert.equal(first.path, httpTokenPath(t.db));
  assert.match(first.token, /^[0-9a-f]{64}$/);
  const info = await Deno.stat(first.path);
  assert.ok(info.isFile);
  assert.equal((info.mode ?? 0) & 0o777, 0o600);
  assert.equal(await Deno.readTextFile(first.path), `${first.token}\n`);
});

Deno.test("ensureHttpToken: a later call reuses the file's token (created false); another database gets its own", async () => {
  await using t = await tempDb();
  const first = await ensureHttpToken(t.db);
  const again = await ensureHttpToken(t.db);
  assert.deepEqual(again, { token: first.token, path: first.path, created: false });
  const other = await ensureHttpToken(`${t.db}2`);
  assert.equal(other.created, true);
  assert.notEqual(other.token, first.token);
});

Deno.test("ensureHttpToken: a token written by hand (owner-only) is read trimmed", async () => {
  await using t = await tempDb();
  await Deno.writeTextFile(httpTokenPath(t.db), "  my-token \n\n", { mode: 0o600 });
  await Deno.chmod(httpTokenPath(t.db), 0o600);
  assert.deepEqual(await ensureHttpToken(t.db), { token: "my-token", path: httpTokenPath(t.db), created: false });
});

Deno.test("ensureHttpToken: two concurrent first calls agree on one token, exactly one creates it", async () => {
  await using t = await tempDb();
  const [a, b] = await Promise.all([ensureHttpToken(t.db), ensureHttpToken(t.db)]);
  assert.equal(a.token, b.token);
  assert.deepEqual([a.created, b.created].sort(), [false, true]);
});

Deno.test("ensureHttpToken: refuses a file that group or others may read or write, naming its mode", async () => {
  await using t = await tempDb();
  const path = httpTokenPath(t.db);
  await Deno.writeTextFile(path, "secret\n");
  for (const mode of [0o644, 0o640, 0o604, 0o602, 0o620, 0o601]) {
    await Deno.chmod(path, mode);
    await refused(
      ensureHttpToken(t.db),
      new RegExp(`its mode is 0${mode.toString(8)}, but only its owner may read it`),
    );
  }
  await Deno.chmod(path, 0o400);
  assert.equal((await ensureHttpToken(t.db)).token, "secret", "owner read-only is fine");
});

Deno.test("ensureHttpToken: refuses an empty file (or only whitespace)", async () => {
  await using t = await tempDb();
  const path = httpTokenPath(t.db);
  for (const content of ["", " \n"]) {
    await Deno.writeTextFile(path, content);
    await Deno.chmod(path, 0o600);
    await refused(ensureHttpToken(t.db), /it is empty \(delete it to get a new one\)/);
  }
});

Deno.test("ensureHttpToken: refuses a directory or a symlink in the file's place (never follows a link)", async () => {
  await using t = await tempDb();
  const path = httpTokenPath(t.db);
  await Deno.mkdir(path);
  await refused(ensureHttpToken(t.db), /it is not a regular file/);
  await Deno.remove(path);
  const target = `${t.db}.elsewhere`;
  await Deno.writeTextFile(target, "planted\n", { mode: 0o600 });
  await Deno.chmod(target, 0o600);
  await Deno.symlink(target, path);
  await refused(ensureHttpToken(t.db), /it is not a regular file/);
  await Deno.remove(path);
  await Deno.symlink(`${t.db}.dangling`, path);
  await refused(ensureHttpToken(t.db), /it is not a regular file/);
  await assert.rejects(Deno.lstat(`${t.db}.dangling`), Deno.errors.NotFound, "nothing was written through the link");
});
