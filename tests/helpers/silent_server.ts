/**
 * A stdio "server" that never answers and ignores the end of its stdin, as a server still loading its modules
 * does: it writes its pid to the file given, then keeps running until killed. tests/mcp_clients_test.ts checks
 * that a failed connect leaves no such child behind.
 *
 *   deno run --no-prompt --allow-write=PIDFILE tests/helpers/silent_server.ts PIDFILE
 */
const pidFile = Deno.args[0];
if (pidFile === undefined) throw new Error("usage: silent_server.ts PIDFILE");
Deno.writeTextFileSync(pidFile, String(Deno.pid));
setInterval(() => {}, 60_000);
