import assert from "node:assert/strict";
import { printSyncResult, requestCounts } from "./github_print.ts";

Deno.test("requestCounts(): with a token 304s are free; anonymous, they are among the counted requests", () => {
  assert.equal(
    requestCounts({ requests: 4, notModified: 5, notModifiedCounted: 0, authenticated: true }),
    "4 counted requests, 5 free (304)",
  );
  assert.equal(
    requestCounts({ requests: 4, notModified: 0, notModifiedCounted: 0, authenticated: true }),
    "4 counted requests, 0 free (304)",
    "a token always shows its free count",
  );
  assert.equal(
    requestCounts({ requests: 9, notModified: 5, notModifiedCounted: 5, authenticated: false }),
    "9 counted requests (5 of them 304s) · anonymous",
  );
  assert.equal(
    requestCounts({ requests: 3, notModified: 0, notModifiedCounted: 0, authenticated: false }),
    "3 counted requests · anonymous",
    "no 304s at all",
  );
  assert.equal(
    requestCounts({ requests: 1, notModified: 0, notModifiedCounted: 0, authenticated: false }),
    "1 counted request · anonymous",
    "singular",
  );
});

Deno.test("printSyncResult(): a listing cut by its limit and one whose threads moved read differently", () => {
  const item = (key: string, listing: { listing_complete: boolean; listing_stable: boolean }) => ({
    key,
    item_status: "complete" as const,
    value: {
      threads_seen: 100,
      inserted: 100,
      updated: 0,
      unchanged: 0,
      stale: 0,
      ...listing,
      synced_at: "2026-12-02T00:00:00.000Z",
    },
  });
  const lines: string[] = [];
  const log = console.log;
  console.log = (line: string) => lines.push(line);
  try {
    printSyncResult({
      batch_status: "complete",
      items: [
        item("o/limited", { listing_complete: false, listing_stable: true }),
        item("o/moving", { listing_complete: false, listing_stable: false }),
        item("o/all", { listing_complete: true, listing_stable: true }),
      ],
      requests: 3,
      not_modified: 0,
      budget: { max: 200, used: 3 },
      rate_limit: {},
      authenticated: true,
    });
  } finally {
    console.log = log;
  }
  assert.match(lines[0] ?? "", /o\/limited .* · more left on GitHub$/);
  assert.match(lines[1] ?? "", /o\/moving .* · threads moved while listed, one may be missing: sync again$/);
  assert.match(lines[2] ?? "", /o\/all .*unchanged\)$/);
});
