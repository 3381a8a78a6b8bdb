/**
 * `longcall jobs list|get|cancel`: the job store from a terminal, against the same
 * database the server uses.
 *
 * @module
 */

import { batchOf } from "../base/answers.ts";
import { systemClock } from "../base/clock.ts";
import { AppError } from "../base/errors.ts";
import { JOB_LIST_LIMIT_DEFAULT, JOB_LIST_LIMIT_MAX, JOB_WAIT_MS_MAX } from "../base/limits.ts";
import { silentLogger } from "../base/log.ts";
import type { JobControl } from "../jobs/control.ts";
import {
  idOf,
  type JobBatchItem,
  jobCancelItems,
  jobGetItems,
  jobIdsOf,
  type JobItem,
  jobItem,
} from "../jobs/projection.ts";
import type { AnyJobPolicy } from "../jobs/kinds.ts";
import { Reconciler } from "../jobs/reconciler.ts";
import type { JobStatus } from "../store/job_rows.ts";
import { type Command, intOption } from "./command.ts";
import { dbForReading } from "./config.ts";
import { EXIT_NOT_FOUND, EXIT_OK, UsageError } from "./exit.ts";
import { openRuntime } from "./runtime.ts";

const STATES: readonly JobStatus[] = ["queued", "running", "succeeded", "failed", "cancelled"];

const dbOption = {
  type: "string",
  help: "Database path (default $LONGCALL_DB or the user data dir)",
  value: "PATH",
} as const;
const jsonOption = { type: "boolean", help: "Print JSON for scripts" } as const;

/** The store the `jobs` commands control: the `--db` value (unset: the default), and the kinds it may hold. */
interface ControlledStore {
  db: string | undefined;
  policies: readonly AnyJobPolicy[];
}

/**
 * Runs `fn` with the control side of a runtime over the `store.db` store (the one composition root,
 * src/cli/runtime.ts). Execution `none`: these commands admit nothing and run nothing; a cancel
 * of a running job reaches the process that runs it through the store. Nothing here logs: the
 * control side has no log, and there is no executor.
 *
 * First, one reconciliation (src/jobs/reconciler.ts): with no server left on the database (it crashed, or its
 * host was closed with it), nothing else would record its jobs lost, and these commands would show them
 * `running` for good. A reconciliation that cannot be written (a busy or full store) is skipped: the
 * commands read as before.
 */
async function withControl<T>(store: ControlledStore, fn: (control: JobControl) => T | Promise<T>): Promise<T> {
  const runtime = openRuntime({
    db: dbForReading(store.db),
    kinds: { policies: store.policies },
    log: silentLogger,
    execution: "none",
  });
  try {
    await new Reconciler(runtime.store.rows, { clock: systemClock, log: silentLogger, release: () => undefined })
      .run()
      .catch((err) => {
        if (!(err instanceof AppError)) throw err;
      });
    return await fn(runtime.control);
  } finally {
    await runtime.close(); // also ends the waits' change probe a bounded read (`jobs get --wait-ms`) started
  }
}

/**
 * Prints a batch: JSON (`options.json`), or a line per key; with `options.details` (`jobs get`), each job's line
 * is followed by what it leaves out (its times, poll guidance, typed error and, when asked for, request and result).
 */
function printItems(items: JobBatchItem[], options: { json: boolean; details?: { payload: boolean } }): void {
  const { json, details } = options;
  if (json) {
    console.log(JSON.stringify(batchOf(items), null, 2));
    return;
  }
  for (const item of items) {
    if (item.value !== undefined && item.item_status === "complete") {
      const v = item.value;
      // A concise item (jobs cancel) has no id: its key names the job, perhaps as a job: reference.
      console.log(`${v.id ?? idOf(item.key)}  ${(v.outcome ?? v.execution_state).padEnd(10)} ${v.summary}`);
      if (details !== undefined) { for (const line of detailLines(v, details)) console.log(`  ${line}`); }
    } else {
      console.log(`${item.key}  ${item.reason ?? "unavailable"}: ${item.message ?? ""}`);
    }
  }
}

