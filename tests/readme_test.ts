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
