/**
 * The conformance scenario catalogue (data): every scenario of the official `@modelcontextprotocol/conformance`
 * CLI the runner knows, per package version, with the wire it speaks and why it does not apply to longcall, is a
 * known issue, or has checks that do not apply.
 *
 * @module
 */

export type PackageVersion = "0.1.16" | "0.2.0-alpha.12";
export type Wire = "2025-11-25" | "2026-07-28";
export type Group = "legacy" | "core" | "tasks";
export type Mode = "product" | "fixture";

export interface ScenarioSpec {
  readonly pkg: PackageVersion;
  readonly name: string;
  readonly group: Group;
  /** The wire the scenario speaks. 0.2.0-alpha.12 core scenarios get `--spec-version 2026-07-28`. */
  readonly wire: Wire;
  /** Set when the scenario does not apply to the target in this mode; the scenario is then not run. */
  readonly notApplicable?: string;
  /** A failure with a reason rooted in the SDK or the suite: reported, but it does not fail the run. */
  readonly knownIssue?: string;
  /** Check ids (from checks.json) that do not apply, with the reason; their FAILUREs are excused. */
  readonly naChecks?: Readonly<Record<string, string>>;
}

export const PACKAGES: readonly PackageVersion[] = ["0.1.16", "0.2.0-alpha.12"];

// ---------------------------------------------------------------------------------------------------------------
// Scenario catalogue (data). Reasons are about the product server: tools `jobs.get`, `jobs.cancel` and
// job-submitting tools; capabilities `tools` (+ the tasks extension on the modern era); no resources, prompts,
// completions, logging capability, sampling or elicitation; no input_required (MRTR) results.

type Entry = Omit<ScenarioSpec, "pkg" | "group" | "wire"> & { readonly wire?: Wire };

/** What every scenario of one catalogue list shares: its package, its group and its default wire. */
type ListOf = Pick<ScenarioSpec, "pkg" | "group" | "wire">;

/** The specs of `list`, each in `of.pkg` and `of.group`, speaking `of.wire` unless the entry names its own. */
function entries(of: ListOf, list: readonly Entry[]): readonly ScenarioSpec[] {
  const { pkg, group, wire } = of;
  return list.map((e) => ({ wire, ...e, pkg, group }));
}

const FIXTURE_TOOLS = (names: string): string =>
  `needs the suite's fixture tool(s) ${names}, which longcall does not ship`;
const NO_RESOURCES = "longcall exposes no resources (no `resources` capability; needs the suite's test:// fixtures)";
const NO_PROMPTS = "longcall exposes no prompts (no `prompts` capability; needs the suite's test_*prompt fixtures)";
const NO_MRTR = "longcall tools never return `input_required` (MRTR); needs the suite's test_input_required_result_* " +
  "fixture tools";
const TASKS_PRODUCT_NA = "needs the tasks fixture tools (greet, slow_compute, failing_job, protocol_error_job, " +
  "confirm_delete, multi_input, test_tool_with_task); run `deno task conformance --fixture`";

