/**
 * A network worker that throws on its first message (the runtime's `init`), as a worker whose start
 * fails would: tests/serve_late_load_test.ts starts a server with it. It never sends `loaded`. Right
 * before it throws it says so on the {@linkcode REFUSING_CHANNEL} broadcast channel, which the test
 * server's MCP loader waits for.
 */

/** The broadcast channel the refusing worker announces its failure on. */
export const REFUSING_CHANNEL = "longcall-test-refusing-worker";

(self as unknown as { onmessage: (event: MessageEvent) => void }).onmessage = () => {
  const channel = new BroadcastChannel(REFUSING_CHANNEL);
  channel.postMessage("refusing");
  channel.close();
  throw new Error("this worker refuses to start");
};
