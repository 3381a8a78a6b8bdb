/**
 * Network address facts shared by the HTTP transport (which binds) and the GitHub client (which
 * connects). No I/O.
 *
 * @module
 */

/** Whether `hostname` (as in a URL or `--listen`, IPv6 with or without brackets) names this machine's
 * loopback interface: `localhost`, any `127.x.x.x`, or `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}
