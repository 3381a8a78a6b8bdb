/**
 * Column values of the corpus tables, both ways: the checks every value passes before it is
 * written (a bad argument is a TypeError/RangeError "Cannot X: ... current value is Y") and
 * the decoders that read a raw `node:sqlite` row back into typed values (a column of the wrong
 * type is a broken invariant, so it asserts).
 *
 * @module
 */

import { assert } from "../base/errors.ts";
import { isFullRepositoryName } from "../base/names.ts";

/** A row as `node:sqlite` returns it. */
export type Raw = Record<string, unknown>;

/** Throws unless `value` is `owner/name` by GitHub's rules (src/base/names.ts). */
export function requireRepository(value: string, what: string): void {
  if (!isFullRepositoryName(value)) {
    throw new TypeError(`Cannot ${what}: repository must be owner/name; current value is ${JSON.stringify(value)}`);
  }
}

/**
 * Throws unless `value` (the column `name`) is a safe integer of at least `options.min`; the error says it cannot
 * `options.what`.
 */
export function requireCount(value: number, name: string, options: { what: string; min: number }): void {
  const { what, min } = options;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`Cannot ${what}: ${name} must be an integer >= ${min}; current value is ${value}`);
  }
}

/**
 * Throws unless `value` (the column `name`) is `null` or non-negative integer epoch milliseconds; the error says it
 * cannot `options.what`.
 */
export function requireTime(value: number | null, name: string, options: { what: string }): void {
  if (value !== null && (!Number.isSafeInteger(value) || value < 0)) {
    throw new RangeError(`Cannot ${options.what}: ${name} must be epoch milliseconds; current value is ${value}`);
  }
}

/** A TEXT column. */
export function str(raw: Raw, key: string): string {
  const v = raw[key];
  assert(typeof v === "string", `corpus column ${key} is a string`);
  return v;
}

/** A nullable TEXT column. */
export function strOrNull(raw: Raw, key: string): string | null {
  const v = raw[key];
  assert(v === null || typeof v === "string", `corpus column ${key} is a string or null`);
  return v;
}

/** An INTEGER or REAL column. */
export function num(raw: Raw, key: string): number {
  const v = raw[key];
  assert(typeof v === "number", `corpus column ${key} is a number`);
  return v;
}

/** A nullable INTEGER or REAL column. */
export function numOrNull(raw: Raw, key: string): number | null {
  const v = raw[key];
  assert(v === null || typeof v === "number", `corpus column ${key} is a number or null`);
  return v;
}

/** A nullable 0/1 column. */
export function boolOrNull(raw: Raw, key: string): boolean | null {
  const v = numOrNull(raw, key);
  return v === null ? null : v === 1;
}

/** A TEXT column holding a JSON array, read as strings. */
export function strings(raw: Raw, key: string): string[] {
  const parsed: unknown = JSON.parse(str(raw, key));
  assert(Array.isArray(parsed), `corpus column ${key} is a JSON array`);
  return parsed.map(String);
}
