// The MCP server factory: takes the one warm session of a root (a library Session, or a
// SessionWorker that answers off the event loop) and returns SDK servers that answer the tools of
// tools.ts (all of them, or the subset `--tools` or the project config names). Tool failures are
// isError results with the core's code; the server keeps serving. Nothing here writes to stdout.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";

import type { Answerer } from "./answerer";
import { VersionDrift } from "./drift";
import type { CustomTool } from "../generated/types";
import { TOOLS, customToolSpecs, inputSchema, type ToolSpec } from "./tools";

export interface McpOptions {
  session: Answerer;
  version: string;
  packageJsonPath: string;
  /** Only these tools (by MCP name); all by default. */
  tools?: string[];
  /** The custom SQL tools of `.codegraph/tools.yaml` (as the core loaded them), offered beside the built-in ones. */
  customTools?: CustomTool[];
  driftIntervalMs?: number;
  warn?: (message: string) => void;
  now?: () => number;
}

/** The tools a list of names selects (among the built-in and the custom ones); an unknown name is
 * an error that lists the known ones. */
export function selectTools(names: string[] | undefined, custom: CustomTool[] = []): ToolSpec[] {
  const all = [...TOOLS, ...customToolSpecs(custom)];
  if (!names) return all;
  const unknown = names.filter((n) => !all.some((t) => t.name === n));
  if (unknown.length) {
    throw Object.assign(
      new Error(`unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; tools: ${all.map((t) => t.name).join(", ")}`),
      {
        code: "INVALID_ARGUMENT",
      },
    );
  }
  return all.filter((t) => names.includes(t.name));
}

/** Shared state of every server made from one set of options: the session (opened with the core's
 * autoRefresh policy, so every index-backed answer looks for changed files first), the tools it
 * offers and the drift checker. */
export class CodegraphMcp {
  readonly drift: VersionDrift;
  private readonly specs: ToolSpec[];
  private readonly tools: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }>;
  private inFlight = 0;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(readonly options: McpOptions) {
    this.specs = selectTools(options.tools, options.customTools);
    this.tools = this.specs.map((t) => ({ name: t.name, description: t.description, inputSchema: inputSchema(t) }));
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

  /**
   * Answers one tool call. Arguments the tool does not take (an unknown tool, a field it doesn't
   * have, a value of the wrong type or out of range: the core's INVALID_ARGUMENT) are the
   * protocol's "invalid params" (-32602, the code in `data`); every other failure is an isError
   * result with the core's code, and the server keeps serving.
   */
  async callTool(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    this.inFlight++;
    try {
      try {
        this.drift.check();
      } catch {
        // Drift checks must never fail a request.
      }
      const tool = this.specs.find((t) => t.name === name);
      if (!tool) invalidParams(`unknown tool ${JSON.stringify(name)}; tools: ${this.specs.map((t) => t.name).join(", ")}`);
      if (tool.fixed && Object.keys(args).length > 0) {
        invalidParams(`${tool.name} takes no arguments (got ${Object.keys(args).join(", ")})`);
      }
      try {
        const request = tool.fixed ?? (tool.request ? tool.request(args) : args);
        const answer = await this.options.session.call(tool.method, request as never);
        return success(answer);
      } catch (e) {
        const err = e as Error & { code?: string };
        if (err.code === "INVALID_ARGUMENT") invalidParams(err.message);
        return failure(err.code ?? "INTERNAL", err.message);
      } finally {
        for (const note of (await this.options.session.takeNotes?.()) ?? []) this.options.warn?.(`codegraph mcp: note: ${note}`);
      }
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
    }
  }

  /** Resolves when no tool call is running (after the calls already received have started). */
  async idle(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
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
  // A rendered answer (a markdown context pack, a graph as markdown, dot, xml or mermaid) is the
  // text itself; the rest of the answer stays structured.
  const a = answer as { format?: string; markdown?: string; text?: string };
  if (a && a.format === "markdown" && typeof a.markdown === "string") {
    const { markdown, ...rest } = a;
    return { content: [{ type: "text", text: markdown }], structuredContent: rest as Record<string, unknown> };
  }
  if (a && a.format && a.format !== "json" && typeof a.text === "string") {
    const { text, ...rest } = a;
    return { content: [{ type: "text", text }], structuredContent: rest as Record<string, unknown> };
  }
  return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer as Record<string, unknown> };
}

function failure(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: { code, message } }) }] };
}

function invalidParams(message: string): never {
  throw new McpError(ErrorCode.InvalidParams, `${message} (check the tool's input schema)`, { code: "INVALID_ARGUMENT" });
}
