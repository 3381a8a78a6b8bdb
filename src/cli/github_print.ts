/**
 * What `checks watch` and `sync` print: the verdict or sync summary on stdout (or `--json`), and
 * a job that ended without a result.
 *
 * @module
 */

import { countOf } from "../base/text.ts";
import type { CheckEntry } from "../github/checks_state.ts";
import type { SyncResult } from "../github/sync_kind.ts";
import type { WatchOutcome, WatchResult } from "../github/watch_kind.ts";
import type { JobRow } from "../store/job_rows.ts";
import type { ExitCode } from "./exit.ts";
import { jobEndJson } from "./job_json.ts";

/** How {@link printJobEnd} prints: for which command, in which form, with which exit code. */
export interface PrintJobEndOptions {
  /** The command's name as its messages show it, e.g. `checks watch`. */
  command: string;
  /** Print the JSON document on stdout (`--json`) rather than a line on stderr. */
  json: boolean;
  /** The exit code the command ends with. */
  exitCode: ExitCode;
}

/**
 * Prints a job that ended without a result: with `options.json` its document on stdout (src/cli/job_json.ts
 * `jobEndJson`), else a line on stderr.
 */
export function printJobEnd(row: JobRow, options: PrintJobEndOptions): void {
  const { command, json, exitCode } = options;
  if (json) {
    console.log(JSON.stringify(jobEndJson(row, exitCode), null, 2));
  } else if (row.status === "cancelled") {
    console.error(`longcall ${command}: cancelled (job ${row.id})`);
  } else {
    console.error(`longcall ${command}: ${row.error?.message ?? "the job failed"} (job ${row.id})`);
  }
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

/** What a job's GitHub requests came to, as {@link requestCounts} words them. */
export interface GitHubRequestCounts {
  /** Requests counted against the rate limit (304s GitHub counted among them). */
  requests: number;
  /** Every 304 Not Modified answer, counted or free. */
  notModified: number;
  /** The 304s among `requests` (every one when anonymous). */
  notModifiedCounted: number;
  /** Whether the job ran with a token. */
  authenticated: boolean;
}

/**
 * What a job's GitHub requests cost: `requests` counted against the rate limit (304s GitHub counted
 * among them), the 304s that were free (only with a token), and whether it ran anonymously.
 */
export function requestCounts(counts: GitHubRequestCounts): string {
  const { requests, notModified, notModifiedCounted, authenticated } = counts;
  const counted304 = notModifiedCounted > 0 ? ` (${notModifiedCounted} of them 304s)` : "";
  const free = notModified - notModifiedCounted;
  const freeText = free > 0 || authenticated ? `, ${free} free (304)` : "";
  return `${countOf(requests, "counted request")}${counted304}${freeText}${authenticated ? "" : " · anonymous"}`;
}

/** The watch verdict, check by check, with each failure's details. */
export function printWatchResult(r: WatchResult): void {
  const s = r.summary;
  console.log(
    `${r.outcome}: ${OUTCOME_TEXT[r.outcome]} — ${r.repository}#${r.number} @ ${r.observed_head_sha.slice(0, 7)}`,
  );
  console.log(
    `${countOf(s.total, "check")}: ${s.passed} passed, ${s.failed} failed, ${s.pending} pending · ${
      countOf(r.polls, "poll")
    }, ` +
      requestCounts({
        requests: r.requests,
        notModified: r.not_modified,
        notModifiedCounted: r.not_modified_counted,
        authenticated: r.authenticated,
      }),
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

/** The sync summary, repository by repository. */
export function printSyncResult(r: SyncResult): void {
  const width = Math.max(10, ...r.items.map((i) => i.key.length));
  for (const item of r.items) {
    const head = `${item.key.padEnd(width)}  ${item.item_status.padEnd(11)}`;
    const v = item.value;
    if (v !== undefined) {
      console.log(
        `${head}  ${
          countOf(v.threads_seen, "thread")
        } (${v.inserted} new, ${v.updated} updated, ${v.unchanged} unchanged` +
          `${v.stale > 0 ? `, ${v.stale} stale` : ""})${
            !v.listing_stable
              ? " · threads moved while listed, one may be missing: sync again"
              : v.listing_complete
              ? ""
              : " · more left on GitHub"
          }`,
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
      `repositories · ${
        // GitHub counts every anonymous request, 304s included.
        requestCounts({
          requests: r.requests,
          notModified: r.not_modified,
          notModifiedCounted: r.authenticated ? 0 : r.not_modified,
          authenticated: r.authenticated,
        })} · budget ${r.budget.used}/${r.budget.max}`,
  );
}
