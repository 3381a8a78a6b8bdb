import assert from "node:assert/strict";
import { measurementsSection, readmeSection } from "../scripts/readme_tables.ts";

Deno.test("the README's figures are the ones the docs generated (run `deno task readme` after eval/bench)", async () => {
  // deno fmt re-aligns markdown tables, so compare modulo column padding.
  const norm = (text: string) =>
    text.split("\n").map((l) => l.replace(/\s+/g, "").replace(/-{3,}/g, "---")).filter((l) => l !== "").join("\n");
  const section = await readmeSection();
  assert.equal(norm(section), norm(await measurementsSection()));
  assert.match(section, /Goal check|Model calls/, "the evaluation's goal check is copied");
  assert.match(section, /\|\s*Job store\s*\|/, "benchmark goals are copied");
});

Deno.test("every repository path the README and docs/ARCHITECTURE.md name in backticks exists", async () => {
  const root = new URL("..", import.meta.url);
  const missing: string[] = [];
  for (const doc of ["README.md", "docs/ARCHITECTURE.md"]) {
    const text = await Deno.readTextFile(new URL(doc, root));
    // `src/...`, `tests/...`, `testing/...`, `scripts/...` ending in .ts (a path, not a glob or a folder).
    for (const m of text.matchAll(/`((?:src|tests|testing|scripts)\/[\w./-]+\.ts)`/g)) {
      const path = m[1] as string;
      try {
        await Deno.stat(new URL(path, root));
      } catch {
        missing.push(`${doc}: ${path}`);
      }
    }
  }
  assert.deepEqual(missing, [], `paths named in the docs that do not exist:\n${missing.join("\n")}`);
});
