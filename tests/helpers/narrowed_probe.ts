/**
 * Runs the serving thread's start-up narrowing (the real `narrowServingThread`) after
 * opening a store, then tries what a compromised tool handler might try. Prints one JSON
 * line of outcomes. Spawned by tests/permissions_test.ts with the shipped flags.
 *
 * @module
 */

import { spawnSync } from "node:child_process";
import { narrowServingThread } from "../../src/cli/serve.ts";
import { openStore } from "../../src/store/store.ts";

const [db, url, file, moduleUrl] = Deno.args as [string, string, string, string];
const store = openStore(db);
await narrowServingThread();

async function attempt(fn: () => Promise<unknown> | unknown): Promise<string> {
  try {
    await fn();
    return "allowed";
  } catch (err) {
    return err instanceof Error ? err.name : String(err);
  }
}

/** A dynamic import of `url`: "denied" when Deno refused it for want of the import permission. */
async function importAttempt(url: string): Promise<string> {
  try {
    await import(url);
    return "allowed";
  } catch (err) {
    // Deno names a refused import in its message only (a TypeError, as a failed download or parse is).
    return err instanceof Error && /Requires import access/.test(err.message) ? "denied" : `failed: ${String(err)}`;
  }
}

const outcome = {
  fetch_github: await attempt(() => fetch(url)),
  fetch_other: await attempt(() => fetch("http://127.0.0.1:45679/")),
  command: await attempt(() => new Deno.Command("true").output()),
  child_process: await attempt(() => {
    const r = spawnSync("true");
    if (r.error !== undefined) throw r.error;
    if (r.pid === undefined || r.pid === 0) throw new Error("NotSpawned");
  }),
  read_file: await attempt(() => Deno.readTextFile(file)),
  write_file: await attempt(() => Deno.writeTextFile(`${file}.x`, "x")),
  env: await attempt(() => Deno.env.get("HOME")),
  database_read: await attempt(() => store.rows.jobCountAdmitted()),
  database_write: await attempt(() => store.rows.jobDeleteExpired(Date.now(), 1)),
  remote_import: await importAttempt(moduleUrl),
};
console.log(JSON.stringify(outcome));
store.close();
