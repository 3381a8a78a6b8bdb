/**
 * `jobs.get` of 100 ids on the stdio wire of a real server child (testing/test_server.ts), both eras:
 * each answer line is exactly the JSON serialization of the message it carries (the transport writes the
 * text `okResult` made in place of a second serialization of the structuredContent, src/mcp/answer_text.ts,
 * so the line must equal what serializing the whole message gives), and the structuredContent equals the
 * JSON of the text content. Results carry quotes, backslashes, control characters and non-ASCII text.
 */

import assert from "node:assert/strict";
import { IDS_PER_CALL_MAX } from "../src/base/limits.ts";
import { type Message, RawStdioServer, stdioServer } from "./helpers/longcall_procs.ts";
import { tempDir, waitFor } from "../testing/temp.ts";

type Json = Record<string, unknown>;

const structuredOf = (m: Message) => (m["result"] as Json)["structuredContent"] as Json;

/** The stdout line that carried `message` (matched by id). */
function lineOf(server: RawStdioServer, message: Message): string {
  const lines = server.stdoutLines.filter((l) => l.includes(`"id":${JSON.stringify(message.id)}`));
  const line = lines.find((l) => (JSON.parse(l) as Message).id === message.id && !("method" in JSON.parse(l)));
  assert.ok(line !== undefined, `no stdout line for ${message.id}`);
  return line;
}

Deno.test(`jobs.get wire: ${IDS_PER_CALL_MAX}-id answers (concise, detailed; legacy, modern) are the exact JSON of their message`, async () => {
  await using dir = await tempDir();
  await using server = new RawStdioServer(stdioServer(dir.path, dir.file("jobs.db")));
  const init = await server.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "wire-test", version: "0" },
  });
  assert.ok(init["result"] !== undefined, JSON.stringify(init));
  await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const ids: string[] = [];
  for (let i = 0; i < IDS_PER_CALL_MAX; i++) {
    const text = `q" b\\ n\n t\t c\u0001 é ü 🙂 ${i}`;
    const ref = await server.request("tools/call", { name: "test.echo", arguments: { text, n: i } });
    ids.push(structuredOf(ref)["id"] as string);
  }
  await waitFor(
    "every job terminal",
    async () => {
      const got = await server.request("tools/call", { name: "jobs.get", arguments: { ids } });
      const items = structuredOf(got)["items"] as Json[];
      return items.every((item) => (item["value"] as Json)["execution_state"] === "terminal");
    },
    { timeoutMs: 30_000, everyMs: 50 },
  );

  const answers: Message[] = [];
  for (const response_format of ["concise", "detailed"]) {
    answers.push(await server.request("tools/call", { name: "jobs.get", arguments: { ids, response_format } }));
    answers.push(await server.modern("tools/call", { name: "jobs.get", arguments: { ids, response_format } }));
  }
  for (const answer of answers) {
    const line = lineOf(server, answer);
    assert.equal(line, JSON.stringify(JSON.parse(line)), "the line is the message's own serialization");
    const result = answer["result"] as { content: { type: string; text: string }[]; structuredContent: Json };
    assert.equal(result.content.length, 1);
    assert.deepEqual(JSON.parse(result.content[0]!.text), result.structuredContent);
    assert.equal(JSON.stringify(result.structuredContent), result.content[0]!.text, "the same JSON, byte for byte");
    assert.equal((result.structuredContent["items"] as Json[]).length, IDS_PER_CALL_MAX);
  }
  const detailed = structuredOf(answers[2]!)["items"] as Json[];
  assert.deepEqual(
    ((detailed[7]!["value"] as Json)["result"] as Json)["text"],
    `q" b\\ n\n t\t c\u0001 é ü 🙂 7`,
    "the detailed view shows the result as stored",
  );
  server.assertStdoutPure();
});
