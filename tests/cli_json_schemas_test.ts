/**
 * The CLI's `--json` answers that mirror an MCP tool's are that tool's answer: `jobs get --json` (concise,
 * detailed, with a wait) and `jobs cancel --json` validate against jobs.get's and jobs.cancel's advertised
 * output schemas, `search --json` against corpus.search_threads'. `checks watch --json` and `sync --json` print
 * their tool's result beside a small envelope (src/cli/job_json.ts): the result validates against the `result`
 * of the tool's advertised completed task, the stored error of a job that ended without one against the tool's
 * advertised error result, and the envelope against its own schema. The schemas are the ones the server lists
 * (src/mcp/tool_schemas.json, checked fresh by tests/advertised_schemas_test.ts), validated with Ajv
 * (draft 2020-12). Real child processes with the shipped flags, on a database prepared in-process or against
 * the fake GitHub on loopback.
 */

import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { systemClock } from "../src/base/clock.ts";
import { WATCH_EXIT_CODES } from "../src/cli/checks_watch_cmd.ts";
import { EXIT_CANCELLED, EXIT_ERROR, EXIT_NOT_FOUND, EXIT_OK } from "../src/cli/exit.ts";
import { jobEndJsonSchema, jobResultEnvelopeSchema } from "../src/cli/job_json.ts";
import { netHostOf, permissionFlags } from "../src/cli/permissions.ts";
import { SYNC_KIND } from "../src/github/sync_kind.ts";
import { WATCH_KIND, type WatchOutcome } from "../src/github/watch_kind.ts";
import { JobControl } from "../src/jobs/control.ts";
import { ADVERTISED_TARGET, schemaKey } from "../src/mcp/advertised.ts";
import { toolSchemas } from "../src/mcp/serving.ts";
import { type FakeGitHub, type ScenarioName, startFakeGitHub } from "../testing/fake_github.ts";
import { openTempStore, tempDir } from "../testing/temp.ts";
import { testRegistry } from "../testing/test_kinds.ts";

const MAIN = new URL("../src/main.ts", import.meta.url).pathname;
const ajv = new Ajv2020({ strict: true, allErrors: true });

/** The JSON a CLI command prints, and its exit code. */
async function cliJson(args: string[]): Promise<{ code: number; json: unknown }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags(), MAIN, ...args, "--json"],
    env: { LONGCALL_LOG: "error" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.ok(stdout.trim().startsWith("{"), `${args.join(" ")}: ${stdout}${new TextDecoder().decode(out.stderr)}`);
  return { code: out.code, json: JSON.parse(stdout) };
}

/** Asserts `value` validates against `tool`'s advertised output schema. */
function assertAnswerOf(tool: string, value: unknown): void {
  const schema = toolSchemas[schemaKey({ tool, slot: "output", io: "output" }, { target: ADVERTISED_TARGET })];
  assert.ok(schema !== undefined, `${tool} advertises an output schema`);
  const validate = ajv.compile(schema);
  assert.ok(validate(value), `${tool}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 800)}`);
}

Deno.test("jobs get/cancel --json print exactly what jobs.get and jobs.cancel answer (their advertised schemas)", async () => {
  await using dir = await tempDir("longcall-cli-json-");
  const db = dir.file("jobs.db");
  const ids: string[] = [];
  {
    using store = openTempStore(db);
    const control = new JobControl(store.rows, testRegistry(), { clock: systemClock });
    for (let i = 0; i < 2; i++) ids.push((await control.submit("echo", { i })).id);
  }
  const [a, b] = ids as [string, string];
  const unknown = "0123456789ab-00000000-0000-4000-8000-000000000000";
  for (const extra of [[], ["--detailed"], ["--wait-ms", "1"]]) {
    const got = await cliJson(["jobs", "get", a, unknown, "not-an-id", ...extra, "--db", db]);
    assert.equal(got.code, EXIT_NOT_FOUND, "not every id was found");
    assertAnswerOf("jobs.get", got.json);
  }
  const cancelled = await cliJson(["jobs", "cancel", b, unknown, "--db", db]);
  assert.equal(cancelled.code, EXIT_NOT_FOUND, "one id was not found");
  assertAnswerOf("jobs.cancel", cancelled.json);
});

