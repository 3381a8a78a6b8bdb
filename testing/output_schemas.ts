/**
 * Validates every `structuredContent` a test client sees against the `outputSchema` its tool
 * advertised in `tools/list`, with a real JSON Schema validator (Ajv, draft 2020-12: the dialect
 * the SDK emits), the way MCP Inspector, the Python SDK and the v1 TypeScript SDK check them.
 *
 * {@linkcode observeTransport} wraps a connected transport: it learns the schemas from every
 * `tools/list` response and checks each `tools/call` result (immediate results, the JobReference a
 * CreateTaskResult carries) and each completed `tasks/get` result (attributed to the tool whose
 * `tools/call` created the task). The helpers in mcp_clients.ts attach it to every connection and
 * fail the connection's `close()` when anything did not validate.
 *
 * @module
 */

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

/** A tool as `tools/list` lists it (only what validation needs). */
export interface ListedTool {
  name: string;
  outputSchema?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Where a structuredContent came from. */
export type ResultSource = "tools/call" | "tasks/get";

/** A structuredContent a client saw, and where it came from. */
export interface SeenResult {
  structuredContent: unknown;
  source: ResultSource;
}

/** One structuredContent that did not validate. */
export interface Violation {
  tool: string;
  source: ResultSource;
  errors: string;
  structuredContent: unknown;
}

/** taskId -> the tool whose `tools/call` created it; shared by every connection of the test process,
 * so a task read through a second connection (or server process) is still attributed. */
const TASK_TOOLS = new Map<string, string>();

/** Output-schema validation for one connection. */
export class OutputSchemaValidator {
  readonly #ajv = new Ajv2020({ strict: true, allErrors: true });
  readonly #validators = new Map<string, ValidateFunction | null>();
  readonly #tools = new Map<string, ListedTool>();
  /** Every structuredContent that did not validate. */
  readonly violations: Violation[] = [];
  /** How many structuredContents were checked against a declared schema, by source. */
  readonly checked: Record<ResultSource, number> = { "tools/call": 0, "tasks/get": 0 };

  /** Learns (or re-learns) the tools of a `tools/list` page. */
  registerTools(tools: readonly ListedTool[]): void {
    for (const tool of tools) {
      this.#tools.set(tool.name, tool);
      this.#validators.delete(tool.name);
    }
  }

  /** Whether `tools/list` has been seen. */
  get knowsTools(): boolean {
    return this.#tools.size > 0;
  }

  /** The compiled validator of a tool's outputSchema; null when the tool declares none. Throws on a schema Ajv rejects. */
  validatorOf(tool: string): ValidateFunction | null {
    if (!this.#validators.has(tool)) {
      const schema = this.#tools.get(tool)?.outputSchema;
      this.#validators.set(tool, schema === undefined ? null : this.#ajv.compile(schema));
    }
    return this.#validators.get(tool) ?? null;
  }

