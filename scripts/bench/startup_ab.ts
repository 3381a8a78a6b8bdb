/**
 * Start-up of longcall trees side by side: `deno task startup-ab [--runs N] NAME=ENTRY ...`. Each ENTRY is a
 * longcall entry module (`src/main.ts` of this tree, or of another checkout, e.g. one made with
 * `git worktree add /tmp/base <rev>`), run as `serve` with the shipped launch flags (without their resolution
 * flag for an entry named by `--without-resolution`) on a database of its own (created by its unmeasured run,
 * as `deno task bench` reuses one); the hello server (scripts/bench/hello_server.ts, with `helloFlags()`) runs
 * in the same alternating rounds as the baseline. Timed as
 * `deno task bench` times its start-up rows (scripts/bench/mcp.ts `startOnce`: spawn to the answer to
 * tools/list), after one unmeasured run of each.
 *
 * Prints the 1-minute load average before and after, each entry's median, its ratio to hello's median,
 * the median of its per-round difference to hello (a round's servers share the machine's state, so this
 * survives load better) and the median of the time it says it began serving. With `--json` the same as
 * one JSON document.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { intOption } from "../../src/cli/command.ts";
import { launchFlags, RESOLUTION_FLAGS } from "../../src/cli/permissions.ts";
import { loadAverage } from "./load.ts";
import { median } from "./store/harness.ts";
import { helloFlags, startOnce, type StartSample } from "./mcp.ts";

/** Alternating rounds unless `--runs` says otherwise: enough for a median to settle on this 2-CPU machine. */
const RUNS_DEFAULT = 21;
/** More rounds than this take minutes per entry and say nothing a rerun would not. */
const RUNS_MAX = 200;

const HELLO = fileURLToPath(new URL("./hello_server.ts", import.meta.url));

const HELP =
  `Usage: deno task startup-ab [--runs N] [--json] [--without-resolution NAME ...] NAME=ENTRY [NAME=ENTRY ...]

Times spawn-to-tools/list of each longcall ENTRY (a src/main.ts, run as serve) against the hello server,
alternating, ${RUNS_DEFAULT} rounds by default (1..${RUNS_MAX}). Every ENTRY runs with this tree's launch
flags; --without-resolution NAME runs that entry without ${RESOLUTION_FLAGS.join(" ")}, as hello runs.
Examples, this tree against an older commit, and against itself without the resolution flag:

  git worktree add /tmp/base e92c2da
  deno task startup-ab base=/tmp/base/src/main.ts now=src/main.ts
  deno task startup-ab --without-resolution plain plain=src/main.ts now=src/main.ts`;

interface Entry {
  name: string;
  path: string;
  /** Run with the launch line's resolution flag (RESOLUTION_FLAGS); false: as hello runs. */
  resolution: boolean;
}

function parseEntries(positionals: string[], withoutResolution: readonly string[] = []): Entry[] {
  if (positionals.length === 0) throw new Error("Cannot compare: give at least one NAME=ENTRY");
  const entries = positionals.map((spec) => {
    const at = spec.indexOf("=");
    if (at <= 0 || at === spec.length - 1) {
      throw new Error(`Cannot compare ${JSON.stringify(spec)}: expected NAME=ENTRY, e.g. now=src/main.ts`);
    }
    const name = spec.slice(0, at);
    return { name, path: spec.slice(at + 1), resolution: !withoutResolution.includes(name) };
  });
  const names = entries.map((e) => e.name);
  if (names.includes("hello") || new Set(names).size !== names.length) {
    throw new Error(`Cannot compare: names must be distinct and not "hello", current value is ${names.join(", ")}`);
  }
  const unknown = withoutResolution.filter((n) => !names.includes(n));
  if (unknown.length > 0) {
    throw new Error(`Cannot use --without-resolution: it names no entry, current value is ${unknown.join(", ")}`);
  }
  return entries;
}

/** Runs `plan.runs` rounds, each entry's database in `dir`; each entry's samples and hello's, in round order. */
async function measure(dir: string, plan: { entries: Entry[]; runs: number }) {
  const { entries, runs } = plan;
  const [shipped, plain] = [launchFlags(), helloFlags()];
  // One database per entry, created by its unmeasured run: a host restarts a server on its existing database.
  const argsOf = (e: Entry) => [
    "run",
    ...(e.resolution ? shipped : plain),
    e.path,
    "serve",
    "--linger-ms",
    "0",
    "--db",
    `${dir}/${e.name}.db`,
  ];
  const hello = ["run", ...plain, HELLO];
  await startOnce(hello);
  for (const e of entries) await startOnce(argsOf(e), true);
  const samples = new Map<string, StartSample[]>([["hello", []]]);
  for (const e of entries) samples.set(e.name, []);
  for (let round = 0; round < runs; round++) {
    samples.get("hello")!.push(await startOnce(hello));
    for (const e of entries) samples.get(e.name)!.push(await startOnce(argsOf(e), true));
  }
  return samples;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      runs: { type: "string" },
      json: { type: "boolean" },
      "without-resolution": { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help === true) {
    console.log(HELP);
    Deno.exit(0);
  }
  let entries: Entry[];
  let runs: number;
  try {
    entries = parseEntries(positionals, values["without-resolution"]);
    runs = intOption(values.runs, { name: "runs", min: 1, max: RUNS_MAX, fallback: RUNS_DEFAULT });
  } catch (err) {
    console.error(`startup-ab: ${err instanceof Error ? err.message : err}\n\n${HELP}`);
    Deno.exit(2);
  }
  const dir = await Deno.makeTempDir({ prefix: "longcall-startup-ab-" });
  try {
    const loadBefore = await loadAverage();
    const samples = await measure(dir, { entries, runs });
    const loadAfter = await loadAverage();
    const hello = samples.get("hello")!.map((s) => s.ms);
    const helloMs = median(hello);
    const results = entries.map((e) => {
      const own = samples.get(e.name)!;
      const phases = own.flatMap((s) => s.phases === undefined ? [] : [s.phases]);
      const medianMs = median(own.map((s) => s.ms));
      return {
        name: e.name,
        entry: e.path,
        resolution: e.resolution,
        median_ms: medianMs,
        vs_hello: medianMs / helloMs,
        paired_diff_ms: median(own.map((s, i) => s.ms - hello[i]!)),
        serving_at_ms: phases.length === 0 ? null : median(phases.map((p) => p.serving_at_ms)),
      };
    });
    if (values.json === true) {
      console.log(JSON.stringify({ runs, load: { before: loadBefore, after: loadAfter }, hello_ms: helloMs, results }));
    } else {
      console.log(`${runs} alternating rounds; 1-min load average ${loadBefore} before, ${loadAfter} after`);
      console.log(`hello  ${helloMs.toFixed(1)} ms`);
      for (const r of results) {
        const serving = r.serving_at_ms === null ? "" : `; serving at ${r.serving_at_ms.toFixed(0)} ms of its clock`;
        console.log(
          `${r.name}${r.resolution ? "" : " (without the resolution flag)"}  ${r.median_ms.toFixed(1)} ms = ` +
            `${r.vs_hello.toFixed(2)}x hello; per round ` +
            `${r.paired_diff_ms >= 0 ? "+" : ""}${r.paired_diff_ms.toFixed(1)} ms over hello${serving}`,
        );
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
