/**
 * The machine's load average for benchmark reports, so a reader can tell a quiet run from a
 * busy one. Read through a child process: Deno refuses /proc reads and `Deno.loadavg()` without
 * more permissions than the benchmarks run with.
 *
 * @module
 */

/** The 1, 5 and 15-minute load averages as printed by the kernel ("0.07 0.23 0.41"), or "unknown". */
export async function loadAverages(): Promise<string> {
  try {
    const out = await new Deno.Command("cat", { args: ["/proc/loadavg"], stdout: "piped", stderr: "null" }).output();
    const fields = out.success ? new TextDecoder().decode(out.stdout).split(" ").slice(0, 3) : [];
    return fields.length === 3 ? fields.join(" ") : "unknown";
  } catch {
    return "unknown";
  }
}

/** The 1-minute load average as printed by the kernel, or "unknown". */
export async function loadAverage(): Promise<string> {
  return (await loadAverages()).split(" ")[0] ?? "unknown";
}
