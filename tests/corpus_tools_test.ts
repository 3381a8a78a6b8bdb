/**
 * The corpus tools enforce the input schemas they advertise (src/corpus/inputs.ts), whose
 * numbers are the bounds of src/base/limits.ts: at each bound a call is answered, one past it is a
 * typed invalid_argument before the function runs (the functions take the parsed input and check
 * only references, names, a query with nothing to search for and cursors). `longcall search`
 * parses with the same schema.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run tests/corpus_tools_test.ts
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
import { permissionFlags } from "../src/cli/permissions.ts";
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
      invalid: "$.threads.0",
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

Deno.test("corpus tools refuse, at the schema, each argument the corpus functions no longer check themselves", async () => {
  // These were the functions' own refusals (tests/corpus_test.ts); the schema answers them now,
  // with the argument's JSON path, before the function runs.
  await withTools(async (tool) => {
    const search = tool("corpus.search_threads");
    for (const limit of [SEARCH_LIMIT_MAX + 1, 0, -1, 1.5, Number.NaN]) {
      assert.deepEqual(await outcome(search, { query: "bound", limit }), { invalid: "$.limit" }, `limit ${limit}`);
    }
    assert.deepEqual(await outcome(search, { query: "a".repeat(SEARCH_QUERY_CHARS_MAX + 1) }), { invalid: "$.query" });
    assert.deepEqual(await outcome(search, { query: 7 }), { invalid: "$.query" });
    assert.deepEqual(await outcome(search, {}), { invalid: "$.query" });
    assert.deepEqual(await outcome(search, { query: "bound", repositories: [] }), { invalid: "$.repositories" });
    assert.deepEqual(await outcome(search, { query: "bound", repositories: "o/r" }), { invalid: "$.repositories" });
    assert.deepEqual(await outcome(search, { query: "bound", kind: "discussion" }), { invalid: "$.kind" });
    assert.deepEqual(await outcome(search, { query: "bound", state: "merged" }), { invalid: "$.state" });
    assert.deepEqual(await outcome(search, { query: "bound", label: "" }), { invalid: "$.label" });
    const threads = tool("corpus.get_threads");
    assert.deepEqual(await outcome(threads, { threads: refs(CORPUS_ITEMS_PER_CALL_MAX + 1) }), {
      invalid: "$.threads",
    });
    assert.deepEqual(await outcome(threads, { threads: [] }), { invalid: "$.threads" });
    // The refusal carries an example of a valid call, for every list-taking corpus tool.
    for (
      const [name, args] of [
        ["corpus.get_threads", { threads: [] }],
        ["corpus.get_repositories", { repositories: [] }],
        ["corpus.get_pull_request_checks", { pull_requests: [] }],
      ] as const
    ) {
      let example: unknown;
      await assert.rejects(
        async () => await tool(name).call(args, { authority: null, tasksDeclared: false }),
        (err) => err instanceof AppError && (example = err.data?.["example"]) !== undefined,
        name,
      );
      // The example itself is a valid call.
      const answered = await tool(name).call(example, { authority: null, tasksDeclared: false }) as {
        isError?: boolean;
      };
      assert.notEqual(answered.isError, true, `${name}: its example is accepted`);
    }
    assert.deepEqual(await outcome(threads, { threads: "o/r#1" }), { invalid: "$.threads" });
    assert.deepEqual(await outcome(threads, { threads: ["o/r#1"], view: "huge" }), { invalid: "$.view" });
    assert.deepEqual(
      await outcome(tool("corpus.get_pull_request_checks"), { pull_requests: refs(CORPUS_ITEMS_PER_CALL_MAX + 1) }),
      { invalid: "$.pull_requests" },
    );
    assert.deepEqual(
      await outcome(tool("corpus.get_repositories"), { repositories: repos(CORPUS_ITEMS_PER_CALL_MAX + 1) }),
      { invalid: "$.repositories" },
    );
    // What only the functions can say still reaches the caller, with the entry's own path.
    assert.deepEqual(await outcome(search, { query: "bound", repositories: ["o/r", "bad name"] }), {
      invalid: "$.repositories.1",
    });
    assert.deepEqual(await outcome(search, { query: "**" }), { invalid: "$.query" }, "nothing to search for");
    assert.deepEqual(await outcome(search, { query: "bound", cursor: "garbage!" }), { invalid: "$.cursor" });
    assert.deepEqual(await outcome(tool("corpus.get_pull_request_checks"), { pull_requests: ["o/r"] }), {
      invalid: "$.pull_requests.0",
    });
  });
});

const MAIN = new URL("../src/main.ts", import.meta.url).pathname;

/** `longcall search ARGS` as a real child process with the shipped permission flags. */
async function longcallSearch(db: string, args: readonly string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags(), MAIN, "search", ...args, "--db", db],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("longcall search refuses, with exit 2, what corpus.search_threads's schema refuses", async () => {
  await using dir = await tempDir("longcall-corpus-cli-");
  const db = dir.file("c.db");
  const tooMany = repos(CORPUS_ITEMS_PER_CALL_MAX + 1).flatMap((r) => ["--repo", r]);
  const cases: [readonly string[], RegExp][] = [
    [["a".repeat(SEARCH_QUERY_CHARS_MAX + 1)], /\$\.query/],
    [["x", "--label", " "], /\$\.label: expected a label name, not blank text/],
    [["x", "--label", "b".repeat(SEARCH_LABEL_CHARS_MAX + 1)], /\$\.label/],
    [["x", ...tooMany], /\$\.repositories/],
  ];
  for (const [args, message] of cases) {
    const run = await longcallSearch(db, args);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, message);
  }
  // At the bounds the same arguments are searched (an empty corpus: exit 0, no hits).
  const atBounds = await longcallSearch(db, [
    "a".repeat(SEARCH_QUERY_CHARS_MAX),
    "--label",
    "b".repeat(SEARCH_LABEL_CHARS_MAX),
    ...repos(CORPUS_ITEMS_PER_CALL_MAX).flatMap((r) => ["--repo", r]),
  ]);
  assert.equal(atBounds.code, 0, atBounds.stderr);
});