Deno.test("search --json prints exactly what corpus.search_threads answers (its advertised schema)", async () => {
  await using dir = await tempDir("longcall-cli-json-");
  const db = dir.file("corpus.db");
  openTempStore(db)[Symbol.dispose]();
  const found = await cliJson(["search", "flaky", "test", "--repo", "never/synced", "--db", db]);
  assert.equal(found.code, 0);
  assertAnswerOf("corpus.search_threads", found.json);
  const everywhere = await cliJson(["search", "flaky", "--kind", "issue", "--state", "open", "--db", db]);
  assertAnswerOf("corpus.search_threads", everywhere.json);
});

type Json = Record<string, unknown>;

/** The one branch of `tool`'s advertised output schema (nested `anyOf` included) whose properties `select` picks. */
function advertisedBranch(tool: string, select: (properties: Json) => boolean): Json {
  const found: Json[] = [];
  const visit = (schema: unknown): void => {
    if (typeof schema !== "object" || schema === null) return;
    const { anyOf, properties } = schema as { anyOf?: unknown[]; properties?: Json };
    for (const branch of anyOf ?? []) visit(branch);
    if (properties !== undefined && select(properties)) found.push(properties);
  };
  visit(toolSchemas[schemaKey({ tool, slot: "output", io: "output" }, { target: ADVERTISED_TARGET })]);
  assert.equal(found.length, 1, `${tool} advertises exactly one such branch`);
  return found[0] as Json;
}

const constOf = (properties: Json, name: string): unknown => (properties[name] as Json | undefined)?.const;

/** The `result` of `tool`'s completed task when whole (`result_truncated: false`): the job kind's result schema. */
function advertisedResult(tool: string): Json {
  const branch = advertisedBranch(tool, (p) => constOf(p, "kind") === tool && constOf(p, "result_truncated") === false);
  return branch.result as Json;
}

/** The stored job error of `tool`'s operation-error result (`{id, kind, outcome, error}`). */
function advertisedJobError(tool: string): Json {
  const branch = advertisedBranch(tool, (p) => constOf(p, "kind") === tool && p.error !== undefined);
  return branch.error as Json;
}

/** Asserts `checked.value` is valid against `checked.schema`; `context` prefixes the failure message. */
function assertValid(checked: { schema: Json; value: unknown }, context: string): void {
  const { schema, value } = checked;
  const validate = ajv.compile(schema);
  assert.ok(validate(value), `${context}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 800)}`);
}

/** Simulated time rate of a watch child's job clock and of its fake GitHub. */
const RATE = 10;

/** A fake GitHub playing `scenario` on a clock RATE x faster than real time, from now. */
function scaledFake(scenario: ScenarioName): Promise<FakeGitHub> {
  const t0 = Date.now();
  return startFakeGitHub({ scenario, now: () => t0 + (Date.now() - t0) * RATE, rateLimit: { anonymousLimit: 5_000 } });
}

/** `longcall ARGS --json` with the shipped flags granted `fake`'s host, anonymous, against `fake`. */
function githubCli(fake: FakeGitHub, args: readonly string[]): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags({ githubHosts: [netHostOf(fake.url)] }), MAIN, ...args, "--json"],
    env: {
      LONGCALL_LOG: "error",
      LONGCALL_GITHUB_API_URL: fake.url,
      GITHUB_TOKEN: "",
      GH_TOKEN: "",
      LONGCALL_GITHUB_TOKEN_FILE: "",
      LONGCALL_DB: "",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function runToEnd(command: Deno.Command): Promise<Run> {
  const out = await command.output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Runs `command`, sends SIGINT once its stderr shows `ready` (its progress: the job runs), and waits for its end. */
async function interrupted(command: Deno.Command, ready: RegExp): Promise<Run> {
  const child = command.spawn();
  const stdout = new Response(child.stdout).text();
  const seen = Promise.withResolvers<void>();
  let stderr = "";
  const pump = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr += chunk;
      if (ready.test(stderr)) seen.resolve();
    }
    seen.reject(new Error(`ended before its stderr showed ${ready}: ${stderr}`));
  })();
  await seen.promise;
  child.kill("SIGINT");
  const status = await child.status;
  await pump;
  return { code: status.code, stdout: await stdout, stderr };
}

