// Gemini CLI. Sources checked (docs corpus): settings files are `~/.gemini/settings.json` (user) and
// `.gemini/settings.json` in the project root (project), with servers under `mcpServers`; a stdio
// server is `command` + `args` (geminicli.com/docs/cli/configuration, "Settings files";
// github.com/google-gemini/gemini-cli docs/tools/mcp-server.md). `~` is the home directory on
// every platform, so Windows uses %USERPROFILE%\.gemini\settings.json. A Streamable HTTP server
// is `httpUrl` (`url` means SSE) with optional `headers` (docs/tools/mcp-server.md "HTTP-based
// transport"; newtalaria docs "Gemini CLI": "use httpUrl, not url"); settings values expand
// `$VAR` and `${VAR}` (geminicli.com/docs/cli/configuration, "Note on environment variables in settings").

import { bearerHeader, commandArgsOf, inClientDir, jsonTarget, remoteFrom } from "./target";

const bearer = bearerHeader((name) => `\${${name}}`);

export const gemini = jsonTarget({
  id: "gemini",
  client: "Gemini CLI",
  keyPath: ["mcpServers", "codegraph"],
  root: ".",
  entry: (command, args) => ({ command, args }),
  launchOf: commandArgsOf,
  remoteEntry: (remote) => ({ httpUrl: remote.url, ...bearer.headers(remote.tokenEnv) }),
  remoteOf: (existing) => remoteFrom(existing, "httpUrl", bearer.tokenEnvOf),
  ...inClientDir(".gemini", "settings.json"),
  nextStep: () => "Gemini CLI: restart it; `/mcp` lists codegraph.",
});
