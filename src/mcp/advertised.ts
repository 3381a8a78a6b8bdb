/**
 * The schemas `tools/list` advertises, converted to JSON Schema once per factory, and answered
 * from a precomputed set where one is given.
 *
 * The SDK converts a tool's schema through the Standard JSON Schema interface
 * (`~standard.jsonSchema.input|output({ target })`, StandardJSONSchemaV1) on every `tools/list`
 * of every server instance (one per stdio connection, one per stateless HTTP request). zod's
 * conversion of longcall's tools takes 12-20 ms at start-up (building the output schemas
 * included), which a first `tools/list` would pay in full. Here each tool's schemas are wrapped
 * once per factory, every conversion is kept, and the product's conversions come precomputed:
 *
 * - src/mcp/tool_schemas.json holds them, written by `deno task schemas` (scripts/tool_schemas.ts,
 *   the same conversion over the product's tools) and imported by src/mcp/serving.ts;
 * - the shipped bundle and the compiled binaries are built only when that file equals a fresh
 *   conversion (scripts/build.ts), and they trust it ({@linkcode trustToolSchemas}: the bundle's
 *   generated entry, src/mcp/serving.ts in a compiled binary), so they never build an output schema;
 * - from source the file may be older than the code (a schema edited, the file not regenerated):
 *   the first answers come from it, and ADVERTISED_CHECK_DELAY_MS after the first one (once the host's
 *   start-up exchange has been answered, not in the middle of its writes) the factory converts every schema
 *   it answered that way ({@linkcode verifyAdvertised}). What differs is replaced, logged, and the
 *   connected sessions are told `notifications/tools/list_changed`. `deno task ok` fails while
 *   the file is stale (tests/advertised_schemas_test.ts).
 *
 * The SDK's own routes (`tools/list`, `tools/call`) are untouched; validation still happens
 * in each handler (see {@linkcode advertised}).
 *
 * @module
 */

import type { z } from "zod";

/** The JSON Schema dialect the SDK asks for (and the precomputed set holds). */
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

/** Conversions keyed as {@linkcode advertised} looks them up ({@linkcode schemaKey}). */
export type PrecomputedSchemas = Readonly<Record<string, Record<string, unknown>>>;

/** One conversion of a tool's schema: the tool, which of its schemas, and the direction. */
export interface SchemaConversion {
  tool: string;
  slot: SchemaSlot;
  io: Io;
}

/** The key of one conversion: the tool, which of its schemas, the direction and the SDK's `options`. */
export function schemaKey(conversion: SchemaConversion, options: Record<string, unknown>): string {
  const { tool, slot, io } = conversion;
  return `${tool}\u0000${slot}\u0000${io}\u0000${JSON.stringify(options)}`;
}

/** Where precomputed conversions come from, and who hears when one is answered from them. */
export interface PrecomputedSource {
  schemas: PrecomputedSchemas;
  /** Called each time a conversion is first answered from `schemas` (once per key and wrapper). */
  onUse?: () => void;
}

const trusted = new WeakSet<PrecomputedSchemas>();

/**
 * Records that `schemas` (src/mcp/tool_schemas.json as imported) were checked against a fresh
 * conversion when this code was built: by the bundle's generated entry (scripts/build.ts) and, in a
 * compiled binary, by src/mcp/serving.ts.
 */
export function trustToolSchemas(schemas: PrecomputedSchemas): void {
  trusted.add(schemas);
}

/** Whether `schemas` were checked when this code was built (the bundle, a compiled binary). */
export function toolSchemasTrusted(schemas: PrecomputedSchemas): boolean {
  return trusted.has(schemas);
}

/** What {@linkcode verifyAdvertised} can ask of a wrapped schema. */
interface Verifiable {
  /**
   * Converts again every conversion answered from the precomputed set: replaces and returns the keys that
   * differ, and returns those whose conversion threw (left as precomputed) with the error.
   */
  verify(): { stale: string[]; failed: { key: string; error: string }[] };
}
const verifiable = new WeakMap<object, Verifiable>();

/** Where {@linkcode advertised} advertises a schema, and the conversions it may answer from. */
export interface AdvertisedOptions {
  /** The tool whose schema it is. */
  tool: string;
  /** Which of the tool's schemas. */
  slot: SchemaSlot;
  /** Precomputed conversions (none: every conversion is run). */
  precomputed?: PrecomputedSource | undefined;
}

