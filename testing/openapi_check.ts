/**
 * Checks HTTP exchanges against GitHub's official REST description (npm `@octokit/openapi`,
 * `generated/api.github.com.json`, OpenAPI 3.0) with Ajv: the fake GitHub answers what GitHub
 * documents, and longcall asks only what GitHub documents.
 *
 * - The operation is found by method and path template (`/repos/{owner}/{repo}/commits/{ref}/status`),
 *   generically: any documented endpoint can be checked, including ones the fake serves later.
 * - Query parameters must be documented for the operation and fit their schema (integers coerced).
 * - The status must be documented for the operation, or be one GitHub answers on every endpoint
 *   ({@linkcode UNIVERSAL_STATUSES}: a 304 to a conditional request, 401, rate-limit 403/429, 5xx).
 * - A JSON body is validated against the documented schema of that status (`basic-error` for the
 *   universal error statuses); a 304 must have no body.
 * - Documented headers (e.g. `Link`, `X-RateLimit-*`) must fit their schema when present;
 *   every answer carries GitHub's `x-ratelimit-*` headers; a `Link` header has GitHub's form
 *   (`<url>; rel="next"`, rels from prev/next/last/first, each page URL with `page=`).
 *
 * `/repositories/{id}/...` (the form of GitHub's own `Link` and `Location` targets) is checked as
 * the `/repos/{owner}/{repo}/...` operation it aliases.
 *
 * OpenAPI 3.0 quirks handled: `nullable: true` becomes a `null` alternative (with or without a
 * `type`, also beside `allOf`/`$ref`, and `null` joins an `enum`), siblings of `$ref` are dropped,
 * extension keywords (`x-github`, `example`, `discriminator`, ...) are ignored, `$ref`s are
 * resolved inside one shared schema document.
 *
 * @module
 */

import { Ajv, type ValidateFunction } from "ajv";

/** One HTTP exchange to check. */
export interface Exchange {
  method: string;
  /** Path and query, e.g. `/repos/o/r/issues?per_page=100&page=2` (an absolute URL is fine too). */
  url: string;
  /** Whether the request carried `If-None-Match` / `If-Modified-Since`. */
  conditional: boolean;
  status: number;
  headers: Headers;
  /** Parsed JSON body, or undefined for none. */
  body: unknown;
  /** Check the request's query parameters too (default true; false for a deliberately bad request). */
  checkQuery?: boolean;
}

/** Statuses GitHub can answer on any endpoint, whether or not its description lists them. */
export const UNIVERSAL_STATUSES: ReadonlyMap<number, string> = new Map([
  [304, "Not Modified, to a conditional request (docs: 'Use conditional requests if appropriate')"],
  [401, "Bad credentials, for any request with an invalid token"],
  [403, "primary or secondary rate limit, or no access (docs: rate limits for the REST API)"],
  [
    422,
    "Unprocessable: GitHub answers `No commit found for SHA` for an unknown ref on /commits/{ref}/* and a validation error for bad parameters on any endpoint",
  ],
  [429, "secondary rate limit (docs: rate limits for the REST API)"],
  [500, "server error"],
  [502, "server error"],
  [503, "server error"],
  [504, "server error"],
]);

/** GitHub's Link relations. */
const LINK_RELS = new Set(["next", "last", "prev", "first"]);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Operation {
  template: string;
  pattern: RegExp;
  literalChars: number;
  op: JsonObject;
}

/** A loaded checker. */
export interface OpenApiCheck {
  /** The documented operation for a method and a concrete path (template, operationId), if any. */
  operation(method: string, pathname: string): { template: string; operationId: string } | undefined;
  /** Problems with an exchange; empty when it conforms. */
  check(exchange: Exchange): string[];
  /** The description's version (`info.version`). */
  readonly version: string;
}

/** Schema errors quoted per problem. */
const ERRORS_SHOWN_MAX = 8;

const SPEC = "@octokit/openapi/generated/api.github.com.json";
const REF_ROOT = "gh";

let loading: Promise<OpenApiCheck> | undefined;

