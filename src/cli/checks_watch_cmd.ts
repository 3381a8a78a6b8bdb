/**
 * `longcall checks watch`: maps its flags onto `github.wait_pull_request_checks`'s input, validates
 * it with the kind's spec (src/github/watch_spec.ts), follows the job in this process and exits
 * like `gh pr checks`.
 *
 * @module
 */

import { parsePullRefText } from "../base/names.ts";
import {
  GITHUB_NUMBER_MAX,
  WATCH_FIRST_CHECK_GRACE_MS_DEFAULT,
  WATCH_FIRST_CHECK_GRACE_MS_MAX,
  WATCH_POLL_INTERVAL_MS_DEFAULT,
  WATCH_POLL_INTERVAL_MS_MAX,
  WATCH_POLL_INTERVAL_MS_MIN,
  WATCH_TIMEOUT_MS_DEFAULT,
  WATCH_TIMEOUT_MS_MAX,
  WATCH_TIMEOUT_MS_MIN,
} from "../base/limits.ts";
import { WATCH_KIND, type WatchOutcome, type WatchResult } from "../github/watch_kind.ts";
import { watchSpec } from "../github/watch_spec.ts";
import { parseJobInput } from "../jobs/spec.ts";
import { type Command, intOption } from "./command.ts";
import { resolveDbPath } from "./config.ts";
import { EXIT_ERROR, EXIT_OK, EXIT_PENDING, type ExitCode, UsageError } from "./exit.ts";
import { jobErrorExit, runBlocking, TERMINAL } from "./follow_job.ts";
import { dbOption, jsonOption, oneOf, rateOption, simulateRate } from "./github_options.ts";
import { printJobEnd, printWatchResult } from "./github_print.ts";
import { jobResultJson } from "./job_json.ts";
import { SPINNER, StatusLine } from "./status_line.ts";

/** Exit code of each watch outcome (gh-compatible for pass, fail and pending). */
export const WATCH_EXIT_CODES: Readonly<Record<WatchOutcome, ExitCode>> = {
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

/** `owner/repo#123` or a pull request's address (`https://github.com/owner/repo/pull/123`, also `.../checks`). */
export function parsePullRef(text: string): { owner: string; repo: string; number: number } {
  const parts = parsePullRefText(text);
  if (parts === undefined) {
    throw new UsageError(
      `Cannot watch a pull request: expected OWNER/REPO#NUMBER or https://github.com/OWNER/REPO/pull/NUMBER ` +
        `with GitHub's owner and repository naming rules and NUMBER 1..${GITHUB_NUMBER_MAX}, current value is ` +
        JSON.stringify(text),
    );
  }
  return parts;
}

/** The `checks watch` command. */
export function checksWatchCommand(): Command {
  return {
    name: "checks watch",
    summary: "Wait for a pull request's CI (check runs and commit statuses) and exit like gh pr checks.",
    usage:
      "longcall checks watch OWNER/REPO#N [--until change] [--fail-fast] [--required] [--sha SHA] [--timeout-ms N] " +
      "[--poll-interval-ms N] [--first-check-grace-ms N] [--json] [--db PATH]",
    description: [
      "Polls GitHub with conditional requests (an unchanged PR costs free 304s with a token; GitHub counts",
      "anonymous 304s against 60/h), follows the head commit seen at the first poll, waits up to",
      "--first-check-grace-ms for CI to register, keeps only the newest run of a re-triggered check (per",
      "name, app, workflow and event, as gh does), and re-reads before declaring a verdict: a pass only 30 s",
      "(or one poll interval, if longer) later and with no check suite still queued or in progress. A failed",
      "result names each failing check's URL, output title, summary and first annotations. Live progress goes",
      "to stderr (one line on a terminal). Ctrl-C cancels the watch cooperatively and exits 130. Token:",
      "GITHUB_TOKEN, GH_TOKEN or LONGCALL_GITHUB_TOKEN_FILE.",
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
      "commit; --json tells the 1s apart. --required reads the base branch's rulesets and its classic branch",
      "protection; when either cannot be read it exits 1 with error code required_checks_unavailable (never a",
      "silent watch of all checks, never no_checks on a guess).",
      "",
      "--json prints one document: a verdict is {job_id, exit_code, ...result}, the result",
      "github.wait_pull_request_checks completes with (outcome, reason, repository, number, expected_head_sha,",
      "observed_head_sha, summary, checks, failures, polls, requests, not_modified, ...); a job that ended without",
      "one is {job_id, outcome: cancelled|error, exit_code, error?: {code, message, retryable, ...}}.",
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
        help: "Watch only the checks the base branch requires (rulesets, classic protection); missing: pending",
      },
      "timeout-ms": {
        type: "string",
        help: `Give up (exit 8) after N ms (default ${WATCH_TIMEOUT_MS_DEFAULT} = ${
          WATCH_TIMEOUT_MS_DEFAULT / 60_000
        } min, ${WATCH_TIMEOUT_MS_MIN}..${WATCH_TIMEOUT_MS_MAX})`,
        value: "N",
      },
      "poll-interval-ms": {
        type: "string",
        help:
          `Time between polls (default ${WATCH_POLL_INTERVAL_MS_DEFAULT}, ${WATCH_POLL_INTERVAL_MS_MIN}..${WATCH_POLL_INTERVAL_MS_MAX})`,
        value: "N",
      },
      "first-check-grace-ms": {
        type: "string",
        help:
          `Wait this long for the first check before no_checks (default ${WATCH_FIRST_CHECK_GRACE_MS_DEFAULT}, 0..${WATCH_FIRST_CHECK_GRACE_MS_MAX})`,
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
        throw new UsageError(
          `Cannot watch: give exactly one OWNER/REPO#N, ${
            positionals.length === 0 ? "none was given" : `current count is ${positionals.length}`
          }`,
        );
      }
      const pr = parsePullRef(positionals[0] ?? "");
      const until = oneOf(values.until, {
        name: "until",
        allowed: ["terminal", "change"] as const,
        fallback: "terminal",
      });
      const input: Record<string, unknown> = {
        ...pr,
        until,
        fail_fast: values["fail-fast"] === true,
        required_only: values.required === true,
      };
      if (values["timeout-ms"] !== undefined) {
        input.timeout_ms = intOption(values["timeout-ms"], {
          name: "timeout-ms",
          min: WATCH_TIMEOUT_MS_MIN,
          max: WATCH_TIMEOUT_MS_MAX,
          fallback: 0,
        });
      }
      if (values["poll-interval-ms"] !== undefined) {
        input.poll_interval_ms = intOption(values["poll-interval-ms"], {
          name: "poll-interval-ms",
          min: WATCH_POLL_INTERVAL_MS_MIN,
          max: WATCH_POLL_INTERVAL_MS_MAX,
          fallback: 0,
        });
      }
      if (values["first-check-grace-ms"] !== undefined) {
        input.first_check_grace_ms = intOption(values["first-check-grace-ms"], {
          name: "first-check-grace-ms",
          min: 0,
          max: WATCH_FIRST_CHECK_GRACE_MS_MAX,
          fallback: 0,
        });
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
        printJobEnd(row, { command: "checks watch", json, exitCode: code });
        return code;
      }
      const result = row.result as WatchResult;
      const code = WATCH_EXIT_CODES[result.outcome];
      if (json) console.log(JSON.stringify(jobResultJson({ job_id: row.id, exit_code: code }, result), null, 2));
      else printWatchResult(result);
      return code;
    },
  };
}
