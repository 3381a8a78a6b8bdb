/** The benchmark's resampling interval of a quantile ratio (scripts/bench/resample.ts). */

import assert from "node:assert/strict";
import {
  freshSeed,
  ratioInterval,
  RESAMPLES_MAX,
  seededRandom,
  slowCallClustering,
} from "../scripts/bench/resample.ts";

const SEED = Deno.env.get("SEED") === undefined ? freshSeed() : Number(Deno.env.get("SEED"));
console.log(`seed ${SEED} (tests/bench_resample_test.ts; rerun a failure with this seed in SEED)`);

/** `series.n` exponential samples of mean `series.mean`, from `random`: a latency-like series, long right tail. */
function exponential(random: () => number, series: { n: number; mean: number }): number[] {
  const { n, mean } = series;
  return Array.from({ length: n }, () => -Math.log(1 - random()) * mean);
}

Deno.test("seededRandom(): the same seed gives the same numbers in [0, 1); another seed others", () => {
  const a = seededRandom(SEED);
  const b = seededRandom(SEED);
  const c = seededRandom((SEED + 1) >>> 0);
  const xs = Array.from({ length: 1_000 }, () => a());
  assert.deepEqual(xs, Array.from({ length: 1_000 }, () => b()));
  assert.notDeepEqual(xs, Array.from({ length: 1_000 }, () => c()));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  // Spread over the whole range, not stuck in a corner.
  assert.ok(Math.min(...xs) < 0.01 && Math.max(...xs) > 0.99);
});

Deno.test("seededRandom(): seeds 0 and 2^32-1 are taken, -1, 2^32 and 1.5 refused", () => {
  seededRandom(0);
  seededRandom(0xffff_ffff);
  for (const seed of [-1, 0x1_0000_0000, 1.5]) {
    assert.throws(() => seededRandom(seed), (e) => e instanceof RangeError && /current value is/.test(e.message));
  }
});

Deno.test("ratioInterval(): constant series give the exact ratio at both ends", () => {
  const interval = ratioInterval([3, 3, 3, 3], [1.5, 1.5], { p: 0.99, seed: SEED, resamples: 50 });
  assert.deepEqual(interval, { low: 2, high: 2 });
});

Deno.test("ratioInterval(): the same seed gives the same interval", () => {
  const random = seededRandom(SEED);
  const a = exponential(random, { n: 500, mean: 2 });
  const b = exponential(random, { n: 500, mean: 1 });
  assert.deepEqual(ratioInterval(a, b, { p: 0.99, seed: SEED }), ratioInterval(a, b, { p: 0.99, seed: SEED }));
});

Deno.test("ratioInterval(): it holds the true ratio, and narrows with more samples", () => {
  // a is b's distribution doubled: the true ratio of any quantile is 2.
  const random = seededRandom(SEED);
  const width = (n: number) => {
    const interval = ratioInterval(exponential(random, { n, mean: 2 }), exponential(random, { n, mean: 1 }), {
      p: 0.99,
      seed: SEED,
      resamples: 400,
    });
    assert.ok(interval.low < interval.high, `an interval, not a point: ${JSON.stringify(interval)}`);
    // Wide margins: a 95% interval misses the true ratio now and then, but one wholly this far off (several
    // standard errors even at n = 1,000) means the resampling is wrong, not the seed unlucky.
    assert.ok(interval.low < 2.6 && interval.high > 1.55, `n=${n}: ${JSON.stringify(interval)}`);
    return interval.high - interval.low;
  };
  assert.ok(width(8_000) < width(1_000), "8,000 samples pin the p99 ratio closer than 1,000");
});

Deno.test("ratioInterval(): resamples 1 and RESAMPLES_MAX are taken, 0 and one more refused; so are empty series, p and level out of range", () => {
  assert.equal(ratioInterval([2], [1], { p: 0.5, seed: SEED, resamples: 1 }).low, 2);
  assert.equal(ratioInterval([2], [1], { p: 0.5, seed: SEED, resamples: RESAMPLES_MAX }).high, 2);
  const refused = (f: () => unknown) =>
    assert.throws(f, (e) => e instanceof RangeError && /^Cannot resample: .*current/.test(e.message));
  refused(() => ratioInterval([2], [1], { p: 0.5, seed: SEED, resamples: 0 }));
  refused(() => ratioInterval([2], [1], { p: 0.5, seed: SEED, resamples: RESAMPLES_MAX + 1 }));
  refused(() => ratioInterval([], [1], { p: 0.5, seed: SEED }));
  refused(() => ratioInterval([1], [], { p: 0.5, seed: SEED }));
  refused(() => ratioInterval([1], [1], { p: 0, seed: SEED }));
  refused(() => ratioInterval([1], [1], { p: 1.01, seed: SEED }));
  refused(() => ratioInterval([1], [1], { p: 0.5, seed: SEED, level: 1 }));
  refused(() => ratioInterval([1], [1], { p: 0.5, seed: SEED, level: 0 }));
});

Deno.test("slowCallClustering(): slow calls in one burst or in pairs read as clustered, ones 125 ms apart as not", () => {
  // Two series of calls every 1 ms for 10 s; the slow ones (above p99) in one 40 ms burst, in pairs, or alone.
  const calls = (slowAt: (i: number) => boolean) =>
    Array.from({ length: 10_000 }, (_, i) => ({ at: i, ms: slowAt(i) ? 10 : 1, series: i % 2 === 0 ? "a" : "b" }));
  const burst = slowCallClustering(calls((i) => i >= 5_000 && i < 5_040), { p: 0.99, windowMs: 10, seed: SEED });
  assert.equal(burst.slow, 40);
  assert.equal(burst.clustered, 1, "every slow call has another within 10 ms");
  assert.ok(burst.independent < 0.5, `shuffled, most have none: ${burst.independent}`);
  const pairs = slowCallClustering(calls((i) => i % 250 === 0 || i % 250 === 1), {
    p: 0.99,
    windowMs: 10,
    seed: SEED,
  });
  assert.equal(pairs.slow, 80);
  assert.equal(pairs.clustered, 1, "pairs 1 ms apart");
  const apart = slowCallClustering(calls((i) => i % 125 === 0), { p: 0.99, windowMs: 10, seed: SEED });
  assert.equal(apart.slow, 80);
  assert.equal(apart.clustered, 0, "125 ms apart, none within 10 ms of another");
});

Deno.test("slowCallClustering(): p must be in (0, 1) and windowMs 0 or more", () => {
  const calls = [{ at: 0, ms: 1, series: "a" }];
  const refused = (f: () => unknown) =>
    assert.throws(f, (e) => e instanceof RangeError && /^Cannot find slow calls: .*current/.test(e.message));
  refused(() => slowCallClustering(calls, { p: 0, windowMs: 1, seed: SEED }));
  refused(() => slowCallClustering(calls, { p: 1, windowMs: 1, seed: SEED }));
  refused(() => slowCallClustering(calls, { p: 0.5, windowMs: -1, seed: SEED }));
  assert.equal(slowCallClustering(calls, { p: 0.5, windowMs: 0, seed: SEED }).slow, 0, "one call is its own p50");
});
