/**
 * The official Python MCP client for tests: `mcp` 2.3.0 (PyPI) in a virtual environment of its own,
 * which `deno task python-client` creates (scripts/python_client.ts) and tests/python_client_test.ts uses.
 * The tests never install it: a test contacts nothing but loopback, so without the environment they are
 * skipped and say how to create it.
 *
 * @module
 */

/** The package and version, as `pip install` takes it. */
export const PYTHON_MCP_REQUIREMENT = "mcp==2.3.0";
const PYTHON_MCP_VERSION = PYTHON_MCP_REQUIREMENT.split("==")[1] as string;

/** Where the environment lives: `LONGCALL_TEST_PYTHON_VENV`, else the user's cache directory. */
export function pythonVenvDir(): string {
  const given = Deno.env.get("LONGCALL_TEST_PYTHON_VENV");
  if (given !== undefined && given !== "") return given;
  const cache = Deno.env.get("XDG_CACHE_HOME") || `${Deno.env.get("HOME") ?? "."}/.cache`;
  return `${cache}/longcall/python-${PYTHON_MCP_REQUIREMENT.replace("==", "-")}`;
}

/** The environment's interpreter. */
export function venvPython(dir = pythonVenvDir()): string {
  return Deno.build.os === "windows" ? `${dir}\\Scripts\\python.exe` : `${dir}/bin/python`;
}

/** The interpreter of a ready environment (it imports `mcp` at the pinned version), or why there is none. */
export function pythonWithMcp(dir = pythonVenvDir()): { python: string } | { reason: string } {
  const python = venvPython(dir);
  const setup = "run `deno task python-client` to create it";
  let out: Deno.CommandOutput;
  try {
    out = new Deno.Command(python, {
      args: ["-c", "import importlib.metadata as m, mcp; print(m.version('mcp'))"],
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
  } catch {
    return { reason: `no Python environment with ${PYTHON_MCP_REQUIREMENT} at ${dir}; ${setup}` };
  }
  const version = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) return { reason: `${python} cannot import mcp; ${setup}` };
  if (version !== PYTHON_MCP_VERSION) {
    return { reason: `${dir} has mcp ${version}, not ${PYTHON_MCP_VERSION}; ${setup}` };
  }
  return { python };
}
