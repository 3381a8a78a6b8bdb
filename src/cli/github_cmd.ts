/**
 * `longcall checks watch`, `longcall sync` and `longcall search`: the blocking terminal
 * route to the GitHub workloads. `checks watch` and `sync` submit the same job kinds the
 * MCP server runs, run them in this process with their own Executor on the shared store,
 * and wait for the job to end (a `longcall serve` on the same database may claim the job
 * instead; waiting reads the job row, so either works). `search` reads the corpus offline.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { createLogger, type Logger } from "../base/log.ts";
import { parsePullRefText } from "../base/names.ts";
import {
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SYNC_LIMIT_PER_REPOSITORY_DEFAULT,
  SYNC_LIMIT_PER_REPOSITORY_MAX,
  SYNC_REQUESTS_DEFAULT,
  SYNC_REQUESTS_MAX,
  WATCH_FIRST_CHECK_GRACE_MS_MAX,
  WATCH_POLL_INTERVAL_MS_MAX,
  WATCH_POLL_INTERVAL_MS_MIN,
  WATCH_TIMEOUT_MS_MAX,
} from "../base/limits.ts";
import { searchThreads, type SearchThreadsInput } from "../corpus/search.ts";
import type { CheckEntry } from "../github/checks_state.ts";
import { SYNC_KIND, type SyncResult } from "../github/sync_kind.ts";
import { WATCH_KIND, type WatchOutcome, type WatchResult } from "../github/watch_kind.ts";
import { syncSpec } from "../github/sync_spec.ts";
import { watchSpec } from "../github/watch_spec.ts";
import { parseJobInput } from "../jobs/spec.ts";
import type { JobRow } from "../store/job_rows.ts";
import { openStore } from "../store/store.ts";
import { type Command, intOption } from "./command.ts";
import { envGet, logLevel, resolveDbPath } from "./config.ts";
import { EXIT_CANCELLED, EXIT_ERROR, EXIT_NOT_FOUND, EXIT_OK, EXIT_PENDING, EXIT_USAGE, UsageError } from "./exit.ts";
import { githubConfigFromEnv } from "./product_kinds.ts";
import { openRuntime } from "./runtime.ts";

/** Exit code of each watch outcome (gh-compatible for pass, fail and pending). */
export const WATCH_EXIT_CODES: Readonly<Record<WatchOutcome, number>> = {
  succeeded: EXIT_OK,
  changed: EXIT_OK,
  failed: EXIT_ERROR,
  superseded: EXIT_ERROR,
  no_checks: EXIT_ERROR,
  incomplete: EXIT_ERROR,
  action_required: EXIT_ERROR,
  closed: EXIT_ERROR,
  merged: EXIT_ERROR,
  timed_out: EXIT_PENDING,
};

const dbOption = {
  type: "string",
  help: "Database path (default $LONGCALL_DB or the user data dir)",
  value: "PATH",
} as const;
const jsonOption = {
  type: "boolean",
  help: "Print one JSON document on stdout (progress still goes to stderr)",
} as const;
const rateOption = {
  type: "string",
  help: "Simulations against a fake GitHub only: run the job's time N x faster (1..1000)",
  value: "N",
} as const;

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);
const WAIT_TICK_MS = 100;
const SPINNER = ["|", "/", "-", "\\"];

type Values = Record<string, string | boolean | string[] | undefined>;

/** The CLI's own log level: quiet (warn) unless LONGCALL_LOG says otherwise. */
function cliLogger(): Logger {
  return createLogger(envGet("LONGCALL_LOG") === undefined ? "warn" : logLevel(), "longcall");
}

/** stderr output: one rewritten line on a terminal, plain deduplicated lines otherwise. */
class StatusLine {
  readonly tty: boolean;
  #last = "";
  #shown = false;
  readonly #encoder = new TextEncoder();

  constructor() {
    let tty = false;
    try {
      tty = Deno.stderr.isTerminal();
    } catch {
      tty = false;
    }
    this.tty = tty;
  }

