/**
 * Imports one module and prints how long the import took, as `{"ms": N}` on stdout: the probe behind
 * scripts/bench/module_load.ts, run in a fresh process for each sample. Never shipped.
 *
 *   deno run <the flags of src/cli/permissions.ts> --config deno.json scripts/bench/import_probe.ts MODULE_URL
 *
 * @module
 */

if (import.meta.main) {
  const url = Deno.args[0];
  if (url === undefined || Deno.args.length !== 1) {
    console.error("Usage: import_probe.ts MODULE_URL");
    Deno.exit(2);
  }
  const start = performance.now();
  await import(url);
  console.log(JSON.stringify({ ms: performance.now() - start }));
}
