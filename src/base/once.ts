/**
 * A value built on first use and kept: for what is costly to build at module load but not needed
 * before the first request (e.g. the zod output schemas that only a schema conversion or a test
 * reads, see src/mcp/advertised.ts).
 *
 * @module
 */

/** Returns a function that calls `build` on its first call and returns that same value ever after. */
export function once<T>(build: () => T): () => T {
  let built = false;
  let value: T | undefined;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}