  /** Shows `text` (on a terminal, `live` is appended: it may change every tick). */
  show(text: string, live = ""): void {
    if (this.tty) {
      const columns = terminalColumns();
      const line = `${text}${live}`.slice(0, Math.max(10, columns - 1));
      this.#write(`\r\x1b[2K${line}`);
      this.#shown = true;
    } else if (text !== this.#last) {
      this.#write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);
    }
    this.#last = text;
  }

  /** Clears the live line (terminal only). */
  done(): void {
    if (this.tty && this.#shown) this.#write("\r\x1b[2K");
    this.#shown = false;
  }

  #write(text: string): void {
    try {
      Deno.stderr.writeSync(this.#encoder.encode(text));
    } catch {
      // stderr closed: progress is advisory.
    }
  }
}

function terminalColumns(): number {
  try {
    const columns = Deno.consoleSize().columns;
    return columns >= 20 ? columns : 100;
  } catch {
    return 100;
  }
}

/** A job run to its end in this process (or by another process on the same store). */
interface BlockingRun {
  row: JobRow;
  /** The user interrupted (SIGINT/SIGTERM); the job was asked to cancel. */
  interrupted: boolean;
}

/**
 * Submits a job through a JobControl, runs an Executor in this process, and waits until
 * the job is terminal. SIGINT/SIGTERM request a cooperative cancel (a second one exits at
 * once with 130).
 */
async function runBlocking(options: {
  db: string;
  kind: string;
  /** Already validated and normalized with the kind's spec. */
  request: unknown;
  timeRate: number | undefined;
  onUpdate: (row: JobRow, tick: number) => void;
}): Promise<BlockingRun> {
  const log = cliLogger();
  const runtime = openRuntime({
    db: options.db,
    kinds: { product: { github: githubConfigFromEnv() } },
    log,
    ...(options.timeRate === undefined ? {} : { timeRate: options.timeRate }),
    execution: "in_process",
  });
  const { control } = runtime;
  try {
    await runtime.execution.start();
    const job = await control.submit(options.kind, options.request);
    let interrupted = false;
    let wake = Promise.withResolvers<void>();
    const onSignal = () => {
      if (interrupted) Deno.exit(EXIT_CANCELLED);
      interrupted = true;
      control.cancel(job.id).catch((err) => log.warn("could not cancel", { error: String(err) })).finally(() =>
        wake.resolve()
      );
    };
    const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
    for (const s of signals) Deno.addSignalListener(s, onSignal);
    try {
      for (let tick = 0;; tick++) {
        const row = runtime.store.rows.jobGet(job.id);
        if (row === undefined) {
          throw new AppError("not_found", `Cannot follow job ${job.id}: it disappeared from the store`);
        }
        options.onUpdate(row, tick);
        if (TERMINAL.has(row.status)) return { row, interrupted };
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => timer = setTimeout(resolve, WAIT_TICK_MS)),
          wake.promise,
        ]);
        clearTimeout(timer);
        wake = Promise.withResolvers<void>();
      }
    } finally {
      for (const s of signals) Deno.removeSignalListener(s, onSignal);
    }
  } finally {
    await runtime.close();
  }
}

/** Exit code and message for a job that ended without a result. */
function jobErrorExit(row: JobRow): number {
  if (row.status === "cancelled") return EXIT_CANCELLED;
  const code = row.error?.code;
  return code === "not_found" ? EXIT_NOT_FOUND : code === "invalid_argument" ? EXIT_USAGE : EXIT_ERROR;
}

function printJobEnd(name: string, row: JobRow, json: boolean, exitCode: number): void {
  if (json) {
    console.log(JSON.stringify(
      {
        job_id: row.id,
        outcome: row.status === "cancelled" ? "cancelled" : "error",
        exit_code: exitCode,
        ...(row.error === null ? {} : { error: row.error }),
      },
      null,
      2,
    ));
  } else if (row.status === "cancelled") {
    console.error(`longcall ${name}: cancelled (job ${row.id})`);
  } else {
    console.error(`longcall ${name}: ${row.error?.message ?? "the job failed"} (job ${row.id})`);
  }
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], flag: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`Cannot use --${flag}: expected one of ${allowed.join(", ")}, current value is ${value}`);
}

