// Streamable HTTP on /mcp (default 127.0.0.1:7331) plus GET /health. One warm codegraph session per
// root is shared by every client; each client gets its own MCP session. Guards, in order: Host and
// Origin checks (DNS rebinding; a foreign browser origin gets 403), a token when bound beyond
// loopback (Authorization: Bearer or X-API-Key, else 401), a body size cap (413). Idle sessions are
// reaped; SIGINT/SIGTERM stop accepting, finish in-flight calls, then exit.

import { randomUUID, timingSafeEqual } from "node:crypto";
import * as http from "node:http";

import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

import type { CodegraphMcp } from "./server";

export interface HttpOptions {
  host?: string;
  port?: number;
  token?: string;
  maxBodyBytes?: number;
  idleMs?: number;
  log?: (message: string) => void;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
  sessionCount(): number;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith("127.");
}

function hostnameOf(value: string): string {
  // "host:port", "[::1]:port" → host
  if (value.startsWith("[")) return value.slice(0, value.indexOf("]") + 1);
  return value.split(":")[0];
}

function tokenMatches(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function rpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null });
}

export async function serveHttp(mcp: CodegraphMcp, options: HttpOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? "127.0.0.1";
  const loopback = isLoopback(host);
  const token = options.token;
  if (!loopback && !token) {
    throw Object.assign(new Error(`binding to ${host} exposes the server beyond this machine: pass --auth-token or set CODEGRAPH_MCP_TOKEN`), {
      code: "INVALID_ARGUMENT",
    });
  }
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const idleMs = options.idleMs ?? 30 * 60 * 1000;
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; lastSeen: number }>();
  let port = options.port ?? 7331;

  const guard = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const hostHeader = req.headers.host ?? "";
    if (loopback && !isLoopback(hostnameOf(hostHeader))) {
      rpcError(res, 403, -32000, `Host ${JSON.stringify(hostHeader)} is not allowed`);
      return false;
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      let allowed = false;
      try {
        const u = new URL(origin);
        allowed = loopback ? isLoopback(u.hostname) || isLoopback(`[${u.hostname}]`) : u.host === hostHeader;
      } catch {
        allowed = false;
      }
      if (!allowed) {
        rpcError(res, 403, -32000, `Origin ${JSON.stringify(origin)} is not allowed`);
        return false;
      }
    }
    if (token) {
      const auth = req.headers.authorization;
      const bearer = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
      const apiKey = req.headers["x-api-key"];
      if (!tokenMatches(token, bearer) && !tokenMatches(token, typeof apiKey === "string" ? apiKey : undefined)) {
        rpcError(res, 401, -32001, "missing or invalid token: send Authorization: Bearer <token> or X-API-Key");
        return false;
      }
    }
    return true;
  };

  const readBody = (req: http.IncomingMessage): Promise<Buffer | "too-large"> =>
    new Promise((resolve, reject) => {
      const declared = Number(req.headers["content-length"] ?? 0);
      if (declared > maxBody) {
        resolve("too-large");
        req.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      req.on("data", (c: Buffer) => {
        size += c.length;
        if (size > maxBody) {
          resolve("too-large");
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on("end", () => resolve(Buffer.concat(chunks)));
      req.on("error", reject);
    });

  const handleMcp = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (req.method === "POST") {
      const body = await readBody(req);
      if (body === "too-large") return rpcError(res, 413, -32600, `request body over ${maxBody} bytes`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        return rpcError(res, 400, -32700, "parse error: the body is not valid JSON");
      }
      if (existing) {
        existing.lastSeen = Date.now();
        return existing.transport.handleRequest(req, res, parsed);
      }
      if (sessionId !== undefined) return rpcError(res, 404, -32001, "unknown or expired session; initialize again");
      if (!isInitializeRequest(parsed)) return rpcError(res, 400, -32600, "no session: the first request must be initialize");
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, lastSeen: Date.now() });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await mcp.createServer().connect(transport);
      return transport.handleRequest(req, res, parsed);
    }
    if (!existing) return rpcError(res, 400, -32600, "missing or unknown mcp-session-id");
    existing.lastSeen = Date.now();
    return existing.transport.handleRequest(req, res);
  };

  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (!guard(req, res)) return;
    if (path === "/health" && req.method === "GET") {
      return sendJson(res, 200, { status: "ok", name: "codegraph", version: mcp.options.version, root: mcp.options.session.root, engine: mcp.options.session.engine, sessions: sessions.size });
    }
    if (path !== "/mcp") return rpcError(res, 404, -32601, "not found: the MCP endpoint is /mcp");
    handleMcp(req, res).catch((e: Error) => {
      log(`codegraph mcp: ${e.message}`);
      if (!res.headersSent) rpcError(res, 500, -32603, "internal error");
    });
  });

  const reaper = setInterval(() => {
    const cutoff = Date.now() - idleMs;
    for (const [id, s] of sessions) {
      if (s.lastSeen < cutoff) {
        sessions.delete(id);
        void s.transport.close();
      }
    }
  }, Math.min(idleMs, 60_000));
  reaper.unref();

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  if (address && typeof address === "object") port = address.port;
  const shownHost = host.includes(":") ? `[${host}]` : host;

  const close = async () => {
    clearInterval(reaper);
    // Stop accepting; requests in flight finish before close() calls back.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    for (const s of sessions.values()) await s.transport.close();
    sessions.clear();
  };
  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    close,
    sessionCount: () => sessions.size,
  };
}
