/**
 * The schemas `tools/list` advertises, converted to JSON Schema once per process.
 *
 * The SDK converts a tool's schema through the Standard JSON Schema interface
 * (`~standard.jsonSchema.input|output({ target })`, StandardJSONSchemaV1) on every `tools/list`
 * of every server instance (one per stdio connection, one per stateless HTTP request). zod's
 * conversion of longcall's tools takes about 10 ms, which a first `tools/list` paid in full.
 * Here each tool's schemas are wrapped once per factory, every conversion is kept, and:
 *
 * - the shipped bundle embeds the JSON Schemas precomputed when it is built (scripts/build.ts
 *   runs {@linkcode precomputeToolSchemas} on the product's tools and hands the result to
 *   {@linkcode embedToolSchemas} before any other longcall module runs), so its first
 *   `tools/list` converts nothing;
 * - from source, {@linkcode warmAdvertised} converts them once, in the first turn of the event
 *   loop after the server is built (src/mcp/server.ts).
 *
 * The SDK's own routes (`tools/list`, `tools/call`) are untouched; validation still happens
 * in each handler (see {@linkcode advertised}).
 *
 * @module
 */

import type { z } from "zod";

/** The JSON Schema dialect the SDK asks for (and the bundle precomputes). */
export const ADVERTISED_TARGET = "draft-2020-12";

type Io = "input" | "output";
type Convert = (options: { target: string; libraryOptions?: Record<string, unknown> }) => Record<string, unknown>;
interface StandardJsonSchema {
  vendor: string;
  version: 1;
  jsonSchema: { input: Convert; output: Convert };
}

/** Which of a tool's schemas: its arguments or its results. */
export type SchemaSlot = "input" | "output";

/** A tool's advertised schemas, wrapped once. */
export interface AdvertisedTool {
  name: string;
  inputSchema: z.ZodType;
  outputSchema: z.ZodType | undefined;
}

let embeddedText: string | undefined;
let embedded: Record<string, Record<string, unknown>> | undefined;

/**
 * Records the bundle's precomputed JSON Schemas (the output of {@linkcode precomputeToolSchemas}
 * as JSON). Called once, by the generated bundle entry only; parsed on first use.
 */
export function embedToolSchemas(json: string): void {
  if (embeddedText !== undefined) throw new TypeError("Cannot embed tool schemas: they are already embedded");
  if (json.length === 0) throw new TypeError("Cannot embed tool schemas: current value is empty");
  embeddedText = json;
}

function precomputed(key: string): Record<string, unknown> | undefined {
  if (embeddedText === undefined) return undefined;
  embedded ??= JSON.parse(embeddedText) as Record<string, Record<string, unknown>>;
  return embedded[key];
}

/**
 * `schema` as advertised for `tool`'s `slot`: the SDK's own validation lets every value through
 * (longcall validates inside the handler, where it can answer with a typed error, and a task result
 * is not rejected by an output schema meant for JobReferences); its JSON Schema is converted at most
 * once per target, or taken from the bundle's precomputed schemas. `schema` may be a function that
 * builds it: it is then called only when a conversion is needed (never in the bundle, whose
 * conversions are embedded), so building it is off the start-up path.
 */
export function advertised(schema: z.ZodType | (() => z.ZodType), tool: string, slot: SchemaSlot): z.ZodType {
  let std: StandardJsonSchema | undefined;
  const standard = () =>
    std ??= (typeof schema === "function" ? schema() : schema)["~standard"] as unknown as StandardJsonSchema;
  const memo = new Map<string, Record<string, unknown>>();
  const convert = (io: Io): Convert => (options) => {
    const key = `${tool}\u0000${slot}\u0000${io}\u0000${JSON.stringify(options)}`;
    let json = memo.get(key);
    if (json === undefined) {
      json = precomputed(key) ?? standard().jsonSchema[io](options);
      memo.set(key, json);
    }
    return json;
  };
  const wrapped = {
    "~standard": {
      // Every longcall schema is a zod one (Standard Schema v1), so the wrapper need not build it to say so.
      vendor: "zod",
      version: 1,
      jsonSchema: { input: convert("input"), output: convert("output") },
      validate: (value: unknown) => ({ value }),
    },
  };
  return wrapped as unknown as z.ZodType;
}

/** Converts every advertised schema now, as `tools/list` will ask for it. */
export function warmAdvertised(tools: readonly AdvertisedTool[]): void {
  for (const t of tools) {
    (t.inputSchema["~standard"] as unknown as StandardJsonSchema).jsonSchema.input({ target: ADVERTISED_TARGET });
    (t.outputSchema?.["~standard"] as unknown as StandardJsonSchema | undefined)?.jsonSchema.output({
      target: ADVERTISED_TARGET,
    });
  }
}

/**
 * The JSON Schemas `tools/list` asks for, keyed as {@linkcode advertised} looks them up: what the
 * bundle embeds (scripts/build.ts), computed by the same conversion the server would run.
 */
export function precomputeToolSchemas(tools: readonly AdvertisedTool[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const options = { target: ADVERTISED_TARGET };
  for (const t of tools) {
    const input = (t.inputSchema["~standard"] as unknown as StandardJsonSchema).jsonSchema.input(options);
    out[`${t.name}\u0000input\u0000input\u0000${JSON.stringify(options)}`] = input;
    if (t.outputSchema !== undefined) {
      const output = (t.outputSchema["~standard"] as unknown as StandardJsonSchema).jsonSchema.output(options);
      out[`${t.name}\u0000output\u0000output\u0000${JSON.stringify(options)}`] = output;
    }
  }
  return out;
}
