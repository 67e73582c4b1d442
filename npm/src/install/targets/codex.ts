// Codex (CLI, IDE extension and app share one config). Sources checked (docs corpus): MCP servers
// are `[mcp_servers.<name>]` tables in `~/.codex/config.toml`, or `.codex/config.toml` for a trusted
// project (developers.openai.com/codex MCP docs as quoted by mcpbundles.com/guides/codex and
// dev.to/vibeidedev "Codex MCP"); CODEX_HOME replaces ~/.codex and must already exist
// (developers.openai.com/codex/environment-variables). Windows: %USERPROFILE%\.codex\config.toml.
// `startup_timeout_ms` is still read (converted to `startup_timeout_sec`; the default is 10 s) by
// RawMcpServerConfig in openai/codex codex-rs/config/src/mcp_types.rs; 20 s leaves room for a
// cold first index.

import { isCodegraphLaunch, launchArgs, launcherOf } from "../launcher";
import { parseToml, planTomlInstall, planTomlUninstall, renderBlock, tomlString, tomlStringArray, type TomlBlockSpec } from "../toml-block";
import type { InstallEnvironment, Launcher, Scope } from "../types";
import { pathsFor, type Target, type TargetContext } from "./target";

function location(scope: Scope, environment: InstallEnvironment): string {
  const p = pathsFor(environment.platform);
  if (scope === "project") return p.join(environment.cwd, ".codex", "config.toml");
  return p.join(environment.env.CODEX_HOME || p.join(environment.home, ".codex"), "config.toml");
}

function body(launcher: Launcher): string[] {
  return [
    "[mcp_servers.codegraph]",
    `command = ${tomlString(launcher.command)}`,
    `args = ${tomlStringArray(launchArgs(launcher))}`,
    "startup_timeout_ms = 20000",
  ];
}

/** Whether block lines are exactly what an install writes, for the launcher they name. */
function ownsBody(path: string, lines: string[]): boolean {
  let server: { command?: unknown; args?: unknown } | undefined;
  try {
    server = (parseToml(path, lines.join("\n")).mcp_servers as Record<string, typeof server> | undefined)?.codegraph;
  } catch {
    return false;
  }
  if (!server || !isCodegraphLaunch(server.command, server.args)) return false;
  const expected = body(launcherOf(server.command as string, server.args as string[]));
  return expected.length === lines.length && expected.every((line, i) => line === lines[i]);
}

function blockSpec(path: string, launcher: Launcher): TomlBlockSpec {
  return {
    target: "codex",
    path,
    keyPath: ["mcp_servers", "codegraph"],
    uninstallHint: "codegraph uninstall --target codex",
    body: body(launcher),
    ownsBody: (lines) => ownsBody(path, lines),
  };
}

export const codex: Target = {
  id: "codex",
  client: "Codex",
  location,
  detect: (scope, environment, files) => files.exists(pathsFor(environment.platform).dirname(location(scope, environment))),
  install(ctx: TargetContext) {
    const path = location(ctx.scope, ctx.environment);
    return [planTomlInstall(blockSpec(path, ctx.launcher), ctx.files.readFile(path), ctx.force)];
  },
  uninstall(ctx: TargetContext) {
    const path = location(ctx.scope, ctx.environment);
    return [planTomlUninstall(blockSpec(path, ctx.launcher), ctx.files.readFile(path), ctx.force)];
  },
  snippet: (launcher) => ({ format: "toml", text: renderBlock(blockSpec("config.toml", launcher)) }),
  nextStep: (scope) =>
    scope === "project"
      ? "Codex: start a new session in this project (Codex reads .codex/config.toml only for trusted projects); `/mcp` lists codegraph."
      : "Codex: start a new session; `/mcp` lists codegraph.",
};
