// How an agent client starts the codegraph MCP server: which command, with which arguments, and
// whether an entry found in a config file is one of ours (the same shape with any launcher path).

import * as path from "node:path";

import type { InstallEnvironment, Launcher } from "./types";

/** The server's arguments after the launcher; `root` is what the client passes as the repository. */
export function serverArgs(root = "."): string[] {
  return ["mcp", "serve", "--root", root, "--stdio"];
}

/** The full argument list a client passes to `launcher.command`. */
export function launchArgs(launcher: Launcher, root = "."): string[] {
  return [...launcher.prefixArgs, ...serverArgs(root)];
}

/**
 * Picks the command clients run. GUI clients often start with a narrower PATH than the shell that
 * ran the installer, so an absolute path is used whenever the running executable is known. A script
 * (`codegraph.js`, as on Windows or with `node bin/codegraph.js`) is started through node by
 * absolute path: Windows clients cannot run npm's `.cmd` shims without a shell.
 */
export function resolveLauncher(environment: InstallEnvironment): Launcher {
  const exe = environment.executablePath;
  if (!exe) {
    return {
      command: "codegraph",
      prefixArgs: [],
      note: "`codegraph` from the client's PATH: the running executable is unknown, so codegraph must be on the PATH the client starts with",
    };
  }
  if (/[\\/]_npx[\\/]/.test(exe)) {
    return {
      command: "codegraph",
      prefixArgs: [],
      note: "`codegraph` from the client's PATH: this codegraph runs from npx's temporary cache, whose path would not last; install it with `npm install -g codegraph`",
    };
  }
  if (/\.[cm]?js$/i.test(exe)) {
    return {
      command: environment.nodePath || "node",
      prefixArgs: [exe],
      note: "node and the codegraph script by absolute path, so a client started with a narrower PATH needs neither on it",
    };
  }
  return {
    command: exe,
    prefixArgs: [],
    note: "the absolute path of this codegraph, so a client started with a narrower PATH still finds it (its `#!/usr/bin/env node` line still needs node on that PATH)",
  };
}

/** Basename for both separators, whatever platform plans run on. */
function baseName(p: string): string {
  return path.win32.basename(p);
}

/**
 * Whether `command` + `args` is a codegraph server launch with the given root, by any launcher
 * path: `codegraph[.cmd|.exe]` directly, or node with a `codegraph[.js]` script. Entries like this
 * are the installer's own even when an earlier install recorded a different path.
 */
export function isCodegraphLaunch(command: unknown, args: unknown, root = "."): boolean {
  if (typeof command !== "string" || !Array.isArray(args) || !args.every((a) => typeof a === "string")) return false;
  const tail = serverArgs(root);
  if (args.length < tail.length) return false;
  const prefix = args.slice(0, args.length - tail.length);
  if (args.slice(prefix.length).some((a, i) => a !== tail[i])) return false;
  if (prefix.length === 0) return /^codegraph(\.cmd|\.exe|\.ps1)?$/i.test(baseName(command));
  if (prefix.length === 1) return /^node(\.exe)?$/i.test(baseName(command)) && /^codegraph(\.[cm]?js)?$/i.test(baseName(prefix[0]!));
  return false;
}

/** The launcher recorded in an entry's command + args (for comparing an old entry with a new one). */
export function launcherOf(command: string, args: string[], root = "."): Launcher {
  return { command, prefixArgs: args.slice(0, args.length - serverArgs(root).length), note: "" };
}