/**
 * `schema` as advertised for `options.tool`'s `options.slot`: the SDK's own validation lets every value
 * through (longcall validates inside the handler, where it can answer with a typed error, and a task result
 * is not rejected by an output schema meant for JobReferences); its JSON Schema is converted at most
 * once per target, or taken from `options.precomputed`. `schema` may be a function that builds it: it is
 * then called only when a conversion is needed (in the bundle never), so building it is off the
 * start-up path.
 */
export function advertised(schema: z.ZodType | (() => z.ZodType), options: AdvertisedOptions): z.ZodType {
  const { tool, slot, precomputed } = options;
  let std: StandardJsonSchema | undefined;
  const standard = () =>
    std ??= (typeof schema === "function" ? schema() : schema)["~standard"] as unknown as StandardJsonSchema;
  const memo = new Map<string, Record<string, unknown>>();
  // Keys answered from `precomputed`, with how to convert each for real.
  const unverified = new Map<string, () => Record<string, unknown>>();
  const convert = (io: Io): Convert => (options) => {
    const key = schemaKey({ tool, slot, io }, options);
    let json = memo.get(key);
    if (json === undefined) {
      json = precomputed?.schemas[key];
      if (json === undefined) json = standard().jsonSchema[io](options);
      else {
        unverified.set(key, () => standard().jsonSchema[io](options));
        precomputed?.onUse?.();
      }
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
  verifiable.set(wrapped, {
    verify: () => {
      const stale: string[] = [];
      const failed: { key: string; error: string }[] = [];
      for (const [key, live] of unverified) {
        let json: Record<string, unknown>;
        try {
          json = live();
        } catch (err) {
          failed.push({ key, error: String(err) });
          continue;
        }
        if (JSON.stringify(json) !== JSON.stringify(memo.get(key))) {
          memo.set(key, json);
          stale.push(key);
        }
      }
      unverified.clear();
      return { stale, failed };
    },
  });
  return wrapped as unknown as z.ZodType;
}

/**
 * Converts for real every schema of `tools` answered from a precomputed set so far and keeps the real
 * conversion where it differs. Returns the tools whose schemas differed (each once), and the tools
 * whose conversion threw with the first error (their schemas stay as precomputed).
 */
export function verifyAdvertised(
  tools: readonly AdvertisedTool[],
): { stale: string[]; failed: { tool: string; error: string }[] } {
  const stale = new Set<string>();
  const failed = new Map<string, string>();
  for (const t of tools) {
    for (const schema of [t.inputSchema, t.outputSchema]) {
      const outcome = schema === undefined ? undefined : verifiable.get(schema)?.verify();
      if (outcome === undefined) continue;
      if (outcome.stale.length > 0) stale.add(t.name);
      for (const f of outcome.failed) if (!failed.has(t.name)) failed.set(t.name, f.error);
    }
  }
  return { stale: [...stale], failed: [...failed].map(([tool, error]) => ({ tool, error })) };
}

/** Whether any of `tools` has a schema `schemas` answers for (at any options). */
export function answersAny(schemas: PrecomputedSchemas, tools: readonly { name: string }[]): boolean {
  const names = new Set(tools.map((t) => t.name));
  for (const key in schemas) if (names.has(key.slice(0, key.indexOf("\u0000")))) return true;
  return false;
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
 * The JSON Schemas `tools/list` asks for, keyed as {@linkcode advertised} looks them up: what
 * src/mcp/tool_schemas.json holds (scripts/tool_schemas.ts), computed by the same conversion the
 * server would run.
 */
export function precomputeToolSchemas(tools: readonly AdvertisedTool[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const options = { target: ADVERTISED_TARGET };
  for (const t of tools) {
    const input = (t.inputSchema["~standard"] as unknown as StandardJsonSchema).jsonSchema.input(options);
    out[schemaKey({ tool: t.name, slot: "input", io: "input" }, options)] = input;
    if (t.outputSchema !== undefined) {
      const output = (t.outputSchema["~standard"] as unknown as StandardJsonSchema).jsonSchema.output(options);
      out[schemaKey({ tool: t.name, slot: "output", io: "output" }, options)] = output;
    }
  }
  return out;
}