/** Which document a run must print: its job's result, or printJobEnd's (failed with `code`, or cancelled). */
type Expected = { result: true } | { error: string } | { cancelled: true };

/**
 * Checks the `checks watch`/`sync` `--json` document `run` printed against its schemas (the envelope's, and
 * `job.tool`'s advertised result or job error), against the process (exit code) and against the job row the child
 * stored in `job.db` (the printed result or error is the stored one, whole), as `job.expected` says. Returns the
 * document.
 */
function assertJobDocument(run: Run, job: { tool: string; db: string; expected: Expected }): Json {
  const { tool, db, expected } = job;
  const context = `${tool} (exit ${run.code}): ${run.stdout.slice(0, 400)}\n${run.stderr}`;
  let doc: Json;
  try {
    doc = JSON.parse(run.stdout);
  } catch {
    assert.fail(`stdout is one JSON document: ${context}`);
  }
  assert.equal(doc.exit_code, run.code, context);
  using store = openTempStore(db);
  const row = store.rows.jobGet(String(doc.job_id));
  assert.ok(row !== undefined, `job_id names the stored job: ${context}`);
  assert.equal(row.kind, tool);
  if ("result" in expected) {
    const { job_id, exit_code, ...result } = doc;
    jobResultEnvelopeSchema().parse({ job_id, exit_code });
    assertValid({ schema: advertisedResult(tool), value: result }, context);
    assert.equal(row.status, "succeeded", context);
    assert.deepEqual(result, row.result, "the printed result is the stored one, whole");
  } else {
    const end = jobEndJsonSchema().parse(doc);
    if ("cancelled" in expected) {
      assert.equal(row.status, "cancelled", context);
      assert.equal(end.outcome, "cancelled");
      assert.equal(end.exit_code, EXIT_CANCELLED);
    } else {
      assert.equal(row.status, "failed", context);
      assert.equal(end.outcome, "error");
      assert.equal(end.error?.code, expected.error, context);
    }
    assert.deepEqual(end.error, row.error ?? undefined, "the printed error is the stored one");
    if (end.error !== undefined) assertValid({ schema: advertisedJobError(tool), value: end.error }, context);
  }
  return doc;
}

/** Runs `tasks` with at most `width` at a time (each is mostly a child process waiting on simulated CI). */
async function pooled<T>(width: number, tasks: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  }));
  return results;
}

Deno.test("checks watch --json prints its envelope and github.wait_pull_request_checks' result or job error, for every document", async () => {
  await using dir = await tempDir("longcall-cli-json-");
  const cases: Array<{ scenario: ScenarioName; flags: string[]; expected: Expected; pull?: number }> = [
    { scenario: "checks_pass", flags: [], expected: { result: true } },
    { scenario: "checks_pass", flags: ["--until", "change"], expected: { result: true } },
    { scenario: "checks_fail", flags: [], expected: { result: true } },
    { scenario: "new_push", flags: [], expected: { result: true } },
    { scenario: "no_checks", flags: ["--first-check-grace-ms", "0"], expected: { result: true } },
    { scenario: "flaky_unchanged", flags: ["--timeout-ms", "60000"], expected: { result: true } },
    { scenario: "pr_closed", flags: [], expected: { result: true } },
    { scenario: "pr_merged", flags: [], expected: { result: true } },
    { scenario: "fork_approval", flags: [], expected: { result: true } },
    { scenario: "many_checks", flags: [], expected: { result: true } },
    { scenario: "required_checks", flags: ["--required"], expected: { result: true } },
    { scenario: "rules_forbidden", flags: ["--required"], expected: { error: "required_checks_unavailable" } },
    { scenario: "checks_pass", flags: [], expected: { error: "not_found" }, pull: 999 },
  ];
  const outcomes = new Set<WatchOutcome>();
  await pooled(
    4,
    cases.map((c, i) => async () => {
      const db = dir.file(`watch-${i}.db`);
      const fake = await scaledFake(c.scenario);
      try {
        const args = ["checks", "watch", `octo/widgets#${c.pull ?? 42}`, "--simulate-time-rate", String(RATE)];
        const run = await runToEnd(githubCli(fake, [...args, ...c.flags, "--db", db]));
        const doc = assertJobDocument(run, { tool: WATCH_KIND, db, expected: c.expected });
        if ("result" in c.expected) {
          const outcome = doc.outcome as WatchOutcome;
          outcomes.add(outcome);
          assert.equal(doc.exit_code, WATCH_EXIT_CODES[outcome], `${c.scenario}: the exit code of ${outcome}`);
        } else {
          assert.equal(doc.exit_code, c.pull === undefined ? EXIT_ERROR : EXIT_NOT_FOUND, c.scenario);
        }
      } finally {
        await fake.close();
      }
    }),
  );
  const scripted: WatchOutcome[] = [
    "succeeded",
    "changed",
    "failed",
    "superseded",
    "no_checks",
    "timed_out",
    "closed",
    "merged",
    "action_required",
  ];
  assert.deepEqual(scripted.filter((o) => !outcomes.has(o)), [], "every scripted outcome was printed and checked");
});

