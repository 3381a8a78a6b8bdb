/**
 * The modern (2026-07-28) wire's request envelope: the protocol version, the `_meta` keys every modern request
 * carries, and the tasks extension id a client declares in its capabilities.
 *
 * @module
 */

import type { ClientCapabilities } from "@modelcontextprotocol/client";
import type { ClientIdentity } from "./targets.ts";

export const MODERN_PROTOCOL_VERSION = "2026-07-28";
export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** The `_meta` envelope of a modern request from this client, declaring the tasks extension when
 * `options.declareTasks` (default false). */
export function modernEnvelope(
  clientInfo: ClientIdentity,
  capabilities: ClientCapabilities,
  options: { declareTasks?: boolean } = {},
): Record<string, unknown> {
  const declareTasks = options.declareTasks ?? false;
  const extensions = {
    ...(capabilities.extensions ?? {}),
    ...(declareTasks ? { [TASKS_EXTENSION_ID]: {} } : {}),
  };
  return {
    [META_PROTOCOL_VERSION]: MODERN_PROTOCOL_VERSION,
    [META_CLIENT_INFO]: { ...clientInfo },
    [META_CLIENT_CAPABILITIES]: Object.keys(extensions).length === 0
      ? { ...capabilities }
      : { ...capabilities, extensions },
  };
}
