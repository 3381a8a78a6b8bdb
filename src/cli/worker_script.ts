/**
 * Where the network worker's code comes from, and what it must be able to read to load it.
 *
 * - The shipped bundle embeds the worker as one self-contained script (scripts/build.ts
 *   bundles src/cli/network_worker_entry.ts and generates a bundle entry that calls
 *   {@linkcode embedWorkerScript} before anything else runs). The worker then starts from a
 *   `blob:` URL: it reads no file, so it is granted no read beyond the database files, and the
 *   serving thread may drop its own permissions right after creating it (Deno checks the static
 *   imports of a worker's entry against its parent's permissions; a blob has none to check).
 * - From source (`deno run src/main.ts`, `deno compile`) nothing is embedded: the worker starts
 *   from the entry module, and the serving thread narrows once that entry runs (it says `entered`).
 *   The entry imports the rest dynamically, on its first message, from the source directory it is
 *   granted read access to (Deno checks a dynamic import against the worker's own permissions).
 *
 * @module
 */

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

let embedded: string | undefined;

/** Records the bundle's embedded worker script. Called once, by the generated bundle entry only. */
export function embedWorkerScript(code: string): void {
  if (embedded !== undefined) throw new TypeError("Cannot embed the worker script: it is already embedded");
  if (code.length === 0) throw new TypeError("Cannot embed the worker script: current value is empty");
  embedded = code;
}

/** How the network worker is started. */
export interface WorkerScript {
  /** The URL given to `new Worker()`. */
  url: string;
  /** True when the code comes from memory (a `blob:` URL): no file read, no wait for its entry before narrowing. */
  fromMemory: boolean;
  /** Paths the worker must be able to read to load its code (none from memory). */
  codeReads: string[];
  /** Frees the blob once the worker has loaded it (no-op from source). */
  release(): void;
}

/** The directory of a module (a worker started from source must be able to load its own code). */
function moduleDir(moduleUrl: string): string {
  // fileURLToPath, not URL.pathname: on Windows the path is C:\..., not /C:/...
  if (moduleUrl.startsWith("file:")) return dirname(fileURLToPath(moduleUrl));
  return moduleUrl.slice(0, moduleUrl.lastIndexOf("/") + 1) || ".";
}

/** The worker script: the embedded one when this is the bundle, else `moduleUrl` (the entry module). */
export function networkWorkerScript(moduleUrl: string): WorkerScript {
  if (embedded === undefined) {
    return { url: moduleUrl, fromMemory: false, codeReads: [moduleDir(moduleUrl)], release: () => {} };
  }
  const url = URL.createObjectURL(new Blob([embedded], { type: "text/javascript" }));
  return { url, fromMemory: true, codeReads: [], release: () => URL.revokeObjectURL(url) };
}
