// Claude Code. Sources checked (docs corpus): the scopes are local (default, ~/.claude.json under
// the project's path), project (`.mcp.json` at the project root, checked in, approved on first use)
// and user (the top-level `mcpServers` of ~/.claude.json) — Claude Code's MCP docs as summarised at
// dev.to/aicoding-guide "claude mcp add --scope", cnblogs.com/LexLuc/p/19164475 and
// mintlify.com/jackdog668/claude-code/integrations/mcp-servers. CLAUDE_CONFIG_DIR moves the file to
// `$CLAUDE_CONFIG_DIR/.claude.json` (docs.rs/lean-ctx setup::claude_config_json_path). Same file
// name on Linux, macOS and Windows (%USERPROFILE%\.claude.json). Stdio entries carry
// `"type": "stdio"` (`claude mcp add-json` shape in the seed docs). A shared server is
// `{ "type": "http", "url": …, "headers": … }`, and `${VAR}` is expanded in `url` and `headers`
// ("Environment variable expansion in .mcp.json", code.claude.com/docs/en/mcp, as quoted by
// dev.to/rulestack "Six ${VAR} forms" and developers.boldsign.com/boldsign-mcp-server/claude-code).

import { bearerHeader, commandArgsOf, isRecord, jsonTarget, pathsFor, remoteFrom } from "./target";

const bearer = bearerHeader((name) => `\${${name}}`);

export const claude = jsonTarget({
  id: "claude",
  client: "Claude Code",
  keyPath: ["mcpServers", "codegraph"],
  root: ".",
  entry: (command, args) => ({ type: "stdio", command, args }),
  launchOf: commandArgsOf,
  remoteEntry: (remote) => ({ type: "http", url: remote.url, ...bearer.headers(remote.tokenEnv) }),
  remoteOf: (existing) => (isRecord(existing) && existing.type === "http" ? remoteFrom(existing, "url", bearer.tokenEnvOf) : undefined),
  location(scope, environment) {
    const p = pathsFor(environment.platform);
    if (scope === "project") return p.join(environment.cwd, ".mcp.json");
    return p.join(environment.env.CLAUDE_CONFIG_DIR || environment.home, ".claude.json");
  },
  detect(scope, environment, files) {
    const p = pathsFor(environment.platform);
    if (scope === "project") return files.exists(p.join(environment.cwd, ".mcp.json")) || files.exists(p.join(environment.cwd, ".claude"));
    const dir = environment.env.CLAUDE_CONFIG_DIR;
    if (dir) return files.exists(dir);
    return files.exists(p.join(environment.home, ".claude.json")) || files.exists(p.join(environment.home, ".claude"));
  },
  nextStep: (scope) =>
    scope === "project"
      ? "Claude Code: restart it in this project and approve the codegraph server from .mcp.json; `/mcp` lists it."
      : "Claude Code: restart it; `/mcp` lists codegraph.",
});
