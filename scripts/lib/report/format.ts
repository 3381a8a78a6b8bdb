/**
 * Number formats of the evaluation's tables and prose: percentages, integers, seconds, token estimates.
 *
 * @module
 */

/** Bytes per token of the rough token estimate. */
export const BYTES_PER_TOKEN = 4;

export function pct(value: number | undefined): string {
  return value === undefined ? "–" : `${(value * 100).toFixed(1)} %`;
}

export function int(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function tokens(bytes: number): string {
  return int(bytes / BYTES_PER_TOKEN);
}

/** Simulated seconds of a real duration. */
export function simSeconds(realMs: number, rate: number): string {
  return `${Math.round(realMs * rate / 1000)} s`;
}