Deno.test("checks watch --json: a watch cancelled by SIGINT prints the cancelled document (exit 130)", async () => {
  await using dir = await tempDir("longcall-cli-json-");
  const db = dir.file("watch.db");
  const fake = await scaledFake("flaky_unchanged");
  try {
    const args = ["checks", "watch", "octo/widgets#42", "--simulate-time-rate", String(RATE), "--db", db];
    const run = await interrupted(githubCli(fake, args), /\d+ polls/);
    assertJobDocument(run, { tool: WATCH_KIND, db, expected: { cancelled: true } });
  } finally {
    await fake.close();
  }
});

// A sync job has no failed document the CLI can reach: every repository's failure is an item of its result
// (src/github/sync_runner.ts `itemForError`), and the job itself fails only when its process or store does.
// printJobEnd's failed document is the one checks watch prints above.
Deno.test("sync --json prints its envelope and github.sync_threads' result (complete, partial) or the cancelled document", async () => {
  await using dir = await tempDir("longcall-cli-json-");
  const db = dir.file("sync.db");
  const fake = await startFakeGitHub({ generatedRepos: { "big/repo": 120 }, rateLimit: { anonymousLimit: 5_000 } });
  try {
    const partial = await runToEnd(
      githubCli(fake, ["sync", "big/repo", "octo/widgets", "octo/missing", "octo/secret", "--db", db]),
    );
    const partialDoc = assertJobDocument(partial, { tool: SYNC_KIND, db, expected: { result: true } });
    assert.equal(partialDoc.batch_status, "partial");
    assert.equal(partialDoc.exit_code, EXIT_ERROR);
    const complete = await runToEnd(githubCli(fake, ["sync", "big/repo", "--db", db]));
    const completeDoc = assertJobDocument(complete, { tool: SYNC_KIND, db, expected: { result: true } });
    assert.equal(completeDoc.batch_status, "complete");
    assert.equal(completeDoc.exit_code, EXIT_OK);
  } finally {
    await fake.close();
  }
  // Slow answers keep the sync running until the signal.
  const slow = await startFakeGitHub({
    generatedRepos: { "big/repo": 1_000 },
    latencyMs: 500,
    rateLimit: { anonymousLimit: 5_000 },
  });
  try {
    const run = await interrupted(githubCli(slow, ["sync", "big/repo", "--limit", "1000", "--db", db]), /repositories/);
    assertJobDocument(run, { tool: SYNC_KIND, db, expected: { cancelled: true } });
  } finally {
    await slow.close();
  }
});

Deno.test("checks watch and sync --help name every field of their --json envelopes (and sync every result field)", async () => {
  const help = async (args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...permissionFlags(), MAIN, ...args, "--help"],
      env: { LONGCALL_LOG: "error" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0);
    return new TextDecoder().decode(out.stdout);
  };
  const envelope = [...Object.keys(jobResultEnvelopeSchema().shape), ...Object.keys(jobEndJsonSchema().shape)];
  const [watch, sync] = await Promise.all([help(["checks", "watch"]), help(["sync"])]);
  for (
    const [name, text, fields] of [
      ["checks watch", watch, envelope],
      ["sync", sync, [...envelope, ...Object.keys(advertisedResult(SYNC_KIND).properties as Json)]],
    ] as const
  ) {
    const missing = fields.filter((f) => !new RegExp(`\\b${f}\\b`).test(text));
    assert.deepEqual(missing, [], `${name} --help names every --json field`);
  }
});
