import assert from "node:assert/strict";
import { SYNC_REPOSITORIES_MAX } from "../base/limits.ts";
import { UsageError } from "./exit.ts";
import { syncRepositories, updatedAfter } from "./sync_cmd.ts";

const usage = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e) => e instanceof UsageError && message.test(e.message), String(message));

Deno.test("syncRepositories(): 1 and SYNC_REPOSITORIES_MAX repositories are taken, none and one more refused", () => {
  assert.deepEqual(syncRepositories(["denoland/deno"]), ["denoland/deno"]);
  const most = Array.from({ length: SYNC_REPOSITORIES_MAX }, (_, i) => `o/r${i}`);
  assert.deepEqual(syncRepositories(most), most);
  usage(() => syncRepositories([]), /^Cannot sync: give at least one OWNER\/REPO$/);
  usage(
    () => syncRepositories([...most, "o/last"]),
    new RegExp(`^Cannot sync: at most ${SYNC_REPOSITORIES_MAX} repositories per sync, current count is 51$`),
  );
});

Deno.test("syncRepositories(): a name GitHub would refuse is a usage error that quotes it, not a JSON path", () => {
  for (const bad of ["not/a/repo", "x", "/deno", "denoland/", "-owner/repo", "a/.", "a/..", "owner/re po"]) {
    usage(
      () => syncRepositories(["denoland/deno", bad]),
      new RegExp(`^Cannot sync: expected OWNER/REPO .*current value is ${RegExp.escape(JSON.stringify(bad))}$`),
    );
  }
  assert.deepEqual(syncRepositories(["a/.github", "a-b/c_d.e"]), ["a/.github", "a-b/c_d.e"]);
});

Deno.test("updatedAfter(): an ISO 8601 time with its offset is taken; a date alone or words are refused", () => {
  assert.equal(updatedAfter("2026-01-01T00:00:00Z"), "2026-01-01T00:00:00Z");
  assert.equal(updatedAfter("2026-01-01T00:00:00.5+02:00"), "2026-01-01T00:00:00.5+02:00");
  for (const bad of ["yesterday", "2026-01-01", "2026-13-01T00:00:00Z", ""]) {
    usage(() => updatedAfter(bad), /^Cannot use --updated-after: expected an ISO 8601 time .*current value is "/);
  }
});
