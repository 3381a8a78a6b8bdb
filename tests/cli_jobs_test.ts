/**
 * `longcall jobs list|get|cancel`, `--help`, `--version` and usage errors, run as a real
 * child process with the shipped flags against a database prepared in-process.
 */

import assert from "node:assert/strict";
import { systemClock } from "../src/base/clock.ts";
import { newOwnerId } from "../src/base/ids.ts";
import { OWNER_LEASE_MS_DEFAULT } from "../src/base/limits.ts";
import { ageText, detailLines, subjectOf } from "../src/cli/jobs_cmd.ts";
import { productPolicies } from "../src/cli/product_kinds.ts";
import { SYNC_KIND } from "../src/github/sync_kind.ts";
import { WATCH_KIND } from "../src/github/watch_kind.ts";
import { type AnyJobPolicy, JobKindRegistry } from "../src/jobs/kinds.ts";
import { productRequest } from "../testing/github_jobs.ts";
import { permissionFlags } from "../src/cli/permissions.ts";
import { JobControl } from "../src/jobs/control.ts";
import { openHarness, openTempStore, tempDir, waitForStatus } from "../testing/temp.ts";
import { testRegistry } from "../testing/test_kinds.ts";

const MAIN = new URL("../src/main.ts", import.meta.url).pathname;

async function longcall(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags(), MAIN, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("longcall jobs: a job whose server died with no other left is recorded process_lost, not shown running", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  let id: string;
  {
    using store = openTempStore(db);
    const control = new JobControl(store.rows, testRegistry(), { clock: systemClock });
    id = (await control.submit("echo", {})).id;
    // A server claimed it a minute ago and has not beaten since (killed with its host): its lease lapsed.
    const ownerId = newOwnerId();
    const then = Date.now() - 60_000;
    await store.rows.ownerRegister({ ownerId, pid: 4242, leaseMs: OWNER_LEASE_MS_DEFAULT }, then);
    assert.equal((await store.rows.jobClaimBatchIfOwnerLive({ ownerId, kinds: ["echo"], max: 1 }, then)).length, 1);
  }
  const get = await longcall(["jobs", "get", id, "--json", "--db", db]);
  assert.equal(get.code, 0, get.stderr);
  const item = (JSON.parse(get.stdout) as {
    items: { value: { execution_state: string; outcome?: string; error?: { code: string } } }[];
  })
    .items[0]?.value;
  assert.deepEqual([item?.execution_state, item?.outcome, item?.error?.code], ["terminal", "failed", "process_lost"]);
  const list = await longcall(["jobs", "list", "--state", "running", "--json", "--db", db]);
  assert.deepEqual(JSON.parse(list.stdout).jobs, [], "none left running");
});

Deno.test("longcall jobs: list, get and cancel against the same database, with per-id isolation", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const ids: string[] = [];
  {
    using store = openTempStore(db);
    const control = new JobControl(store.rows, testRegistry(), { clock: systemClock });
    for (let i = 0; i < 3; i++) ids.push((await control.submit("echo", { i })).id);
  }
  const [a, b, c] = ids as [string, string, string];

  const list = await longcall(["jobs", "list", "--json", "--db", db]);
  assert.equal(list.code, 0, list.stderr);
  const listed = JSON.parse(list.stdout) as { jobs: { id: string; execution_state: string }[] };
  assert.deepEqual(listed.jobs.map((j) => j.id).sort(), [...ids].sort());
  assert.ok(listed.jobs.every((j) => j.execution_state === "queued"));

  const limited = await longcall(["jobs", "list", "--json", "--limit", "1", "--db", db]);
  assert.equal((JSON.parse(limited.stdout) as { jobs: unknown[] }).jobs.length, 1);

  const cancel = await longcall(["jobs", "cancel", a, "--json", "--db", db]);
  assert.equal(cancel.code, 0, cancel.stderr);
  const cancelled = JSON.parse(cancel.stdout) as { items: { value: { outcome: string } }[] };
  assert.equal(cancelled.items[0]?.value.outcome, "cancelled");

  const unknown = "00000000-0000-4000-8000-000000000000";
  const get = await longcall(["jobs", "get", a, unknown, "nope", `job:${b}`, "--json", "--db", db]);
  assert.equal(get.code, 3, "an unknown id exits 3");
  const got = JSON.parse(get.stdout) as {
    batch_status: string;
    items: { key: string; item_status: string; reason?: string; value?: { outcome?: string } }[];
  };
  assert.equal(got.batch_status, "partial");
  assert.deepEqual(got.items.map((i) => i.reason ?? i.item_status), [
    "complete",
    "not_found",
    "invalid_id",
    "complete",
  ]);
  assert.equal(got.items[0]?.value?.outcome, "cancelled");

  const states = await longcall(["jobs", "list", "--state", "queued", "--json", "--db", db]);
  assert.deepEqual(
    (JSON.parse(states.stdout) as { jobs: { id: string }[] }).jobs.map((j) => j.id).sort(),
    [b, c].sort(),
  );
  // A line names the job by its id, even when it was given as a job: reference.
  const byRef = await longcall(["jobs", "cancel", `job:${c}`, "--db", db]);
  assert.equal(byRef.code, 0, byRef.stderr);
  assert.match(byRef.stdout, new RegExp(`^${c}  cancelled `));
});

