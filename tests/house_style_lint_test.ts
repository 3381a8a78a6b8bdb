/**
 * The house-style lint plugin (scripts/lint/house_style.ts): what its rule reports, where it holds, and that
 * `deno lint` runs it over the repository.
 */

import assert from "node:assert/strict";
import plugin, { POSITIONAL_PARAMS_MAX } from "../scripts/lint/house_style.ts";
import { tempDir } from "../testing/temp.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const RUNTIME_FILE = `${ROOT}src/base/example.ts`;

function reports(source: string, filename = RUNTIME_FILE): string[] {
  return Deno.lint.runPlugin(plugin, filename, source).map((d) => d.message);
}

Deno.test("positional-params-max accepts two positional parameters, and two plus an options object", () => {
  assert.equal(POSITIONAL_PARAMS_MAX, 2);
  assert.deepEqual(
    reports(`
      export function a(x: number, y: number) { return x + y; }
      export function b(x: number, y: number, options: { z?: number } = {}) { return x + y + (options.z ?? 0); }
      export function c(x: number, y: number, writeOptions?: { z: number }) { return x + y + (writeOptions?.z ?? 0); }
      export const d = (x: number) => x;
      export class E { m(x: number, y: number, options: object) { return [x, y, options]; } }
      export interface F { m(x: number, y: number, options?: object): void }
    `),
    [],
  );
});

Deno.test("positional-params-max reports a third positional parameter in every kind of signature", () => {
  const found = reports(`
    export function a(x: number, y: number, z: number) { return x + y + z; }
    export const b = (x: number, y: number, z = 1) => x + y + z;
    export const c = function (x: number, y: number, ...rest: number[]) { return [x, y, rest]; };
    export class D { m(x: number, y: number, z?: number) { return [x, y, z]; } #p(x: number, y: number, z: number) { return [x, y, z]; } }
    export interface E { m(x: number, y: number, z: number): void }
    export declare function f(x: number, y: number, z: number): void;
    export function g(x: number, options: object, z: number) { return [x, options, z]; }
  `);
  assert.equal(found.length, 8, found.join("\n"));
  for (const message of found) assert.match(message, /^Cannot take 3 positional parameters: the house style allows 2/);
  // An options object counts only last: here it is the second of four.
  assert.deepEqual(
    reports("export function h(a: number, options: object, b: number, c: number) { return [a, options, b, c]; }"),
    [
      "Cannot take 4 positional parameters: the house style allows 2 plus an options object (named `options` or " +
      "`...Options`)",
    ],
  );
});

Deno.test("positional-params-max holds every file: runtime code, tests and scripts alike", () => {
  const three = "export function a(x: number, y: number, z: number) { return x + y + z; }";
  for (const path of ["src/store/x.ts", "src/store/x_test.ts", "tests/x_test.ts", "scripts/x.ts", "testing/x.ts"]) {
    assert.equal(reports(three, `${ROOT}${path}`).length, 1, path);
  }
});

Deno.test("deno lint runs the house-style plugin: deno.json loads it, and a lint run reports through it", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.deepEqual(config.lint?.plugins, ["./scripts/lint/house_style.ts"]);
  // A real `deno lint` over a project that loads the plugin the same way: it fails on a third parameter only.
  await using dir = await tempDir("longcall-house-style-");
  const pluginUrl = new URL("../scripts/lint/house_style.ts", import.meta.url).href;
  await Deno.writeTextFile(dir.file("deno.json"), JSON.stringify({ lint: { plugins: [pluginUrl] } }));
  await Deno.writeTextFile(
    dir.file("ok.ts"),
    "export const a = (x: number, y: number, options = {}) => [x, y, options];\n",
  );
  await Deno.writeTextFile(dir.file("bad.ts"), "export const b = (x: number, y: number, z: number) => x + y + z;\n");
  const lint = (file: string) =>
    new Deno.Command(Deno.execPath(), {
      args: ["lint", "--json", file],
      cwd: dir.path,
      stdout: "piped",
      stderr: "piped",
    }).output();
  const ok = await lint("ok.ts");
  assert.equal(ok.code, 0, new TextDecoder().decode(ok.stderr));
  const bad = await lint("bad.ts");
  assert.notEqual(bad.code, 0);
  const diagnostics = JSON.parse(new TextDecoder().decode(bad.stdout)).diagnostics as Array<{ code: string }>;
  assert.deepEqual(diagnostics.map((d) => d.code), ["house-style/positional-params-max"]);
});
