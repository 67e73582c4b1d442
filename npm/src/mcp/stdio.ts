// The stdio transport: the only module that touches stdout in MCP mode. One JSON-RPC message per
// line in, one per line out. Every line is checked (jsonrpc.ts) before the SDK server sees it, so a
// malformed line, a batch or a request before initialize gets its error reply instead of silence;
// lines are handed over one at a time as they arrive, and answers are written as each completes,
// through one write queue (no listener per write). The server exits cleanly when stdin closes.

import type { Readable, Writable } from "node:stream";

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

import { checkMessage, PARSE_ERROR, rpcError, type SessionState } from "./jsonrpc";
import type { CodegraphMcp } from "./server";

/** A line longer than this is refused (and the rest of it skipped) instead of buffered without end. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private buffer = "";
  private discarding = false;
  private readonly state: SessionState = { initialized: false };
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  async start(): Promise<void> {
    this.input.setEncoding("utf8");
    this.input.on("data", (chunk: string) => this.receive(chunk));
    this.input.on("error", (e) => this.onerror?.(e));
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, "");
      this.buffer = this.buffer.slice(newline + 1);
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      if (line.trim() !== "") this.deliver(line);
    }
    if (Buffer.byteLength(this.buffer) > MAX_LINE_BYTES) {
      this.buffer = "";
      this.discarding = true;
      void this.send(rpcError(null, PARSE_ERROR, `a message longer than ${MAX_LINE_BYTES} bytes was refused`) as never);
    }
  }

  private deliver(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      void this.send(rpcError(null, PARSE_ERROR, "parse error: the line is not valid JSON") as never);
      return;
    }
    const checked = checkMessage(value, this.state);
    if ("reply" in checked) {
      if (checked.reply) void this.send(checked.reply as never);
      return;
    }
    this.onmessage?.(checked.message);
  }

  /** Writes one message as a line; writes queue behind each other, waiting for `drain` when full. */
  send(message: JSONRPCMessage): Promise<void> {
    const line = `${JSON.stringify(message)}\n`;
    this.writing = this.writing.then(
      () =>
        new Promise<void>((resolve) => {
          if (this.output.write(line)) resolve();
          else this.output.once("drain", () => resolve());
        }),
    );
    return this.writing;
  }

  /** Resolves once every queued answer is written. */
  flushed(): Promise<void> {
    return this.writing;
  }

  async close(): Promise<void> {
    this.input.removeAllListeners("data");
    this.input.pause();
    this.onclose?.();
  }
}

export async function serveStdio(mcp: CodegraphMcp): Promise<void> {
  const server = mcp.createServer();
  const transport = new LineTransport(process.stdin, process.stdout);
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    // Calls still running are answered, and every answer written, before the process ends.
    void mcp
      .idle()
      .then(() => transport.flushed())
      .finally(() => void server.close().finally(() => process.exit(0)));
  };
  process.stdin.on("end", close);
  process.stdin.on("close", close);
  transport.onerror = (e) => process.stderr.write(`codegraph mcp: ${e.message}\n`);
  await server.connect(transport);
}
