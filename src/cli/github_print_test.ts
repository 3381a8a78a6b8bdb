import assert from "node:assert/strict";
import { requestCounts } from "./github_print.ts";

Deno.test("requestCounts(): with a token 304s are free; anonymous, they are among the counted requests", () => {
  assert.equal(requestCounts(4, 5, 0, true), "4 counted requests, 5 free (304)");
  assert.equal(requestCounts(4, 0, 0, true), "4 counted requests, 0 free (304)", "a token always shows its free count");
  assert.equal(requestCounts(9, 5, 5, false), "9 counted requests (5 of them 304s) · anonymous");
  assert.equal(requestCounts(3, 0, 0, false), "3 counted requests · anonymous", "no 304s at all");
  assert.equal(requestCounts(1, 0, 0, false), "1 counted request · anonymous", "singular");
});
