/**
 * Where a stdio round trip's time goes, from the server's side: each timed call of one client (one request at
 * a time) is matched to the answer line the server wrote for it (scripts/bench/bench_server.ts
 * `--line-times`), which splits the call into the server's handling (reading the request to handing the
 * answer's line to stdout), that line's write (until every byte is in the pipe: for a line longer than the
 * pipe's capacity, until the client has read the first fill) and the rest (the client, and the pipe's trips
 * both ways).
 *
 * @module
 */

import { median } from "./store/harness.ts";

/** One answer line as the server saw it (epoch ms; see `LineTime` in scripts/bench/bench_server.ts). */
export interface ServerLine {
  readAt: number;
  writeAt: number;
  writtenAt: number;
}

/** A round trip the client timed: its start (epoch ms) and duration. */
export interface ClientCall {
  startAt: number;
  ms: number;
}

/** A round trip in three parts (ms); `handle + write + rest` is the round trip, `rest` may be negative by the
 * clocks' jitter when the client has read the whole line before the server's write returned. */
export interface RoundTripSplit {
  ms: number;
  handle: number;
  write: number;
  rest: number;
}

/**
 * Each call of `calls` with the one line of `lines` whose request was read during it, split
 * ({@linkcode RoundTripSplit}); `unmatched` counts the calls with no such line, or more than one (the client
 * sent another request meanwhile, so the line cannot be told). Both lists in any order.
 */
export function splitRoundTrips(
  calls: readonly ClientCall[],
  lines: readonly ServerLine[],
): { splits: RoundTripSplit[]; unmatched: number } {
  const byRead = [...lines].sort((a, b) => a.readAt - b.readAt);
  const splits: RoundTripSplit[] = [];
  let unmatched = 0;
  for (const call of calls) {
    const end = call.startAt + call.ms;
    let first = lowerBound(byRead, call.startAt);
    const inside: ServerLine[] = [];
    for (; first < byRead.length && (byRead[first] as ServerLine).readAt <= end; first++) {
      inside.push(byRead[first] as ServerLine);
    }
    const line = inside.length === 1 ? inside[0] : undefined;
    if (line === undefined) {
      unmatched++;
      continue;
    }
    const handle = line.writeAt - line.readAt;
    const write = line.writtenAt - line.writeAt;
    splits.push({ ms: call.ms, handle, write, rest: call.ms - handle - write });
  }
  return { splits, unmatched };
}

/** The index of the first line read at or after `at` (`lines` sorted by `readAt`). */
function lowerBound(lines: readonly ServerLine[], at: number): number {
  let low = 0, high = lines.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((lines[mid] as ServerLine).readAt < at) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The median of each part over the round trips of `splits` slower than `aboveMs` (a tail), and how many. */
export function tailParts(
  splits: readonly RoundTripSplit[],
  aboveMs: number,
): { count: number; ms: number; handle: number; write: number; rest: number } {
  const slow = splits.filter((s) => s.ms > aboveMs);
  if (slow.length === 0) throw new RangeError(`Cannot split a tail: no round trip above ${aboveMs} ms`);
  const of = (pick: (s: RoundTripSplit) => number) => median(slow.map(pick));
  return {
    count: slow.length,
    ms: of((s) => s.ms),
    handle: of((s) => s.handle),
    write: of((s) => s.write),
    rest: of((s) => s.rest),
  };
}
