// Cursor. Sources checked (docs corpus): `~/.cursor/mcp.json` for every project and `.cursor/mcp.json`
// in a project, both with an `mcpServers` object; stdio servers have `command` + `args`, optionally
// `"type": "stdio"` (cursor.com/docs/mcp as quoted by developersdigest.tech/mcp-servers/clients/cursor,
// mcpbundles.com/guides/cursor, mintlify.com/oracle/mcp/clients/cursor). Windows:
// %USERPROFILE%\.cursor\mcp.json (docs.rs/intermcp cursor_ide.md). The root is `${workspaceFolder}`,
// which Cursor substitutes with the open folder (the project's seed docs use exactly this entry).

import { commandArgsOf, inClientDir, jsonTarget } from "./target";

export const cursor = jsonTarget({
  id: "cursor",
  client: "Cursor",
  keyPath: ["mcpServers", "codegraph"],
  root: "${workspaceFolder}",
  entry: (command, args) => ({ type: "stdio", command, args }),
  launchOf: commandArgsOf,
  ...inClientDir(".cursor", "mcp.json"),
  nextStep: () => "Cursor: reload the window; Settings → MCP lists codegraph (switch it on if it is off).",
});
