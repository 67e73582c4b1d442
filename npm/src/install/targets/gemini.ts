// Gemini CLI. Sources checked (docs corpus): settings files are `~/.gemini/settings.json` (user) and
// `.gemini/settings.json` in the project root (project), with servers under `mcpServers`; a stdio
// server is `command` + `args` (geminicli.com/docs/cli/configuration, "Settings files";
// github.com/google-gemini/gemini-cli docs/tools/mcp-server.md). `~` is the home directory on
// every platform, so Windows uses %USERPROFILE%\.gemini\settings.json.

import { commandArgsOf, inClientDir, jsonTarget } from "./target";

export const gemini = jsonTarget({
  id: "gemini",
  client: "Gemini CLI",
  keyPath: ["mcpServers", "codegraph"],
  root: ".",
  entry: (command, args) => ({ command, args }),
  launchOf: commandArgsOf,
  ...inClientDir(".gemini", "settings.json"),
  nextStep: () => "Gemini CLI: restart it; `/mcp` lists codegraph.",
});
