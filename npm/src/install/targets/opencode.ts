// OpenCode. Sources checked (docs corpus): the global config is `~/.config/opencode/opencode.json`
// (JSON or JSONC, `opencode.jsonc` too), the project config `opencode.json` in the project root
// (opencode.ai/docs/config "Locations"/"Precedence", opencode.ai/v1/docs/config); local MCP servers
// live in the `mcp` object as `{ "type": "local", "command": [...], "enabled": true }`
// (opencode.ai/docs/mcp-servers "Local"). OpenCode 2 documents `mcp.servers` as its native shape
// but keeps reading V1 config fields unchanged (opencode.ai/docs/migrate-v1), so the V1 shape, which
// both versions read, is written. The config directory follows XDG (XDG_CONFIG_HOME, else
// ~/.config) on every platform, Windows included (github.com/colbymchenry/codegraph PR 670 notes
// opencode loads ~/.config/opencode there). A shared server is `{ "type": "remote", "url": …,
// "enabled": true, "headers": … }` (opencode.ai/docs/mcp-servers "Remote"), and `{env:NAME}` is
// substituted in config values (opencode.ai/docs/config "Variables").

import { bearerHeader, isRecord, jsonTarget, pathsFor, remoteFrom } from "./target";
import type { FileView, InstallEnvironment, Scope } from "../types";

const bearer = bearerHeader((name) => `{env:${name}}`);

function configDir(scope: Scope, environment: InstallEnvironment): string {
  const p = pathsFor(environment.platform);
  if (scope === "project") return environment.cwd;
  return p.join(environment.env.XDG_CONFIG_HOME || p.join(environment.home, ".config"), "opencode");
}

export const opencode = jsonTarget({
  id: "opencode",
  client: "OpenCode",
  keyPath: ["mcp", "codegraph"],
  root: ".",
  entry: (command, args) => ({ type: "local", enabled: true, command: [command, ...args] }),
  launchOf: (existing) => {
    if (!isRecord(existing) || !Array.isArray(existing.command) || existing.command.length === 0) return undefined;
    return { command: existing.command[0], args: existing.command.slice(1) };
  },
  remoteEntry: (remote) => ({ type: "remote", url: remote.url, enabled: true, ...bearer.headers(remote.tokenEnv) }),
  remoteOf: (existing) => (isRecord(existing) && existing.type === "remote" ? remoteFrom(existing, "url", bearer.tokenEnvOf) : undefined),
  newFileProperties: { $schema: "https://opencode.ai/config.json" },
  location(scope: Scope, environment: InstallEnvironment, files: FileView) {
    const p = pathsFor(environment.platform);
    const dir = configDir(scope, environment);
    // An existing opencode.jsonc is the file to edit; otherwise opencode.json.
    const jsonc = p.join(dir, "opencode.jsonc");
    return files.exists(jsonc) ? jsonc : p.join(dir, "opencode.json");
  },
  detect(scope, environment, files) {
    const p = pathsFor(environment.platform);
    if (scope === "user") return files.exists(configDir(scope, environment));
    const cwd = environment.cwd;
    return ["opencode.json", "opencode.jsonc", ".opencode"].some((name) => files.exists(p.join(cwd, name)));
  },
  nextStep: () => "OpenCode: restart it; `opencode mcp list` shows codegraph.",
});
