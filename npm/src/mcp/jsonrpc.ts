// JSON-RPC 2.0 as MCP speaks it, checked before a message reaches the SDK server: every request gets
// an answer, a bad one the error JSON-RPC names for it. Shared by the stdio and HTTP transports.
//   -32700 the text is not JSON           -32600 not a JSON-RPC 2.0 message (batches included:
//   -32602 params (or a tool's arguments)  MCP 2025-06-18 has no batching)
//          are not an object              -32002 a request other than initialize or ping before
//                                                initialize

import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const NOT_INITIALIZED = -32002;

type Id = string | number | null;

export interface RpcError {
  jsonrpc: "2.0";
  id: Id;
  error: { code: number; message: string };
}

export function rpcError(id: Id, code: number, message: string): RpcError {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The id of a message, when it has a usable one. */
function idOf(m: Record<string, unknown>): Id {
  const id = m.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** Whether a session has been initialized; the stdio transport keeps one, HTTP one per session. */
export interface SessionState {
  initialized: boolean;
}

/**
 * Checks one parsed message. Returns it for the server, or the error to answer with (`reply`) —
 * `undefined` for a notification that is simply dropped (JSON-RPC never answers notifications).
 */
export function checkMessage(value: unknown, state: SessionState): { message: JSONRPCMessage } | { reply: RpcError | undefined } {
  if (Array.isArray(value)) {
    return { reply: rpcError(null, INVALID_REQUEST, "batch requests are not supported: send one JSON-RPC message at a time") };
  }
  if (!isObject(value) || value.jsonrpc !== "2.0") {
    return {
      reply: rpcError(
        isObject(value) ? idOf(value) : null,
        INVALID_REQUEST,
        'not a JSON-RPC 2.0 message (expected an object with "jsonrpc": "2.0")',
      ),
    };
  }
  const isRequest = "method" in value && "id" in value;
  const isNotification = "method" in value && !("id" in value);
  if (!("method" in value)) return { message: value as unknown as JSONRPCMessage }; // a response to the server
  const id = idOf(value);
  if (typeof value.method !== "string") {
    return { reply: isRequest ? rpcError(id, INVALID_REQUEST, "method must be a string") : undefined };
  }
  if (isRequest && id === null) return { reply: rpcError(null, INVALID_REQUEST, "id must be a string or a number") };
  if ("params" in value && value.params !== undefined && !isObject(value.params)) {
    return { reply: isRequest ? rpcError(id, INVALID_PARAMS, "params must be an object") : undefined };
  }
  if (isNotification) return { message: value as unknown as JSONRPCMessage };
  if (value.method === "initialize") {
    state.initialized = true;
  } else if (!state.initialized && value.method !== "ping") {
    return { reply: rpcError(id, NOT_INITIALIZED, `server not initialized: send initialize before ${value.method}`) };
  }
  if (value.method === "tools/call") {
    const params = (value.params ?? {}) as Record<string, unknown>;
    if (typeof params.name !== "string") return { reply: rpcError(id, INVALID_PARAMS, "tools/call needs params.name (a tool name)") };
    if (params.arguments !== undefined && !isObject(params.arguments)) {
      return { reply: rpcError(id, INVALID_PARAMS, "tools/call params.arguments must be an object") };
    }
  }
  return { message: value as unknown as JSONRPCMessage };
}
