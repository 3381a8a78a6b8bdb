/**
 * `deno task python-client`: creates the virtual environment with the official Python MCP client that
 * tests/python_client_test.ts drives longcall with (testing/python_mcp.ts says where), using `python3`
 * on PATH and pip's own index configuration. Run it once per machine; the tests never install anything.
 *
 *   deno run --allow-run --allow-read --allow-write --allow-env scripts/python_client.ts
 *
 * @module
 */

import { PYTHON_MCP_REQUIREMENT, pythonVenvDir, pythonWithMcp, venvPython } from "../testing/python_mcp.ts";

async function run(command: string, args: string[]): Promise<void> {
  const status = await new Deno.Command(command, { args, stdout: "inherit", stderr: "inherit" }).spawn().status;
  if (!status.success) throw new Error(`${command} ${args.join(" ")} exited with ${status.code}`);
}

if (import.meta.main) {
  const dir = pythonVenvDir();
  const ready = pythonWithMcp(dir);
  if ("python" in ready) {
    console.log(`python-client: ${PYTHON_MCP_REQUIREMENT} is ready at ${dir}`);
  } else {
    try {
      await run(Deno.build.os === "windows" ? "python" : "python3", ["-m", "venv", dir]);
      await run(venvPython(dir), ["-m", "pip", "install", "--disable-pip-version-check", "-q", PYTHON_MCP_REQUIREMENT]);
    } catch (err) {
      console.error(`python-client: cannot create ${dir}: ${err instanceof Error ? err.message : String(err)}`);
      Deno.exit(1);
    }
    const now = pythonWithMcp(dir);
    if ("reason" in now) {
      console.error(`python-client: ${now.reason}`);
      Deno.exit(1);
    }
    console.log(`python-client: installed ${PYTHON_MCP_REQUIREMENT} at ${dir}`);
  }
}