  /**
   * Checks `seen.structuredContent` against `tool`'s outputSchema; records and returns a violation, or
   * undefined when it validates (or the tool declares no schema). An unknown tool is a violation:
   * tests only call tools they listed.
   */
  check(tool: string, seen: SeenResult): Violation | undefined {
    const { structuredContent, source } = seen;
    if (!this.#tools.has(tool)) {
      const v = { tool, source, errors: "tool not in tools/list", structuredContent };
      this.violations.push(v);
      return v;
    }
    let validate: ValidateFunction | null;
    try {
      validate = this.validatorOf(tool);
    } catch (err) {
      const v = { tool, source, errors: `outputSchema does not compile: ${String(err)}`, structuredContent };
      this.violations.push(v);
      return v;
    }
    if (validate === null) return undefined;
    this.checked[source]++;
    if (validate(structuredContent)) return undefined;
    const v = { tool, source, errors: this.#ajv.errorsText(validate.errors), structuredContent };
    this.violations.push(v);
    return v;
  }

  /** Throws (an AssertionError-like Error) listing every violation so far. */
  assertNoViolations(): void {
    if (this.violations.length === 0) return;
    throw new Error(
      `${this.violations.length} structuredContent(s) did not validate against their tool's outputSchema:\n` +
        this.violations.map((v) =>
          `- ${v.tool} (${v.source}): ${v.errors}\n  ${JSON.stringify(v.structuredContent).slice(0, 600)}`
        ).join("\n"),
    );
  }
}

/** Formats a violation for an assertion message. */
export function violationText(v: Violation): string {
  return `${v.tool} (${v.source}) structuredContent does not match its outputSchema: ${v.errors}\n` +
    JSON.stringify(v.structuredContent).slice(0, 1_000);
}

/** The minimal transport surface both SDK generations share. */
interface ObservableTransport {
  send(message: unknown, options?: unknown): Promise<void>;
  onmessage?: ((message: never, extra?: never) => void) | undefined;
}

type Pending = { method: string; tool?: string; taskId?: string };

/**
 * Wraps `transport` (already connected: the SDK's `onmessage` is set) so that every response to
 * `tools/list`, `tools/call` and `tasks/get` passes through `validator` before the client sees it.
 * Returns the validator.
 */
export function observeTransport(
  transport: unknown,
  validator: OutputSchemaValidator = new OutputSchemaValidator(),
): OutputSchemaValidator {
  const t = transport as ObservableTransport;
  const pending = new Map<string | number, Pending>();
  const send = t.send.bind(t);
  t.send = (message: unknown, options?: unknown) => {
    const m = message as { id?: string | number; method?: string; params?: Record<string, unknown> };
    if (m.id !== undefined && typeof m.method === "string") {
      const tool = m.params?.["name"];
      const taskId = m.params?.["taskId"];
      pending.set(m.id, {
        method: m.method,
        ...(typeof tool === "string" ? { tool } : {}),
        ...(typeof taskId === "string" ? { taskId } : {}),
      });
    }
    return send(message, options);
  };
  const inner = t.onmessage;
  t.onmessage = ((message: unknown, extra?: unknown) => {
    const m = message as { id?: string | number; method?: string; result?: Record<string, unknown> };
    if (m.id !== undefined && m.method === undefined) {
      const request = pending.get(m.id);
      pending.delete(m.id);
      if (request !== undefined && m.result !== undefined) inspect(validator, { request, result: m.result });
    }
    (inner as ((message: unknown, extra?: unknown) => void) | undefined)?.(message, extra);
  }) as ObservableTransport["onmessage"];
  return validator;
}

/** Learns from or checks one response: the result of a pending `tools/list`, `tools/call` or `tasks/get`. */
function inspect(
  validator: OutputSchemaValidator,
  response: { request: Pending; result: Record<string, unknown> },
): void {
  const { request, result } = response;
  switch (request.method) {
    case "tools/list":
      validator.registerTools((result["tools"] ?? []) as ListedTool[]);
      return;
    case "tools/call": {
      if (request.tool === undefined) return;
      if (result["resultType"] === "task" && typeof result["taskId"] === "string") {
        TASK_TOOLS.set(result["taskId"], request.tool);
      }
      if (result["structuredContent"] !== undefined) {
        validator.check(request.tool, { structuredContent: result["structuredContent"], source: "tools/call" });
      }
      return;
    }
    case "tasks/get": {
      checkCompletedTask(validator, { taskId: request.taskId, task: result });
      return;
    }
  }
}

/**
 * Checks a `tasks/get` result (or a settled task view) `read.task` of the task `read.taskId`: a completed
 * task's `result.structuredContent` against the outputSchema of the tool that created it. Returns the
 * violation, if any; a task created outside every observed connection is a violation too.
 */
export function checkCompletedTask(
  validator: OutputSchemaValidator,
  read: { taskId: string | undefined; task: Record<string, unknown> },
): Violation | undefined {
  const { taskId, task } = read;
  if (task["status"] !== "completed") return undefined;
  const sc = (task["result"] as { structuredContent?: unknown } | undefined)?.structuredContent;
  if (sc === undefined) return undefined;
  const tool = taskId === undefined ? undefined : TASK_TOOLS.get(taskId);
  if (tool === undefined) {
    const v: Violation = {
      tool: "(unknown)",
      source: "tasks/get",
      errors: `task ${taskId} was not created through an observed tools/call`,
      structuredContent: sc,
    };
    validator.violations.push(v);
    return v;
  }
  return validator.check(tool, { structuredContent: sc, source: "tasks/get" });
}

/** Remembers which tool created a task (for tasks created outside an observed transport). */
export function rememberTaskTool(taskId: string, tool: string): void {
  TASK_TOOLS.set(taskId, tool);
}

const SCHEMA_CACHE = new WeakMap<object, ValidateFunction>();

/**
 * Asserts that `value` (after a JSON round trip, as a client receives it) validates against the JSON
 * Schema the SDK advertises for `schema` (its `~standard.jsonSchema` output, draft 2020-12); the error
 * names the value as `options.what`.
 */
export function assertMatchesAdvertised(schema: object, value: unknown, options: { what: string }): void {
  const { what } = options;
  let validate = SCHEMA_CACHE.get(schema);
  if (validate === undefined) {
    const std = (schema as { "~standard": { jsonSchema: { output(o: { target: string }): unknown } } })["~standard"];
    const json = JSON.parse(JSON.stringify(std.jsonSchema.output({ target: "draft-2020-12" })));
    validate = new Ajv2020({ strict: true, allErrors: true }).compile(json);
    SCHEMA_CACHE.set(schema, validate);
  }
  const wire = JSON.parse(JSON.stringify(value));
  if (!validate(wire)) {
    throw new Error(
      `${what} does not match its advertised schema: ${new Ajv2020().errorsText(validate.errors)}\n` +
        JSON.stringify(wire).slice(0, 1_000),
    );
  }
}
