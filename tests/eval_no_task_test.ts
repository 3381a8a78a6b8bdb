/**
 * Smoke test of the hosts without tasks in the host evaluation (testing/hosts.ts): on the short CI scenario the
 * instant polling host gives up after INSTANT_POLLS_MAX polls, and the wait_ms polling host reaches the right
 * verdict within 2 + ceil(D / wait_ms) model calls, through real servers and a fake GitHub on 127.0.0.1.
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/eval_no_task_test.ts
 */

import assert from "node:assert/strict";
import { JOB_WAIT_MS_MAX } from "../src/base/limits.ts";
import { INSTANT_POLLS_MAX, runScenario } from "../testing/hosts.ts";
import { markdownReport } from "../scripts/lib/report/markdown_report.ts";
import { goalCheck, withinWaitBound } from "../scripts/lib/report/measures.ts";
import { DEFAULT_RATE, scenarioById } from "../testing/scenarios.ts";

Deno.test("runScenario: the wait_ms host reaches the verdict within its bound; the instant host gives up", async () => {
  const scenario = scenarioById("short_ci");
  const wait = await runScenario(scenario, "wait", { rate: DEFAULT_RATE });
  const instant = await runScenario(scenario, "instant", { rate: DEFAULT_RATE });

  assert.ok(wait.correct, JSON.stringify(wait.answer));
  assert.equal(wait.answer.detail, "head aaaaaaa, 3/3 passed, 0 failed, 0 pending");
  const nt = wait.noTask;
  assert.ok(nt !== undefined);
  assert.equal(
    nt.waitMs,
    Math.round(JOB_WAIT_MS_MAX / DEFAULT_RATE),
    "the follow_up's wait_ms, on the simulated clock",
  );
  assert.equal(nt.bound, 2 + Math.ceil(nt.jobMs / nt.waitMs));
  assert.ok(wait.meter.modelCalls <= (nt.bound ?? 0), `${wait.meter.modelCalls} model calls, bound ${nt.bound}`);
  assert.ok(withinWaitBound(wait));
  // Every jobs.get of the wait host carried wait_ms; none of the instant host's did.
  const waitGets = wait.transcript.filter((t) => t.who === "model" && t.text.startsWith("jobs.get"));
  assert.ok(waitGets.length >= 1 && waitGets.every((t) => t.text.includes('"wait_ms"')));

  assert.equal(instant.correct, false);
  assert.equal(instant.noTask?.gaveUp, true);
  assert.equal(instant.answer.outcome, "gave_up");
  assert.equal(instant.meter.modelCalls, 1 + INSTANT_POLLS_MAX + 1, "the tool call, the polls, the answer");
  assert.ok(instant.transcript.every((t) => !t.text.includes('"wait_ms"')));

  const task = await runScenario(scenario, "task", { rate: DEFAULT_RATE });
  const polling = await runScenario(scenario, "polling", { rate: DEFAULT_RATE });
  const pairs = [{ scenario, polling, task, instant, wait }];
  const line = goalCheck(pairs).find((g) => g.what.startsWith("wait_ms host"));
  assert.deepEqual(line && { measured: line.measured, met: line.met }, { measured: "1 of 1", met: true });
  const report = markdownReport(pairs, {
    revision: "test",
    date: "2026-01-01",
    rate: DEFAULT_RATE,
    denoVersion: "x",
    os: "y",
    totalMs: 1,
  });
  assert.match(report, /## Hosts without tasks/);
  assert.match(report, /\| `short_ci` \| \d+ s \| 42 \| gave up/);
});