function simulateRate(values: Values): number | undefined {
  return values["simulate-time-rate"] === undefined
    ? undefined
    : intOption(values["simulate-time-rate"], "simulate-time-rate", 1, 1000, 1);
}

// ---------------------------------------------------------------- checks watch

/** `owner/repo#123` or `https://github.com/owner/repo/pull/123`. */
export function parsePullRef(text: string): { owner: string; repo: string; number: number } {
  const parts = parsePullRefText(text);
  if (parts === undefined) {
    throw new UsageError(
      `Cannot watch a pull request: expected OWNER/REPO#NUMBER or https://github.com/OWNER/REPO/pull/NUMBER ` +
        `with GitHub's owner and repository naming rules, current value is ${JSON.stringify(text)}`,
    );
  }
  return parts;
}

function checkWord(c: CheckEntry): string {
  if (c.conclusion === null) return "pending";
  if (c.conclusion === "success") return "pass";
  if (c.conclusion === "skipped" || c.conclusion === "neutral") return "skipping";
  return "fail";
}

const OUTCOME_TEXT: Readonly<Record<WatchOutcome, string>> = {
  succeeded: "all checks passed",
  failed: "some checks failed",
  timed_out: "timed out; checks still pending",
  superseded: "a new push moved the head; this commit's verdict is no longer watched",
  no_checks: "no checks were reported within the grace period",
  changed: "CI changed",
  incomplete: "could not prove every check was seen; not a pass",
  action_required: "workflows wait for a maintainer's approval; not a pass",
  closed: "the pull request was closed during the watch",
  merged: "the pull request was merged during the watch",
};

function printWatchResult(r: WatchResult): void {
  const s = r.summary;
  console.log(
    `${r.outcome}: ${OUTCOME_TEXT[r.outcome]} — ${r.repository}#${r.number} @ ${r.observed_head_sha.slice(0, 7)}`,
  );
  console.log(
    `${s.total} checks: ${s.passed} passed, ${s.failed} failed, ${s.pending} pending · ${r.polls} polls, ` +
      `${r.requests} counted requests, ${r.not_modified} free (304)${r.authenticated ? "" : " · anonymous"}`,
  );
  if (r.outcome === "superseded") {
    console.log(`watched ${r.expected_head_sha.slice(0, 7)}, head is now ${r.observed_head_sha.slice(0, 7)}`);
  }
  const width = Math.min(48, Math.max(4, ...r.checks.map((c) => c.name.length)));
  for (const c of r.checks) {
    console.log(`  ${c.name.padEnd(width)}  ${checkWord(c).padEnd(8)}  ${c.details_url ?? ""}`.trimEnd());
  }
  if (r.checks_truncated) console.log(`  (more checks not shown)`);
  if (r.outcome !== "succeeded") console.log(`reason: ${r.reason}`);
  if (r.anonymous_cost !== undefined) console.log(r.anonymous_cost.note);
  for (const f of r.failures) {
    console.log(`failed: ${f.name} (${f.conclusion})${f.title === null ? "" : ` — ${f.title}`}`);
    const url = f.html_url ?? f.details_url;
    if (url !== null) console.log(`  ${url}`);
    if (f.summary !== null) {
      for (const line of f.summary.split("\n").slice(0, 5)) console.log(`  | ${line}`);
      if (f.summary_truncated || f.summary.split("\n").length > 5) console.log("  | ...");
    }
    for (const a of f.annotations) console.log(`  ${a.path}:${a.start_line}: ${a.message}`);
    if (f.annotations_count > f.annotations.length) {
      console.log(`  (${f.annotations_count - f.annotations.length} more annotations)`);
    }
  }
  if (r.failures_truncated) console.log("(more failing checks not shown)");
}

