/**
 * The corpus tools enforce the input schemas they advertise (src/mcp/corpus_inputs.ts), whose
 * numbers are the bounds the corpus functions use (src/base/limits.ts): at each bound a call is
 * answered, one past it is a typed invalid_argument before the function runs.
 *
 *   deno test --allow-read --allow-write --allow-env tests/corpus_tools_test.ts
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { AppError } from "../src/base/errors.ts";
import {
  CORPUS_ITEMS_PER_CALL_MAX,
  SEARCH_LABEL_CHARS_MAX,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_CHARS_MAX,
} from "../src/base/limits.ts";
import { silentLogger } from "../src/base/log.ts";
import { openRuntime } from "../src/cli/runtime.ts";
import { productTools } from "../src/mcp/product_tools.ts";
import type { ToolDef } from "../src/mcp/tools.ts";
import type { ToolResult } from "../src/mcp/tool_kit.ts";
import { tempDir } from "../testing/temp.ts";

type Outcome = "answered" | { invalid: string };

/** Calls a tool; `answered`, or the invalid_argument path it was refused with. */
async function outcome(tool: ToolDef, args: Record<string, unknown>): Promise<Outcome> {
  try {
    const result = await tool.call(args, { authority: null, tasksDeclared: false }) as ToolResult;
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
    return "answered";
  } catch (err) {
    assert.ok(err instanceof AppError && err.code === "invalid_argument", String(err));
    return { invalid: String(err.data?.path) };
  }
}

async function withTools(fn: (tool: (name: string) => ToolDef) => Promise<void>): Promise<void> {
  await using dir = await tempDir("longcall-corpus-tools-");
  const runtime = openRuntime({
    db: dir.file("c.db"),
    kinds: { product: { github: { baseUrl: "http://127.0.0.1:1" } } },
    log: silentLogger,
    execution: "none",
  });
  try {
    const tools = productTools(runtime.control, runtime.store);
    await fn((name) => {
      const found = tools.find((t) => t.name === name);
      assert.ok(found !== undefined, name);
      return found;
    });
  } finally {
    await runtime.close();
  }
}

const refs = (n: number) => Array.from({ length: n }, (_, i) => `octo/widgets#${i + 1}`);
const repos = (n: number) => Array.from({ length: n }, (_, i) => `octo/repo-${i}`);

Deno.test("corpus tools: lists of 1..CORPUS_ITEMS_PER_CALL_MAX are answered; empty or one more is refused", async () => {
  await withTools(async (tool) => {
    const lists: [string, string, (n: number) => string[]][] = [
      ["corpus.get_threads", "threads", refs],
      ["corpus.get_pull_request_checks", "pull_requests", refs],
      ["corpus.get_repositories", "repositories", repos],
    ];
    for (const [name, field, make] of lists) {
      assert.equal(await outcome(tool(name), { [field]: make(CORPUS_ITEMS_PER_CALL_MAX) }), "answered", name);
      assert.deepEqual(await outcome(tool(name), { [field]: make(CORPUS_ITEMS_PER_CALL_MAX + 1) }), {
        invalid: `$.${field}`,
      });
      assert.deepEqual(await outcome(tool(name), { [field]: [] }), { invalid: `$.${field}` }, `${name}: empty`);
    }
    const search = tool("corpus.search_threads");
    assert.equal(await outcome(search, { query: "x", repositories: repos(CORPUS_ITEMS_PER_CALL_MAX) }), "answered");
    assert.deepEqual(await outcome(search, { query: "x", repositories: repos(CORPUS_ITEMS_PER_CALL_MAX + 1) }), {
      invalid: "$.repositories",
    });
    assert.deepEqual(await outcome(search, { query: "x", repositories: [] }), { invalid: "$.repositories" });
    // The function still parses each reference it is given (names_test checks the paths over MCP).
    assert.deepEqual(await outcome(tool("corpus.get_threads"), { threads: ["octo/widgets#0"] }), {
      invalid: "threads[0]",
    });
  });
});

Deno.test("corpus.search_threads: query, label and limit are answered at their bounds and refused past them", async () => {
  await withTools(async (tool) => {
    const search = tool("corpus.search_threads");
    assert.equal(await outcome(search, { query: "a".repeat(SEARCH_QUERY_CHARS_MAX) }), "answered");
    assert.deepEqual(await outcome(search, { query: "a".repeat(SEARCH_QUERY_CHARS_MAX + 1) }), { invalid: "$.query" });
    assert.deepEqual(await outcome(search, { query: "   " }), { invalid: "$.query" }, "blank text");
    assert.deepEqual(await outcome(search, { query: "" }), { invalid: "$.query" });
    assert.equal(await outcome(search, { query: "x", label: "b".repeat(SEARCH_LABEL_CHARS_MAX) }), "answered");
    assert.deepEqual(await outcome(search, { query: "x", label: "b".repeat(SEARCH_LABEL_CHARS_MAX + 1) }), {
      invalid: "$.label",
    });
    assert.deepEqual(await outcome(search, { query: "x", label: " " }), { invalid: "$.label" });
    assert.equal(await outcome(search, { query: "x", limit: SEARCH_LIMIT_MAX }), "answered");
    assert.deepEqual(await outcome(search, { query: "x", limit: SEARCH_LIMIT_MAX + 1 }), { invalid: "$.limit" });
    assert.deepEqual(await outcome(search, { query: "x", limit: 0 }), { invalid: "$.limit" });
    assert.deepEqual(await outcome(search, { query: "x", extra: 1 }), { invalid: "$" }, "no unknown argument");
  });
});

Deno.test("corpus tools advertise the same numbers they enforce (src/base/limits.ts)", async () => {
  await withTools((tool) => {
    const props = (name: string) =>
      (z.toJSONSchema(tool(name).inputSchema, { io: "input" }) as {
        properties: Record<string, Record<string, unknown>>;
      })
        .properties;
    for (
      const [name, field] of [
        ["corpus.get_threads", "threads"],
        ["corpus.get_pull_request_checks", "pull_requests"],
        ["corpus.get_repositories", "repositories"],
        ["corpus.search_threads", "repositories"],
      ] as const
    ) {
      const list = props(name)[field];
      assert.equal(list?.minItems, 1, `${name}.${field}`);
      assert.equal(list?.maxItems, CORPUS_ITEMS_PER_CALL_MAX, `${name}.${field}`);
    }
    const search = props("corpus.search_threads");
    assert.equal(search.query?.maxLength, SEARCH_QUERY_CHARS_MAX);
    assert.equal(search.label?.maxLength, SEARCH_LABEL_CHARS_MAX);
    assert.equal(search.limit?.maximum, SEARCH_LIMIT_MAX);
    return Promise.resolve();
  });
});
