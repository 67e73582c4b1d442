// The CLI: the only module that touches argv and exit codes. Every command is a row of one table:
// the commands that ask the core one question (commands.ts: request from the arguments, answer
// printed for people or as exactly the API's JSON with --json), and the programs that live in their
// own modules (doctor, the MCP server, the installer), loaded only when asked for.
// Exit codes: 0 success, 1 not found (or nothing matched), 2 bad usage.

import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { openSession, packageVersion } from "../index";
import { API_COMMANDS, FAMILIES, UsageError, type ApiCommand, type CommandInfo, type Values } from "./commands";
import { DOCTOR_USAGE, INSTALL_USAGE, MCP_USAGE, PRINT_CONFIG_USAGE, UNINSTALL_USAGE } from "./usage";

export { parsePosition } from "./commands";

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Set when stderr is a terminal: long builds report progress through it (a line to redraw in
   *  place, or "" to clear it). */
  progress?: (line: string) => void;
}

/** A command with a module of its own; resolves to an exit code (undefined: a server keeps running). */
interface ProgramCommand extends CommandInfo {
  kind: "program";
  run(argv: string[], io: Io): Promise<number | undefined> | number;
}

// Each program is loaded only when it runs: the fast commands never pay for the MCP SDK or the installer.
const PROGRAMS: Record<string, ProgramCommand> = {
  mcp: {
    kind: "program",
    family: "serve",
    synopsis: "serve",
    usage: MCP_USAGE,
    summary: "serve the tools over MCP (stdio by default; Streamable HTTP at http://127.0.0.1:7331/mcp with --port)",
    run: (argv) => (require("./mcp") as typeof import("./mcp")).runMcp(argv),
  },
  install: {
    kind: "program",
    family: "manage",
    synopsis: "--target T[,T...] | --all | --detect",
    usage: `${INSTALL_USAGE}\n       codegraph ${PRINT_CONFIG_USAGE}`,
    summary: `wire the MCP server into agent clients (codex, claude, cursor, gemini, opencode, agents); asks first. \`${PRINT_CONFIG_USAGE}\` prints one client's snippet and touches nothing`,
    run: (argv, io) => (require("./install") as typeof import("./install")).runInstall(argv, io),
  },
  uninstall: {
    kind: "program",
    family: "manage",
    synopsis: "--target T[,T...] | --all | --detect",
    usage: UNINSTALL_USAGE,
    summary: "remove exactly what install added",
    run: (argv, io) => (require("./install") as typeof import("./install")).runUninstall(argv, io),
  },
  doctor: {
    kind: "program",
    family: "manage",
    synopsis: "",
    usage: DOCTOR_USAGE,
    summary: "installation, engine and native binary origin, update state, index and configured clients",
    run: (argv, io) => (require("./doctor") as typeof import("./doctor")).runDoctor(argv, io),
  },
  uninit: {
    kind: "program",
    family: "manage",
    synopsis: "--force",
    usage: "uninit --force [--root DIR] [--json]",
    summary: "delete the persisted index (.codegraph/); touches nothing else",
    run: uninit,
  },
};

const COMMANDS: Record<string, ApiCommand | ProgramCommand> = { ...API_COMMANDS, ...PROGRAMS };

