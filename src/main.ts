/**
 * longcall's entry point for `deno run` and `deno compile`.
 *
 * @module
 */

import { run } from "./cli/main.ts";

if (import.meta.main) await run(Deno.args);
