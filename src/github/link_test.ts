import assert from "node:assert/strict";
import { nextLink, parseLinkHeader } from "./link.ts";

const GITHUB_LINK = '<https://api.github.com/repositories/1/issues?page=2>; rel="next", ' +
  '<https://api.github.com/repositories/1/issues?page=5>; rel="last"';

Deno.test("parseLinkHeader() maps GitHub's rels to their targets", () => {
  const links = parseLinkHeader(GITHUB_LINK);
  assert.deepEqual([...links], [
    ["next", "https://api.github.com/repositories/1/issues?page=2"],
    ["last", "https://api.github.com/repositories/1/issues?page=5"],
  ]);
});

Deno.test("parseLinkHeader() is empty for null, undefined, an empty or a rel-less header", () => {
  assert.equal(parseLinkHeader(null).size, 0);
  assert.equal(parseLinkHeader(undefined).size, 0);
  assert.equal(parseLinkHeader("").size, 0);
  assert.equal(parseLinkHeader("<https://x/2>").size, 0);
  assert.equal(parseLinkHeader('<https://x/2>; title="next"').size, 0);
  assert.equal(parseLinkHeader("not a link header").size, 0);
});

Deno.test("parseLinkHeader() reads space-separated rels, unquoted values, any key case; the first target wins", () => {
  const links = parseLinkHeader('<https://x/1>; REL=first, <https://x/2>; rel="next last", <https://x/3>; rel="next"');
  assert.equal(links.get("first"), "https://x/1");
  assert.equal(links.get("next"), "https://x/2", "the first occurrence of a rel wins");
  assert.equal(links.get("last"), "https://x/2");
  assert.equal(links.size, 3);
});

Deno.test("nextLink() is the rel=next target, or undefined on the last page", () => {
  assert.equal(nextLink(GITHUB_LINK), "https://api.github.com/repositories/1/issues?page=2");
  assert.equal(
    nextLink('<https://api.github.com/x?page=1>; rel="prev", <https://api.github.com/x?page=1>; rel="first"'),
    undefined,
  );
  assert.equal(nextLink(null), undefined);
});