function checksWatchCommand(): Command {
  return {
    name: "checks watch",
    summary: "Wait for a pull request's CI (check runs and commit statuses) and exit like gh pr checks.",
    usage:
      "longcall checks watch OWNER/REPO#N [--until change] [--fail-fast] [--required] [--timeout-ms N] [--poll-interval-ms N] [--json] [--db PATH]",
    description: [
      "Polls GitHub with conditional requests (an unchanged PR costs free 304s with a token; GitHub counts",
      "anonymous 304s against 60/h), follows the head commit seen at the first poll, waits up to",
      "--first-check-grace-ms for CI to register, keeps only the newest run of a re-triggered check (per",
      "name, app, workflow and event, as gh does), and re-reads before declaring a verdict: a pass only one",
      "poll interval later and with no check suite still queued or in progress. A failed result names each",
      "failing check's URL, output title, summary and first annotations. Live progress goes to stderr (one",
      "line on a terminal). Ctrl-C cancels the watch cooperatively and exits 130. Token: GITHUB_TOKEN,",
      "GH_TOKEN or LONGCALL_GITHUB_TOKEN_FILE.",
      "",
      "Exit codes (0/1/8 as gh pr checks):",
      "  0    succeeded: every check passed",
      "  0    changed: --until change saw CI change (read --json .outcome for the new state)",
      "  1    failed: a check failed (at once with --fail-fast)",
      "  1    superseded: a new push moved the head; the watched commit is not the PR any more",
      "  1    no_checks: nothing registered within the grace period (gh: 'no checks reported')",
      "  1    incomplete: not every check run or status could be fetched, so a pass cannot be proven",
      "  1    action_required: workflows wait for a maintainer's approval (fork pull request); see .reason",
      "  1    closed: the pull request was closed (not merged) during the watch",
      "  1    merged: the pull request was merged during the watch",
      "  8    timed_out: still pending at --timeout-ms",
      "  130  cancelled (Ctrl-C)",
      "  2 usage, 3 pull request or repository not found, 1 other errors (see stderr or --json .error)",
      "Every outcome but succeeded/changed exits non-zero, so `watch && merge` never merges an unproven",
      "commit; --json tells the 1s apart. --required on a repository whose branch rules cannot be read",
      "exits 1 with error code required_checks_unavailable (never a silent watch of all checks).",
    ].join("\n"),
    options: {
      until: {
        type: "string",
        help: "terminal (default): wait for a verdict; change: first material change",
        value: "U",
      },
      "fail-fast": { type: "boolean", help: "Exit 1 as soon as any check fails" },
      required: {
        type: "boolean",
        help: "Watch only the checks the base branch requires (GET /rules/branches/{branch}); missing ones are pending",
      },
      "timeout-ms": {
        type: "string",
        help: `Give up (exit 8) after N ms (default 1800000 = 30 min, max ${WATCH_TIMEOUT_MS_MAX})`,
        value: "N",
      },
      "poll-interval-ms": {
        type: "string",
        help: `Time between polls (default 10000, ${WATCH_POLL_INTERVAL_MS_MIN}..${WATCH_POLL_INTERVAL_MS_MAX})`,
        value: "N",
      },
      "first-check-grace-ms": {
        type: "string",
        help: `Wait this long for the first check before no_checks (default 180000)`,
        value: "N",
      },
      sha: { type: "string", help: "Head commit to watch (40 hex; default: the head at the first poll)", value: "SHA" },
      json: jsonOption,
      db: dbOption,
      "simulate-time-rate": rateOption,
    },
    examples: [
      "longcall checks watch denoland/deno#123",
      "longcall checks watch denoland/deno#123 --fail-fast && gh pr merge 123",
      "longcall checks watch https://github.com/denoland/deno/pull/123 --until change --json | jq .outcome",
    ],
    async run(values, positionals) {
      if (positionals.length !== 1) {
        throw new UsageError(`Cannot watch: give exactly one OWNER/REPO#N, current value is ${positionals.length}`);
      }
      const pr = parsePullRef(positionals[0] ?? "");
      const until = oneOf(values.until, ["terminal", "change"] as const, "until", "terminal");
      const input: Record<string, unknown> = {
        ...pr,
        until,
        fail_fast: values["fail-fast"] === true,
        required_only: values.required === true,
      };
      if (values["timeout-ms"] !== undefined) {
        input.timeout_ms = intOption(values["timeout-ms"], "timeout-ms", 1_000, WATCH_TIMEOUT_MS_MAX, 0);
      }
      if (values["poll-interval-ms"] !== undefined) {
        input.poll_interval_ms = intOption(
          values["poll-interval-ms"],
          "poll-interval-ms",
          WATCH_POLL_INTERVAL_MS_MIN,
          WATCH_POLL_INTERVAL_MS_MAX,
          0,
        );
      }
      if (values["first-check-grace-ms"] !== undefined) {
        input.first_check_grace_ms = intOption(
          values["first-check-grace-ms"],
          "first-check-grace-ms",
          0,
          WATCH_FIRST_CHECK_GRACE_MS_MAX,
          0,
        );
      }
      if (values.sha !== undefined) {
        const sha = String(values.sha);
        if (!/^[0-9a-f]{40}$/.test(sha)) {
          throw new UsageError(`Cannot use --sha: expected 40 lowercase hex digits, current value is ${sha}`);
        }
        input.expected_head_sha = sha;
      }
      const json = values.json === true;
      const ref = `${pr.owner}/${pr.repo}#${pr.number}`;
      const status = new StatusLine();
      const { row } = await runBlocking({
        db: resolveDbPath(values.db as string | undefined),
        kind: WATCH_KIND,
        // The flags map onto the tool's input; the spec validates and normalizes it, once.
        request: parseJobInput(watchSpec, input),
        timeRate: simulateRate(values),
        onUpdate: (r, tick) => {
          if (TERMINAL.has(r.status)) return;
          const message = r.progress_message === null || r.progress_message.startsWith("watching ")
            ? "first poll"
            : r.progress_message;
          let text = `${ref}: ${r.status === "queued" ? "queued" : message}`;
          if (r.cancel_requested_at !== null) text = `${ref}: cancelling`;
          let live = "";
          if (status.tty && r.next_poll_at !== null && r.next_poll_at > Date.now()) {
            live = ` · next poll in ${Math.ceil((r.next_poll_at - Date.now()) / 1000)} s`;
          }
          status.show(status.tty ? `${SPINNER[tick % SPINNER.length]} ${text}` : text, live);
        },
      });
      status.done();
      if (row.status !== "succeeded") {
        const code = jobErrorExit(row);
        printJobEnd("checks watch", row, json, code);
        return code;
      }
      const result = row.result as WatchResult;
      const code = WATCH_EXIT_CODES[result.outcome];
      if (json) console.log(JSON.stringify({ job_id: row.id, exit_code: code, ...result }, null, 2));
      else printWatchResult(result);
      return code;
    },
  };
}

