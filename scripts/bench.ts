/**
 * Benchmark runner: `deno task bench [--only NAME]`. Runs the sections listed below (each a
 * module under scripts/bench/ exporting an async function that returns a {@linkcode BenchSection})
 * and writes docs/benchmarks.md with the machine, the date, the command and one table per
 * section. With `--only`, the other sections already in the file are kept as they were.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { updateReadme } from "./readme_tables.ts";
import { revision } from "./revision.ts";
import { benchCorpus } from "./bench/corpus.ts";
import { benchGitHub } from "./bench/github.ts";
import { benchMcp } from "./bench/mcp.ts";
import { loadAverage } from "./bench/load.ts";
import { type BenchSection, benchStore } from "./bench/store.ts";

export type { BenchSection };

/** Every section, in report order. */
const SECTIONS: ReadonlyArray<{ name: string; run: () => Promise<BenchSection> }> = [
  { name: "store", run: benchStore },
  { name: "corpus", run: benchCorpus },
  { name: "github", run: benchGitHub },
  { name: "mcp", run: benchMcp },
];

const OUTPUT = new URL("../docs/benchmarks.md", import.meta.url).pathname;
const COMMAND = "deno run --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 scripts/bench.ts";

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** Stdout of a command, or undefined. (Deno refuses /proc reads without --allow-all; a child
 * process is not bound by that.) */
export async function commandOutput(command: string, args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).output();
    return out.success ? new TextDecoder().decode(out.stdout) : undefined;
  } catch {
    return undefined;
  }
}

async function machine(): Promise<string[]> {
  const cpuinfo = await commandOutput("cat", ["/proc/cpuinfo"]);
  const model = cpuinfo?.match(/^model name\s*:\s*(.+)$/m)?.[1]?.trim();
  const osRelease = await readText("/etc/os-release");
  const distro = osRelease?.match(/^PRETTY_NAME="?([^"\n]+)"?$/m)?.[1];
  const kernel = (await commandOutput("uname", ["-r"]))?.trim();
  const memKb = Number((await commandOutput("cat", ["/proc/meminfo"]))?.match(/^MemTotal:\s*(\d+)/m)?.[1] ?? NaN);
  return [
    `- Deno ${Deno.version.deno} (V8 ${Deno.version.v8}, TypeScript ${Deno.version.typescript})`,
    `- OS: ${Deno.build.os} ${Deno.build.arch}${distro === undefined ? "" : `, ${distro}`}${
      kernel === undefined ? "" : `, kernel ${kernel}`
    }`,
    `- CPUs: ${navigator.hardwareConcurrency}${model === undefined ? "" : ` x ${model}`}`,
    ...(Number.isFinite(memKb) ? [`- Memory: ${(memKb / 1024 / 1024).toFixed(1)} GiB`] : []),
  ];
}

function escapeCell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** One measured section and when it was measured (the "Measured ..." line). */
export interface MeasuredSection {
  section: BenchSection;
  when: string;
}

/** One section as markdown, between markers named `name` so `--only` can replace it in place. */
export function renderSection(name: string, measured: MeasuredSection): string {
  const { section, when } = measured;
  const lines = [
    `<!-- section:${name} -->`,
    `## ${section.title}`,
    "",
    `Measured ${when}.`,
    "",
    "| metric | value | goal | goal met |",
    "| --- | --- | --- | --- |",
  ];
  for (const row of section.rows) {
    const met = row.met === undefined ? "" : row.met ? "yes" : "**no**";
    lines.push(`| ${escapeCell(row.metric)} | ${escapeCell(row.value)} | ${escapeCell(row.goal ?? "")} | ${met} |`);
  }
  if (section.notes !== undefined && section.notes.length > 0) {
    lines.push("");
    for (const note of section.notes) lines.push(`- ${note}`);
  }
  lines.push(`<!-- /section:${name} -->`);
  return lines.join("\n");
}

function previousSection(text: string | undefined, name: string): string | undefined {
  if (text === undefined) return undefined;
  const start = text.indexOf(`<!-- section:${name} -->`);
  const endMarker = `<!-- /section:${name} -->`;
  const end = text.indexOf(endMarker);
  return start >= 0 && end > start ? text.slice(start, end + endMarker.length) : undefined;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: Deno.args, options: { only: { type: "string" } } });
  const only = values.only;
  if (only !== undefined && !SECTIONS.some((s) => s.name === only)) {
    console.error(`Cannot run benchmark "${only}": known sections are ${SECTIONS.map((s) => s.name).join(", ")}`);
    Deno.exitCode = 2;
    return;
  }
  const previous = await readText(OUTPUT);
  const parts: string[] = [];
  for (const s of SECTIONS) {
    if (only !== undefined && s.name !== only) {
      const kept = previousSection(previous, s.name);
      if (kept !== undefined) parts.push(kept);
      continue;
    }
    console.error(`bench: running ${s.name} ...`);
    const t0 = performance.now();
    const loadBefore = await loadAverage();
    const section = await s.run();
    const when = `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC at commit ${await revision()} in ${
      ((performance.now() - t0) / 1000).toFixed(0)
    } s; load average (1 min) ${loadBefore} before, ${await loadAverage()} after`;
    const text = renderSection(s.name, { section, when });
    console.error(text);
    parts.push(text);
  }
  const doc = [
    "# Benchmarks",
    "",
    "Written by `deno task bench` (do not edit by hand); `--only NAME` re-measures one section and keeps the",
    "others. Command:",
    "",
    "```",
    COMMAND,
    "```",
    "",
    `Last written ${new Date().toISOString().slice(0, 10)}${
      only === undefined ? "" : ` (with \`--only ${only}\`; each section says when it was measured)`
    } on:`,
    "",
    ...(await machine()),
    "",
    parts.join("\n\n"),
    "",
  ].join("\n");
  await Deno.writeTextFile(OUTPUT, doc);
  console.error(`bench: wrote ${OUTPUT}`);
  if (await updateReadme()) console.error("bench: updated the measurements in README.md");
}

if (import.meta.main) await main();
