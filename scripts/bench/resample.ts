/**
 * How sure one run is of a quantile ratio: a percentile bootstrap over the run's own samples. A p99 of 1,500
 * round trips is their 15th largest, so a few slow calls more or fewer move it; resampling each series with
 * replacement and taking the ratio of the resamples' quantiles, many times, gives the range that ratio could
 * have taken from the same machine state. It says nothing about a run on another day (load, other tenants):
 * that spread is seen only by running again.
 *
 * @module
 */

/** Resamples per interval unless told otherwise: a 95% interval's ends settle to about 0.01x by then. */
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

/** The `p` quantile of ascending samples, as scripts/bench/store/harness.ts `percentile` takes it. */
function quantileOfSorted(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

function resampledQuantile(samples: Float64Array, scratch: Float64Array, p: number, random: () => number): number {
  for (let i = 0; i < scratch.length; i++) scratch[i] = samples[Math.floor(random() * samples.length)] as number;
  scratch.sort();
  return quantileOfSorted(scratch, p);
}

/** The options of {@linkcode ratioInterval}. */
export interface RatioIntervalOptions {
  /** The generator's seed. */
  seed: number;
  /** How many resamples ({@linkcode RESAMPLES_DEFAULT}; 1 to {@linkcode RESAMPLES_MAX}). */
  resamples?: number;
  /** The interval's central share (0.95 unless told; above 0 and below 1). */
  level?: number;
}

/**
 * The central `level` interval of `quantile(a, p) / quantile(b, p)` over resamples of `a` and of `b` (each drawn
 * with replacement, to its own size): how far this run's ratio of quantiles could move by the luck of which
 * calls were slow.
 */
export function ratioInterval(
  a: readonly number[],
  b: readonly number[],
  p: number,
  options: RatioIntervalOptions,
): { low: number; high: number } {
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
  const sa = Float64Array.from(a);
  const sb = Float64Array.from(b);
  const scratchA = new Float64Array(sa.length);
  const scratchB = new Float64Array(sb.length);
  const ratios = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    ratios[r] = resampledQuantile(sa, scratchA, p, random) / resampledQuantile(sb, scratchB, p, random);
  }
  ratios.sort();
  const tail = (1 - level) / 2;
  return { low: quantileOfSorted(ratios, tail), high: quantileOfSorted(ratios, 1 - tail) };
}
