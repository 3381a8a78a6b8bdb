/**
 * One run of a bench script under plain Node: its stdout parsed as one JSON value, or why it could not run.
 *
 * @module
 */

/**
 * Runs `node [...flags] script ...args` (`node` the command, stderr passed through) and parses its stdout as JSON;
 * `skipped` when there is no such command. Throws when the script fails, naming it and its exit code.
 */
export async function nodeJson<T>(
  node: string,
  run: { script: string; args: readonly string[]; flags?: readonly string[] },
): Promise<T | { skipped: string }> {
  const { script, args, flags = [] } = run;
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(node, { args: [...flags, script, ...args], stdout: "piped", stderr: "inherit" })
      .output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { skipped: `no ${node} on PATH` };
    throw err;
  }
  if (!out.success) throw new Error(`bench: ${node} ${script} failed (exit code ${out.code})`);
  return JSON.parse(new TextDecoder().decode(out.stdout)) as T;
}