/**
 * What a job's line leaves out (the summary already says its phase, progress and error message): from a detailed
 * item, its times, poll guidance and typed error, and with `options.payload` its request and result.
 */
export function detailLines(v: JobItem, options: { payload: boolean }): string[] {
  const times: [string, string | undefined][] = [
    ["created", v.created_at],
    ["started", v.started_at],
    ["completed", v.completed_at],
    ["expires", v.expires_at],
  ];
  const lines = [times.flatMap(([what, at]) => at === undefined ? [] : [`${what} ${at}`]).join(" · ")];
  if (v.retry_after_ms !== undefined) lines.push(`poll again in ${v.retry_after_ms} ms`);
  if (v.error !== undefined) lines.push(`error: ${v.error.code}${v.error.retryable ? " (retryable)" : ""}`);
  const block = (label: string, value: unknown) => [
    `${label}:`,
    ...JSON.stringify(value, null, 2).split("\n").map((line) => `  ${line}`),
  ];
  if (!options.payload) return lines;
  if (v.request !== undefined) lines.push(...block("request", v.request));
  if (v.result !== undefined) {
    const shortened = v.result_truncated === true
      ? ` (shortened: ${v.result_omitted_bytes ?? 0} bytes left out; --json shows the same)`
      : "";
    lines.push(...block(`result${shortened}`, v.result));
  }
  return lines;
}

/**
 * How long before `nowMs` a job was created, in its largest whole unit ("45s ago", "12m ago",
 * "5h ago", "3d ago"; hours up to two days). A time ahead of `nowMs` (another machine's clock) reads "0s ago".
 */
