import assert from "node:assert/strict";
import { STORE_WAL_SWITCH_PAUSE_MS_MAX } from "../base/limits.ts";
import { nextWalSwitchPause } from "./db.ts";

Deno.test("nextWalSwitchPause: doubles from 1 ms up to STORE_WAL_SWITCH_PAUSE_MS_MAX, then stays there", () => {
  const pauses = [1];
  while (pauses.length < 10) pauses.push(nextWalSwitchPause(pauses.at(-1)!));
  assert.deepEqual(pauses, [1, 2, 4, 8, 16, 32, 50, 50, 50, 50]);
  assert.equal(STORE_WAL_SWITCH_PAUSE_MS_MAX, 50, "the sequence above is written for this bound");
  assert.equal(nextWalSwitchPause(STORE_WAL_SWITCH_PAUSE_MS_MAX / 2), STORE_WAL_SWITCH_PAUSE_MS_MAX, "at the bound");
  assert.equal(nextWalSwitchPause(STORE_WAL_SWITCH_PAUSE_MS_MAX / 2 + 1), STORE_WAL_SWITCH_PAUSE_MS_MAX, "past it");
});