Deno.test("longcall jobs list (human): each product job names its subject; other kinds keep their line", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  let watch: string;
  {
    using store = openTempStore(db);
    const test = testRegistry();
    const kinds = [...productPolicies(), ...test.names().flatMap((n) => test.get(n) ?? [])];
    const control = new JobControl(store.rows, new JobKindRegistry<AnyJobPolicy>(kinds), { clock: systemClock });
    watch =
      (await control.submit(WATCH_KIND, productRequest(WATCH_KIND, { owner: "octo", repo: "widgets", number: 42 })))
        .id;
    await control.submit(SYNC_KIND, productRequest(SYNC_KIND, { repositories: ["a/b", "c/d"] }));
    await control.submit("echo", { i: 1 });
  }
  const out = await longcall(["jobs", "list", "--db", db]);
  assert.equal(out.code, 0, out.stderr);
  const lines = out.stdout.trimEnd().split("\n");
  // Newest first, the subjects padded to one column.
  // "queued" padded to 10 and a space, the age and two spaces, then the subject padded to the longest (15)
  // and two spaces.
  assert.match(lines[0] ?? "", / {2}queued {5}\d+s ago {19}echo is queued$/);
  assert.match(lines[1] ?? "", / {2}queued {5}\d+s ago {2}a\/b, c\/d {9}github\.sync_threads is queued$/);
  assert.match(
    lines[2] ?? "",
    / {2}queued {5}\d+s ago {2}octo\/widgets#42 {2}github\.wait_pull_request_checks is queued$/,
  );

  // The watch's own policy gives its poll guidance here too, as over MCP: its first GitHub poll (10 s by
  // default), not the generic first look of about a second.
  const got = await longcall(["jobs", "get", watch, "--json", "--db", db]);
  const [item] = (JSON.parse(got.stdout) as { items: { retry_after_ms?: number }[] }).items;
  assert.ok((item?.retry_after_ms ?? 0) >= 9_000, `retry_after_ms ${item?.retry_after_ms}`);
});

Deno.test("longcall jobs list (human): the column is the job's status, which --state filters; a kind's own outcome is in the summary", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  {
    await using h = await openHarness(db);
    const partial = await h.control.submit("partial", null);
    const echo = await h.control.submit("echo", { i: 1 });
    for (const id of [partial.id, echo.id]) {
      await waitForStatus(h.store, id, { status: ["succeeded"], timeoutMs: 10_000 });
    }
  }
  const out = await longcall(["jobs", "list", "--state", "succeeded", "--db", db]);
  assert.equal(out.code, 0, out.stderr);
  const lines = out.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 2);
  // The partial job succeeded as a job; the outcome its kind gave it is in the summary, not the column.
  for (
    const line of [
      / {2}succeeded {2}\d+s ago {2}echo succeeded$/,
      / {2}succeeded {2}\d+s ago {2}partial finished with outcome partial$/,
    ]
  ) {
    assert.ok(lines.some((l) => line.test(l)), `${line}:\n${out.stdout}`);
  }
});

Deno.test("ageText(): the largest whole unit; hours up to two days; a future time reads 0s", () => {
  const now = Date.UTC(2026, 11, 2, 12);
  const ago = (ms: number) => ageText(now - ms, now);
  assert.equal(ago(0), "0s ago");
  assert.equal(ago(59_999), "59s ago");
  assert.equal(ago(60_000), "1m ago");
  assert.equal(ago(3_599_999), "59m ago");
  assert.equal(ago(3_600_000), "1h ago");
  assert.equal(ago(48 * 3_600_000 - 1), "47h ago");
  assert.equal(ago(48 * 3_600_000), "2d ago");
  assert.equal(ago(-5_000), "0s ago", "created ahead of this clock");
});

Deno.test("subjectOf(): empty for a kind without a subject, or a request its policy cannot read", () => {
  const policies = [{ kind: "k", subject: (r: unknown) => (r as { name: string }).name.toUpperCase() }];
  assert.equal(subjectOf({ kind: "k", request: { name: "x" } }, policies), "X");
  assert.equal(subjectOf({ kind: "k", request: null }, policies), "", "a request it cannot read");
  assert.equal(subjectOf({ kind: "other", request: { name: "x" } }, policies), "", "no policy");
});

