/**
 * Validates a `server.json` against the MCP Registry's published JSON schema (2025-12-11), kept
 * byte for byte in fixtures/registry/server.schema.json (source and licence in the README there),
 * with Ajv (draft-07, formats checked).
 *
 * @module
 */

import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";

export const SERVER_SCHEMA_PATH = new URL("../../fixtures/registry/server.schema.json", import.meta.url);
/** SHA-256 of the published file, so a local edit of the copy is noticed. */
export const SERVER_SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";

// ajv-formats is CommonJS; its default export is the plugin function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Returns the schema problems of `doc` (empty when it validates). */
export async function serverJsonProblems(doc: unknown): Promise<string[]> {
  const bytes = await Deno.readFile(SERVER_SCHEMA_PATH);
  const digest = await sha256(bytes);
  if (digest !== SERVER_SCHEMA_SHA256) {
    throw new Error(
      `Cannot validate server.json: ${SERVER_SCHEMA_PATH.pathname} has sha256 ${digest}, not the published ${SERVER_SCHEMA_SHA256}`,
    );
  }
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(new TextDecoder().decode(bytes)));
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword}`);
}
