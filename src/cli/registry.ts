/**
 * The product's job kinds. Test kinds are registered by test factories, never here.
 *
 * @module
 */

import { JobKindRegistry } from "../jobs/kinds.ts";

/** Every job kind the shipped binary can run. */
export function productRegistry(): JobKindRegistry {
  return new JobKindRegistry([]);
}
