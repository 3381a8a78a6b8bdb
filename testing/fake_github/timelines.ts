/**
 * The fake GitHub's built-in scenario timelines for pull request `octo/widgets#42`
 * ({@linkcode SCENARIOS}; the step shapes are in model.ts).
 *
 * @module
 */

import { type FakeCheck, type FakeStatus, SCENARIO_SHA_SECOND, type ScenarioName, type ScenarioStep } from "./model.ts";

const q = (name: string): FakeCheck => ({ name, status: "queued" });
const run = (name: string): FakeCheck => ({ name, status: "in_progress" });
const done = (name: string, conclusion: string): FakeCheck => ({ name, status: "completed", conclusion });
const inSuite = (check: FakeCheck, suite: string): FakeCheck => ({ ...check, suite });
/** The lint failure's output and annotations (`checks_fail`). */
const LINT_FAILURE: Pick<FakeCheck, "output" | "annotations"> = {
  output: { title: "2 problems (2 errors)", summary: "eslint found 2 errors in 1 file.\nRun `npm run lint -- --fix`." },
  annotations: [
    { path: "src/widget.ts", start_line: 12, message: "'x' is assigned a value but never used.", level: "failure" },
    { path: "src/widget.ts", start_line: 30, message: "Missing return type on function.", level: "failure" },
  ],
};
const statusesPaged = (failing: boolean): FakeStatus[] =>
  Array.from({ length: 40 }, (_, i) => ({
    context: `ci/shard-${String(i + 1).padStart(2, "0")}`,
    state: failing && i === 34 ? "failure" : failing ? "success" : "pending",
  }));

/**
 * The built-in timelines (times in ms since the scenario started):
 *
 * - `checks_pass`: nothing until 20 s (CI registers late); build+lint queued at 20 s,
 *   in progress at 40 s, lint success at 60 s, build success and legacy status success at 90 s.
 * - `checks_fail`: like `checks_pass` but lint fails at 60 s (build still running), build succeeds at 90 s.
 * - `new_push`: build queued on the first SHA, in progress at 30 s; head changes to
 *   {@linkcode SCENARIO_SHA_SECOND} at 60 s; its build is queued at 80 s, runs at 100 s, passes at 130 s.
 * - `no_checks`: no check run or status ever registers.
 * - `flaky_unchanged`: build+lint in progress from 10 s, unchanged until both pass at 10 min.
 * - `many_checks`: 150 completed successful check runs from the start (two pages of 100).
 * - `pr_closed`: build in progress; the pull request is closed unmerged at 60 s.
 * - `pr_merged`: build in progress; the pull request is merged at 60 s.
 * - `statuses_paged`: build and 40 pending statuses; at 30 s build passes and every status passes but
 *   `ci/shard-35` (page 2 at GitHub's default 30 per page), which fails.
 * - `rerun_passed`: build failed a minute before the watch; its workflow was re-triggered on the same
 *   commit (a second suite): queued at 0, running at 30 s, passing at 60 s. `lint` passes from two apps.
 * - `rerun_running`: the same with the new run already in progress at 0.
 * - `late_dependent`: build runs in suite `ci` and passes at 30 s; a dependent workflow's
 *   `deploy-preview` registers at 35 s (suite `deploy`) and passes at 50 s.
 * - `fork_approval`: only an external status (success); the Actions suite is completed
 *   `action_required` with zero runs (a fork's workflows awaiting approval).
 * - `null_conclusion`: build completed without a conclusion until it gets `success` at 60 s.
 * - `huge_outputs`: 100 completed check runs whose summary and text are 64 KB each (a 13 MB page).
 * - `required_checks`: rules require `build` and `ci/legacy`; lint (not required) fails with output and
 *   annotations; build passes at 20 s; `ci/legacy` reports success at 40 s.
 * - `rules_forbidden`: build passes; the branch rules answer 403.
 * - `required_workflows`: build passes; the rules require `build` and, by a `workflows` rule, a workflow's runs.
 *
 * `checks_fail`'s lint failure carries an output title, summary and two annotations.
 */
