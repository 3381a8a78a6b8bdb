import assert from "node:assert/strict";
import { AppError } from "../base/errors.ts";
import {
  GITHUB_CONCURRENCY_MAX,
  GITHUB_ERROR_BODY_BYTES_MAX,
  GITHUB_TOKEN_SCRUB_ANYWHERE_CHARS_MIN,
} from "../base/limits.ts";
import {
  boundedMs,
  describeError,
  isResponseTooLarge,
  readBounded,
  RESPONSE_TOO_LARGE,
  Transport,
} from "./transport.ts";

/** A body streamed in chunks, without a content-length (as a chunked answer arrives). */
function streamed(...chunks: string[]): Response {
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(encoder.encode(c));
        controller.close();
      },
    }),
  );
}

Deno.test("readBounded(): a body of exactly max bytes is read whole, across chunks", async () => {
  assert.equal(await readBounded(streamed("abc", "de"), 5), "abcde");
  assert.equal(await readBounded(streamed("é"), 2), "é", "bytes, not characters");
});

Deno.test("readBounded(): one byte past max is refused as response_too_large", async () => {
  await assert.rejects(readBounded(streamed("abc", "def"), 5), (err: unknown) => {
    assert.ok(isResponseTooLarge(err));
    assert.ok(err instanceof AppError);
    assert.deepEqual(err.data, { reason: RESPONSE_TOO_LARGE, bytes_max: 5 });
    assert.match(err.message, /exceeds the bound of 5 bytes/);
    return true;
  });
});

Deno.test("readBounded(): a declared content-length over max is refused before reading", async () => {
  let pulled = false;
  const res = new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled = true;
        controller.enqueue(new Uint8Array(10));
      },
    }),
    { headers: { "content-length": "6" } },
  );
  await assert.rejects(readBounded(res, 5), /it declares 6 bytes, over the bound of 5/);
  assert.equal(pulled, false, "not one chunk was read");
  assert.equal(await readBounded(new Response("12345", { headers: { "content-length": "5" } }), 5), "12345");
});

Deno.test("readBounded(): with truncate a body past max is cut at max; no body is the empty text", async () => {
  assert.equal(await readBounded(streamed("abc", "def"), 5, { truncate: true }), "abcde");
  assert.equal(
    await readBounded(new Response("abcdef", { headers: { "content-length": "6" } }), 3, { truncate: true }),
    "abc",
  );
  assert.equal(await readBounded(new Response(null, { status: 304 }), 0, { truncate: true }), "");
  assert.equal(await readBounded(streamed("x"), 0, { truncate: true }), "");
});

Deno.test("isResponseTooLarge() is true only for the byte-bound error", () => {
  assert.equal(isResponseTooLarge(new AppError("request_failed", "x", { data: { reason: RESPONSE_TOO_LARGE } })), true);
  assert.equal(isResponseTooLarge(new AppError("request_failed", "x")), false);
  assert.equal(isResponseTooLarge(new AppError("transient", "x", { data: { reason: RESPONSE_TOO_LARGE } })), false);
  assert.equal(isResponseTooLarge(new Error(RESPONSE_TOO_LARGE)), false);
});

Deno.test("new Transport(): the API root is http(s) without query, fragment or credentials; a trailing slash goes", () => {
  assert.equal(new Transport({ baseUrl: "https://api.github.com/" }).baseUrl, "https://api.github.com");
  const ghes = new Transport({ baseUrl: "https://ghe.example/api/v3/" });
  assert.equal(ghes.baseUrl, "https://ghe.example/api/v3");
  assert.equal(ghes.basePath, "/api/v3");
  for (const baseUrl of ["not a url", "ftp://api.github.com", "https://x/?a=1", "https://x/#f", "https://u:p@x/"]) {
    assert.throws(
      () => new Transport({ baseUrl }),
      (err: unknown) => err instanceof TypeError && err.message.startsWith("Cannot use the GitHub API URL"),
      baseUrl,
    );
  }
  assert.throws(
    () => new Transport({ baseUrl: "https://user:hunter2@x/" }),
    (err: unknown) =>
      err instanceof Error && !err.message.includes("hunter2") && err.message.includes('"https://***@x/"'),
    "credentials are never quoted back",
  );
  // The URL parser's other spellings of user information are masked too; a value it cannot parse keeps nothing
  // before its last @.
  for (
    const baseUrl of [
      "http:user:hunter2@127.0.0.1:9",
      "http:/user:hunter2@x",
      "http:\\\\user:hunter2@x",
      "not a url:hunter2@x",
    ]
  ) {
    assert.throws(
      () => new Transport({ baseUrl }),
      (err: unknown) => err instanceof TypeError && !err.message.includes("hunter2") && err.message.includes("***@"),
      baseUrl,
    );
  }
});

Deno.test("new Transport(): a token never goes over plain http off loopback; an empty token is anonymous", () => {
  assert.throws(
    () => new Transport({ baseUrl: "http://api.example", token: "t" }),
    /Cannot use the GitHub API URL: a token is never sent over plain http off loopback, current value is "http:\/\/api.example"/,
  );
  assert.equal(new Transport({ baseUrl: "http://127.0.0.1:9/", token: "t" }).authenticated, true);
  assert.equal(new Transport({ baseUrl: "http://[::1]:9/", token: "t" }).authenticated, true);
  assert.equal(new Transport({ baseUrl: "http://api.example" }).authenticated, false);
  assert.equal(new Transport({ baseUrl: "http://api.example", token: "" }).authenticated, false);
});

