import assert from "node:assert/strict";
import { checkLayers } from "../scripts/check_layers.ts";

Deno.test("checkLayers() finds no import against the layer arrows and no misplaced side effect", async () => {
  assert.deepEqual(await checkLayers(new URL("../src", import.meta.url).pathname), []);
});

Deno.test("checkLayers() reports a store module importing mcp and a fetch outside github", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/src/store`, { recursive: true });
    await Deno.mkdir(`${dir}/src/mcp`, { recursive: true });
    await Deno.mkdir(`${dir}/src/corpus`, { recursive: true });
    await Deno.writeTextFile(`${dir}/src/mcp/x.ts`, "export const x = 1;\n");
    await Deno.writeTextFile(`${dir}/src/store/bad.ts`, 'import { x } from "../mcp/x.ts";\nexport const y = x;\n');
    await Deno.writeTextFile(`${dir}/src/corpus/net.ts`, 'export const z = () => fetch("http://x");\n');
    const problems = await checkLayers(`${dir}/src`);
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(problems.join("\n"), /store may not import mcp/);
    assert.match(problems.join("\n"), /fetch\( belongs to github/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
