/**
 * Job ids: a random UUID v4 (122 random bits from `crypto`), opaque and unguessable,
 * because the Tasks adapter uses the job id as the task id (a bearer-like handle).
 *
 * @module
 */

const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A new job id. */
export function newJobId(): string {
  return crypto.randomUUID();
}

/** A new executor owner id. */
export function newOwnerId(): string {
  return crypto.randomUUID();
}

/** Whether `value` has the shape of a job id (cheap check before a lookup). */
export function isJobId(value: string): boolean {
  return ID_PATTERN.test(value);
}