// ---------------------------------------------------------------- sync

function bar(done: number, total: number, width = 24): string {
  const filled = total <= 0 ? 0 : Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}

function printSyncResult(r: SyncResult): void {
  const width = Math.max(10, ...r.items.map((i) => i.key.length));
  for (const item of r.items) {
    const head = `${item.key.padEnd(width)}  ${item.item_status.padEnd(11)}`;
    const v = item.value;
    if (v !== undefined) {
      console.log(
        `${head}  ${v.threads_seen} threads (${v.inserted} new, ${v.updated} updated, ${v.unchanged} unchanged` +
          `${v.stale > 0 ? `, ${v.stale} stale` : ""})${v.listing_complete ? "" : " · more left on GitHub"}`,
      );
    } else {
      const retry = item.retry_after_ms === undefined
        ? ""
        : ` · retry after ${Math.ceil(item.retry_after_ms / 1000)} s`;
      console.log(`${head}  ${item.reason ?? "error"}: ${item.message ?? ""}${retry}`);
    }
  }
  console.log(
    `${r.batch_status}: ${r.items.filter((i) => i.item_status === "complete").length}/${r.items.length} ` +
      `repositories · ${r.requests} counted requests, ${r.not_modified} free (304) · budget ${r.budget.used}/${r.budget.max}` +
      (r.authenticated ? "" : " · anonymous"),
  );
}

