import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SEARCH_PREFIX_CHARS_MIN, SEARCH_QUERY_TERMS_MAX } from "../base/limits.ts";
import { ftsQueryFromText, isRepositoryName, truncateChars } from "./corpus_rows.ts";

Deno.test("ftsQueryFromText: words become quoted phrases ANDed together; operators are searched as words", () => {
  assert.equal(ftsQueryFromText("flaky test"), '"flaky" "test"');
  assert.equal(ftsQueryFromText('NEAR(a b) OR "x"'), '"NEAR(a" "b)" "OR" """x"""');
  assert.equal(ftsQueryFromText("col:value ^start"), '"col:value" "^start"');
  assert.equal(ftsQueryFromText("  \t\n "), null);
  assert.equal(ftsQueryFromText("!!! ---"), null, "words without a token character are dropped");
  assert.equal(ftsQueryFromText("a\u0000b"), '"a" "b"', "control characters separate words");
});

Deno.test("ftsQueryFromText: a trailing * is a prefix only with enough token characters", () => {
  const long = "x".repeat(SEARCH_PREFIX_CHARS_MIN);
  assert.equal(ftsQueryFromText(`${long}*`), `"${long}"*`);
  assert.equal(
    ftsQueryFromText(`${"x".repeat(SEARCH_PREFIX_CHARS_MIN - 1)}*`),
    `"${"x".repeat(SEARCH_PREFIX_CHARS_MIN - 1)}"`,
  );
});

Deno.test("ftsQueryFromText: at most SEARCH_QUERY_TERMS_MAX terms", () => {
  const words = Array.from({ length: SEARCH_QUERY_TERMS_MAX + 5 }, (_, i) => `w${i}`);
  const q = ftsQueryFromText(words.join(" "));
  assert.equal(q?.split(" ").length, SEARCH_QUERY_TERMS_MAX);
});

Deno.test("ftsQueryFromText: hostile text never makes FTS5 raise", () => {
  const db = new DatabaseSync(":memory:");
  try {
    db.exec("CREATE VIRTUAL TABLE t USING fts5(body); INSERT INTO t VALUES ('a flaky test on main')");
    const inputs = ['"', '""', "*", "AND", "OR NOT", "NEAR(", ")", "^", "a:b", "\u0000", "é*", "🙂 test", "{a b}"];
    for (const text of inputs) {
      const q = ftsQueryFromText(text);
      if (q !== null) db.prepare("SELECT count(*) FROM t WHERE t MATCH ?").get(q);
    }
    const hit = db.prepare("SELECT count(*) AS n FROM t WHERE t MATCH ?").get(ftsQueryFromText("flak*")) as {
      n: number;
    };
    assert.equal(hit.n, 1);
  } finally {
    db.close();
  }
});

Deno.test("truncateChars: cuts at the bound without splitting a surrogate pair", () => {
  assert.deepEqual(truncateChars("abc", 3), { text: "abc", truncated: false });
  assert.deepEqual(truncateChars("abcd", 3), { text: "abc", truncated: true });
  assert.deepEqual(truncateChars("ab🙂", 3), { text: "ab", truncated: true });
});

Deno.test("isRepositoryName: owner/name, not . or ..", () => {
  assert.ok(isRepositoryName("denoland/deno"));
  for (const bad of ["denoland", "a/b/c", "a/.", "a/..", "/b", "a/"]) assert.equal(isRepositoryName(bad), false, bad);
});
