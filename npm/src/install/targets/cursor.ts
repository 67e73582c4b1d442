// Cursor. Sources checked (docs corpus): `~/.cursor/mcp.json` for every project and `.cursor/mcp.json`
// in a project, both with an `mcpServers` object; stdio servers have `command` + `args`, optionally
// `"type": "stdio"` (cursor.com/docs/mcp as quoted by developersdigest.tech/mcp-servers/clients/cursor,
// mcpbundles.com/guides/cursor, mintlify.com/oracle/mcp/clients/cursor). Windows:
// %USERPROFILE%\.cursor\mcp.json (docs.rs/intermcp cursor_ide.md). The root is `${workspaceFolder}`,
// which Cursor substitutes with the open folder (the project's seed docs use exactly this entry).
// A shared server is `{ "url": …, "headers": … }` (Streamable HTTP; the transport follows from
// `url`), with `${env:NAME}` expanded in headers (cursor.com/docs/mcp as quoted by
// userjot.com/docs/mcp-cursor and docs.apilayer.com "Cursor IDE integration").

import { bearerHeader, commandArgsOf, inClientDir, isRecord, jsonTarget, remoteFrom } from "./target";

const bearer = bearerHeader((name) => `\${env:${name}}`);

export const cursor = jsonTarget({
  id: "cursor",
  client: "Cursor",
  keyPath: ["mcpServers", "codegraph"],
  root: "${workspaceFolder}",
  entry: (command, args) => ({ type: "stdio", command, args }),
  launchOf: commandArgsOf,
  remoteEntry: (remote) => ({ url: remote.url, ...bearer.headers(remote.tokenEnv) }),
  remoteOf: (existing) =>
    isRecord(existing) && existing.command === undefined ? remoteFrom(existing, "url", bearer.tokenEnvOf) : undefined,
  ...inClientDir(".cursor", "mcp.json"),
  nextStep: () => "Cursor: reload the window; Settings → MCP lists codegraph (switch it on if it is off).",
});
