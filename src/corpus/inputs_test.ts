/**
 * src/corpus/inputs.ts: each corpus tool's input schema at and past its bounds
 * (src/base/limits.ts), blank text refused, unknown keys refused (the schemas are strict).
 * tests/corpus_tools_test.ts proves the tools enforce them before the corpus functions run.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import {
  CORPUS_ITEMS_PER_CALL_MAX,
  SEARCH_CURSOR_CHARS_MAX,
  SEARCH_LABEL_CHARS_MAX,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_CHARS_MAX,
} from "../base/limits.ts";
import { GetPullRequestChecksArgs, GetRepositoriesArgs, GetThreadsArgs, SearchThreadsArgs } from "./inputs.ts";

/** `undefined` when `schema` accepts `input`, else the first issue's path ("$" for the root). */
function refusedAt(schema: z.ZodType, input: unknown): string | undefined {
  const r = schema.safeParse(input);
  if (r.success) return undefined;
  const path = r.error.issues[0]?.path ?? [];
  return path.length === 0 ? "$" : `$.${path.map(String).join(".")}`;
}

const list = (n: number) => Array.from({ length: n }, (_, i) => `octo/widgets#${i + 1}`);

Deno.test("corpus get schemas: 1..CORPUS_ITEMS_PER_CALL_MAX items accepted; 0 or one more refused at the list", () => {
  const cases: [z.ZodType, string][] = [
    [GetThreadsArgs, "threads"],
    [GetRepositoriesArgs, "repositories"],
    [GetPullRequestChecksArgs, "pull_requests"],
  ];
  for (const [schema, field] of cases) {
    assert.equal(refusedAt(schema, { [field]: list(1) }), undefined, field);
    assert.equal(refusedAt(schema, { [field]: list(CORPUS_ITEMS_PER_CALL_MAX) }), undefined, field);
    assert.equal(refusedAt(schema, { [field]: list(CORPUS_ITEMS_PER_CALL_MAX + 1) }), `$.${field}`, field);
    assert.equal(refusedAt(schema, { [field]: [] }), `$.${field}`, field);
    assert.equal(refusedAt(schema, {}), `$.${field}`, `${field} is required`);
    assert.equal(refusedAt(schema, { [field]: [1] }), `$.${field}.0`, `${field}: strings only`);
    assert.equal(refusedAt(schema, { [field]: list(1), extra: true }), "$", `${field}: unknown keys refused`);
  }
  assert.equal(refusedAt(GetThreadsArgs, { threads: list(1), view: "full" }), undefined);
  assert.equal(refusedAt(GetThreadsArgs, { threads: list(1), view: "all" }), "$.view");
});

Deno.test("SearchThreadsArgs: query of 1..SEARCH_QUERY_CHARS_MAX characters, not blank", () => {
  assert.equal(refusedAt(SearchThreadsArgs, { query: "q".repeat(SEARCH_QUERY_CHARS_MAX) }), undefined);
  assert.equal(refusedAt(SearchThreadsArgs, { query: "q".repeat(SEARCH_QUERY_CHARS_MAX + 1) }), "$.query");
  assert.equal(refusedAt(SearchThreadsArgs, { query: "" }), "$.query");
  const blank = SearchThreadsArgs.safeParse({ query: " \t " });
  assert.equal(blank.success, false);
  assert.equal(blank.error?.issues[0]?.message, "expected text to search for, not blank text");
  assert.equal(refusedAt(SearchThreadsArgs, {}), "$.query");
});

Deno.test("SearchThreadsArgs: label of 1..SEARCH_LABEL_CHARS_MAX, limit 1..SEARCH_LIMIT_MAX, enums, strict", () => {
  const ok = (extra: Record<string, unknown>) => refusedAt(SearchThreadsArgs, { query: "flaky", ...extra });
  assert.equal(ok({ label: "l".repeat(SEARCH_LABEL_CHARS_MAX) }), undefined);
  assert.equal(ok({ label: "l".repeat(SEARCH_LABEL_CHARS_MAX + 1) }), "$.label");
  assert.equal(ok({ label: "  " }), "$.label");
  assert.equal(ok({ limit: 1 }), undefined);
  assert.equal(ok({ limit: SEARCH_LIMIT_MAX }), undefined);
  assert.equal(ok({ limit: SEARCH_LIMIT_MAX + 1 }), "$.limit");
  assert.equal(ok({ limit: 0 }), "$.limit");
  assert.equal(ok({ limit: 2.5 }), "$.limit");
  assert.equal(ok({ kind: "both", state: "all", cursor: "abc" }), undefined);
  assert.equal(ok({ kind: "commit" }), "$.kind");
  assert.equal(ok({ state: "merged" }), "$.state");
  assert.equal(ok({ repositories: list(CORPUS_ITEMS_PER_CALL_MAX + 1) }), "$.repositories");
  assert.equal(ok({ sort: "new" }), "$");
});

Deno.test("SearchThreadsArgs: a cursor of up to SEARCH_CURSOR_CHARS_MAX characters is advertised and parsed; a longer one refused", () => {
  const at = refusedAt(SearchThreadsArgs, { query: "flaky", cursor: "c".repeat(SEARCH_CURSOR_CHARS_MAX) });
  assert.equal(at, undefined, "the function checks its integrity, the schema only its length");
  assert.equal(
    refusedAt(SearchThreadsArgs, { query: "flaky", cursor: "c".repeat(SEARCH_CURSOR_CHARS_MAX + 1) }),
    "$.cursor",
  );
  const advertised = z.toJSONSchema(SearchThreadsArgs) as unknown as { properties: { cursor: { maxLength?: number } } };
  assert.equal(advertised.properties.cursor.maxLength, SEARCH_CURSOR_CHARS_MAX);
});