function syncCommand(): Command {
  return {
    name: "sync",
    summary: "Sync issue and pull request headers of repositories into the local corpus (for offline search).",
    usage:
      "longcall sync OWNER/REPO... [--kind K] [--state S] [--limit N] [--updated-after ISO] [--max-requests N] [--json] [--db PATH]",
    description: [
      "Reads repository metadata and the newest issue/PR headers (conditional requests: an unchanged listing",
      "costs free 304s) and stores them; a newer updated_at wins. Each repository gets an outcome: complete,",
      "retryable (rate limit or budget; retry after the time shown), unavailable (not found or private) or failed.",
      "Progress goes to stderr (a bar on a terminal). Exit codes: 0 every repository complete, 1 partial,",
      "2 usage, 130 cancelled (Ctrl-C).",
    ].join("\n"),
    options: {
      kind: { type: "string", help: "issue, pull_request or both (default)", value: "K" },
      state: { type: "string", help: "open, closed or all (default)", value: "S" },
      limit: {
        type: "string",
        help:
          `Newest threads per repository (1..${SYNC_LIMIT_PER_REPOSITORY_MAX}, default ${SYNC_LIMIT_PER_REPOSITORY_DEFAULT})`,
        value: "N",
      },
      "updated-after": { type: "string", help: "Only threads updated at or after this ISO 8601 time", value: "ISO" },
      "max-requests": {
        type: "string",
        help: `Counted GitHub requests this sync may spend (1..${SYNC_REQUESTS_MAX}, default ${SYNC_REQUESTS_DEFAULT})`,
        value: "N",
      },
      json: jsonOption,
      db: dbOption,
    },
    examples: [
      "longcall sync denoland/deno denoland/std",
      "longcall sync denoland/deno --kind issue --state open --limit 500",
      "longcall sync denoland/deno --updated-after 2026-01-01T00:00:00Z --json",
    ],
    async run(values, positionals) {
      if (positionals.length === 0) throw new UsageError("Cannot sync: give at least one OWNER/REPO");
      const input: Record<string, unknown> = {
        repositories: positionals,
        kind: oneOf(values.kind, ["issue", "pull_request", "both"] as const, "kind", "both"),
        state: oneOf(values.state, ["open", "closed", "all"] as const, "state", "all"),
        limit_per_repository: intOption(
          values.limit,
          "limit",
          1,
          SYNC_LIMIT_PER_REPOSITORY_MAX,
          SYNC_LIMIT_PER_REPOSITORY_DEFAULT,
        ),
        max_requests: intOption(values["max-requests"], "max-requests", 1, SYNC_REQUESTS_MAX, SYNC_REQUESTS_DEFAULT),
      };
      if (values["updated-after"] !== undefined) input.updated_after = values["updated-after"];
      const json = values.json === true;
      const status = new StatusLine();
      const { row } = await runBlocking({
        db: resolveDbPath(values.db as string | undefined),
        kind: SYNC_KIND,
        request: parseJobInput(syncSpec, input),
        timeRate: undefined,
        onUpdate: (r, tick) => {
          // The final state is shown too: a fast sync may end between two reads of the row.
          if (r.status === "queued") return;
          const total = r.total_items ?? positionals.length;
          const last = r.progress_message === null ? "" : ` · ${r.progress_message}`;
          const text = r.cancel_requested_at !== null
            ? "sync: cancelling"
            : `${bar(r.completed_items, total)} ${r.completed_items}/${total} repositories${last}`;
          status.show(status.tty ? `${SPINNER[tick % SPINNER.length]} ${text}` : text);
        },
      });
      status.done();
      if (row.status !== "succeeded") {
        const code = jobErrorExit(row);
        printJobEnd("sync", row, json, code);
        return code;
      }
      const result = row.result as SyncResult;
      const code = result.batch_status === "complete" ? EXIT_OK : EXIT_ERROR;
      if (json) console.log(JSON.stringify({ job_id: row.id, exit_code: code, ...result }, null, 2));
      else printSyncResult(result);
      return code;
    },
  };
}