export function ageText(createdMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.floor((nowMs - createdMs) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 48 * 3_600) return `${Math.floor(seconds / 3_600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/**
 * A job's subject from its kind's policy (`job` is a stored row, or its kind and request); empty for a kind
 * without one, or a stored request it cannot read.
 */
export function subjectOf(job: { kind: string; request: unknown }, policies: readonly AnyJobPolicy[]): string {
  try {
    return policies.find((p) => p.kind === job.kind)?.subject?.(job.request) ?? "";
  } catch {
    return ""; // the line stays, without its subject
  }
}

function idsFrom(positionals: string[], verb: string): string[] {
  if (positionals.length === 0) throw new UsageError(`Cannot ${verb} jobs: give at least one job id`);
  return positionals;
}

/** `jobs list|get|cancel` commands. */
export function jobsCommands(policies: readonly AnyJobPolicy[]): Command[] {
  return [
    {
      name: "jobs list",
      acceptsArguments: false,
      summary: "List jobs, newest first.",
      usage: "longcall jobs list [--state S] [--kind K] [--limit N] [--json] [--db PATH]",
      options: {
        state: { type: "string", help: `Only jobs in this state (${STATES.join(", ")})`, value: "S" },
        kind: { type: "string", help: "Only jobs of this kind", value: "K" },
        limit: {
          type: "string",
          help: `At most N rows (1..${JOB_LIST_LIMIT_MAX}, default ${JOB_LIST_LIMIT_DEFAULT})`,
          value: "N",
        },
        json: jsonOption,
        db: dbOption,
      },
      examples: ["longcall jobs list --state running", "longcall jobs list --json --limit 5"],
      run(values) {
        const state = values.state as string | undefined;
        if (state !== undefined && !STATES.includes(state as JobStatus)) {
          throw new UsageError(
            `Cannot list jobs: --state must be one of ${STATES.join(", ")}, current value is ${state}`,
          );
        }
        const limit = intOption(values.limit, {
          name: "limit",
          min: 1,
          max: JOB_LIST_LIMIT_MAX,
          fallback: JOB_LIST_LIMIT_DEFAULT,
        });
        return withControl({ db: values.db as string | undefined, policies }, (control) => {
          const rows = control.list({
            ...(state === undefined ? {} : { status: state as JobStatus }),
            ...(values.kind === undefined ? {} : { kind: values.kind as string }),
            limit,
          });
          const guidance = control.guidanceFor(rows);
          // A list has no keys: each item says its job's id.
          const items = rows.map((r) => ({ id: r.id, ...jobItem(r, { format: "concise", pollMs: guidance(r) }) }));
          if (values.json === true) console.log(JSON.stringify({ jobs: items }, null, 2));
          else if (items.length === 0) console.log("No jobs.");
          else {
            // How long ago each job was created, and what it is about (a watch's pull request): neither is
            // in the summary.
            const now = Date.now();
            const ages = rows.map((r) => ageText(r.created_at, now));
            const ageWidth = Math.max(...ages.map((x) => x.length));
            const subjects = rows.map((r) => subjectOf(r, policies));
            const width = Math.max(0, ...subjects.map((x) => x.length));
            // The job's status, which --state filters on; a kind's own outcome (a watch whose CI failed
            // succeeded as a job) is in the summary.
            items.forEach((v, i) => {
              const age = (ages[i] ?? "").padStart(ageWidth);
              const subject = width === 0 ? "" : `${(subjects[i] ?? "").padEnd(width)}  `;
              console.log(`${v.id}  ${(rows[i]?.status ?? "").padEnd(10)} ${age}  ${subject}${v.summary}`);
            });
          }
          return EXIT_OK;
        });
      },
    },
    {
      name: "jobs get",
      summary: "Show jobs by id (each id answered on its own; unknown ids exit 3).",
      usage: "longcall jobs get ID... [--detailed] [--wait-ms MS [--until change|terminal]] [--json] [--db PATH]",
      options: {
        detailed: {
          type: "boolean",
          help: "Include request and result (with --json, also the id, start and expiry times the default leaves out)",
        },
        "wait-ms": {
          type: "string",
          help: `Wait up to MS (0..${JOB_WAIT_MS_MAX}) for a job to change or end first, as jobs.get wait_ms`,
          value: "MS",
        },
        until: { type: "string", help: "With --wait-ms: change (default) or terminal (all ended)", value: "WHEN" },
        json: jsonOption,
        db: dbOption,
      },
      examples: ["longcall jobs get 0b9c...e1 --json --detailed", "longcall jobs get 0b9c...e1 --wait-ms 45000"],
      async run(values, positionals) {
        const ids = idsFrom(positionals, "get");
        const waitMs = intOption(values["wait-ms"], { name: "wait-ms", min: 0, max: JOB_WAIT_MS_MAX, fallback: 0 });
        const until = (values.until as string | undefined) ?? "change";
        if (until !== "change" && until !== "terminal") {
          throw new UsageError(`Cannot use --until: expected change or terminal, current value is ${until}`);
        }
        return await withControl({ db: values.db as string | undefined, policies }, async (control) => {
          const wait = waitMs === 0 ? undefined : await control.wait(jobIdsOf(ids), null, { ms: waitMs, until });
          // The lines show a detailed item's times whatever the flag (the flag adds request and result); --json
          // shows the view asked for, as jobs.get does.
          const json = values.json === true;
          const items = jobGetItems(control, ids, {
            authority: null,
            format: values.detailed || !json ? "detailed" : "concise",
          });
          if (wait !== undefined && json) {
            console.log(JSON.stringify({ ...batchOf(items), wait }, null, 2));
          } else {
            printItems(items, { json, details: { payload: values.detailed === true } });
            if (wait !== undefined) console.log(`(waited ${wait.waited_ms} ms: ${wait.ended})`);
          }
          return items.every((i) => i.item_status === "complete") ? EXIT_OK : EXIT_NOT_FOUND;
        });
      },
    },
    {
      name: "jobs cancel",
      summary: "Request cancellation of jobs (queued jobs end at once; running jobs stop cooperatively).",
      usage: "longcall jobs cancel ID... [--json] [--db PATH]",
      options: { json: jsonOption, db: dbOption },
      examples: ["longcall jobs cancel 0b9c...e1"],
      async run(values, positionals) {
        const ids = idsFrom(positionals, "cancel");
        return await withControl({ db: values.db as string | undefined, policies }, async (control) => {
          const items = await jobCancelItems(control, ids, { authority: null });
          printItems(items, { json: values.json === true });
          return items.some((i) => i.reason === "not_found" || i.reason === "invalid_id") ? EXIT_NOT_FOUND : EXIT_OK;
        });
      },
    },
  ];
}
