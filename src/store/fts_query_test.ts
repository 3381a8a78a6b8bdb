import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SEARCH_PREFIX_CHARS_MIN, SEARCH_QUERY_TERMS_MAX } from "../base/limits.ts";
import { ftsPhrase, ftsQueryFromText, ftsSearchExpression } from "./fts_query.ts";

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

Deno.test("ftsQueryFromText: exactly SEARCH_QUERY_TERMS_MAX words are all kept; one more drops the last", () => {
  const words = Array.from({ length: SEARCH_QUERY_TERMS_MAX + 1 }, (_, i) => `w${i}`);
  const atLimit = ftsQueryFromText(words.slice(0, SEARCH_QUERY_TERMS_MAX).join(" "));
  assert.equal(atLimit, words.slice(0, SEARCH_QUERY_TERMS_MAX).map((w) => `"${w}"`).join(" "));
  assert.equal(ftsQueryFromText(words.join(" ")), atLimit, "the word past the bound is ignored");
});

Deno.test("ftsQueryFromText: dropped punctuation-only words do not count against the term bound", () => {
  const words = Array.from({ length: SEARCH_QUERY_TERMS_MAX }, (_, i) => `w${i}`);
  const q = ftsQueryFromText(["---", ...words, "!!!"].join(" "));
  assert.equal(q?.split(" ").length, SEARCH_QUERY_TERMS_MAX);
  assert.ok(q?.startsWith('"w0"'));
});

Deno.test("ftsQueryFromText: empty and punctuation-only input is null", () => {
  for (const text of ["", " ", "*", "**", '"', '""', "- + ( )", "\u0000\u001f", "... *** ,,,"]) {
    assert.equal(ftsQueryFromText(text), null, JSON.stringify(text));
  }
});

Deno.test("ftsQueryFromText: quotes inside a word are doubled; stars are stripped only at the end", () => {
  assert.equal(ftsQueryFromText('a"b'), '"a""b"');
  assert.equal(ftsQueryFromText('say "hello"*'), '"say" """hello"""*', "a quoted word can still be a prefix");
  assert.equal(ftsQueryFromText("ab* \u0000x"), '"ab" "x"', "a short prefix is a plain word; NUL separates");
  assert.equal(ftsQueryFromText("a*b"), '"a*b"', "an inner * is part of the phrase, not an operator");
  assert.equal(ftsQueryFromText("abc***"), '"abc"*', "several trailing stars are one prefix");
  assert.equal(ftsQueryFromText("-abc*"), '"-abc"*', "only token characters count toward the prefix minimum");
  assert.equal(ftsQueryFromText("-ab*"), '"-ab"', "two token characters are too few for a prefix");
});

Deno.test("ftsQueryFromText: text is NFC-normalized, so composed and decomposed letters search alike", () => {
  assert.equal(ftsQueryFromText("e\u0301t\u00e9"), ftsQueryFromText("\u00e9t\u00e9"));
  assert.equal(ftsQueryFromText("e\u0301"), '"\u00e9"');
});

Deno.test("ftsPhrase: a word with a token character is quoted; one without is null", () => {
  assert.equal(ftsPhrase("bug"), '"bug"');
  assert.equal(ftsPhrase('say "x"'), '"say ""x"""');
  assert.equal(ftsPhrase("::"), null);
  assert.equal(ftsPhrase(""), null);
});

Deno.test("ftsSearchExpression: the text alone is one parenthesized group; no searchable words is null", () => {
  assert.equal(ftsSearchExpression("flaky test"), '("flaky" "test")');
  assert.equal(ftsSearchExpression("!!!", { kind: "issue", repositories: ["a/b"] }), null);
});

Deno.test("ftsSearchExpression: filters become facet phrases of lower-case hex, ANDed with the text", () => {
  const hex = (s: string) => [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, "0")).join("");
  assert.equal(
    ftsSearchExpression("x", { repositories: ["Deno/Std", "a/b"] }),
    `("x") AND {facets} : ("zr${hex("deno/std")}" OR "zr${hex("a/b")}")`,
    "repositories compare case-insensitively and are ORed",
  );
  assert.equal(ftsSearchExpression("x", { repositories: [] }), '("x")', "an empty repository list filters nothing");
  assert.equal(ftsSearchExpression("x", { kind: "issue" }), `("x") AND {facets} : "zk${hex("issue")}"`);
  assert.equal(ftsSearchExpression("x", { state: "open" }), `("x") AND {facets} : "zs${hex("open")}"`);
  assert.equal(
    ftsSearchExpression("x", { kind: "pull_request", state: "closed" }),
    `("x") AND {facets} : "zc${hex("pull_request closed")}"`,
    "kind and state together are one combined facet",
  );
  assert.equal(ftsSearchExpression("x", { label: "good first issue" }), '("x") AND {labels} : "good first issue"');
  assert.equal(ftsSearchExpression("x", { label: "::" }), '("x")', "a label without token characters adds no phrase");
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
