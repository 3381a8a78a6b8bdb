/**
 * src/cli/github_options.ts: oneOf (one allowed value, default when absent, UsageError otherwise)
 * and --simulate-time-rate at and past its bounds.
 */

import assert from "node:assert/strict";
import { UsageError } from "./exit.ts";
import { oneOf, simulateRate } from "./github_options.ts";

Deno.test("oneOf: an allowed value is returned; absent is the fallback", () => {
  assert.equal(oneOf("full", { name: "view", allowed: ["compact", "full"] as const, fallback: "compact" }), "full");
  assert.equal(
    oneOf(undefined, { name: "view", allowed: ["compact", "full"] as const, fallback: "compact" }),
    "compact",
  );
});

Deno.test("oneOf: any other value (or a non-string) is a UsageError naming the flag, the choices and the value", () => {
  for (const bad of ["FULL", "", true]) {
    assert.throws(
      () => oneOf(bad, { name: "view", allowed: ["compact", "full"] as const, fallback: "compact" }),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message === `Cannot use --view: expected one of compact, full, current value is ${bad}`,
    );
  }
});

Deno.test("simulateRate: absent is undefined; 1 and 1000 accepted; 0, 1001, 1.5 and words refused", () => {
  const fake = { apiUrl: "http://127.0.0.1:8080" };
  assert.equal(simulateRate({}), undefined);
  assert.equal(simulateRate({ "simulate-time-rate": "1" }, fake), 1);
  assert.equal(simulateRate({ "simulate-time-rate": "1000" }, fake), 1000);
  for (const bad of ["0", "1001", "1.5", "fast"]) {
    assert.throws(
      () => simulateRate({ "simulate-time-rate": bad }, fake),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message === `Cannot use --simulate-time-rate: expected an integer from 1 to 1000, current value is ${bad}`,
    );
  }
});

Deno.test("simulateRate: only against a GitHub on loopback; GitHub itself (or any other host) is a usage error", () => {
  for (const apiUrl of ["http://127.0.0.1:9", "http://[::1]:9/api/v3", "http://localhost:9"]) {
    assert.equal(simulateRate({ "simulate-time-rate": "10" }, { apiUrl }), 10, apiUrl);
  }
  for (const apiUrl of ["https://api.github.com", "https://ghe.example.com/api/v3", "https://u:secret@10.0.0.1"]) {
    assert.throws(
      () => simulateRate({ "simulate-time-rate": "10" }, { apiUrl }),
      (err: unknown) =>
        err instanceof UsageError && err.message.startsWith("Cannot use --simulate-time-rate: it is for a simulated") &&
        !err.message.includes("secret"),
      apiUrl,
    );
  }
});