// ---------------------------------------------------------------- search

function searchCommand(): Command {
  return {
    name: "search",
    summary: "Search synced issues and pull requests offline (titles and labels weigh most).",
    usage:
      "longcall search QUERY... [--repo OWNER/REPO]... [--kind K] [--state S] [--label L] [--limit N] [--cursor C] [--json] [--db PATH]",
    description: [
      "Reads only the local corpus (no network): sync repositories first with `longcall sync`. Words are ANDed;",
      "`word*` matches a prefix. A repository never synced is reported as not synced: its matches are unknown,",
      "not absent. Exit code 0 (also with no hits), 2 usage.",
    ].join("\n"),
    options: {
      repo: { type: "string", multiple: true, help: "Only this repository (repeatable)", value: "OWNER/REPO" },
      kind: { type: "string", help: "issue, pull_request or both (default)", value: "K" },
      state: { type: "string", help: "open, closed or all (default)", value: "S" },
      label: { type: "string", help: "Only threads with this label", value: "L" },
      limit: {
        type: "string",
        help: `Hits per page (1..${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT})`,
        value: "N",
      },
      cursor: { type: "string", help: "Next page: the cursor printed by the previous page", value: "C" },
      json: jsonOption,
      db: dbOption,
    },
    examples: [
      'longcall search "flaky timeout" --repo denoland/deno',
      "longcall search panic --kind issue --state open --label bug --json",
    ],
    run(values, positionals) {
      const query = positionals.join(" ").trim();
      if (query === "") throw new UsageError("Cannot search: give a QUERY");
      const input: SearchThreadsInput = {
        query,
        kind: oneOf(values.kind, ["issue", "pull_request", "both"] as const, "kind", "both"),
        state: oneOf(values.state, ["open", "closed", "all"] as const, "state", "all"),
        limit: intOption(values.limit, "limit", 1, SEARCH_LIMIT_MAX, SEARCH_LIMIT_DEFAULT),
      };
      const repos = values.repo as string[] | undefined;
      if (repos !== undefined && repos.length > 0) input.repositories = repos;
      if (values.label !== undefined) input.label = String(values.label);
      if (values.cursor !== undefined) input.cursor = String(values.cursor);
      const store = openStore(resolveDbPath(values.db as string | undefined));
      try {
        const answer = searchThreads(store.corpus, input);
        if (values.json === true) {
          console.log(JSON.stringify(answer, null, 2));
          return Promise.resolve(EXIT_OK);
        }
        for (const c of answer.coverage) {
          if (c.status === "not_synced") {
            console.error(
              `note: ${c.repository} was never synced; its matches are unknown (longcall sync ${c.repository})`,
            );
          }
        }
        if (answer.items.length === 0) console.log("No matching threads in the corpus.");
        const width = Math.max(...answer.items.map((i) => i.ref.length), 8);
        for (const hit of answer.items) {
          const kind = hit.kind === "pull_request" ? "pr" : "issue";
          const labels = hit.labels.length === 0 ? "" : `  [${hit.labels.join(", ")}]`;
          console.log(`${hit.ref.padEnd(width)}  ${`${hit.state} ${kind}`.padEnd(12)}  ${hit.title}${labels}`);
        }
        if (answer.next_cursor !== null) console.log(`more: --cursor ${answer.next_cursor}`);
        return Promise.resolve(EXIT_OK);
      } finally {
        store.close();
      }
    },
  };
}

/** `checks watch`, `sync` and `search`. */
export function githubCommands(): Command[] {
  return [checksWatchCommand(), syncCommand(), searchCommand()];
}
