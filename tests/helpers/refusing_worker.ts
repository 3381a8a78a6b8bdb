/**
 * A network worker that throws on its first message (the runtime's `init`), as a worker whose start
 * fails would: tests/serve_late_load_test.ts starts a server with it. It never sends `loaded`.
 */

(self as unknown as { onmessage: (event: MessageEvent) => void }).onmessage = () => {
  throw new Error("this worker refuses to start");
};
