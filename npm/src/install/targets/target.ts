// What every target module provides, and the shared shape of the four JSON targets (claude,
// cursor, gemini, opencode): one owned server entry in one JSON file per scope.

import * as path from "node:path";

import { deepEqual, entryAt, newJsonFile, planJsonInstall, planJsonUninstall, type JsonEntrySpec } from "../json-config";
import { isCodegraphLaunch, launchArgs, launcherOf } from "../launcher";
import type { FileView, InstallEnvironment, Launcher, PlannedEdit, Remote, Scope, TargetId, Transport } from "../types";

/** Everything a target plans from. */
export interface TargetContext {
  scope: Scope;
  environment: InstallEnvironment;
  files: FileView;
  launcher: Launcher;
  /** Set: entries point at this shared server instead of starting one (`--url`). */
  remote: Remote | null;
  force: boolean;
}

/** What a client's codegraph entry connects to, as `codegraph doctor` reports it. */
export interface Connection {
  transport: Transport;
  /** For an http entry: the server's URL, and the variable its token comes from. */
  url?: string;
  tokenEnv?: string | null;
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
  snippet(launcher: Launcher, remote: Remote | null): Snippet;
  /** The connection of the codegraph entry in this scope's config, if there is one (no config
   *  connection for the agents skill). */
  connection(scope: Scope, environment: InstallEnvironment, files: FileView): Connection | undefined;
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
  /** The entry for a shared server, in the client's own remote form. */
  remoteEntry(remote: Remote): Record<string, unknown>;
  /** The shared server an entry of this target's remote form points at, if it is one. */
  remoteOf(existing: unknown): Remote | undefined;
  newFileProperties?: Record<string, unknown>;
  location(scope: Scope, environment: InstallEnvironment, files: FileView): string;
  detect(scope: Scope, environment: InstallEnvironment, files: FileView): boolean;
  nextStep(scope: Scope): string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function jsonTarget(o: JsonTargetOptions): Target {
  const entryFor = (launcher: Launcher, remote: Remote | null) =>
    remote ? o.remoteEntry(remote) : o.entry(launcher.command, launchArgs(launcher, o.root));
  const transportOf = (existing: unknown): Transport | undefined =>
    o.remoteOf(existing) ? "http" : o.launchOf(existing) ? "stdio" : undefined;
  // An entry is the installer's when it has exactly the shape the installer writes: for some
  // codegraph launcher (an earlier install may have recorded another path), or for some URL.
  const isOwned = (existing: unknown): boolean => {
    const remote = o.remoteOf(existing);
    if (remote) return deepEqual(existing, o.remoteEntry(remote));
    const launch = o.launchOf(existing);
    if (!launch || !isCodegraphLaunch(launch.command, launch.args, o.root)) return false;
    return deepEqual(existing, entryFor(launcherOf(launch.command as string, launch.args as string[], o.root), null));
  };
  const spec = (ctx: TargetContext): JsonEntrySpec => ({
    target: o.id,
    path: o.location(ctx.scope, ctx.environment, ctx.files),
    keyPath: o.keyPath,
    entry: entryFor(ctx.launcher, ctx.remote),
    isOwned,
    transport: ctx.remote ? "http" : "stdio",
    transportOf,
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
    snippet: (launcher, remote) => ({ format: "json", text: newJsonFile(o.keyPath, entryFor(launcher, remote), o.newFileProperties) }),
    connection(scope, environment, files) {
      const file = o.location(scope, environment, files);
      const text = files.readFile(file);
      if (text === undefined) return undefined;
      const existing = entryAt(file, text, o.keyPath);
      const remote = o.remoteOf(existing);
      if (remote) return { transport: "http", url: remote.url, tokenEnv: remote.tokenEnv };
      return o.launchOf(existing) ? { transport: "stdio" } : undefined;
    },
  };
}

/** An `Authorization: Bearer …` header referencing an environment variable in a client's own
 *  expansion syntax (`${NAME}`, `${env:NAME}`, `{env:NAME}`), and reading the name back. */
export function bearerHeader(reference: (name: string) => string) {
  const [before, after] = reference("\u0000").split("\u0000") as [string, string];
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`^Bearer ${escape(before)}([A-Za-z_][A-Za-z0-9_]*)${escape(after)}$`);
  return {
    headers: (tokenEnv: string | null): Record<string, unknown> =>
      tokenEnv ? { headers: { Authorization: `Bearer ${reference(tokenEnv)}` } } : {},
    /** The variable a `headers` value references; null without headers; undefined when they are
     *  not the installer's. */
    tokenEnvOf(headers: unknown): string | null | undefined {
      if (headers === undefined) return null;
      if (!isRecord(headers) || typeof headers.Authorization !== "string") return undefined;
      return pattern.exec(headers.Authorization)?.[1];
    },
  };
}

/** A `{ …, url, headers? }` remote entry's server, when its url is a string and its headers are the installer's. */
export function remoteFrom(
  existing: unknown,
  urlKey: string,
  tokenEnvOf: (headers: unknown) => string | null | undefined,
): Remote | undefined {
  if (!isRecord(existing) || typeof existing[urlKey] !== "string") return undefined;
  const tokenEnv = tokenEnvOf(existing.headers);
  return tokenEnv === undefined ? undefined : { url: existing[urlKey] as string, tokenEnv };
}

/** `command` + `args` of a `{ command, args }` entry (Claude Code, Cursor, Gemini CLI). */
export function commandArgsOf(existing: unknown): RecordedLaunch | undefined {
  return isRecord(existing) ? { command: existing.command, args: existing.args } : undefined;
}