const LEGACY = entries({ pkg: "0.1.16", group: "legacy", wire: "2025-11-25" }, [
  { name: "server-initialize" },
  { name: "logging-set-level", notApplicable: "longcall declares no `logging` capability (logs go to stderr)" },
  { name: "ping" },
  { name: "completion-complete", notApplicable: "longcall declares no `completions` capability" },
  { name: "tools-list" },
  { name: "tools-call-simple-text", notApplicable: FIXTURE_TOOLS("`test_simple_text`") },
  { name: "tools-call-image", notApplicable: FIXTURE_TOOLS("`test_image_content`") },
  { name: "tools-call-audio", notApplicable: FIXTURE_TOOLS("`test_audio_content`") },
  { name: "tools-call-embedded-resource", notApplicable: FIXTURE_TOOLS("`test_embedded_resource`") },
  { name: "tools-call-mixed-content", notApplicable: FIXTURE_TOOLS("`test_multiple_content_types`") },
  { name: "tools-call-with-logging", notApplicable: FIXTURE_TOOLS("`test_tool_with_logging`") },
  { name: "tools-call-error", notApplicable: FIXTURE_TOOLS("`test_error_handling`") },
  { name: "tools-call-with-progress", notApplicable: FIXTURE_TOOLS("`test_tool_with_progress`") },
  { name: "tools-call-sampling", notApplicable: FIXTURE_TOOLS("`test_sampling`") + "; longcall never samples" },
  {
    name: "tools-call-elicitation",
    notApplicable: FIXTURE_TOOLS("`test_elicitation`") + "; longcall never elicits",
  },
  { name: "json-schema-2020-12", notApplicable: FIXTURE_TOOLS("`json_schema_2020_12_tool`") },
  { name: "elicitation-sep1034-defaults", notApplicable: FIXTURE_TOOLS("`test_elicitation_sep1034_defaults`") },
  {
    name: "server-sse-polling",
    notApplicable: FIXTURE_TOOLS("`test_reconnection`") + " (SSE resumption of a tool call)",
  },
  { name: "server-sse-multiple-streams" },
  { name: "elicitation-sep1330-enums", notApplicable: FIXTURE_TOOLS("`test_elicitation_sep1330_enums`") },
  { name: "resources-list", notApplicable: NO_RESOURCES },
  { name: "resources-read-text", notApplicable: NO_RESOURCES },
  { name: "resources-read-binary", notApplicable: NO_RESOURCES },
  { name: "resources-templates-read", notApplicable: NO_RESOURCES },
  { name: "resources-subscribe", notApplicable: NO_RESOURCES },
  { name: "resources-unsubscribe", notApplicable: NO_RESOURCES },
  { name: "prompts-list", notApplicable: NO_PROMPTS },
  { name: "prompts-get-simple", notApplicable: NO_PROMPTS },
  { name: "prompts-get-with-args", notApplicable: NO_PROMPTS },
  { name: "prompts-get-embedded-resource", notApplicable: NO_PROMPTS },
  { name: "prompts-get-with-image", notApplicable: NO_PROMPTS },
  { name: "dns-rebinding-protection" },
]);

