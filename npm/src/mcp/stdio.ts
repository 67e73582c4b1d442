// The stdio transport: the only module that touches stdout in MCP mode. The server exits cleanly
// when stdin closes.

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import type { CodegraphMcp } from "./server";

export async function serveStdio(mcp: CodegraphMcp): Promise<void> {
  const server = mcp.createServer();
  const transport = new StdioServerTransport();
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    void server.close().finally(() => process.exit(0));
  };
  process.stdin.on("end", close);
  process.stdin.on("close", close);
  transport.onerror = (e) => process.stderr.write(`codegraph mcp: ${e.message}\n`);
  await server.connect(transport);
}
