import assert from "node:assert/strict";
import { SYNC_KIND, type SyncItem, syncPolicy, type SyncResult } from "./sync_kind.ts";

function syncResultOf(batch_status: SyncResult["batch_status"], items: SyncItem[]): SyncResult {
  return {
    batch_status,
    items,
    requests: 2,
    not_modified: 0,
    budget: { max: 200, used: 2 },
    rate_limit: {},
    authenticated: false,
  };
}

Deno.test("syncPolicy: its kind is the sync's", () => {
  assert.equal(syncPolicy.kind, SYNC_KIND);
  assert.equal(SYNC_KIND, "github.sync_threads");
});

Deno.test("syncPolicy.outcome: a complete batch succeeds", () => {
  const result = syncResultOf("complete", [{ key: "octo/a", item_status: "complete" }]);
  assert.equal(syncPolicy.outcome?.(result), "succeeded");
});

Deno.test("syncPolicy.outcome: a partial batch ends partial, whatever its items say", () => {
  for (const item_status of ["retryable", "unavailable", "failed"] as const) {
    const result = syncResultOf("partial", [
      { key: "octo/a", item_status: "complete" },
      { key: "octo/b", item_status },
    ]);
    assert.equal(syncPolicy.outcome?.(result), "partial", item_status);
  }
  // The batch status decides (the runner sets it), not a recount of the items.
  assert.equal(syncPolicy.outcome?.(syncResultOf("partial", [])), "partial");
});

Deno.test("syncPolicy.subject: its repositories, the ones past SYNC_SUBJECT_REPOSITORIES_MAX counted", () => {
  const subject = (repositories: string[]) => syncPolicy.subject?.({ repositories });
  assert.equal(subject(["a/b"]), "a/b");
  assert.equal(subject(["a/b", "c/d", "e/f"]), "a/b, c/d, e/f", "at the bound: all named");
  assert.equal(subject(["a/b", "c/d", "e/f", "g/h", "i/j"]), "a/b, c/d, e/f (+2 more)", "past it: counted");
});
