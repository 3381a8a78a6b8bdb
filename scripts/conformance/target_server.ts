/**
 * The target server child: started from its command line with a temp database, ready once it prints
 * `LISTENING <port>` on stderr (kept as a short tail for diagnostics), stopped with SIGTERM, then SIGKILL.
 *
 * @module
 */

export interface RunningServer {
  readonly port: number;
  readonly child: Deno.ChildProcess;
  readonly exited: Promise<Deno.CommandStatus>;
  /** The last stderr lines, for diagnostics. */
  readonly tail: string[];
  isRunning(): boolean;
}

const TAIL_LINES = 40;

/** How {@link startServer} starts the target. */
export interface ServerStart {
  /** The database path that replaces `{db}` in the command. */
  dbPath: string;
  /** How long the server has to print its LISTENING line. */
  startTimeoutMs: number;
}

/**
 * Starts the target (`start.dbPath` in place of `{db}`) and waits up to `start.startTimeoutMs` for its LISTENING
 * line; throws (with the stderr tail) if it exits or is silent.
 */
export async function startServer(command: string, start: ServerStart): Promise<RunningServer> {
  const { dbPath, startTimeoutMs } = start;
  const argv = command.split(/\s+/).filter((s) => s !== "").map((s) => s.replaceAll("{db}", dbPath));
  const [program, ...rest] = argv;
  if (program === undefined) throw new TypeError(`Cannot start the server: current command is "${command}"`);
  // The official suite sends no bearer token: the targets run with --http-no-auth, which refuses to
  // start next to a LONGCALL_HTTP_TOKEN, so an exported token is not passed on.
  const child = new Deno.Command(program, {
    args: rest,
    env: { LONGCALL_HTTP_TOKEN: "" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let running = true;
  const exited = child.status.then((s) => {
    running = false;
    return s;
  });
  const tail: string[] = [];
  let resolvePort: (port: number) => void = () => {};
  const portSeen = new Promise<number>((resolve) => (resolvePort = resolve));
  // Drain stderr for the whole life of the server so it never blocks on a full pipe.
  void (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        const m = /^LISTENING (\d+)\s*$/.exec(line);
        if (m?.[1] !== undefined) resolvePort(Number(m[1]));
      }
    }
  })().catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    portSeen.then((port) => ({ port })),
    exited.then((s) => ({ exit: s.code })),
    new Promise<{ timeout: true }>((resolve) => (timer = setTimeout(() => resolve({ timeout: true }), startTimeoutMs))),
  ]);
  clearTimeout(timer);
  const server: RunningServer = { port: 0, child, exited, tail, isRunning: () => running };
  if ("port" in outcome) return { ...server, port: outcome.port };
  await stopServer(server);
  const why = "exit" in outcome
    ? `exited with code ${outcome.exit}`
    : `printed no LISTENING line in ${startTimeoutMs} ms`;
  throw new Error(`server ${why}: ${command}\n${tail.join("\n")}`);
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the server has exited. */
export async function stopServer(server: RunningServer): Promise<void> {
  if (!server.isRunning()) {
    await server.exited;
    return;
  }
  try {
    server.child.kill("SIGTERM");
  } catch { /* already gone */ }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceful = await Promise.race([
    server.exited.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 5_000))),
  ]);
  clearTimeout(timer);
  if (!graceful) {
    try {
      server.child.kill("SIGKILL");
    } catch { /* already gone */ }
    await server.exited;
  }
}
