/**
 * RSS of a loaded process: a fresh process opening a database with many retained terminal jobs and
 * a full admission bound (its executor running some), after listing and reading every job; and the
 * baseline of a process that only opened the store.
 *
 * @module
 */

import { systemClock } from "../../../src/base/clock.ts";
import { JOB_ADMITTED_MAX_DEFAULT } from "../../../src/base/limits.ts";
import { JobControl } from "../../../src/jobs/control.ts";
import { openStore } from "../../../src/store/store.ts";
import { spawnChild } from "./children.ts";
import { waitUntil } from "./harness.ts";
import { registry } from "./job_harness.ts";

export const RETAINED_JOBS = 10_000;

/** Builds `dir`/rss.db, then measures both child modes (bytes). */
export async function rssLoaded(dir: string): Promise<{ rss: number; baseline: number }> {
  const path = `${dir}/rss.db`;
  const store = openStore(path);
  try {
    // 10,000 retained (terminal) jobs: admitted in chunks, then cancelled while queued.
    const control = new JobControl(store.rows, registry(), { clock: systemClock });
    for (let done = 0; done < RETAINED_JOBS;) {
      const ids: string[] = [];
      for (let i = 0; i < JOB_ADMITTED_MAX_DEFAULT && done + ids.length < RETAINED_JOBS; i++) {
        ids.push((await control.submit("noop", null)).id);
      }
      for (const id of ids) await control.cancel(id);
      done += ids.length;
    }
    // 256 admitted: the child's executor runs 4 of them and 252 stay queued.
    for (let i = 0; i < JOB_ADMITTED_MAX_DEFAULT; i++) await control.submit("wait", null);
  } finally {
    store.close();
  }
  const measure = async (mode: string) => {
    const child = spawnChild(mode, { dir, db: path });
    try {
      await waitUntil("rss", () => child.lines.some((l) => typeof l.rss === "number"), {
        timeoutMs: 60_000,
        everyMs: 10,
      });
      return Number(child.lines.find((l) => typeof l.rss === "number")?.rss);
    } finally {
      await child.stop();
    }
  };
  return { rss: await measure("rss"), baseline: await measure("baseline") };
}
