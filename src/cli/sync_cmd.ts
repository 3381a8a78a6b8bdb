/**
 * `longcall sync`: maps its flags onto `github.sync_threads`'s input, validates it with the kind's
 * spec (src/github/sync_spec.ts) and follows the job in this process.
 *
 * @module
 */

import {
  SYNC_LIMIT_PER_REPOSITORY_DEFAULT,
  SYNC_LIMIT_PER_REPOSITORY_MAX,
  SYNC_REPOSITORIES_MAX,
  SYNC_REQUESTS_DEFAULT,
  SYNC_REQUESTS_MAX,
} from "../base/limits.ts";
import { isFullRepositoryName } from "../base/names.ts";
import { SYNC_KIND, type SyncResult } from "../github/sync_kind.ts";
import { SyncInput, syncSpec } from "../github/sync_spec.ts";
import { parseJobInput } from "../jobs/spec.ts";
import { type Command, intOption } from "./command.ts";
import { resolveDbPath } from "./config.ts";
import { EXIT_ERROR, EXIT_OK, UsageError } from "./exit.ts";
import { jobErrorExit, runBlocking } from "./follow_job.ts";
import { dbOption, jsonOption, oneOf, THREAD_KIND_FLAG, THREAD_STATE_FLAG } from "./github_options.ts";
import { printJobEnd, printSyncResult } from "./github_print.ts";
import { jobResultJson } from "./job_json.ts";
import { bar, SPINNER, StatusLine } from "./status_line.ts";

/**
 * The OWNER/REPO arguments, checked in the command's words before they become the job's input (whose own
 * check would name them by JSON path, `$.repositories.0`).
 */
export function syncRepositories(positionals: readonly string[]): string[] {
  if (positionals.length === 0) throw new UsageError("Cannot sync: give at least one OWNER/REPO");
  if (positionals.length > SYNC_REPOSITORIES_MAX) {
    throw new UsageError(
      `Cannot sync: at most ${SYNC_REPOSITORIES_MAX} repositories per sync, current count is ${positionals.length}`,
    );
  }
  for (const repository of positionals) {
    if (!isFullRepositoryName(repository)) {
      throw new UsageError(
        "Cannot sync: expected OWNER/REPO with GitHub's owner and repository naming rules, current value is " +
          JSON.stringify(repository),
      );
    }
  }
  return [...positionals];
}

/** `--updated-after`, checked as the job's input checks it, in the command's words. */
export function updatedAfter(value: string): string {
  if (!SyncInput.shape.updated_after.safeParse(value).success) {
    throw new UsageError(
      "Cannot use --updated-after: expected an ISO 8601 time with its offset, such as 2026-01-01T00:00:00Z, " +
        `current value is ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** The `sync` command. */
export function syncCommand(): Command {
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
      "",
      "--json prints one document: {job_id, exit_code, ...result}, the result",
      "github.sync_threads completes with (batch_status, items: [{key, item_status, reason?, message?,",
      "retry_after_ms?, value?}], requests, not_modified, budget, rate_limit, authenticated); a job that ended",
      "without one is {job_id, outcome: cancelled|error, exit_code, error?: {code, message, retryable, ...}}.",
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
      const input: Record<string, unknown> = {
        repositories: syncRepositories(positionals),
        kind: oneOf(values.kind, THREAD_KIND_FLAG),
        state: oneOf(values.state, THREAD_STATE_FLAG),
        limit_per_repository: intOption(values.limit, {
          name: "limit",
          min: 1,
          max: SYNC_LIMIT_PER_REPOSITORY_MAX,
          fallback: SYNC_LIMIT_PER_REPOSITORY_DEFAULT,
        }),
        max_requests: intOption(values["max-requests"], {
          name: "max-requests",
          min: 1,
          max: SYNC_REQUESTS_MAX,
          fallback: SYNC_REQUESTS_DEFAULT,
        }),
      };
      if (values["updated-after"] !== undefined) input.updated_after = updatedAfter(values["updated-after"] as string);
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
        printJobEnd(row, { command: "sync", json, exitCode: code });
        return code;
      }
      const result = row.result as SyncResult;
      const code = result.batch_status === "complete" ? EXIT_OK : EXIT_ERROR;
      if (json) console.log(JSON.stringify(jobResultJson({ job_id: row.id, exit_code: code }, result), null, 2));
      else printSyncResult(result);
      return code;
    },
  };
}
