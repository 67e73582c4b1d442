// Codex (CLI, IDE extension and app share one config). Sources checked (docs corpus): MCP servers
// are `[mcp_servers.<name>]` tables in `~/.codex/config.toml`, or `.codex/config.toml` for a trusted
// project (developers.openai.com/codex MCP docs as quoted by mcpbundles.com/guides/codex and
// dev.to/vibeidedev "Codex MCP"); CODEX_HOME replaces ~/.codex and must already exist
// (developers.openai.com/codex/environment-variables). Windows: %USERPROFILE%\.codex\config.toml.
// `startup_timeout_ms` is still read (converted to `startup_timeout_sec`; the default is 10 s) by
// RawMcpServerConfig in openai/codex codex-rs/config/src/mcp_types.rs; 20 s leaves room for a
// cold first index. A shared server is `url` (Streamable HTTP) with `bearer_token_env_var` naming
// the variable that holds the token — Codex refuses an inline `bearer_token` (openai/codex PR 4317
// "streamable HTTP MCP servers"; newtalaria docs "Codex": "bearer_token_env_var"; docs.poix.io
// "Codex").

import { isCodegraphLaunch, launchArgs, launcherOf } from "../launcher";
import { parseToml, planTomlInstall, planTomlUninstall, renderBlock, tomlString, tomlStringArray, type TomlBlockSpec } from "../toml-block";
import type { FileView, InstallEnvironment, Launcher, Remote, Scope, Transport } from "../types";
import { pathsFor, type Connection, type Target, type TargetContext } from "./target";

function location(scope: Scope, environment: InstallEnvironment): string {
  const p = pathsFor(environment.platform);
  if (scope === "project") return p.join(environment.cwd, ".codex", "config.toml");
  return p.join(environment.env.CODEX_HOME || p.join(environment.home, ".codex"), "config.toml");
}

function body(launcher: Launcher, remote: Remote | null): string[] {
  if (remote) {
    return [
      "[mcp_servers.codegraph]",
      `url = ${tomlString(remote.url)}`,
      ...(remote.tokenEnv ? [`bearer_token_env_var = ${tomlString(remote.tokenEnv)}`] : []),
    ];
  }
  return [
    "[mcp_servers.codegraph]",
    `command = ${tomlString(launcher.command)}`,
    `args = ${tomlStringArray(launchArgs(launcher))}`,
    "startup_timeout_ms = 20000",
  ];
}

type Server = { command?: unknown; args?: unknown; url?: unknown; bearer_token_env_var?: unknown };

function serverIn(path: string, text: string): Server | undefined {
  try {
    return (parseToml(path, text).mcp_servers as Record<string, Server | undefined> | undefined)?.codegraph;
  } catch {
    return undefined;
  }
}

/** The shared server an entry points at, when it is one. */
function remoteOf(server: Server | undefined): Remote | undefined {
  if (typeof server?.url !== "string") return undefined;
  const token = server.bearer_token_env_var;
  return { url: server.url, tokenEnv: typeof token === "string" ? token : null };
}

function transportOf(server: Server | undefined): Transport | undefined {
  return remoteOf(server) ? "http" : server?.command !== undefined ? "stdio" : undefined;
}

/** Whether block lines are exactly what an install writes, for the launcher or URL they name. */
function ownsBody(path: string, lines: string[]): boolean {
  const server = serverIn(path, lines.join("\n"));
  const remote = remoteOf(server);
  let expected: string[];
  if (remote) expected = body(launcherOf("codegraph", []), remote);
  else if (server && isCodegraphLaunch(server.command, server.args))
    expected = body(launcherOf(server.command as string, server.args as string[]), null);
  else return false;
  return expected.length === lines.length && expected.every((line, i) => line === lines[i]);
}

function blockSpec(path: string, launcher: Launcher, remote: Remote | null): TomlBlockSpec {
  return {
    target: "codex",
    path,
    keyPath: ["mcp_servers", "codegraph"],
    uninstallHint: "codegraph uninstall --target codex",
    body: body(launcher, remote),
    ownsBody: (lines) => ownsBody(path, lines),
    transport: remote ? "http" : "stdio",
    transportOf: (lines) => transportOf(serverIn(path, lines.join("\n"))),
  };
}

function connection(scope: Scope, environment: InstallEnvironment, files: FileView): Connection | undefined {
  const path = location(scope, environment);
  const text = files.readFile(path);
  const server = text === undefined ? undefined : serverIn(path, text);
  const remote = remoteOf(server);
  if (remote) return { transport: "http", url: remote.url, tokenEnv: remote.tokenEnv };
  return server?.command !== undefined ? { transport: "stdio" } : undefined;
}

export const codex: Target = {
  id: "codex",
  client: "Codex",
  location,
  detect: (scope, environment, files) => files.exists(pathsFor(environment.platform).dirname(location(scope, environment))),
  install(ctx: TargetContext) {
    const path = location(ctx.scope, ctx.environment);
    return [planTomlInstall(blockSpec(path, ctx.launcher, ctx.remote), ctx.files.readFile(path), ctx.force)];
  },
  uninstall(ctx: TargetContext) {
    const path = location(ctx.scope, ctx.environment);
    return [planTomlUninstall(blockSpec(path, ctx.launcher, ctx.remote), ctx.files.readFile(path), ctx.force)];
  },
  snippet: (launcher, remote) => ({ format: "toml", text: renderBlock(blockSpec("config.toml", launcher, remote)) }),
  connection,
  nextStep: (scope) =>
    scope === "project"
      ? "Codex: start a new session in this project (Codex reads .codex/config.toml only for trusted projects); `/mcp` lists codegraph."
      : "Codex: start a new session; `/mcp` lists codegraph.",
};
