/**
 * src/mcp/advertised.ts: each advertised schema is converted to JSON Schema at most once per
 * target, lets every value through the SDK's validation, and answers from the schemas a bundle
 * embeds (keyed exactly as scripts/tool_schemas.ts precomputes them).
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/advertised_schemas_test.ts
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { productToolSchemas } from "../scripts/tool_schemas.ts";
import {
  advertised,
  ADVERTISED_TARGET,
  embedToolSchemas,
  precomputeToolSchemas,
  warmAdvertised,
} from "../src/mcp/advertised.ts";

type Std = {
  validate(v: unknown): unknown;
  jsonSchema: { input(o: { target: string }): unknown; output(o: { target: string }): unknown };
};
const std = (s: z.ZodType) => s["~standard"] as unknown as Std;

Deno.test("advertised(): converts once per target, returns what zod converts, validates nothing", () => {
  const schema = z.object({ n: z.number().int().min(1) }).strict();
  let conversions = 0;
  const counted = Object.assign(Object.create(schema) as z.ZodType, {
    "~standard": {
      ...schema["~standard"],
      jsonSchema: {
        input: (o: { target: string }) => (conversions++, std(schema).jsonSchema.input(o)),
        output: (o: { target: string }) => (conversions++, std(schema).jsonSchema.output(o)),
      },
    },
  });
  const a = std(advertised(counted, "t", "input"));
  const first = a.jsonSchema.input({ target: ADVERTISED_TARGET });
  assert.deepEqual(first, std(schema).jsonSchema.input({ target: ADVERTISED_TARGET }));
  assert.equal(a.jsonSchema.input({ target: ADVERTISED_TARGET }), first, "the same conversion again");
  assert.equal(conversions, 1);
  a.jsonSchema.input({ target: "draft-07" });
  a.jsonSchema.output({ target: ADVERTISED_TARGET });
  assert.equal(conversions, 3, "another target or direction is converted on its own");
  assert.deepEqual(a.validate({ n: "not a number" }), { value: { n: "not a number" } }, "validated in the handler");
});

Deno.test("advertised(): a schema given as a builder is built on the first conversion only, never to validate", () => {
  const schema = z.object({ n: z.number() }).strict();
  let builds = 0;
  const a = std(advertised(() => (builds++, schema), "lazy", "output"));
  assert.equal(builds, 0, "wrapping builds nothing");
  assert.deepEqual(a.validate({ n: "x" }), { value: { n: "x" } });
  assert.equal(builds, 0, "validation builds nothing");
  assert.deepEqual(
    a.jsonSchema.output({ target: ADVERTISED_TARGET }),
    std(schema).jsonSchema.output({ target: ADVERTISED_TARGET }),
  );
  a.jsonSchema.output({ target: ADVERTISED_TARGET });
  a.jsonSchema.input({ target: "draft-07" });
  assert.equal(builds, 1, "built once, for every later conversion");
});

Deno.test("warmAdvertised() converts every tool's schemas; embedded schemas answer before any conversion", async () => {
  const tools = [
    { name: "a", inputSchema: advertised(z.object({ x: z.string() }), "a", "input"), outputSchema: undefined },
    {
      name: "b",
      inputSchema: advertised(z.object({}), "b", "input"),
      outputSchema: advertised(z.object({ y: z.number() }), "b", "output"),
    },
  ];
  const keys = Object.keys(precomputeToolSchemas(tools)).map((k) => k.split("\u0000").slice(0, 3).join("/"));
  assert.deepEqual(keys, ["a/input/input", "b/input/input", "b/output/output"]);
  warmAdvertised(tools); // converts without throwing; the memo then holds them (first test)

  // What a bundle embeds is keyed exactly as the product's precomputed schemas: a marked copy of those
  // is what the advertised schemas of the same tools then answer, without converting.
  const product = await productToolSchemas();
  const marked = Object.fromEntries(Object.entries(product).map(([k, v]) => [k, { ...v, "x-embedded": true }]));
  embedToolSchemas(JSON.stringify(marked));
  assert.throws(() => embedToolSchemas("{}"), /already embedded/);
  for (const key of Object.keys(product)) {
    const [tool, slot, io] = key.split("\u0000") as [string, "input" | "output", "input" | "output"];
    const schema = std(advertised(z.object({}), tool, slot));
    assert.equal((schema.jsonSchema[io]({ target: ADVERTISED_TARGET }) as Record<string, unknown>)["x-embedded"], true);
  }
  // A schema given as a builder is never built when the bundle embeds its conversion.
  const [tool0, slot0, io0] = Object.keys(product)[0]!.split("\u0000") as [
    string,
    "input" | "output",
    "input" | "output",
  ];
  const unbuilt = std(advertised(
    () => {
      throw new Error("an embedded schema must not be built");
    },
    tool0,
    slot0,
  ));
  assert.equal((unbuilt.jsonSchema[io0]({ target: ADVERTISED_TARGET }) as Record<string, unknown>)["x-embedded"], true);
  const unknownTool = std(advertised(z.object({ q: z.string() }), "not-embedded", "input"));
  assert.equal(
    (unknownTool.jsonSchema.input({ target: ADVERTISED_TARGET }) as Record<string, unknown>)["x-embedded"],
    undefined,
  );
});
