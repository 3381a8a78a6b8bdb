import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import { decodeSearchCursor, encodeSearchCursor, hash53 } from "./cursor.ts";

function rejected(cursor: unknown, fingerprint: string): AppError {
  try {
    decodeSearchCursor(cursor, fingerprint);
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, "invalid_argument");
    return err;
  }
  assert.fail("expected the cursor to be refused");
}

Deno.test("encodeSearchCursor / decodeSearchCursor: a position round-trips for its own query", () => {
  const f = hash53("query|filters");
  const cursor = encodeSearchCursor(f, { score: -3.25, id: 42 });
  assert.match(cursor, /^[A-Za-z0-9_-]+$/, "base64url without padding");
  assert.deepEqual(decodeSearchCursor(cursor, f), { score: -3.25, id: 42 });
});

Deno.test("decodeSearchCursor: another query's cursor, an edited cursor and garbage are invalid_argument", () => {
  const f = hash53("a");
  const cursor = encodeSearchCursor(f, { score: 1, id: 7 });
  assert.match(rejected(cursor, hash53("b")).message, /different query/);
  const body = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
  const edited = btoa(JSON.stringify({ ...body, i: 8 })).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  assert.match(rejected(edited, f).message, /modified/);
  for (const junk of ["", "!!!", "x".repeat(513), 42, null, btoa("[1]"), btoa('{"v":1}')]) rejected(junk, f);
});

Deno.test("hash53: stable 14-hex-digit hashes that differ for different inputs", () => {
  assert.equal(hash53("longcall"), hash53("longcall"));
  assert.match(hash53(""), /^[0-9a-f]{14}$/);
  assert.notEqual(hash53("a"), hash53("b"));
});
