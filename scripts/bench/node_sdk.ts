/**
 * The official MCP TypeScript SDK (v1, the version deno.json pins) laid out for plain Node, so the bench's Node host
 * (scripts/bench/node_host_client.mjs) can read a server through the SDK's own StdioClientTransport. Nothing is
 * downloaded: the packages are those deno.lock resolves for the SDK, already in Deno's npm cache (the project's own
 * imports of the SDK put them there), each linked by name into one flat node_modules of a directory of its own.
 * Node must run with `--preserve-symlinks` so the SDK's own imports resolve from there rather than from the cache.
 *
 * `deno install --node-modules-dir` would also lay one out, but it resolves the SDK's optional peer dependencies
 * as well, which the project never needs and a fresh cache does not hold (`@cfworker/json-schema`), so offline it
 * fails on a fresh machine.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

const DENO_JSON = fileURLToPath(new URL("../../deno.json", import.meta.url));
const DENO_LOCK = fileURLToPath(new URL("../../deno.lock", import.meta.url));
const SDK = "@modelcontextprotocol/sdk";

/** The v1 SDK's version as deno.json's import map pins it (`npm:/@modelcontextprotocol/sdk@X/`). */
export function pinnedSdkVersion(denoJson: { imports?: Record<string, string> }): string {
  const target = denoJson.imports?.[`${SDK}/`] ?? "";
  const version = /^npm:\/@modelcontextprotocol\/sdk@([^/]+)\/$/.exec(target)?.[1];
  if (version === undefined) throw new Error(`Cannot find the pinned ${SDK}: deno.json maps "${SDK}/" to "${target}"`);
  return version;
}

/** The npm part of deno.lock (version 5): each package by `name@version[_peer@version...]`. */
export interface NpmLock {
  npm: Record<string, { dependencies?: string[] }>;
}

/** A lock key's package name and version (`@scope/name@1.2.3_peer@4.5.6` -> `@scope/name`, `1.2.3`). */
export function lockKeyParts(key: string): { name: string; version: string } {
  const at = key.indexOf("@", 1);
  if (at < 0) throw new Error(`Cannot read the lock key "${key}": it has no version`);
  return { name: key.slice(0, at), version: key.slice(at + 1).split("_")[0] as string };
}

/**
 * The packages the SDK at `version` needs, as deno.lock resolves them: name -> lock key, the SDK first, then its
 * dependencies breadth first. A dependency is listed by name when the lock holds one version of it, else as a
 * lock key. A name seen twice keeps the version found first (nearest the SDK): a flat node_modules holds one.
 */
export function sdkPackages(lock: NpmLock, version: string): Map<string, string> {
  const keys = Object.keys(lock.npm);
  const keyOf = (ref: string): string => {
    if (ref in lock.npm) return ref;
    const found = keys.filter((key) => lockKeyParts(key).name === ref);
    if (found.length !== 1) throw new Error(`Cannot resolve "${ref}" in deno.lock: ${found.length} versions`);
    return found[0] as string;
  };
  const root = keys.find((key) => {
    const parts = lockKeyParts(key);
    return parts.name === SDK && parts.version === version;
  });
  if (root === undefined) throw new Error(`Cannot find ${SDK}@${version} in deno.lock`);
  const packages = new Map<string, string>();
  const queue = [root];
  for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
    const { name } = lockKeyParts(key);
    if (packages.has(name)) continue;
    packages.set(name, key);
    for (const ref of lock.npm[key]?.dependencies ?? []) queue.push(keyOf(ref));
  }
  return packages;
}

/** Deno's npm cache directory, as `deno info` names it. */
async function npmCacheDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" }).output();
  if (!out.success) throw new Error(`deno info --json failed (exit code ${out.code})`);
  return (JSON.parse(new TextDecoder().decode(out.stdout)) as { npmCache: string }).npmCache;
}

/**
 * Links the pinned SDK (or `options.version`) and the packages it needs from Deno's npm cache (`options.npmCache`,
 * by default the one `deno info` names) into `dir`/node_modules, and returns the path of its stdio client
 * transport module, or why it could not (`skipped`: a package is not in the cache).
 */
export async function installNodeSdk(
  dir: string,
  options: { version?: string; npmCache?: string } = {},
): Promise<{ stdio: string } | { skipped: string }> {
  const version = options.version ?? pinnedSdkVersion(JSON.parse(await Deno.readTextFile(DENO_JSON)));
  const packages = sdkPackages(JSON.parse(await Deno.readTextFile(DENO_LOCK)) as NpmLock, version);
  const registry = `${options.npmCache ?? await npmCacheDir()}/registry.npmjs.org`;
  for (const key of packages.values()) {
    const { name, version } = lockKeyParts(key);
    const source = `${registry}/${name}/${version}`;
    try {
      await Deno.stat(`${source}/package.json`);
    } catch {
      return { skipped: `${name}@${version} is not in Deno's npm cache (${registry})` };
    }
    const link = `${dir}/node_modules/${name}`;
    await Deno.mkdir(link.slice(0, link.lastIndexOf("/")), { recursive: true });
    await Deno.symlink(source, link);
  }
  return { stdio: `${dir}/node_modules/${SDK}/dist/esm/client/stdio.js` };
}
