/**
 * src/jobs/kinds.ts: the registry of job kinds (duplicate kinds refused, unknown kinds absent, names
 * in registration order) and the type-erasing definers.
 */

import assert from "node:assert/strict";
import { type AnyJobPolicy, defineJobKind, defineJobPolicy, JobKindRegistry } from "./kinds.ts";

const policy = (kind: string): AnyJobPolicy => defineJobPolicy({ kind });

Deno.test("JobKindRegistry: names() lists the kinds in registration order; get() returns the registered object", () => {
  const a = policy("a"), b = policy("b");
  const registry = new JobKindRegistry<AnyJobPolicy>([a, b]);
  const c = policy("c");
  registry.register(c);
  assert.deepEqual(registry.names(), ["a", "b", "c"]);
  assert.equal(registry.get("a"), a);
  assert.equal(registry.get("c"), c);
});

Deno.test("JobKindRegistry.get: an unknown kind is undefined (no fallback, no prefix match)", () => {
  const registry = new JobKindRegistry<AnyJobPolicy>([policy("github.sync")]);
  assert.equal(registry.get("github"), undefined);
  assert.equal(registry.get("github.sync.x"), undefined);
  assert.equal(registry.get("GITHUB.SYNC"), undefined, "kinds are case-sensitive");
  assert.equal(registry.get(""), undefined);
  assert.deepEqual(new JobKindRegistry<AnyJobPolicy>().names(), [], "the default registry is empty");
});

Deno.test("JobKindRegistry.register: a duplicate kind is refused with TypeError and the first stays registered", () => {
  const first = policy("dup");
  const registry = new JobKindRegistry<AnyJobPolicy>([first]);
  assert.throws(
    () => registry.register(policy("dup")),
    (err: unknown) =>
      err instanceof TypeError && err.message === 'Cannot register job kind: "dup" is already registered',
  );
  assert.equal(registry.get("dup"), first);
  assert.deepEqual(registry.names(), ["dup"]);
  assert.throws(() => new JobKindRegistry<AnyJobPolicy>([policy("x"), policy("x")]), TypeError, "in the constructor");
});

Deno.test("defineJobKind / defineJobPolicy: erase types only; the object and its functions are kept as given", async () => {
  const kind = {
    kind: "k",
    outcome: (r: { ok: boolean }) => r.ok ? "succeeded" : "partial",
    run: () => Promise.resolve({ ok: false }),
  };
  const erased = defineJobKind(kind);
  assert.equal(erased, kind as unknown);
  assert.equal(erased.outcome?.(await erased.run({} as never)), "partial");
  const registry = new JobKindRegistry([erased]);
  assert.equal(registry.get("k")?.run, kind.run);
  const p = defineJobPolicy({ kind: "p", firstPollAfterMs: (req: { ms: number }) => req.ms });
  assert.equal(p.firstPollAfterMs?.({ ms: 250 }), 250);
});
