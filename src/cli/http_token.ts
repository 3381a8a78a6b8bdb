/**
 * The bearer token of `serve --http` when LONGCALL_HTTP_TOKEN is not set: generated once, kept in
 * a file next to the database that only its owner can read (mode 0600), and reused by later
 * starts on the same database so configured clients keep working. The token itself is never
 * printed or logged; only the file's path is.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";

/** Random bytes of a generated token (256 bits, hex encoded). */
const TOKEN_BYTES = 32;

/** The token file of a database: `<db>.http-token`. */
export function httpTokenPath(db: string): string {
  return `${db}.http-token`;
}

/** The token in the file and where it is; `created` when this call wrote it. */
export interface HttpTokenFile {
  token: string;
  path: string;
  created: boolean;
}

function generate(): string {
  return [...crypto.getRandomValues(new Uint8Array(TOKEN_BYTES))].map((b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

/**
 * Reads the token file of `db`, or creates it with a fresh token (mode 0600, never following a
 * symlink).
 *
 * @throws {AppError} `access_denied` when the file exists but is not a regular file, grants any
 * permission to group or others, or is empty. (A file of another user with mode 0600 cannot be
 * read at all, and the read fails.)
 */
export async function ensureHttpToken(db: string): Promise<HttpTokenFile> {
  const path = httpTokenPath(db);
  let info: Deno.FileInfo | undefined;
  try {
    info = await Deno.lstat(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (info === undefined) {
    const token = generate();
    try {
      await Deno.writeTextFile(path, `${token}\n`, { createNew: true, mode: 0o600 });
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) return await ensureHttpToken(db); // another process won
      throw err;
    }
    await Deno.chmod(path, 0o600);
    return { token, path, created: true };
  }
  if (!info.isFile) {
    throw new AppError("access_denied", `Cannot use the HTTP token file ${path}: it is not a regular file`);
  }
  const mode = (info.mode ?? 0) & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new AppError(
      "access_denied",
      `Cannot use the HTTP token file ${path}: its mode is 0${mode.toString(8)}, but only its owner may read it ` +
        `(chmod 600 it, or delete it to get a new token)`,
    );
  }
  const token = (await Deno.readTextFile(path)).trim();
  if (token === "") {
    throw new AppError(
      "access_denied",
      `Cannot use the HTTP token file ${path}: it is empty (delete it to get a new one)`,
    );
  }
  return { token, path, created: false };
}
