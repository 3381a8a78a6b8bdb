import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import { SEARCH_CURSOR_CHARS_MAX } from "../base/limits.ts";
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

function base64Url(text: string): string {
  const binary = String.fromCharCode(...new TextEncoder().encode(text));
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

Deno.test("decodeSearchCursor: a cursor of SEARCH_CURSOR_CHARS_MAX characters decodes; a longer one is refused", () => {
  // The fingerprint is free text, so a long one makes a genuine cursor of any base64url length.
  let atLimit: { cursor: string; f: string } | undefined;
  let past: { cursor: string; f: string } | undefined;
  for (let n = 1; n < SEARCH_CURSOR_CHARS_MAX && (atLimit === undefined || past === undefined); n++) {
    const f = "f".repeat(n);
    const cursor = encodeSearchCursor(f, { score: 0.5, id: 9 });
    if (cursor.length === SEARCH_CURSOR_CHARS_MAX) atLimit = { cursor, f };
    if (cursor.length > SEARCH_CURSOR_CHARS_MAX && past === undefined) past = { cursor, f };
  }
  assert.ok(atLimit !== undefined && past !== undefined);
  assert.deepEqual(decodeSearchCursor(atLimit.cursor, atLimit.f), { score: 0.5, id: 9 });
  assert.match(rejected(past.cursor, past.f).message, /not a cursor issued by corpus\.search_threads/);
});

Deno.test("decodeSearchCursor: each malformed field is refused as not a cursor", () => {
  const f = hash53("q");
  const good = { v: 1, f, s: 1.5, i: 3 };
  const sealed = (body: Record<string, unknown>) => {
    const { v, f: fp, s, i } = body;
    return { ...body, c: hash53(`${v}|${fp}|${s}|${i}`) };
  };
  assert.deepEqual(decodeSearchCursor(base64Url(JSON.stringify(sealed(good))), f), { score: 1.5, id: 3 });
  const bodies: Record<string, unknown>[] = [
    sealed({ ...good, v: 2 }),
    sealed({ ...good, f: 7 }),
    sealed({ ...good, s: "1.5" }),
    sealed({ ...good, i: 0 }),
    sealed({ ...good, i: 1.5 }),
    sealed({ ...good, i: Number.MAX_SAFE_INTEGER + 2 }),
    { ...good, c: 5 },
    { ...good },
  ];
  for (const body of bodies) {
    assert.match(
      rejected(base64Url(JSON.stringify(body)), f).message,
      /not a cursor issued by corpus\.search_threads/,
      JSON.stringify(body),
    );
  }
  // A non-finite score cannot survive JSON, so it arrives as null.
  assert.match(rejected(base64Url('{"v":1,"f":"x","s":null,"i":1,"c":"y"}'), f).message, /not a cursor/);
  assert.match(rejected(base64Url("{"), f).message, /not a cursor/, "base64url of text that is not JSON");
  assert.match(rejected(base64Url("null"), f).message, /not a cursor/, "JSON that is not an object");
  assert.match(rejected(btoa(String.fromCharCode(0xff, 0xfe, 0x7b)), f).message, /not a cursor/, "invalid UTF-8");
  assert.match(rejected("A", f).message, /not a cursor/, "a length base64 cannot have");
});
