// Streamable HTTP on /mcp (default 127.0.0.1:7331) plus GET /health. One warm codegraph session per
// root is shared by every client; each client gets its own MCP session. Guards, in order: Host and
// Origin checks (DNS rebinding; a foreign browser origin gets 403), a token when bound beyond
// loopback (Authorization: Bearer or X-API-Key, else 401), a body size cap (413). Idle sessions are
// reaped; SIGINT/SIGTERM stop accepting, finish in-flight calls, then exit.

import { randomUUID, timingSafeEqual } from "node:crypto";
import * as http from "node:http";
import { isIP } from "node:net";

import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

/** After a 413, at most this much more of the body is read (and dropped) before the socket closes, */
const DRAIN_BYTES = 16 * 1024 * 1024;
/** … for at most this long. */
const DRAIN_MS = 2000;

import { checkMessage, type SessionState } from "./jsonrpc";
import type { CodegraphMcp } from "./server";

export interface HttpOptions {
  host?: string;
  port?: number;
  token?: string;
  maxBodyBytes?: number;
  idleMs?: number;
  /** MCP sessions kept at once (default 32); the longest idle one without a call in flight makes
   * room for a new client, and when every one is busy the new client gets 503. */
  maxSessions?: number;
  log?: (message: string) => void;
}

/** An initialize request larger than this is refused: its client info is kept for the session's
 * whole life, so it must stay small. */
const MAX_INITIALIZE_BYTES = 64 * 1024;

interface McpSession {
  transport: StreamableHTTPServerTransport;
  /** Initialized: the session exists only once its initialize was accepted. */
  state: SessionState;
  lastSeen: number;
  /** POST requests of this session being answered now. */
  inFlight: number;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
  sessionCount(): number;
}

/**
 * Whether a host name, as written in a Host header, an Origin or `--host`, denotes this machine
 * without asking DNS: the name `localhost`, an IPv4 literal in 127.0.0.0/8, or the IPv6 loopback
 * (`::1`, bracketed or not, or IPv4-mapped). Names that merely start like an address
 * (`127.0.0.1.nip.io`, `127.attacker.example`) are names, and a DNS answer for them is exactly what
 * DNS rebinding controls.
 */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "localhost") return true;
  const bare = h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
  if (isIP(bare) === 4) return bare.split(".")[0] === "127";
  if (isIP(bare) === 6) {
    const mapped = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
    if (mapped) return isLoopback(mapped[1]!);
    return expandIpv6(bare) === "0000:0000:0000:0000:0000:0000:0000:0001";
  }
  return false;
}

/** An IPv6 literal with every group written out in four hex digits. */
function expandIpv6(address: string): string {
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((g) => g.padStart(4, "0")).join(":");
}

/** The host name of a Host header (`name[:port]`, `[v6][:port]`); `undefined` when it is not one. */
function hostnameOf(value: string): string | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@\s]+)(?::\d{1,5})?$/.exec(value);
  return m?.[1];
}

