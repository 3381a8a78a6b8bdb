/**
 * EventLoopSlice (src/jobs/event_loop_slice.ts) with an injected monotonic time: starving only once
 * EVENT_LOOP_SLICE_MS passed without the event loop turning, and a new slice after it turns.
 */

import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { EVENT_LOOP_SLICE_MS } from "../base/limits.ts";
import { EventLoopSlice } from "./event_loop_slice.ts";

Deno.test("EventLoopSlice.starving: false until EVENT_LOOP_SLICE_MS pass in one turn, true at the bound; a turn of the loop resets it", async () => {
  let now = 1_000;
  const slice = new EventLoopSlice(() => now);
  assert.equal(slice.starving(), false, "the first call opens the slice");
  now += EVENT_LOOP_SLICE_MS - 1;
  assert.equal(slice.starving(), false, "1 ms before the bound");
  now += 1;
  assert.equal(slice.starving(), true, "at the bound");
  await new Promise<void>((resolve) => setImmediate(resolve)); // the event loop turns
  assert.equal(slice.starving(), false, "a new slice starts after the turn");
  now += EVENT_LOOP_SLICE_MS;
  assert.equal(slice.starving(), true);
  await new Promise<void>((resolve) => setImmediate(resolve));
});
