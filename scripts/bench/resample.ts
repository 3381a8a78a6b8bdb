/**
 * How sure one run is of a quantile ratio: a percentile bootstrap over the run's own samples. A p99 of 4,000
 * round trips is their 40th largest, so a few slow calls more or fewer move it; resampling each series with
 * replacement and taking the ratio of the resamples' quantiles, many times, gives the range that ratio could
 * have taken from the same machine state. It says nothing about a run on another day (load, other tenants):
 * that spread is seen only by running again.
 *
 * @module
 */

import { percentile } from "./store/harness.ts";

/**
 * Resamples per interval unless told otherwise. With 2,000, the ends move by about 1% of the ratio from one seed
 * to another (10 seeds on a synthetic 4,000-sample series with a ratio near 4: 0.02-0.04).
 */
export const RESAMPLES_DEFAULT = 2_000;
/** More resamples than this cost seconds and move no end a visible amount. */
export const RESAMPLES_MAX = 20_000;

/** A seeded generator of numbers in [0, 1) (mulberry32): the same seed gives the same numbers. */
export function seededRandom(seed: number): () => number {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff) {
    throw new RangeError(
      `Cannot seed the generator: the seed must be an integer from 0 to 2^32-1, current value is ${seed}`,
    );
  }
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

/** A fresh seed for a run (printed with its figures, so the interval can be recomputed). */
export const freshSeed = () => crypto.getRandomValues(new Uint32Array(1))[0] as number;

/**
 * The `draw.p` quantile of one resample of `samples` (drawn with replacement, to its size, from `draw.random`)
 * each time it is called.
 */
function resampledQuantile(samples: Float64Array, draw: { p: number; random: () => number }): () => number {
  const { p, random } = draw;
  const scratch = new Float64Array(samples.length);
  return () => {
    for (let i = 0; i < scratch.length; i++) scratch[i] = samples[Math.floor(random() * samples.length)] as number;
    scratch.sort();
    return percentile(scratch, p);
  };
}

/** The options of {@linkcode ratioInterval}. */
export interface RatioIntervalOptions {
  /** The quantile compared, in (0, 1]. */
  p: number;
  /** The generator's seed. */
  seed: number;
  /** How many resamples ({@linkcode RESAMPLES_DEFAULT}; 1 to {@linkcode RESAMPLES_MAX}). */
  resamples?: number;
  /** The interval's central share (0.95 unless told; above 0 and below 1). */
  level?: number;
}

/**
 * The central `options.level` interval of `quantile(a, p) / quantile(b, p)` (`p` is `options.p`) over resamples
 * of `a` and of `b` (each drawn with replacement, to its own size): how far this run's ratio of quantiles could
 * move by the luck of which calls were slow.
 */
export function ratioInterval(
  a: readonly number[],
  b: readonly number[],
  options: RatioIntervalOptions,
): { low: number; high: number } {
  const { p } = options;
  const resamples = options.resamples ?? RESAMPLES_DEFAULT;
  const level = options.level ?? 0.95;
  if (a.length === 0 || b.length === 0) {
    throw new RangeError(`Cannot resample: both series need samples, current sizes are ${a.length} and ${b.length}`);
  }
  if (!(p > 0 && p <= 1)) throw new RangeError(`Cannot resample: p must be in (0, 1], current value is ${p}`);
  if (!Number.isInteger(resamples) || resamples < 1 || resamples > RESAMPLES_MAX) {
    throw new RangeError(
      `Cannot resample: resamples must be an integer from 1 to ${RESAMPLES_MAX}, current value is ${resamples}`,
    );
  }
  if (!(level > 0 && level < 1)) {
    throw new RangeError(`Cannot resample: level must be in (0, 1), current value is ${level}`);
  }
  const random = seededRandom(options.seed);
  const quantileA = resampledQuantile(Float64Array.from(a), { p, random });
  const quantileB = resampledQuantile(Float64Array.from(b), { p, random });
  const ratios = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) ratios[r] = quantileA() / quantileB();
  ratios.sort();
  const tail = (1 - level) / 2;
  return { low: percentile(ratios, tail), high: percentile(ratios, 1 - tail) };
}

/** One timed call of a run: when it started (ms, any clock), how long it took, and its series (any key). */
export interface TimedCall {
  at: number;
  ms: number;
  series: unknown;
}

/** Shuffles of the slow marks that {@linkcode slowCallClustering} averages over. */
export const CLUSTER_SHUFFLES = 200;

/**
 * The share of `marks.slow` calls (by index into `marks.at`, ascending) with another slow call starting within
 * `windowMs`.
 */
function clusteredShare(marks: { at: Float64Array; slow: Uint8Array }, windowMs: number): number {
  const { at, slow } = marks;
  let slowCount = 0;
  let clustered = 0;
  let lo = 0;
  let hi = 0;
  let slowInWindow = 0; // slow calls in [lo, hi)
  for (let i = 0; i < at.length; i++) {
    const t = at[i] as number;
    while (hi < at.length && (at[hi] as number) <= t + windowMs) slowInWindow += slow[hi++] as number;
    while ((at[lo] as number) < t - windowMs) slowInWindow -= slow[lo++] as number;
    if (slow[i] === 1) {
      slowCount++;
      if (slowInWindow > 1) clustered++;
    }
  }
  return slowCount === 0 ? 0 : clustered / slowCount;
}

/**
 * Whether a run's slow calls come together: of the calls slower than their own series' `p` quantile, the share
 * with another such call (of any series) starting within `windowMs` of theirs, against the mean of the same share
 * with those slow marks shuffled over all the calls ({@linkcode CLUSTER_SHUFFLES} times, seeded): what it would be
 * if being slow had nothing to do with when a call ran. Well above that, the slowness came from bursts of
 * something else on the machine (a pause, other processes), not from the calls' own work.
 */
export function slowCallClustering(
  calls: readonly TimedCall[],
  options: { p: number; windowMs: number; seed: number },
): { slow: number; clustered: number; independent: number } {
  if (!(options.p > 0 && options.p < 1)) {
    throw new RangeError(`Cannot find slow calls: p must be in (0, 1), current value is ${options.p}`);
  }
  if (!(options.windowMs >= 0)) {
    throw new RangeError(`Cannot find slow calls: windowMs must be 0 or more, current value is ${options.windowMs}`);
  }
  const bySeries = new Map<unknown, number[]>();
  for (const call of calls) {
    const times = bySeries.get(call.series) ?? [];
    times.push(call.ms);
    bySeries.set(call.series, times);
  }
  const threshold = new Map<unknown, number>();
  for (const [series, times] of bySeries) {
    threshold.set(series, percentile(Float64Array.from(times).sort(), options.p));
  }
  const ordered = [...calls].sort((x, y) => x.at - y.at);
  const at = Float64Array.from(ordered, (c) => c.at);
  const slow = Uint8Array.from(ordered, (c) => c.ms > (threshold.get(c.series) as number) ? 1 : 0);
  const clustered = clusteredShare({ at, slow }, options.windowMs);
  const random = seededRandom(options.seed);
  const shuffled = Uint8Array.from(slow);
  let sum = 0;
  for (let s = 0; s < CLUSTER_SHUFFLES; s++) {
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      const x = shuffled[i] as number;
      shuffled[i] = shuffled[j] as number;
      shuffled[j] = x;
    }
    sum += clusteredShare({ at, slow: shuffled }, options.windowMs);
  }
  return { slow: slow.reduce((n, x) => n + x, 0), clustered, independent: sum / CLUSTER_SHUFFLES };
}
