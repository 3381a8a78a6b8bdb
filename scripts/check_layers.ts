/**
 * Checks the import arrows between src/ layers (docs/ARCHITECTURE.md) and the
 * one-owner-per-side-effect rules. Exits 1 with one line per violation.
 *
 *   deno run --allow-read scripts/check_layers.ts
 *
 * @module
 */

/** Which layers each layer may import (itself always allowed). */
export const ALLOWED: Record<string, readonly string[]> = {
  base: [],
  store: ["base"],
  jobs: ["store", "base"],
  corpus: ["store", "base"],
  github: ["jobs", "store", "base"],
  tasks: ["jobs", "store", "base"],
  mcp: ["tasks", "jobs", "corpus", "github", "store", "base"],
  cli: ["mcp", "tasks", "jobs", "corpus", "github", "store", "base"],
  main: ["cli"],
};

/** Side effects with one owner: a pattern and the layers allowed to contain it. */
export const OWNERS: ReadonlyArray<{ what: string; pattern: RegExp; layers: readonly string[] }> = [
  { what: "node:sqlite", pattern: /from "node:sqlite"/, layers: ["store"] },
  { what: "fetch(", pattern: /(?<![.\w])fetch\(/, layers: ["github"] },
  { what: "Deno.args", pattern: /Deno\.args/, layers: ["cli"] },
  { what: "Deno.exit", pattern: /Deno\.exit\(/, layers: ["cli"] },
  { what: "Deno.env", pattern: /Deno\.env\./, layers: ["cli"] },
  { what: "tests/ or fixtures/ import", pattern: /from "(\.\.\/)+(tests|fixtures)\//, layers: [] },
];

function layerOf(path: string): string {
  const rel = path.slice(path.indexOf("src/") + 4);
  return rel.includes("/") ? rel.slice(0, rel.indexOf("/")) : rel.replace(/\.ts$/, "");
}

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Every violation in `srcDir`. */
export async function checkLayers(srcDir: string): Promise<string[]> {
  const problems: string[] = [];
  for await (const path of sources(srcDir)) {
    const layer = layerOf(path);
    const text = await Deno.readTextFile(path);
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const m of code.matchAll(/from "(\.[^"]+)"/g)) {
      const target = new URL(m[1] ?? "", `file://${path}`).pathname;
      if (!target.includes("/src/")) continue;
      const to = layerOf(target);
      if (to !== layer && !(ALLOWED[layer] ?? []).includes(to)) {
        problems.push(`${path.slice(srcDir.length + 1)}: ${layer} may not import ${to} (${m[1]})`);
      }
    }
    for (const owner of OWNERS) {
      if (owner.pattern.test(code) && !owner.layers.includes(layer)) {
        problems.push(
          `${path.slice(srcDir.length + 1)}: ${owner.what} belongs to ${owner.layers.join(", ") || "no runtime code"}`,
        );
      }
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = await checkLayers(new URL("../src", import.meta.url).pathname);
  for (const p of problems) console.error(p);
  console.log(problems.length === 0 ? "layers: ok" : `layers: ${problems.length} violation(s)`);
  Deno.exit(problems.length === 0 ? 0 : 1);
}