export const SCENARIOS: Readonly<Record<ScenarioName, readonly ScenarioStep[]>> = {
  checks_pass: [
    { atMs: 0 },
    { atMs: 20_000, checks: [q("build"), q("lint")], statuses: [{ context: "ci/legacy", state: "pending" }] },
    { atMs: 40_000, checks: [run("build"), run("lint")] },
    { atMs: 60_000, checks: [run("build"), done("lint", "success")] },
    {
      atMs: 90_000,
      checks: [done("build", "success"), done("lint", "success")],
      statuses: [{ context: "ci/legacy", state: "success" }],
    },
  ],
  checks_fail: [
    { atMs: 0 },
    { atMs: 20_000, checks: [q("build"), q("lint")], statuses: [{ context: "ci/legacy", state: "pending" }] },
    { atMs: 40_000, checks: [run("build"), run("lint")] },
    { atMs: 60_000, checks: [run("build"), { ...done("lint", "failure"), ...LINT_FAILURE }] },
    {
      atMs: 90_000,
      checks: [done("build", "success"), { ...done("lint", "failure"), ...LINT_FAILURE }],
      statuses: [{ context: "ci/legacy", state: "success" }],
    },
  ],
  new_push: [
    { atMs: 0, checks: [q("build")] },
    { atMs: 30_000, checks: [run("build")] },
    { atMs: 60_000, headSha: SCENARIO_SHA_SECOND },
    { atMs: 80_000, checks: [q("build")] },
    { atMs: 100_000, checks: [run("build")] },
    { atMs: 130_000, checks: [done("build", "success")], statuses: [{ context: "ci/legacy", state: "success" }] },
  ],
  no_checks: [{ atMs: 0 }],
  flaky_unchanged: [
    { atMs: 0 },
    { atMs: 10_000, checks: [run("build"), run("lint")] },
    { atMs: 600_000, checks: [done("build", "success"), done("lint", "success")] },
  ],
  many_checks: [
    {
      atMs: 0,
      checks: Array.from({ length: 150 }, (_, i) => done(`check-${String(i + 1).padStart(3, "0")}`, "success")),
    },
  ],
  pr_closed: [
    { atMs: 0, checks: [run("build")] },
    { atMs: 60_000, pullState: "closed" },
  ],
  pr_merged: [
    { atMs: 0, checks: [run("build")] },
    { atMs: 60_000, pullState: "closed", merged: true },
  ],
  statuses_paged: [
    { atMs: 0, checks: [run("build")], statuses: statusesPaged(false) },
    { atMs: 30_000, checks: [done("build", "success")], statuses: statusesPaged(true) },
  ],
  // The old run failed a minute before the watch; the workflow was re-triggered on the same commit
  // (a new suite): its run is queued at 0, runs at 30 s and passes at 60 s. `lint` is reported by
  // two apps: two checks.
  rerun_passed: [
    {
      atMs: -60_000,
      checks: [inSuite(done("build", "failure"), "ci-1"), done("lint", "success"), {
        ...done("lint", "success"),
        app: "other-ci",
      }],
      suites: [{ key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" }],
    },
    {
      atMs: 0,
      checks: [
        inSuite(done("build", "failure"), "ci-1"),
        inSuite(q("build"), "ci-2"),
        done("lint", "success"),
        { ...done("lint", "success"), app: "other-ci" },
      ],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "queued", workflow: "CI", event: "pull_request" },
      ],
    },
    {
      atMs: 30_000,
      checks: [
        inSuite(done("build", "failure"), "ci-1"),
        inSuite(run("build"), "ci-2"),
        done("lint", "success"),
        { ...done("lint", "success"), app: "other-ci" },
      ],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "in_progress", workflow: "CI", event: "pull_request" },
      ],
    },
    {
      atMs: 60_000,
      checks: [
        inSuite(done("build", "failure"), "ci-1"),
        inSuite(done("build", "success"), "ci-2"),
        done("lint", "success"),
        { ...done("lint", "success"), app: "other-ci" },
      ],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "completed", conclusion: "success", workflow: "CI", event: "pull_request" },
      ],
    },
  ],
  // Like rerun_passed, but the new run is already in progress when the watch starts.
  rerun_running: [
    {
      atMs: -60_000,
      checks: [inSuite(done("build", "failure"), "ci-1")],
      suites: [{ key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" }],
    },
    {
      atMs: -10_000,
      checks: [inSuite(done("build", "failure"), "ci-1"), inSuite(run("build"), "ci-2")],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "in_progress", workflow: "CI", event: "pull_request" },
      ],
    },
    {
      atMs: 60_000,
      checks: [inSuite(done("build", "failure"), "ci-1"), inSuite(done("build", "success"), "ci-2")],
      suites: [
        { key: "ci-1", status: "completed", conclusion: "failure", workflow: "CI", event: "pull_request" },
        { key: "ci-2", status: "completed", conclusion: "success", workflow: "CI", event: "pull_request" },
      ],
    },
  ],
  late_dependent: [
    { atMs: 0, checks: [inSuite(run("build"), "ci")] },
    { atMs: 30_000, checks: [inSuite(done("build", "success"), "ci")] },
    {
      atMs: 35_000,
      checks: [inSuite(done("build", "success"), "ci"), inSuite(q("deploy-preview"), "deploy")],
    },
    {
      atMs: 50_000,
      checks: [inSuite(done("build", "success"), "ci"), inSuite(done("deploy-preview", "success"), "deploy")],
    },
  ],
  fork_approval: [
    {
      atMs: 0,
      statuses: [{ context: "ci/external", state: "success" }],
      suites: [{
        key: "ci",
        status: "completed",
        conclusion: "action_required",
        workflow: "CI",
        event: "pull_request",
      }],
    },
  ],
  null_conclusion: [
    { atMs: 0, checks: [{ name: "build", status: "completed", conclusion: null }] },
    { atMs: 60_000, checks: [done("build", "success")] },
  ],
  huge_outputs: [
    {
      atMs: 0,
      checks: Array.from({ length: 100 }, (_, i) => ({
        ...done(`shard-${String(i + 1).padStart(3, "0")}`, "success"),
        output: { title: "ok", paddingBytes: 64 * 1024 },
      })),
    },
  ],
  required_checks: [
    {
      atMs: 0,
      checks: [run("build"), { ...done("lint", "failure"), ...LINT_FAILURE }],
      requiredChecks: [{ context: "build" }, { context: "ci/legacy" }],
    },
    { atMs: 20_000, checks: [done("build", "success"), { ...done("lint", "failure"), ...LINT_FAILURE }] },
    { atMs: 40_000, statuses: [{ context: "ci/legacy", state: "success" }] },
  ],
  rules_forbidden: [
    { atMs: 0, checks: [done("build", "success")], requiredChecks: "forbidden" },
  ],
  required_workflows: [
    { atMs: 0, checks: [done("build", "success")], requiredChecks: [{ context: "build" }], requiredWorkflows: true },
  ],
};

/** Names of the built-in scenarios. */
export const SCENARIO_NAMES: readonly ScenarioName[] = Object.keys(SCENARIOS) as ScenarioName[];
