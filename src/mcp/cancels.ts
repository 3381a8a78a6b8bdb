/**
 * `notifications/cancelled` across server instances. Streamable HTTP in the legacy era is
 * stateless: the SDK builds one server instance per HTTP request, so a client's
 * cancellation (its own POST) reaches an instance that never saw the request it names, and
 * the SDK's per-instance abort does nothing. This process-wide registry lets that instance
 * reach the call: every tool call registers under (authority, request id) while it runs,
 * and a cancellation for that key aborts it. The SDK's own abort still runs (on stdio it
 * is the one that matters).
 *
 * Keys are per authority (the HTTP token; loopback clients without a token share one), and
 * request ids are chosen by clients, so two clients of one authority can collide: a
 * collision only ends the other client's `jobs.get` wait early with the current view, which
 * is always a valid answer.
 *
 * @module
 */

import type { Authority } from "../jobs/control.ts";

/** The calls running in this process, by authority and request id. */
export class RequestCancels {
  readonly #live = new Map<string, Set<AbortController>>();

  static #key(authority: Authority, requestId: string | number): string {
    return `${authority ?? ""}\u0000${typeof requestId}:${String(requestId)}`;
  }

  /** Calls registered now. */
  get size(): number {
    return this.#live.size;
  }

  /** Registers a running call; `close()` when it ends. */
  open(authority: Authority, requestId: string | number): { signal: AbortSignal; close(): void } {
    const key = RequestCancels.#key(authority, requestId);
    const controller = new AbortController();
    let set = this.#live.get(key);
    if (set === undefined) this.#live.set(key, set = new Set());
    set.add(controller);
    return {
      signal: controller.signal,
      close: () => {
        const s = this.#live.get(key);
        s?.delete(controller);
        if (s?.size === 0) this.#live.delete(key);
      },
    };
  }

  /** A client cancelled `requestId`: aborts the calls registered under it (with `options.reason`). */
  cancel(authority: Authority, requestId: string | number, options: { reason?: unknown } = {}): void {
    for (const c of this.#live.get(RequestCancels.#key(authority, requestId)) ?? []) c.abort(options.reason);
  }
}

/** The SDK's private cancellation hook of a server instance (`Protocol._oncancel`, SDK 2.4.0). */
interface CancelHook {
  _oncancel?: (notification: { params: { requestId?: string | number; reason?: unknown } }) => Promise<void>;
}

/**
 * Makes `server`'s `notifications/cancelled` also reach `into.cancels`, under `into.authority` (the
 * authority of the server instance's requests). Wraps the SDK's private `_oncancel` (its notification
 * handler calls it by name); without that method (another SDK version) nothing changes and only the
 * SDK's per-instance abort applies.
 */
export function forwardCancellations(
  server: object,
  into: { cancels: RequestCancels; authority: Authority },
): void {
  const { cancels, authority } = into;
  const hook = server as CancelHook;
  const sdk = hook._oncancel?.bind(server);
  if (sdk === undefined) return;
  hook._oncancel = async (notification) => {
    const id = notification.params.requestId;
    if (id !== undefined) cancels.cancel(authority, id, { reason: notification.params.reason });
    await sdk(notification);
  };
}
