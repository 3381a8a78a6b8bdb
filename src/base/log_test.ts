import assert from "node:assert/strict";
import { createLogger, parseLogLevel, redact, silentLogger } from "./log.ts";

Deno.test("redact() replaces every GitHub token shape and bearer credential, and nothing else", () => {
  const classic = "ghp_" + "a".repeat(36);
  const fine = "github_pat_" + "B1_".repeat(10);
  for (const token of [classic, "gho_abcdefghij", "ghs_0123456789", "ghu_x1y2z3w4v5", "ghr_ABCDEFGHIJ", fine]) {
    assert.equal(redact(`token ${token} used`), "token [redacted] used", token);
  }
  assert.equal(redact("Authorization: Bearer s3cr3t.value"), "Authorization: [redacted]");
  assert.equal(redact("ghp_short"), "ghp_short", "under 10 characters after the prefix is not a token");
  assert.equal(redact("a ghx_abcdefghijk b"), "a ghx_abcdefghijk b", "not a GitHub prefix");
  assert.equal(redact(`${classic} and ${classic}`), "[redacted] and [redacted]", "every occurrence");
});

Deno.test("parseLogLevel() knows the five levels and falls back to info", () => {
  for (const level of ["debug", "info", "warn", "error", "silent"] as const) assert.equal(parseLogLevel(level), level);
  for (const other of [undefined, "", "WARN", "verbose", "toString", "constructor", "__proto__"]) {
    assert.equal(parseLogLevel(other), "info", String(other));
  }
});

Deno.test("createLogger() writes records at and above its level, scoped, with fields, and redacted", () => {
  const lines: string[] = [];
  const log = createLogger("warn", { scope: "test", write: (line) => lines.push(line) });
  log.debug("d");
  log.info("i");
  log.warn("careful", { n: 1 });
  log.error("broken", { token: "ghp_" + "z".repeat(36) });
  assert.equal(lines.length, 2, "debug and info are below warn");
  assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z warn \[test\] careful \{"n":1\}$/);
  assert.match(lines[1]!, / error \[test\] broken \{"token":"\[redacted\]"\}$/);
  log.child("job:1234").warn("from a child");
  assert.match(lines[2]!, / warn \[test:job:1234\] from a child$/);
});

Deno.test("createLogger('silent') and silentLogger write nothing, even errors", () => {
  const lines: string[] = [];
  const log = createLogger("silent", { scope: "x", write: (line) => lines.push(line) });
  log.error("no");
  log.child("c").error("no");
  assert.deepEqual(lines, []);
  silentLogger.error("dropped"); // would show on stderr if it wrote
});