const CORE = entries({ pkg: "0.2.0-alpha.12", group: "core", wire: "2026-07-28" }, [
  {
    name: "server-stateless",
    naChecks: {
      "sep-2575-server-rejects-undeclared-capability": FIXTURE_TOOLS("`test_missing_capability`") +
        " (a tool that needs a client capability; no longcall tool needs one)",
      "sep-2575-missing-capability-http-400": FIXTURE_TOOLS("`test_missing_capability`"),
      "sep-2575-http-server-no-independent-requests-on-stream": FIXTURE_TOOLS("`test_streaming_elicitation`") +
        "; longcall never sends server-to-client requests",
      "sep-2575-server-no-log-without-loglevel": FIXTURE_TOOLS("`test_logging_tool`") +
        "; longcall sends no notifications/message",
    },
  },
  {
    name: "server-session-lifecycle",
    wire: "2025-11-25",
  },
  { name: "completion-complete", notApplicable: "longcall declares no `completions` capability" },
  { name: "tools-list" },
  { name: "tools-call-simple-text", notApplicable: FIXTURE_TOOLS("`test_simple_text`") },
  { name: "tools-call-image", notApplicable: FIXTURE_TOOLS("`test_image_content`") },
  { name: "tools-call-audio", notApplicable: FIXTURE_TOOLS("`test_audio_content`") },
  { name: "tools-call-embedded-resource", notApplicable: FIXTURE_TOOLS("`test_embedded_resource`") },
  { name: "tools-call-mixed-content", notApplicable: FIXTURE_TOOLS("`test_multiple_content_types`") },
  { name: "tools-call-error", notApplicable: FIXTURE_TOOLS("`test_error_handling`") },
  { name: "tools-call-with-progress", notApplicable: FIXTURE_TOOLS("`test_tool_with_progress`") },
  { name: "json-schema-2020-12", notApplicable: FIXTURE_TOOLS("`json_schema_2020_12_tool`") },
  { name: "server-sse-multiple-streams" },
  { name: "resources-list", notApplicable: NO_RESOURCES },
  { name: "resources-read-text", notApplicable: NO_RESOURCES },
  { name: "resources-read-binary", notApplicable: NO_RESOURCES },
  { name: "resources-templates-read", notApplicable: NO_RESOURCES },
  { name: "sep-2164-resource-not-found", notApplicable: NO_RESOURCES },
  { name: "prompts-list", notApplicable: NO_PROMPTS },
  { name: "prompts-get-simple", notApplicable: NO_PROMPTS },
  { name: "prompts-get-with-args", notApplicable: NO_PROMPTS },
  { name: "prompts-get-embedded-resource", notApplicable: NO_PROMPTS },
  { name: "prompts-get-with-image", notApplicable: NO_PROMPTS },
  { name: "dns-rebinding-protection" },
  {
    name: "caching",
    naChecks: {
      "sep-2549-prompts-list-caching-hints": NO_PROMPTS + " (prompts/list is -32601)",
      "sep-2549-resources-list-caching-hints": NO_RESOURCES + " (resources/list is -32601)",
      "sep-2549-resources-templates-list-caching-hints": NO_RESOURCES + " (resources/templates/list is -32601)",
    },
  },
  { name: "http-header-validation" },
  {
    name: "http-custom-header-server-validation",
    notApplicable: "no longcall tool declares an `x-mcp-header` (Mcp-Param-*) input property",
  },
  { name: "input-required-result-basic-elicitation", notApplicable: NO_MRTR },
  { name: "input-required-result-basic-sampling", notApplicable: NO_MRTR },
  { name: "input-required-result-basic-list-roots", notApplicable: NO_MRTR },
  { name: "input-required-result-request-state", notApplicable: NO_MRTR },
  { name: "input-required-result-multiple-input-requests", notApplicable: NO_MRTR },
  { name: "input-required-result-multi-round", notApplicable: NO_MRTR },
  { name: "input-required-result-missing-input-response", notApplicable: NO_MRTR },
  { name: "input-required-result-non-tool-request", notApplicable: NO_MRTR },
  { name: "input-required-result-result-type", notApplicable: NO_MRTR },
  { name: "input-required-result-unsupported-methods", notApplicable: NO_MRTR },
  { name: "input-required-result-tampered-state", notApplicable: NO_MRTR },
  { name: "input-required-result-capability-check", notApplicable: NO_MRTR },
  { name: "input-required-result-ignore-extra-params", notApplicable: NO_MRTR },
  { name: "input-required-result-validate-input", notApplicable: NO_MRTR },
  { name: "sep-2640-skills-directory", notApplicable: "the skills extension (SEP-2640) is not implemented" },
  { name: "sep-2640-skills-enumeration", notApplicable: "the skills extension (SEP-2640) is not implemented" },
  { name: "sep-2640-skills-manifest", notApplicable: "the skills extension (SEP-2640) is not implemented" },
]);

const TASKS = entries({ pkg: "0.2.0-alpha.12", group: "tasks", wire: "2026-07-28" }, [
  { name: "tasks-lifecycle" },
  { name: "tasks-capability-negotiation" },
  { name: "tasks-wire-fields" },
  { name: "tasks-request-state-removal" },
  { name: "tasks-mrtr-input" },
  { name: "tasks-request-headers" },
  { name: "tasks-dispatch-and-envelope" },
  {
    name: "tasks-status-notifications",
    knownIssue: "the suite itself skips it (harness pending a subscriptions/listen rewrite); it has no checks",
  },
  {
    name: "tasks-required-task-error",
    knownIssue: "expects JSON-RPC -32021 from tools/call `failing_job` when the request does not declare the " +
      "extension. In @modelcontextprotocol/server 2.4.0 the McpServer tools/call route turns every error a " +
      "registerTool callback throws (except -32042) into an isError result, and the SDK's own -32021 paths are " +
      "keyed on the method or on embedded input requests, never on a tool. Rather than replace the SDK's tools/call " +
      "route, the fixture answers that request with the JobReference (a successful result)",
  },
  { name: "tasks-mrtr-composition" },
]);

export const CATALOGUE: readonly ScenarioSpec[] = [...LEGACY, ...CORE, ...TASKS];

/** Applicability differs by mode: the tasks scenarios apply only to the fixture, the rest only to the product. */
export function forMode(spec: ScenarioSpec, mode: Mode): ScenarioSpec {
  if (mode === "product" && spec.group === "tasks") return { ...spec, notApplicable: TASKS_PRODUCT_NA };
  if (mode === "fixture" && spec.group !== "tasks") {
    return { ...spec, notApplicable: "fixture mode runs only the tasks-* scenarios" };
  }
  return spec;
}