Deno.test("longcall jobs get (human): times and poll guidance under each line; --detailed adds the request", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  let id: string;
  let ended: string;
  {
    using store = openTempStore(db);
    const control = new JobControl(store.rows, testRegistry(), { clock: systemClock });
    id = (await control.submit("echo", { greeting: "hi" })).id;
    ended = (await control.submit("echo", { greeting: "bye" })).id;
    await control.cancel(ended); // queued: cancelled at once, with its end and expiry
  }
  // The lines show the times the concise view leaves out (--json shows that view, as jobs.get does).
  const endedLines = await longcall(["jobs", "get", ended, "--db", db]);
  assert.equal(endedLines.code, 0, endedLines.stderr);
  assert.match(endedLines.stdout.split("\n")[1] ?? "", /^ {2}created \S+ · completed \S+ · expires \S+$/);
  const endedJson = await longcall(["jobs", "get", ended, "--json", "--db", db]);
  const value = JSON.parse(endedJson.stdout).items[0].value;
  assert.equal(value.execution_state, "terminal");
  assert.equal("expires_at" in value || "id" in value, false, "the concise view");
  const plain = await longcall(["jobs", "get", id, "--db", db]);
  assert.equal(plain.code, 0, plain.stderr);
  const [line, times, poll, ...rest] = plain.stdout.trimEnd().split("\n");
  assert.match(line ?? "", new RegExp(`^${id}  queued `));
  assert.match(times ?? "", /^ {2}created \d{4}-\d\d-\d\dT[\d:.]+Z$/, "a queued job has only its creation time");
  assert.match(poll ?? "", /^ {2}poll again in \d+ ms$/);
  assert.deepEqual(rest, []);

  const detailed = await longcall(["jobs", "get", id, "--detailed", "--db", db]);
  assert.equal(detailed.code, 0, detailed.stderr);
  const text = detailed.stdout;
  assert.ok(text.includes('  request:\n    {\n      "greeting": "hi"\n    }\n'), text);
  assert.ok(!text.includes("result"), "a queued job has no result yet");

  // Nothing runs it here, so a wait ends at its deadline, and the human output says how it ended.
  const waited = await longcall(["jobs", "get", id, "--wait-ms", "50", "--db", db]);
  assert.equal(waited.code, 0, waited.stderr);
  assert.match(waited.stdout.trimEnd().split("\n").at(-1) ?? "", /^\(waited \d+ ms: deadline\)$/);
});

Deno.test("detailLines(): the times there are, the typed error, a shortened result says so; payload only if asked", () => {
  const base = { id: "x", kind: "k", summary: "k failed: boom", created_at: "2026-01-01T00:00:00.000Z" };
  assert.deepEqual(
    detailLines({
      ...base,
      execution_state: "terminal",
      outcome: "failed",
      started_at: "2026-01-01T00:00:01.000Z",
      completed_at: "2026-01-01T00:00:02.000Z",
      error: { code: "rate_limited", message: "boom", retryable: true },
    }, { payload: true }),
    [
      "created 2026-01-01T00:00:00.000Z · started 2026-01-01T00:00:01.000Z · completed 2026-01-01T00:00:02.000Z",
      "error: rate_limited (retryable)",
    ],
  );
  const succeeded = {
    ...base,
    execution_state: "terminal" as const,
    outcome: "succeeded",
    request: { n: 1 },
    result: { a: [1] },
    result_truncated: true,
    result_omitted_bytes: 42,
  };
  assert.deepEqual(detailLines(succeeded, { payload: false }), ["created 2026-01-01T00:00:00.000Z"]);
  assert.deepEqual(
    detailLines(succeeded, { payload: true }).slice(1),
    [
      "request:",
      "  {",
      '    "n": 1',
      "  }",
      "result (shortened: 42 bytes left out; --json shows the same):",
      "  {",
      '    "a": [',
      "      1",
      "    ]",
      "  }",
    ],
  );
});

Deno.test("longcall jobs and search on a database that does not exist: empty answers, a note, and no file made", async () => {
  await using dir = await tempDir();
  const db = dir.file("typo/jobs.db");
  const note = `note: no database at ${db} yet`;
  const id = "01a2358abce9-352232fb-5323-4b87-be28-6dd7ea460f0a";
  for (
    const [args, code, stdout] of [
      [["jobs", "list", "--json"], 0, { jobs: [] }],
      [["jobs", "get", id, "--json"], 3, { batch_status: "partial" }],
      [["jobs", "cancel", id, "--json"], 3, { batch_status: "partial" }],
      [["search", "crash", "--json"], 0, { items: [] }],
    ] as const
  ) {
    const out = await longcall([...args, "--db", db]);
    assert.equal(out.code, code, `${args.join(" ")}: ${out.stderr}`);
    assert.ok(out.stderr.startsWith(note), `${args.join(" ")} says so on stderr: ${out.stderr}`);
    const answer = JSON.parse(out.stdout) as Record<string, unknown>;
    for (const [k, v] of Object.entries(stdout)) assert.deepEqual(answer[k], v, `${args.join(" ")}: ${k}`);
  }
  assert.deepEqual(await Array.fromAsync(Deno.readDir(dir.path)), [], "no directory, no database");
});

