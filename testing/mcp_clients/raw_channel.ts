/**
 * A raw JSON-RPC channel on a transport a v2 SDK Client already owns: requests with the channel's own ids whose
 * answers (results, JSON-RPC errors, or errors carried in an HTTP error status) come back as data, never thrown.
 *
 * @module
 */

import { isJSONRPCResponse, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** What a raw request produced: the JSON-RPC result object or the JSON-RPC error object. */
export type RawResponse =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "error"; error: JsonRpcErrorObject };

export interface RawSendOptions {
  signal?: AbortSignal;
  /** Default 10 000 ms. */
  timeoutMs?: number;
  /** Extra HTTP headers (ignored on stdio; SDK-owned headers such as Mcp-Name cannot be overridden). */
  headers?: Record<string, string>;
}

/**
 * Sends JSON-RPC requests with its own string ids ("raw:N") on a transport the SDK Client already
 * owns, and intercepts their responses before the Client sees them (the Client would reject
 * unknown ids and `resultType: "task"` results). Must be attached AFTER `client.connect()`
 * (Protocol.connect chains, rather than replaces, an existing `onmessage`).
 */
export class RawChannel {
  readonly #transport: Transport;
  readonly #pending = new Map<string, (response: RawResponse | Error) => void>();
  #next = 0;
  #closed = false;

  constructor(transport: Transport) {
    this.#transport = transport;
    const inner = transport.onmessage;
    transport.onmessage = <T extends JSONRPCMessage>(
      message: T,
      extra?: Parameters<NonNullable<Transport["onmessage"]>>[1],
    ) => {
      if (isJSONRPCResponse(message) && typeof message.id === "string") {
        const settle = this.#pending.get(message.id);
        if (settle !== undefined) {
          settle(toRawResponse(message));
          return;
        }
      }
      inner?.(message, extra);
    };
    const innerClose = transport.onclose;
    transport.onclose = () => {
      this.#closed = true;
      for (const settle of [...this.#pending.values()]) settle(new Error("transport closed"));
      innerClose?.();
    };
  }

  async send(
    body: { method: string; params?: Record<string, unknown> },
    options: RawSendOptions = {},
  ): Promise<RawResponse> {
    if (this.#closed) throw new Error("transport closed");
    const id = `raw:${++this.#next}`;
    const timeoutMs = options.timeoutMs ?? 10_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const settled = new Promise<RawResponse>((resolve, reject) => {
      this.#pending.set(id, (outcome) => {
        this.#pending.delete(id);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      });
      timer = setTimeout(() => {
        this.#pending.get(id)?.(new Error(`raw ${body.method} timed out after ${timeoutMs}ms`));
      }, timeoutMs);
      if (options.signal !== undefined) {
        onAbort = () => this.#pending.get(id)?.(new Error(`raw ${body.method} aborted`));
        if (options.signal.aborted) onAbort();
        else options.signal.addEventListener("abort", onAbort, { once: true });
      }
    });
    try {
      const message = {
        jsonrpc: "2.0" as const,
        id,
        method: body.method,
        ...(body.params === undefined ? {} : { params: body.params }),
      };
      await this.#transport.send(message as JSONRPCMessage, {
        ...(options.headers === undefined ? {} : { headers: options.headers }),
        ...(options.signal === undefined ? {} : { requestSignal: options.signal }),
      }).catch((error: unknown) => {
        // Streamable HTTP: a pre-dispatch rejection with a non-400 status (e.g. -32601 -> 404)
        // throws SdkHttpError from send(); its `data.text` holds the JSON-RPC error body.
        const fromHttp = jsonRpcErrorFromHttpError(error, id);
        const settle = this.#pending.get(id);
        if (settle === undefined) return;
        settle(fromHttp ?? (error instanceof Error ? error : new Error(String(error))));
      });
      return await settled;
    } finally {
      this.#pending.delete(id);
      if (timer !== undefined) clearTimeout(timer);
      if (onAbort !== undefined) options.signal?.removeEventListener("abort", onAbort);
    }
  }
}

function toRawResponse(message: unknown): RawResponse {
  const record = message as { result?: unknown; error?: unknown };
  if (record.error !== undefined) {
    const error = record.error as JsonRpcErrorObject;
    return {
      kind: "error",
      error: {
        code: error.code,
        message: error.message,
        ...(error.data === undefined ? {} : { data: error.data }),
      },
    };
  }
  return { kind: "result", result: (record.result ?? {}) as Record<string, unknown> };
}

function jsonRpcErrorFromHttpError(error: unknown, id: string): RawResponse | undefined {
  const text = (error as { data?: { text?: unknown } } | null)?.data?.text;
  if (typeof text !== "string") return undefined;
  try {
    const parsed = JSON.parse(text) as { id?: unknown; error?: unknown };
    if (parsed.error === undefined || (parsed.id !== id && parsed.id !== null)) return undefined;
    return toRawResponse(parsed);
  } catch {
    return undefined;
  }
}
