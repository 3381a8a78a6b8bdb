/**
 * The machine's load average for benchmark reports, so a reader can tell a quiet run from a
 * busy one. Read through a child process: Deno refuses /proc reads and `Deno.loadavg()` without
 * more permissions than the benchmarks run with.
 *
 * @module
 */

/** The 1-minute load average as printed by the kernel, or "unknown". */
export async function loadAverage(): Promise<string> {
  try {
    const out = await new Deno.Command("cat", { args: ["/proc/loadavg"], stdout: "piped", stderr: "null" }).output();
    return out.success ? new TextDecoder().decode(out.stdout).split(" ")[0] ?? "unknown" : "unknown";
  } catch {
    return "unknown";
  }
}
