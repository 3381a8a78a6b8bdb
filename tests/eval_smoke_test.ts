/**
 * Smoke test of the host evaluation (scripts/eval.ts): one short scenario through both hosts, real servers,
 * fake GitHub on 127.0.0.1. Checks that the counting works and that both hosts end with the same, expected
 * answer; the figures themselves belong to docs/evaluation.md.
 */

import assert from "node:assert/strict";
import { runScenario, sameAnswer } from "../testing/hosts.ts";
import { markdownReport } from "../scripts/lib/report/markdown_report.ts";
import { goalCheck } from "../scripts/lib/report/measures.ts";
import { DEFAULT_RATE, scenarioById } from "../testing/scenarios.ts";

Deno.test("runScenario: polling and task-aware hosts count turns and agree on the short CI scenario", async () => {
  const scenario = scenarioById("short_ci");
  const polling = await runScenario(scenario, "polling", { rate: DEFAULT_RATE });
  const task = await runScenario(scenario, "task", { rate: DEFAULT_RATE });

  // The task-aware model calls the tool once and answers once; the host polls on its own.
  assert.equal(task.meter.modelCalls, 2);
  assert.equal(task.meter.toolCalls, 1);
  assert.ok(task.hostPolls >= 2, `task host polls: ${task.hostPolls}`);
  // The polling model: the tool call, several jobs.get turns, the detailed read, the answer.
  assert.ok(polling.meter.modelCalls >= 6, `polling model calls: ${polling.meter.modelCalls}`);
  assert.equal(polling.meter.toolCalls, polling.meter.modelCalls - 1);
  assert.equal(polling.hostPolls, 0);
  assert.ok(polling.meter.visibleBytes > task.meter.visibleBytes);
  assert.ok(polling.meter.contextBytes > polling.meter.visibleBytes);
  assert.equal(polling.transcript.filter((t) => t.who === "tool").length, polling.meter.toolCalls);

  // Both watched the same simulated CI through the server: GitHub was polled by longcall, with 304s.
  for (const run of [polling, task]) {
    assert.ok(run.github.counted > 0 && run.github.notModified > 0, JSON.stringify(run.github));
    assert.ok(run.correct, JSON.stringify(run.answer));
  }
  assert.ok(
    sameAnswer(polling.answer, task.answer),
    `${JSON.stringify(polling.answer)} vs ${JSON.stringify(task.answer)}`,
  );
  assert.equal(task.answer.detail, "head aaaaaaa, 3/3 passed, 0 failed, 0 pending");

  const pairs = [{ scenario, polling, task }];
  const goal = goalCheck(pairs);
  assert.ok(goal.every((g) => g.met), JSON.stringify(goal));
  const report = markdownReport(pairs, {
    revision: "test",
    date: "2026-01-01",
    rate: DEFAULT_RATE,
    denoVersion: "x",
    os: "y",
    totalMs: 1,
  });
  assert.match(report, /### `short_ci`/);
  assert.match(report, /\| Model calls \| \d+ \| 2 \|/);
});