Deno.test("longcall: usage errors exit 2, --help and --version exit 0", async () => {
  await using dir = await tempDir();
  const db = dir.file("jobs.db");
  const badLimit = await longcall(["jobs", "list", "--limit", "0", "--db", db]);
  assert.equal(badLimit.code, 2);
  assert.match(badLimit.stderr, /Cannot use --limit: expected an integer from 1 to 1000, current value is 0/);
  const badState = await longcall(["jobs", "list", "--state", "done", "--db", db]);
  assert.equal(badState.code, 2);
  const noIds = await longcall(["jobs", "get", "--db", db]);
  assert.equal(noIds.code, 2);
  const unknownFlag = await longcall(["jobs", "get", "--frobnicate"]);
  assert.equal(unknownFlag.code, 2);
  const bare = await longcall([]);
  assert.equal(bare.code, 2);
  assert.equal(bare.stdout, "", "a usage error: the help goes to stderr");
  assert.match(bare.stderr, /Usage: longcall <command>/);
  const top = await longcall(["--help"]);
  assert.equal(top.code, 0);
  assert.match(top.stdout, /Examples:\n {2}longcall setup --print claude-code/, "the top-level help has examples too");
  const optionFirst = await longcall(["--db", "x.db", "jobs", "list"]);
  assert.equal(optionFirst.code, 2);
  assert.match(optionFirst.stderr, /--db is an option, and options go after the command/);
  const helpTopic = await longcall(["help", "jobs", "list"]);
  assert.equal(helpTopic.code, 0, helpTopic.stderr);
  assert.match(helpTopic.stdout, /^Usage: longcall jobs list/);
  const unknownOption = await longcall(["serve", "--bogus"]);
  assert.equal(unknownOption.code, 2);
  assert.match(
    unknownOption.stderr,
    /^longcall serve: Cannot use --bogus: serve has no such option \(its options: --http,/,
  );
  const unknownCommand = await longcall(["frobnicate"]);
  assert.equal(unknownCommand.code, 2);
  assert.equal(unknownCommand.stderr.trim(), 'longcall: unknown command "frobnicate". Run `longcall --help`.');
  const nearCommand = await longcall(["job", "list"]);
  assert.equal(nearCommand.code, 2);
  assert.match(nearCommand.stderr, /unknown command "job"\. Did you mean "jobs"\?/);
  for (const cmd of [["jobs", "list"], ["jobs", "get"], ["jobs", "cancel"], ["serve"], ["permissions"], ["setup"]]) {
    const help = await longcall([...cmd, "--help"]);
    assert.equal(help.code, 0, cmd.join(" "));
    assert.match(help.stdout, /Usage: longcall/);
    assert.match(help.stdout, /Examples:/);
  }
  // A command group's --help lists its commands (the top-level help points every command there).
  for (const [group, subs] of [["jobs", ["list", "get", "cancel"]], ["checks", ["watch"]]] as const) {
    const help = await longcall([group, "--help"]);
    assert.equal(help.code, 0, `${group} --help`);
    for (const sub of subs) assert.match(help.stdout, new RegExp(`  ${group} ${sub} `));
    assert.match(help.stdout, new RegExp(`Examples:\\n  longcall ${group} `), `${group} --help has an example`);
  }
  // A command that takes options only refuses an argument (`jobs list running` once listed every job).
  for (const cmd of [["jobs", "list", "running"], ["serve", "extra"], ["permissions", "x"], ["setup", "x"]]) {
    const extra = await longcall(cmd);
    assert.equal(extra.code, 2, cmd.join(" "));
    assert.match(extra.stderr, /takes options only/, cmd.join(" "));
  }
  // An empty --db (an unset variable in a script) never opens the default database.
  const emptyDb = await longcall(["jobs", "list", "--db", ""]);
  assert.equal(emptyDb.code, 2, emptyDb.stderr);
  assert.match(emptyDb.stderr, /Cannot use --db: expected a database file path, current value is empty/);
  const bareGroup = await longcall(["jobs"]);
  assert.equal(bareGroup.code, 2);
  assert.match(bareGroup.stderr, /expected one of: list, get, cancel/);
  const version = await longcall(["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^longcall \d+\.\d+\.\d+/);
});