Deno.test("new Transport(): requests in flight are 1..GITHUB_CONCURRENCY_MAX; a negative timeout is refused", () => {
  const base = "https://api.github.com";
  assert.equal(new Transport({ baseUrl: base, concurrencyMax: GITHUB_CONCURRENCY_MAX }).inFlight, 0);
  assert.throws(() => new Transport({ baseUrl: base, concurrencyMax: GITHUB_CONCURRENCY_MAX + 1 }), RangeError);
  assert.throws(() => new Transport({ baseUrl: base, concurrencyMax: 0 }), RangeError);
  assert.throws(() => new Transport({ baseUrl: base, concurrencyMax: 1.5 }), RangeError);
  assert.throws(() => new Transport({ baseUrl: base, requestTimeoutMs: -1 }), /requestTimeoutMs: current value is -1/);
});

Deno.test("Transport.resolve(): paths go under the API root; an absolute URL must stay inside it", () => {
  const t = new Transport({ baseUrl: "https://ghe.example/api/v3" });
  assert.equal(t.resolve("/repos/o/r"), "https://ghe.example/api/v3/repos/o/r");
  assert.equal(t.resolve("https://ghe.example/api/v3/repos/o/r?page=2"), "https://ghe.example/api/v3/repos/o/r?page=2");
  assert.equal(t.resolve("https://ghe.example/api/v3"), "https://ghe.example/api/v3");
  for (
    const outside of [
      "https://evil.example/api/v3/x",
      "https://ghe.example/api/v3x/y",
      "https://ghe.example.evil/api/v3/",
    ]
  ) {
    assert.throws(
      () => t.resolve(outside),
      (err: unknown) =>
        err instanceof AppError && err.code === "request_failed" && /outside the API root/.test(err.message),
      outside,
    );
  }
  assert.throws(() => t.resolve("repos/o/r"), /does not start with "\/"/);
  assert.throws(() => t.resolve("https://[bad"), /Cannot GET a URL/);
});

Deno.test("Transport.scrub(): removes the token and anything token-shaped", () => {
  const token = "transport-test-secret-77";
  const t = new Transport({ baseUrl: "https://api.github.com", token });
  assert.equal(t.scrub(`a ${token} b`), "a [redacted] b");
  assert.equal(t.scrub("ghp_abcdefghijklmnop"), "[redacted]");
  assert.equal(new Transport({ baseUrl: "https://api.github.com" }).scrub("plain"), "plain");
});

Deno.test("Transport.scrub(): a token shorter than GITHUB_TOKEN_SCRUB_ANYWHERE_CHARS_MIN goes only where it is a word", () => {
  const scrub = (token: string, text: string) =>
    new Transport({ baseUrl: "https://api.github.com", token }).scrub(text);
  assert.equal(scrub("t", "Not Found"), "Not Found", "a one-letter token does not cut words apart");
  assert.equal(scrub("t", "token t refused"), "token [redacted] refused");
  assert.equal(scrub("a.b", "axb a.b"), "axb [redacted]", "the token is matched literally");
  const short = "x".repeat(GITHUB_TOKEN_SCRUB_ANYWHERE_CHARS_MIN - 1);
  assert.equal(scrub(short, `y${short}y ${short}`), `y${short}y [redacted]`, "one under the bound: words only");
  const long = "x".repeat(GITHUB_TOKEN_SCRUB_ANYWHERE_CHARS_MIN);
  assert.equal(scrub(long, `y${long}y`), "y[redacted]y", "at the bound: anywhere");
  assert.equal(scrub("", "plain"), "plain", "an empty token scrubs nothing");
});

Deno.test("boundedMs() and describeError()", () => {
  assert.equal(boundedMs("x", undefined, { fallback: 7, cap: 10 }), 7);
  assert.equal(boundedMs("x", 3, { fallback: 7, cap: 10 }), 3);
  assert.equal(boundedMs("x", 11, { fallback: 7, cap: 10 }), 10);
  assert.throws(
    () => boundedMs("x", Number.POSITIVE_INFINITY, { fallback: 7, cap: 10 }),
    /Cannot use x: current value is Infinity/,
  );
  assert.equal(boundedMs("x", undefined, { cap: 10 }), 10, "the fallback is the cap by default");
  assert.equal(describeError(new TypeError("boom")), "TypeError: boom");
  assert.equal(describeError("plain"), "plain");
});

Deno.test("Transport.send(): an error body is read up to GITHUB_ERROR_BODY_BYTES_MAX bytes, at the bound whole and past it cut", async () => {
  let size = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("x".repeat(size), { status: 422, headers: { "content-type": "application/json" } }),
  );
  try {
    const transport = new Transport({ baseUrl: `http://127.0.0.1:${server.addr.port}` });
    const signal = new AbortController().signal;
    for (
      const [body, read] of [[GITHUB_ERROR_BODY_BYTES_MAX, GITHUB_ERROR_BODY_BYTES_MAX], [
        GITHUB_ERROR_BODY_BYTES_MAX + 1,
        GITHUB_ERROR_BODY_BYTES_MAX,
      ]] as const
    ) {
      size = body;
      const res = await transport.send(`${transport.baseUrl}/repos/o/r`, { signal });
      assert.equal(res.status, 422);
      assert.equal(res.text.length, read, `a ${body}-byte error body is read as ${read} bytes, never refused`);
    }
  } finally {
    await server.shutdown();
  }
});
