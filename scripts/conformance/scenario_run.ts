/**
 * One scenario: one conformance CLI process against the target (loopback only, a time box), its `checks.json`
 * read back and turned into a verdict with notes.
 *
 * @module
 */

import type { ScenarioSpec } from "./catalogue.ts";

export type Verdict = "pass" | "fail" | "skipped" | "timeout" | "error" | "n/a";

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

export interface ScenarioResult {
  spec: ScenarioSpec;
  verdict: Verdict;
  counts: Record<string, number>;
  notes: string;
  /** Failed checks excused by `naChecks`. */
  excused: string[];
  ms: number;
}

let currentScenario: Deno.ChildProcess | undefined;

/** Kills the conformance CLI process of the scenario running now, if any (the runner's signal handler). */
export function killRunningScenario(): void {
  try {
    currentScenario?.kill("SIGKILL");
  } catch { /* already gone */ }
}

function isCheck(value: unknown): value is Check {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === "string" && typeof v.status === "string";
}

async function findChecksFile(dir: string): Promise<string | undefined> {
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isFile && entry.name === "checks.json") return path;
      if (entry.isDirectory) {
        const found = await findChecksFile(path);
        if (found !== undefined) return found;
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return undefined;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Where and how long {@link runScenario} runs a scenario. */
export interface ScenarioRun {
  /** The target's MCP endpoint. */
  url: string;
  /** The run's directory: the CLI's working directory, results under `results/`. */
  workDir: string;
  /** The time box: the CLI process is killed after it. */
  timeoutMs: number;
}

/** Runs one scenario against `run.url` in its own CLI process, killed after `run.timeoutMs`. */
export async function runScenario(spec: ScenarioSpec, run: ScenarioRun) {
  const { url, workDir, timeoutMs } = run;
  const outDir = `${workDir}/results/${spec.pkg}/${spec.name}`;
  await Deno.mkdir(outDir, { recursive: true });
  const args = [
    "run",
    // No project config: the CLI's npm graph must not be written into the project's deno.lock.
    "--no-config",
    "--no-lock",
    "--no-prompt",
    "--allow-read",
    `--allow-write=${outDir}`,
    "--allow-env",
    "--allow-net=127.0.0.1",
    `npm:@modelcontextprotocol/conformance@${spec.pkg}`,
    "server",
    "--url",
    url,
    "--scenario",
    spec.name,
    "-o",
    outDir,
  ];
  // 0.2.0-alpha.12 defaults core scenarios to the 2025-11-25 wire; pin the wire each one is listed under. The
  // tasks-* (extension) scenarios already run at 2026-07-28, and --spec-version would make the CLI skip them.
  if (spec.pkg === "0.2.0-alpha.12" && spec.group === "core") args.push("--spec-version", spec.wire);
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: workDir,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  currentScenario = child;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, timeoutMs);
  const output = await child.output();
  clearTimeout(timer);
  currentScenario = undefined;
  const ms = Math.round(performance.now() - started);
  const decoder = new TextDecoder();
  const stdout = decoder.decode(output.stdout);
  const stderr = decoder.decode(output.stderr);
  const counts: Record<string, number> = {};
  const checksPath = await findChecksFile(outDir);
  let checks: Check[] = [];
  if (checksPath !== undefined) {
    const parsed: unknown = JSON.parse(await Deno.readTextFile(checksPath));
    if (Array.isArray(parsed)) checks = parsed.filter(isCheck);
  }
  for (const c of checks) counts[c.status] = (counts[c.status] ?? 0) + 1;
  const naChecks = spec.naChecks ?? {};
  const excused = checks.filter((c) => c.status === "FAILURE" && naChecks[c.id] !== undefined);
  const failed = checks.filter((c) => c.status === "FAILURE" && naChecks[c.id] === undefined);
  const failedNotes = failed.slice(0, 6).map((c) => `${c.id}: ${oneLine(c.errorMessage ?? "failed", 140)}`);
  if (failed.length > 6) failedNotes.push(`… ${failed.length - 6} more`);
  let verdict: Verdict;
  let notes: string;
  if (timedOut) {
    verdict = "timeout";
    notes = `killed after ${timeoutMs} ms`;
  } else if (/SKIPPED: scenario/.test(stdout)) {
    verdict = "skipped";
    notes = oneLine(stdout.slice(stdout.indexOf("SKIPPED")), 200);
  } else if (checksPath === undefined) {
    verdict = "error";
    notes = `no checks.json (exit ${output.code}): ${oneLine((stderr + stdout).slice(-400), 240)}`;
  } else if (failed.length > 0 || (output.code !== 0 && excused.length === 0)) {
    verdict = "fail";
    notes = failedNotes.length > 0 ? failedNotes.join("; ") : `exit ${output.code} without failed checks`;
  } else if ((counts.SUCCESS ?? 0) === 0) {
    verdict = "skipped";
    notes = checks.map((c) => `${c.id}: ${c.status} ${oneLine(c.errorMessage ?? "", 140)}`).join("; ");
  } else {
    verdict = "pass";
    const soft = checks.filter((c) => c.status === "WARNING" || c.status === "SKIPPED" || c.status === "INFO");
    notes = soft.map((c) => `${c.id}: ${c.status}`).join("; ");
  }
  if (excused.length > 0) {
    const list = excused.map((c) => c.id).join(", ");
    notes = [notes, `not applicable, failed as expected: ${list}`].filter((s) => s !== "").join("; ");
  }
  return { spec, verdict, counts, notes, excused: excused.map((c) => c.id), ms } satisfies ScenarioResult;
}