const GLOBAL_OPTIONS = {
  root: { type: "string" },
  json: { type: "boolean" },
  engine: { type: "string" },
  include: { type: "string", multiple: true },
  ignore: { type: "string", multiple: true },
  "no-gitignore": { type: "boolean" },
  "max-file-bytes": { type: "string" },
  "no-persist": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** `codegraph uninit --force`: removes the persisted index folder; touches nothing else. */
function uninit(rest: string[], io: Io): number {
  let values: Values;
  try {
    values = parseArgs({
      args: rest,
      options: { root: { type: "string" }, force: { type: "boolean" }, json: { type: "boolean" } },
      strict: true,
    }).values as Values;
  } catch (e) {
    io.err(`codegraph uninit: ${(e as Error).message}; usage: codegraph ${PROGRAMS.uninit!.usage}`);
    return 2;
  }
  const dir = path.join(path.resolve((values.root as string | undefined) ?? "."), ".codegraph");
  if (!values.force) {
    io.err(`codegraph uninit: this deletes ${dir}; run again with --force`);
    return 2;
  }
  const existed = fs.existsSync(dir);
  fs.rmSync(dir, { recursive: true, force: true });
  const answer = { removed: existed, path: dir };
  io.out(values.json ? JSON.stringify(answer, null, 2) : existed ? `removed ${dir}` : `nothing to remove at ${dir}`);
  return 0;
}

/** `text` broken into lines of at most `width` characters (words are never split). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** The help: commands by family, each with its arguments and a summary wrapped for 80 columns. */
export function helpText(): string {
  const WIDTH = 80;
  const NAME = 26;
  const lines = [
    `codegraph ${packageVersion()} — code intelligence for coding agents`,
    "",
    "usage: codegraph <command> [arguments] [--root DIR] [--json]",
  ];
  for (const family of FAMILIES) {
    lines.push("", `${family}:`);
    for (const [name, c] of Object.entries(COMMANDS).filter(([, c]) => c.family === family)) {
      const head = `  ${name}${c.synopsis ? ` ${c.synopsis}` : ""}`;
      const summary = wrap(c.summary, WIDTH - NAME - 2);
      if (head.length > NAME) lines.push(head, ...summary.map((s) => `${" ".repeat(NAME + 2)}${s}`));
      else lines.push(`${head.padEnd(NAME + 2)}${summary[0] ?? ""}`, ...summary.slice(1).map((s) => `${" ".repeat(NAME + 2)}${s}`));
    }
  }
  lines.push(
    "",
    "options for every command:",
    "  --root DIR            repository root (default: current directory)",
    "  --json                print exactly the API's JSON answer",
    "  --engine native|wasm  force an engine (default: native, falling back to wasm)",
    "  --include PATTERN     only index matching files (a glob with * ? [, else a",
    "                        regex); repeatable",
    "  --ignore PATTERN      skip matching files; repeatable",
    "  --no-gitignore        don't read .gitignore / .codegraphignore",
    "  --max-file-bytes N    skip files larger than N bytes (default 1048576)",
    "  --no-persist          don't read or write the index in <root>/.codegraph/",
    "",
    "`codegraph <command> --help` prints a command's usage and flags.",
    "positions are PATH:LINE[:COLUMN] (1-based); symbols are handles like",
    "src/geo.rs::Circle::area.",
    "exit codes: 0 success, 1 not found, 2 bad usage.",
  );
  return lines.join("\n");
}

/** Progress of a build as redrawn lines: silent for the first half second (a warm start never shows
 *  it), then at most ten lines a second with files done/total and the rate, cleared at the end. */
export function progressReporter(show: (line: string) => void, now: () => number = Date.now) {
  const start = now();
  let last = 0;
  let shown = false;
  return {
    report(phase: "parse" | "resolve", done: number, total: number): void {
      const t = now();
      if (t - start < 500 || (phase === "parse" && t - last < 100 && done < total)) return;
      last = t;
      shown = true;
      const rate = done / Math.max((t - start) / 1000, 0.001);
      show(
        phase === "parse"
          ? `indexing: ${done}/${total} files parsed (${Math.round(rate)} files/s)`
          : `indexing: resolving references across ${total} files`,
      );
    },
    finish(): void {
      if (shown) show("");
    },
  };
}

/** Asks the core one question and prints the answer; returns the exit code. */
function runApiCommand(name: string, command: ApiCommand, rest: string[], io: Io): number {
  let values: Values;
  let positionals: string[];
  try {
    const parsed = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true, strict: true });
    values = parsed.values as Values;
    positionals = parsed.positionals;
  } catch (e) {
    io.err(`codegraph ${name}: ${(e as Error).message.replace(/\s*\n\s*/g, " ")}; usage: codegraph ${command.usage}`);
    return command.errorExit ?? 2;
  }
  if (values.help) {
    io.out(`usage: codegraph ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  const json = Boolean(values.json);
  try {
    const engine = values.engine as string | undefined;
    if (engine !== undefined && engine !== "native" && engine !== "wasm") {
      throw new UsageError(`--engine must be native or wasm (got ${JSON.stringify(engine)})`);
    }
    const raw = values["max-file-bytes"];
    const maxFileBytes = raw === undefined ? null : Number(raw);
    if (maxFileBytes !== null && (!Number.isInteger(maxFileBytes) || maxFileBytes < 0)) {
      throw new UsageError(`--max-file-bytes needs a whole number (got ${JSON.stringify(raw)})`);
    }
    const session = openSession({
      root: (values.root as string | undefined) ?? ".",
      engine: engine as "native" | "wasm" | undefined,
      include: (values.include as string[] | undefined) ?? [],
      ignore: (values.ignore as string[] | undefined) ?? [],
      noGitignore: Boolean(values["no-gitignore"]),
      maxFileBytes,
      persist: !values["no-persist"],
      ...command.session?.(values),
    });
    if (io.progress && !json && name !== "file") {
      const progress = progressReporter(io.progress);
      try {
        session.prepare(progress.report);
      } finally {
        progress.finish();
      }
    }
    const { answer, text, exit } = command.ask(session, positionals, values);
    io.out(json ? JSON.stringify(answer, null, 2) : text());
    // A damaged snapshot rebuilt, an index that could not be written: said once, beside the answer.
    for (const note of session.takeNotes()) io.err(`codegraph ${name}: note: ${note}`);
    return exit;
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err instanceof UsageError) {
      io.err(`codegraph ${name}: ${err.message}; usage: codegraph ${command.usage}`);
      return command.errorExit ?? 2;
    }
    io.err(`codegraph ${name}: ${err.message}`);
    return command.errorExit ?? (err.code === "INVALID_ARGUMENT" || err.code === "OUTSIDE_ROOT" ? 2 : 1);
  }
}

/** Runs the CLI; resolves to the exit code (undefined while a server keeps running). */
export async function run(argv: string[], io: Io): Promise<number | undefined> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(helpText());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    io.out(packageVersion());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`codegraph: unknown command ${JSON.stringify(name)}; run \`codegraph --help\` for the list`);
    return 2;
  }
  return command.kind === "api" ? runApiCommand(name, command, rest, io) : command.run(rest, io);
}

export function main(argv: string[]): void {
  // `codegraph … | head`: a reader that stops early is not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  const line = (stream: NodeJS.WriteStream) => (t: string) => stream.write(t.endsWith("\n") ? t : `${t}\n`);
  run(argv, {
    out: line(process.stdout),
    err: line(process.stderr),
    progress: process.stderr.isTTY ? (l) => process.stderr.write(`\r\x1b[2K${l}`) : undefined,
  }).then(
    (code) => {
      if (code !== undefined) exitWhenWritten(code);
    },
    (e: Error) => {
      process.stderr.write(`codegraph ${argv[0]}: ${e.message}\n`);
      exitWhenWritten(1);
    },
  );
}

/** Ends a finished command once what it wrote has reached stdout and stderr. Exiting, rather than
 *  letting the process wind down, skips freeing the session's index at teardown (a tenth of a
 *  second on a 2,000-file repository) — memory the system takes back anyway. */
function exitWhenWritten(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}
