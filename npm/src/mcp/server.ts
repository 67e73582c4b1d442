// The MCP server factory: takes a codegraph Session (one warm session per root, shared by every
// client) and returns SDK servers that answer tools from the table in tools.ts. Tool failures are
// isError results with the core's code; the server keeps serving. Nothing here writes to stdout.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import type { Session } from "../index";
import { VersionDrift } from "./drift";
import { TOOLS, inputSchema } from "./tools";

export interface McpOptions {
  session: Session;
  version: string;
  packageJsonPath: string;
  driftIntervalMs?: number;
  warn?: (message: string) => void;
  now?: () => number;
}

/** Shared state of every server made from one set of options: the session (opened with the core's
 * autoRefresh policy, so every index-backed answer looks for changed files first) and the drift
 * checker. */
export class CodegraphMcp {
  readonly drift: VersionDrift;
  private readonly tools = TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: inputSchema(t) }));

  constructor(readonly options: McpOptions) {
    this.drift = new VersionDrift({
      packageJsonPath: options.packageJsonPath,
      runningVersion: options.version,
      intervalMs: options.driftIntervalMs,
      warn: options.warn,
      now: options.now,
    });
  }

  listTools() {
    return this.tools;
  }

  /** Answers one tool call. Never throws: failures are isError results. */
  callTool(name: string, args: Record<string, unknown> = {}): CallToolResult {
    try {
      this.drift.check();
    } catch {
      // Drift checks must never fail a request.
    }
    const tool = TOOLS.find((t) => t.name === name);
    if (!tool) return failure("INVALID_ARGUMENT", `unknown tool ${JSON.stringify(name)}; tools: ${TOOLS.map((t) => t.name).join(", ")}`);
    try {
      return success(this.options.session.call(tool.method, (tool.fixed ?? args) as never));
    } catch (e) {
      const err = e as Error & { code?: string };
      return failure(err.code ?? "INTERNAL", err.message);
    }
  }

  /** A new SDK server (one per transport/client session) answering from this shared state. */
  createServer(): Server {
    const server = new Server({ name: "codegraph", version: this.options.version }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.listTools() }));
    server.setRequestHandler(CallToolRequestSchema, async (request) =>
      this.callTool(request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>),
    );
    return server;
  }
}

function success(answer: unknown): CallToolResult {
  // A markdown context pack is the text itself; the rest of the answer stays structured.
  const a = answer as { format?: string; markdown?: string };
  if (a && a.format === "markdown" && typeof a.markdown === "string") {
    const { markdown, ...rest } = a;
    return { content: [{ type: "text", text: markdown }], structuredContent: rest as Record<string, unknown> };
  }
  return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer as Record<string, unknown> };
}

function failure(code: string, message: string): CallToolResult {
  const hint = code === "INVALID_ARGUMENT" ? " (check the tool's input schema)" : "";
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: { code, message: message + hint } }) }] };
}
