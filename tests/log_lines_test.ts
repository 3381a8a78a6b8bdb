import assert from "node:assert/strict";
import { createLogger } from "../src/base/log.ts";
import { logLine, logLines } from "../testing/log_lines.ts";

Deno.test("logLines() reads back what createLogger() writes: stamp, level, scope, message and fields", () => {
  const written: string[] = [];
  const log = createLogger("debug", { scope: "longcall", write: (line) => written.push(line) });
  log.info("serving", { transport: "stdio", start_ms: { entry: 30 } });
  log.debug("network worker ready");
  log.child("executor").warn("serving", { n: 1 });
  const text = ["not a log line", ...written, ""].join("\n");
  const serving = logLines(text, "serving");
  assert.deepEqual(serving.map((l) => [l.level, l.scope, l.fields]), [
    ["info", "longcall", { transport: "stdio", start_ms: { entry: 30 } }],
    ["warn", "longcall:executor", { n: 1 }],
  ]);
  assert.ok(Number.isFinite(serving[0]!.at) && Math.abs(serving[0]!.at - Date.now()) < 60_000);
  assert.deepEqual(logLine(text, "network worker ready").fields, {}, "a line without fields");
  assert.deepEqual(logLines(text, "serv"), [], "the whole message, not a prefix");
  assert.throws(() => logLine(text, "absent"), /no log line "absent" in:\nnot a log line/);
});
