/**
 * The store benchmark's child processes, both sides: the parent spawns ../store.ts with
 * `--child MODE DB` (read and write only in the bench directory, no network, no subprocesses) and
 * reads its JSON lines; the child runs {@linkcode runChild}. Modes: `executor` (an executor that
 * prints `{ready, owner}` and runs until stdin closes), `rss` (the same, after claiming and
 * reading every job, prints its RSS) and `baseline` (prints the RSS of a process that only opened
 * the store).
 *
 * @module
 */

import { JOB_LIST_LIMIT_MAX } from "../../../src/base/limits.ts";
import { openStore, storeConnection } from "../../../src/store/store.ts";
import { sleep, waitUntil } from "./harness.ts";
import { jobHarness } from "./job_harness.ts";

/** The module that handles `--child` (the benchmark's entry). */
const CHILD_PATH = new URL("../store.ts", import.meta.url).pathname;

/** A spawned child: its process, the JSON lines it printed so far, and a stop (close stdin, SIGKILL). */
export interface Child {
  process: Deno.ChildProcess;
  lines: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** Where a child works: the bench directory (all it may read and write) and the database in it. */
export interface ChildPlace {
  dir: string;
  db: string;
}

/** Spawns a child running `mode` on `place.db`, allowed to read and write `place.dir` only. */
export function spawnChild(mode: string, place: ChildPlace): Child {
  const { dir, db } = place;
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      "--deny-net",
      "--deny-run",
      CHILD_PATH,
      "--child",
      mode,
      db,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines: Array<Record<string, unknown>> = [];
  void (async () => {
    let buffered = "";
    for await (const chunk of process.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const text = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (text !== "") lines.push(JSON.parse(text) as Record<string, unknown>);
      }
    }
  })();
  const writer = process.stdin.getWriter();
  return {
    process,
    lines,
    stop: async () => {
      await writer.close().catch(() => {});
      try {
        process.kill("SIGKILL");
      } catch {
        // already gone
      }
      await process.status;
    },
  };
}

/** The child's side: runs `mode` over the database at `path` (see the module comment). */
export async function runChild(mode: string, path: string): Promise<void> {
  const print = (line: Record<string, unknown>) => console.log(JSON.stringify(line));
  const store = openStore(path);
  if (mode === "baseline") {
    print({ rss: Deno.memoryUsage().rss });
    return;
  }
  const h = jobHarness(store);
  await h.executor.start();
  if (mode === "rss") {
    await waitUntil("claims", () => h.executor.runningIds().length > 0, { timeoutMs: 10_000, everyMs: 10 });
    // Exercise the read paths a server would: a full page of the list, then every job by id.
    h.control.list({ limit: JOB_LIST_LIMIT_MAX });
    const ids = storeConnection(store).db.prepare("SELECT id FROM jobs").all() as { id: string }[];
    for (const { id } of ids) h.control.get(id);
    await sleep(1_000);
    print({ rss: Deno.memoryUsage().rss, running: h.executor.runningIds().length });
  } else {
    print({ ready: true, owner: h.executor.ownerId });
  }
  for await (const _ of Deno.stdin.readable) { /* until the parent closes stdin */ }
  await h.executor.stop();
  store.close();
}
