/**
 * Job ids: a time-ordered prefix (creation time in milliseconds, 12 hex digits) followed by a
 * random UUID v4 (122 random bits from `crypto`). The random part keeps ids opaque and
 * unguessable, because the Tasks adapter uses the job id as the task id (a bearer-like handle);
 * the prefix makes new ids sort after old ones, so inserts append to the primary-key index instead
 * of dirtying a random page of it (WAL bytes per job stay flat as retained jobs accumulate). The
 * prefix reveals only the creation time, which every task shows anyway (`createdAt`).
 *
 * @module
 */

const UUID_V4 = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";
/** Ids issued since the time-ordered format, and plain UUIDs issued before it (still readable). */
const ID_PATTERN = new RegExp(`^(?:[0-9a-f]{12}-)?${UUID_V4}$`);

/** A new job id, created at `nowMs` (defaults to the wall clock). */
export function newJobId(nowMs: number = Date.now()): string {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0 || nowMs >= 2 ** 48) {
    throw new RangeError(`Cannot create job id: time must be an integer in [0, 2^48) ms, current value is ${nowMs}`);
  }
  return `${nowMs.toString(16).padStart(12, "0")}-${crypto.randomUUID()}`;
}

/** A new executor owner id. */
export function newOwnerId(): string {
  return crypto.randomUUID();
}

/** Whether `value` has the shape of a job id (cheap check before a lookup). */
export function isJobId(value: string): boolean {
  return ID_PATTERN.test(value);
}
