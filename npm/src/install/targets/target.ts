// What every target module provides, and the shared shape of the four JSON targets (claude,
// cursor, gemini, opencode): one owned server entry in one JSON file per scope.

import * as path from "node:path";

import { deepEqual, newJsonFile, planJsonInstall, planJsonUninstall, type JsonEntrySpec } from "../json-config";
import { isCodegraphLaunch, launchArgs, launcherOf } from "../launcher";
import type { FileView, InstallEnvironment, Launcher, PlannedEdit, Scope, TargetId } from "../types";

/** Everything a target plans from. */
export interface TargetContext {
  scope: Scope;
  environment: InstallEnvironment;
  files: FileView;
  launcher: Launcher;
  force: boolean;
}

/** A config snippet as `--print-config` prints it. */
export interface Snippet {
  format: "json" | "toml" | "markdown";
  text: string;
}

export interface Target {
  id: TargetId;
  /** The client's name for people. */
  client: string;
  /** The file the target edits (agents: its skill folder) for a scope. */
  location(scope: Scope, environment: InstallEnvironment, files: FileView): string;
  /** Whether the client looks present for the scope: its config directory exists. */
  detect(scope: Scope, environment: InstallEnvironment, files: FileView): boolean;
  install(ctx: TargetContext): PlannedEdit[];
  uninstall(ctx: TargetContext): PlannedEdit[];
  snippet(launcher: Launcher): Snippet;
  /** What to do after installing, for people. */
  nextStep(scope: Scope): string;
}

/** Path functions of the platform the plan is for (plans for Windows can be computed anywhere). */
export function pathsFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === "win32" ? path.win32 : path.posix;
}

/** The launch a JSON entry records, for recognising the installer's own entries. */
/** The directory a scope's config lives under: the project (working directory) or the user's home. */
export function scopeDir(scope: Scope, environment: InstallEnvironment): string {
  return scope === "project" ? environment.cwd : environment.home;
}

/** `location` and `detect` of a client whose config is `<project or home>/<dir>/<file>` and which is
 *  present when `<dir>` exists there. */
export function inClientDir(dir: string, file: string): Pick<JsonTargetOptions, "location" | "detect"> {
  return {
    location: (scope, environment) => pathsFor(environment.platform).join(scopeDir(scope, environment), dir, file),
    detect: (scope, environment, files) => files.exists(pathsFor(environment.platform).join(scopeDir(scope, environment), dir)),
  };
}

export interface RecordedLaunch {
  command: unknown;
  args: unknown;
}

export interface JsonTargetOptions {
  id: TargetId;
  client: string;
  keyPath: string[];
  /** The `--root` value the client passes (cursor: `${workspaceFolder}`). */
  root: string;
  entry(command: string, args: string[]): Record<string, unknown>;
  /** The command and args in an entry of this target's shape, if it has them. */
  launchOf(existing: unknown): RecordedLaunch | undefined;
  newFileProperties?: Record<string, unknown>;
  location(scope: Scope, environment: InstallEnvironment, files: FileView): string;
  detect(scope: Scope, environment: InstallEnvironment, files: FileView): boolean;
  nextStep(scope: Scope): string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function jsonTarget(o: JsonTargetOptions): Target {
  const entryFor = (launcher: Launcher) => o.entry(launcher.command, launchArgs(launcher, o.root));
  // An entry is the installer's when it has exactly the shape the installer writes, for some
  // codegraph launcher (an earlier install may have recorded another path).
  const isOwned = (existing: unknown): boolean => {
    const launch = o.launchOf(existing);
    if (!launch || !isCodegraphLaunch(launch.command, launch.args, o.root)) return false;
    return deepEqual(existing, entryFor(launcherOf(launch.command as string, launch.args as string[], o.root)));
  };
  const spec = (ctx: TargetContext): JsonEntrySpec => ({
    target: o.id,
    path: o.location(ctx.scope, ctx.environment, ctx.files),
    keyPath: o.keyPath,
    entry: entryFor(ctx.launcher),
    isOwned,
    newFileProperties: o.newFileProperties,
  });
  return {
    id: o.id,
    client: o.client,
    location: o.location,
    detect: o.detect,
    nextStep: o.nextStep,
    install: (ctx) => {
      const s = spec(ctx);
      return [planJsonInstall(s, ctx.files.readFile(s.path), ctx.force)];
    },
    uninstall: (ctx) => {
      const s = spec(ctx);
      return [planJsonUninstall(s, ctx.files.readFile(s.path), ctx.force)];
    },
    snippet: (launcher) => ({ format: "json", text: newJsonFile(o.keyPath, entryFor(launcher), o.newFileProperties) }),
  };
}

/** `command` + `args` of a `{ command, args }` entry (Claude Code, Cursor, Gemini CLI). */
export function commandArgsOf(existing: unknown): RecordedLaunch | undefined {
  return isRecord(existing) ? { command: existing.command, args: existing.args } : undefined;
}
