// The installer's vocabulary: targets, scopes, the environment a plan is computed from, the file
// view it reads through, and the planned edits that apply.ts carries out. Nothing here does I/O.

/** Every client the installer knows, in the order plans list them. */
export const TARGET_IDS = ["codex", "claude", "cursor", "gemini", "opencode", "agents"] as const;

export type TargetId = (typeof TARGET_IDS)[number];

/** `user`: the client's per-user config; `project`: the config inside the current directory. */
export type Scope = "user" | "project";

/** Everything a plan depends on besides file contents, passed in explicitly (tests use a temporary HOME). */
export interface InstallEnvironment {
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  /** Absolute path of the running codegraph executable (or its script), when known. */
  executablePath: string | null;
  /** Absolute path of the node binary, used when `executablePath` is a script rather than an executable. */
  nodePath?: string | null;
}

/** The read-only view of the file system a plan is computed from. */
export interface FileView {
  /** The file's text, or undefined when it does not exist. */
  readFile(path: string): string | undefined;
  /** Whether a file or directory exists at the path. */
  exists(path: string): boolean;
}

export type EditKind = "create" | "modify" | "remove" | "unchanged" | "collision";

/** One file the installer would create, change or delete (or leaves alone, with the reason). */
export interface PlannedEdit {
  target: TargetId;
  path: string;
  kind: EditKind;
  /** The file's text when planned (null: absent). apply.ts refuses to write when it changed since. */
  before: string | null;
  /** The text to write (null: delete the file, or nothing to write for unchanged/collision). */
  after: string | null;
  /** For a removal: what to write instead when the path is a symbolic link (the link and its
   *  target are kept, the target loses codegraph's entry). Without it the link itself is removed. */
  ifKept?: string;
  /** One line for people: what changes, or why nothing does. */
  description: string;
  /** The owned part being added or removed, shown under the plan line (a JSON entry, a TOML block, a file name). */
  preview?: string;
  /** Keep a copy of the old file first: true when the file holds content the installer doesn't own. */
  backup: boolean;
  /** Directories the installer owns and removes after this edit when they are left empty. */
  pruneDirs?: string[];
}

/** How a client starts the server: the command, the arguments before `mcp serve …` (a script path
 * when the command is node), and a sentence saying why this command. */
export interface Launcher {
  command: string;
  prefixArgs: string[];
  note: string;
}

/** One shared server the clients connect to instead of starting their own (`--url`): one
 * `codegraph mcp serve --root R --port P --warmup` per repository, every client pointed at it. */
export interface Remote {
  url: string;
  /** The environment variable that holds the bearer token: configs reference it (each client's
   * own expansion syntax) and never hold the token itself. */
  tokenEnv: string | null;
}

/** How an entry reaches the server. */
export type Transport = "stdio" | "http";

function transportName(t: Transport): string {
  return t === "http" ? "shared-server (URL)" : "stdio";
}

/** Replacing one of the installer's entries by one of the other transport: a collision without
 * --force (undefined when nothing switches). */
export function transportSwitch(
  base: Pick<PlannedEdit, "target" | "path" | "before">,
  label: string,
  was: Transport | undefined,
  now: Transport | undefined,
  force: boolean,
): PlannedEdit | undefined {
  if (force || !was || !now || was === now) return undefined;
  return leftAlone(
    base,
    "collision",
    `${label} is codegraph's ${transportName(was)} entry; switching it to ${transportName(now)} is left to --force (which keeps a backup)`,
  );
}

/** A plan: the launcher (or the shared server) every entry uses and the edits, in target order. */
export interface Plan {
  action: "install" | "uninstall";
  scope: Scope;
  launcher: Launcher;
  remote: Remote | null;
  edits: PlannedEdit[];
}

/** A config the installer cannot plan around (malformed, wrong shape): nothing is written. */
export class InstallError extends Error {
  constructor(
    message: string,
    readonly code: "MALFORMED_CONFIG" | "UNSUPPORTED_CONFIG" | "INVALID_ARGUMENT",
    readonly path?: string,
  ) {
    super(message);
    this.name = "InstallError";
  }
}

/** An edit that writes nothing: the file is fine as it is (`unchanged`), or holds a codegraph entry the
 *  installer doesn't own (`collision`); the description says which. */
export function leftAlone(
  base: Pick<PlannedEdit, "target" | "path" | "before"> & { preview?: string },
  kind: "unchanged" | "collision",
  description: string,
): PlannedEdit {
  return { ...base, kind, after: null, description, backup: false };
}