function tokenMatches(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function sendEmpty(res: http.ServerResponse, status: number): void {
  res.writeHead(status);
  res.end();
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
    throw Object.assign(
      new Error(`binding to ${host} exposes the server beyond this machine: pass --auth-token or set CODEGRAPH_MCP_TOKEN`),
      {
        code: "INVALID_ARGUMENT",
      },
    );
  }
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const idleMs = options.idleMs ?? 30 * 60 * 1000;
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const maxSessions = options.maxSessions ?? 32;
  const sessions = new Map<string, McpSession>();
  /** Sessions being initialized (counted against the cap before they are in `sessions`). */
  let opening = 0;
  let port = options.port ?? 7331;

  const guard = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const hostHeader = req.headers.host ?? "";
    const hostname = hostnameOf(hostHeader);
    if (loopback && (hostname === undefined || !isLoopback(hostname))) {
      rpcError(res, 403, -32000, `Host ${JSON.stringify(hostHeader)} is not allowed`);
      return false;
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      let allowed = false;
      try {
        const u = new URL(origin);
        allowed = loopback ? isLoopback(u.hostname) : u.host === hostHeader;
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
      const onData = (c: Buffer) => {
        size += c.length;
        if (size > maxBody) {
          // Stop collecting; the 413 is written first, then the connection closes (see handleMcp).
          req.off("data", onData);
          req.resume();
          resolve("too-large");
          return;
        }
        chunks.push(c);
      };
      req.on("data", onData);
      req.on("end", () => resolve(Buffer.concat(chunks)));
      req.on("error", reject);
    });

  /** Answers one request of a session, counting it in flight until its response is done. */
  const dispatch = (s: McpSession, req: http.IncomingMessage, res: http.ServerResponse, parsed?: unknown) => {
    s.lastSeen = Date.now();
    if (req.method === "POST") {
      s.inFlight++;
      res.once("close", () => {
        s.inFlight--;
        s.lastSeen = Date.now();
      });
    }
    return s.transport.handleRequest(req, res, parsed);
  };

  /** Makes room for one more session: false when every session has a call in flight. */
  const roomForOne = (): boolean => {
    if (sessions.size + opening < maxSessions) return true;
    let idlest: [string, McpSession] | undefined;
    for (const entry of sessions) {
      if (entry[1].inFlight === 0 && (!idlest || entry[1].lastSeen < idlest[1].lastSeen)) idlest = entry;
    }
    if (!idlest) return false;
    sessions.delete(idlest[0]);
    void idlest[1].transport.close();
    return true;
  };

  const handleMcp = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (req.method === "POST") {
      const body = await readBody(req);
      if (body === "too-large") {
        // The answer goes out first; then the rest of the body is read and dropped (a client still
        // uploading when the socket is cut gets a reset instead of the 413), up to a bound in bytes
        // and time, after which the connection is cut.
        res.once("finish", () => {
          let drained = 0;
          const cut = () => req.destroy();
          const timer = setTimeout(cut, DRAIN_MS);
          req.on("data", (c: Buffer) => {
            drained += c.length;
            if (drained > DRAIN_BYTES) cut();
          });
          req.once("end", () => clearTimeout(timer));
          req.once("close", () => clearTimeout(timer));
        });
        return rpcError(res, 413, -32600, `request body over ${maxBody} bytes`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        return rpcError(res, 400, -32700, "parse error: the body is not valid JSON");
      }
      if (!existing && sessionId !== undefined) return rpcError(res, 404, -32001, "unknown or expired session; initialize again");
      const checked = checkMessage(parsed, existing?.state ?? { initialized: false });
      if ("reply" in checked) {
        if (!checked.reply) return sendEmpty(res, 202);
        return sendJson(res, 400, checked.reply);
      }
      if (existing) return dispatch(existing, req, res, parsed);
      if (!isInitializeRequest(parsed)) return rpcError(res, 400, -32600, "no session: the first request must be initialize");
      if (body.length > MAX_INITIALIZE_BYTES) return rpcError(res, 413, -32600, `initialize request over ${MAX_INITIALIZE_BYTES} bytes`);
      if (!roomForOne()) return rpcError(res, 503, -32000, `all ${maxSessions} sessions are busy; retry shortly`);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, session);
        },
      });
      const session: McpSession = { transport, state: { initialized: true }, lastSeen: Date.now(), inFlight: 0 };
      transport.onclose = () => {
        const id = transport.sessionId;
        if (id && sessions.get(id) === session) sessions.delete(id);
      };
      opening++;
      try {
        await mcp.createServer().connect(transport);
        return await dispatch(session, req, res, parsed);
      } finally {
        opening--;
      }
    }
    if (!existing) return rpcError(res, 400, -32600, "missing or unknown mcp-session-id");
    return dispatch(existing, req, res);
  };

  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (!guard(req, res)) return;
    if (path === "/health" && req.method === "GET") {
      return sendJson(res, 200, {
        status: "ok",
        name: "codegraph",
        version: mcp.options.version,
        root: mcp.options.session.root,
        engine: mcp.options.session.engine,
        sessions: sessions.size,
      });
    }
    if (path !== "/mcp") return rpcError(res, 404, -32601, "not found: the MCP endpoint is /mcp");
    handleMcp(req, res).catch((e: Error) => {
      log(`codegraph mcp: ${e.message}`);
      if (!res.headersSent) rpcError(res, 500, -32603, "internal error");
    });
  });

  const reaper = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, s] of sessions) {
        if (s.lastSeen < cutoff && s.inFlight === 0) {
          sessions.delete(id);
          void s.transport.close();
        }
      }
    },
    Math.min(idleMs, 60_000),
  );
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
