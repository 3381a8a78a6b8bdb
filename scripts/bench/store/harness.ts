/**
 * The job store benchmark's shared harness: the section shape, timing (sleeps, polling waits,
 * percentiles, medians of alternated rounds), table cell formatting and the temp directory on a
 * real disk. No measurement lives here (../store.ts lists the parts).
 *
 * @module
 */

import { setImmediate } from "node:timers";

/** One benchmark section: title, rows and notes for docs/benchmarks.md. */
export interface BenchSection {
  title: string;
  rows: Array<{ metric: string; value: string; goal?: string; met?: boolean }>;
  notes?: string[];
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One turn of the event loop (after pending I/O), so other work can run. */
export const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The `p` quantile (0..1) of ascending samples, NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

/** The median of samples in any order (the mean of the two middle ones for an even count), NaN when none. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? sorted[mid] as number : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** A count or rate as a table cell: rounded, with thousands separators. */
export const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
/**
 * A ratio compared with a goal, with `options.digits` decimals (2 unless told), or with as many more (up to 4) as it
 * takes not to round onto the goal: 1.503 against `<= 1.5` reads 1.503, not a 1.50 beside "no".
 */
export function ratioFmt(value: number, goal: number, options: { digits?: number } = {}): string {
  let d = options.digits ?? 2;
  while (d < 4 && value !== goal && Number(value.toFixed(d)) === goal) d++;
  return value.toFixed(d);
}

/** Bytes as a table cell, in MB. */
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** File system type of a directory (`stat -f`), or undefined where that does not work. */
async function fsType(path: string): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("stat", { args: ["-f", "-c", "%T", path], stdout: "piped", stderr: "null" })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

/** A temp directory on a real disk: the repository's, when the system temp dir is in memory. */
export async function benchDir(): Promise<{ path: string; where: string }> {
  const tmp = await Deno.makeTempDir({ prefix: "longcall-bench-store-" });
  const type = await fsType(tmp);
  if (type !== undefined && type !== "tmpfs" && type !== "ramfs") {
    return { path: tmp, where: `system temp dir (${type})` };
  }
  await Deno.remove(tmp);
  const base = new URL("../../../.bench-tmp/", import.meta.url).pathname;
  await Deno.mkdir(base, { recursive: true });
  const path = await Deno.makeTempDir({ dir: base, prefix: "store-" });
  return {
    path,
    where: `.bench-tmp/ in the repository (${await fsType(path) ?? "type unknown"}; system temp dir: ${
      type ?? "type unknown"
    })`,
  };
}

/** How long {@link waitUntil} waits, and how often it polls. */
export interface WaitOptions {
  /** It throws after this long. */
  timeoutMs: number;
  /** Milliseconds between polls (1 unless told). */
  everyMs?: number;
}

/** Polls `probe` every `options.everyMs` until it holds; throws (naming `what`) after `options.timeoutMs`. */
export async function waitUntil(what: string, probe: () => boolean, options: WaitOptions): Promise<void> {
  const { timeoutMs, everyMs = 1 } = options;
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