/** Loads (once per process) GitHub's description and compiles validators on demand. */
export function loadOpenApiCheck(): Promise<OpenApiCheck> {
  loading ??= build();
  return loading;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** OpenAPI 3.0 schema -> JSON Schema draft-07 as Ajv reads it (see the module doc). */
function toJsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isObject(node)) return node;
  if (typeof node.$ref === "string") {
    const ref = node.$ref.startsWith("#/") ? `${REF_ROOT}${node.$ref}` : node.$ref;
    return node.nullable === true ? { anyOf: [{ $ref: ref }, { type: "null" }] } : { $ref: ref };
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "nullable" || k === "example" || k === "examples" || k.startsWith("x-")) continue;
    if (k === "properties" && isObject(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, toJsonSchema(s)]));
      continue;
    }
    out[k] = toJsonSchema(v);
  }
  if (node.nullable !== true) return out;
  if (typeof out.type === "string") {
    out.type = [out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: "null" }] };
}

function templatePattern(template: string): { pattern: RegExp; literalChars: number } {
  let literalChars = 0;
  const source = template.split(/(\{[^}]+\})/).map((part) => {
    if (/^\{[^}]+\}$/.test(part)) {
      // A git ref (`heads/main`) or a file path may contain slashes.
      return /^\{(ref|path|branch|basehead)\}$/.test(part) ? "(.+?)" : "([^/]+)";
    }
    literalChars += part.length;
    return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }).join("");
  return { pattern: new RegExp(`^${source}$`), literalChars };
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

