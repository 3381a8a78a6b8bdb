import assert from "node:assert/strict";
import { isLoopbackHost } from "./net.ts";

Deno.test("isLoopbackHost: localhost, 127.0.0.0/8 and ::1 (bracketed or not), nothing else", () => {
  for (const yes of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]) assert.ok(isLoopbackHost(yes), yes);
  for (const no of ["0.0.0.0", "10.0.0.1", "128.0.0.1", "127.0.0.1.example.com", "::", "[::2]", "localhost.", ""]) {
    assert.equal(isLoopbackHost(no), false, no);
  }
});
