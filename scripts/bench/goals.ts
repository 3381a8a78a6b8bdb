/**
 * The `jobs.get` batch goals of issue 14, named once: scripts/bench/mcp.ts reads each run against them and
 * scripts/bench/p99_history.ts reads the committed runs against them.
 *
 * @module
 */

/** `jobs.get` of 100 ids against 1 id: the p99 ratio at most this. */
export const BATCH_VS_ONE_GOAL = 2;
/** ... and the p50 ratio at most this. */
export const BATCH_VS_ONE_P50_GOAL = 6;