async function build(): Promise<OpenApiCheck> {
  // A computed specifier keeps the 13 MB JSON module out of type checking.
  const spec = (await import(SPEC, { with: { type: "json" } })).default as JsonObject;
  const components = spec.components as JsonObject;
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    validateSchema: false,
    logger: false,
    formats: {
      "date-time": (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)),
      "uri": (s: string) => URL.canParse(s),
      "date": /^\d{4}-\d{2}-\d{2}$/,
      "uri-template": true,
      "email": true,
      "hostname": true,
      "ipv4": true,
      "ipv6": true,
      "uuid": true,
      "binary": true,
      "repo.nwo": true,
      "ssh-key": true,
      "ssh-key fingerprint": true,
      "timestamp": true,
    },
  });
  ajv.addSchema({ $id: REF_ROOT, components: { schemas: toJsonSchema(components.schemas as Json) } });

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(spec.paths as JsonObject)) {
    if (!isObject(item)) continue;
    for (const [method, op] of Object.entries(item)) {
      if (!isObject(op) || !("responses" in op)) continue;
      const { pattern, literalChars } = templatePattern(template);
      operations.push({ template: `${method.toUpperCase()} ${template}`, pattern, literalChars, op });
    }
  }
  operations.sort((a, b) => b.literalChars - a.literalChars);

  const deref = (v: Json | undefined): JsonObject | undefined => {
    let node = v;
    for (let i = 0; i < 8 && isObject(node) && typeof node.$ref === "string"; i++) {
      const parts = node.$ref.replace(/^#\//, "").split("/");
      let at: Json | undefined = spec;
      for (const p of parts) at = isObject(at) ? at[p] : undefined;
      node = at;
    }
    return isObject(node) ? node : undefined;
  };

  const compiled = new Map<string, ValidateFunction>();
  const validator = (key: string, schema: Json): ValidateFunction => {
    let v = compiled.get(key);
    if (v === undefined) {
      v = ajv.compile(toJsonSchema(schema) as JsonObject);
      compiled.set(key, v);
    }
    return v;
  };
  const basicError = { $ref: "#/components/schemas/basic-error" };

  const find = (method: string, pathname: string): Operation | undefined => {
    const m = method.toUpperCase();
    return operations.find((o) => o.template.startsWith(`${m} `) && o.pattern.test(pathname));
  };

  const errorsOf = (v: ValidateFunction): string =>
    (v.errors ?? []).slice(0, ERRORS_SHOWN_MAX).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`).join("; ");

  /** The problems of `url`'s query parameters against `o`'s documented ones. */
  const checkParams = (o: Operation, url: URL): string[] => {
    const problems: string[] = [];
    const params = (Array.isArray(o.op.parameters) ? o.op.parameters : []).map(deref)
      .filter((p): p is JsonObject => p !== undefined && p.in === "query");
    for (const [name, raw] of url.searchParams) {
      const p = params.find((x) => x.name === name);
      if (p === undefined) {
        problems.push(`query parameter ${name} is not documented for ${o.template}`);
        continue;
      }
      const schema = (p.schema ?? {}) as Json;
      const type = isObject(schema) ? schema.type : undefined;
      const value: Json = type === "integer" || type === "number"
        ? (/^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw)
        : type === "boolean"
        ? (raw === "true" ? true : raw === "false" ? false : raw)
        : raw;
      const v = validator(`param ${o.template} ${name}`, schema);
      if (!v(value)) problems.push(`query parameter ${name}=${raw}: ${errorsOf(v)}`);
    }
    return problems;
  };

  const checkLink = (link: string, problems: string[]) => {
    const entries = link.split(/,\s*(?=<)/);
    for (const entry of entries) {
      const m = /^<([^>]+)>; rel="([a-z]+)"$/.exec(entry.trim());
      if (m === null) {
        problems.push(`Link entry is not <url>; rel="x": ${entry}`);
        continue;
      }
      const [, target = "", rel = ""] = m;
      if (!LINK_RELS.has(rel)) problems.push(`Link rel ${rel} is not one of ${[...LINK_RELS].join(", ")}`);
      if (!URL.canParse(target) || !/^[1-9]\d*$/.test(new URL(target).searchParams.get("page") ?? "")) {
        problems.push(`Link ${rel} target has no page=N: ${target}`);
      }
    }
  };

  return {
    version: String((spec.info as JsonObject).version ?? ""),
    operation(method, pathname) {
      const o = find(method, pathname);
      return o === undefined ? undefined : { template: o.template, operationId: String(o.op.operationId ?? "") };
    },
    check(x) {
      const problems: string[] = [];
      const url = new URL(x.url, "http://127.0.0.1");
      // GitHub's own `Link` and `Location` targets use `/repositories/{id}/...`, an undocumented
      // alias of `/repos/{owner}/{repo}/...`: check them as the operation they alias.
      const pathname = decodeURI(url.pathname).replace(/^\/repositories\/\d+(?=\/|$)/, "/repos/{owner}/{repo}");
      const o = find(x.method, pathname);
      if (o === undefined) return [`${x.method} ${url.pathname} is not a documented operation`];
      if (x.checkQuery !== false) problems.push(...checkParams(o, url));
      const responses = o.op.responses as JsonObject;
      const documented = deref(responses[String(x.status)]);
      const universal = UNIVERSAL_STATUSES.get(x.status);
      if (documented === undefined && universal === undefined) {
        problems.push(`status ${x.status} is not documented for ${o.template}`);
      }
      if (x.status === 304) {
        if (!x.conditional) problems.push(`304 to an unconditional request (${o.template})`);
        if (x.body !== undefined) problems.push(`304 with a body (${o.template})`);
      } else if (x.status >= 200 && x.status < 300 || x.status >= 400 || x.status === 301) {
        const content = documented?.content;
        const schema = isObject(content) && isObject(content["application/json"])
          ? content["application/json"].schema
          : documented === undefined && x.status >= 400
          ? basicError
          : undefined;
        if (schema !== undefined && schema !== null) {
          if (x.body === undefined) {
            problems.push(`status ${x.status} of ${o.template} has no JSON body`);
          } else {
            const v = validator(`${o.template} ${x.status}`, schema);
            if (!v(x.body)) problems.push(`body of ${x.status} ${o.template}: ${errorsOf(v)}`);
          }
        }
        if (x.body !== undefined && !/^application\/json\b/.test(x.headers.get("content-type") ?? "")) {
          problems.push(`JSON body without content-type application/json (${o.template})`);
        }
      }
      const headers = isObject(documented?.headers) ? documented.headers : {};
      for (const [name, h] of Object.entries(headers)) {
        const value = x.headers.get(name);
        const hd = deref(h);
        if (value === null || hd === undefined || hd.schema === undefined) continue;
        const type = isObject(hd.schema) ? hd.schema.type : undefined;
        const v = validator(`header ${name} ${JSON.stringify(hd.schema)}`, hd.schema);
        const parsed: Json = type === "integer" && /^\d+$/.test(value) ? Number(value) : value;
        if (!v(parsed)) problems.push(`header ${name}: ${value}: ${errorsOf(v)}`);
      }
      for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-used", "x-ratelimit-reset"]) {
        const value = x.headers.get(name);
        if (value === null || !/^\d+$/.test(value)) problems.push(`header ${name} is missing or not an integer`);
      }
      const link = x.headers.get("link");
      if (link !== null) checkLink(link, problems);
      const etag = x.headers.get("etag");
      if (etag !== null && !/^(W\/)?"[^"]*"$/.test(etag)) problems.push(`ETag is not a quoted entity tag: ${etag}`);
      return problems;
    },
  };
}
