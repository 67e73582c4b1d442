// The CLI: the only module that touches argv and exit codes. Each command turns its arguments into
// one core request, prints the answer for people (default) or exactly the API's JSON (--json).
// Exit codes: 0 success, 1 the target was not found (or nothing matched), 2 bad usage.

import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { openSession, packageVersion, type Session } from "../index";
import type * as T from "../generated/types";
import { formatters } from "./format";
import { DOCTOR_USAGE, INSTALL_USAGE, MCP_USAGE, PRINT_CONFIG_USAGE, UNINSTALL_USAGE } from "./usage";

/** A usage error: printed as one line, exit code 2. */
export class UsageError extends Error {}

/** Thrown when the answer is empty: the result is printed, exit code 1. */
class NotFound extends Error {}

interface Command {
  usage: string;
  summary: string;
  options?: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }>;
  run(session: Session, args: string[], values: Values): unknown;
}

type Values = Record<string, string | boolean | string[] | undefined>;

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

function int(values: Values, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} needs a whole number (got ${JSON.stringify(raw)})`);
  return n;
}

function need(args: string[], count: number, what: string): string[] {
  if (args.length < count) throw new UsageError(`missing ${what}`);
  return args;
}

/** `path:line[:column]` → parts; undefined when the text is not a position. */
export function parsePosition(text: string): { file: string; line: number; column?: number } | undefined {
  const m = /^(.+?):(\d+)(?::(\d+))?$/.exec(text);
  if (!m || m[1].includes("::")) return undefined;
  return { file: m[1], line: Number(m[2]), column: m[3] === undefined ? undefined : Number(m[3]) };
}

function position(text: string): { file: string; line: number; column?: number } {
  const pos = parsePosition(text);
  if (!pos) throw new UsageError(`expected a position path:line[:column], got ${JSON.stringify(text)}`);
  return pos;
}

const COMMANDS: Record<string, Command> = {
  orient: {
    usage: "orient [--limit N]",
    summary: "compact map of the repository: languages, layout, entry points, most depended-on files",
    options: { limit: { type: "string" } },
    run: (s, _a, v) => s.orient({ limit: int(v, "limit") }),
  },
  explore: {
    usage: "explore QUESTION... [--limit N] [--packets N] [--list-limit N] [--source|--no-source]",
    summary: "the first question in words: ranked anchors with evidence, paths, blast radius, tests, next calls",
    options: {
      limit: { type: "string" },
      packets: { type: "string" },
      "list-limit": { type: "string" },
      source: { type: "boolean" },
      "no-source": { type: "boolean" },
    },
    run: (s, a, v) => {
      const r = s.explore({
        query: need(a, 1, "QUESTION").join(" "),
        limit: int(v, "limit"),
        packets: int(v, "packets"),
        listLimit: int(v, "list-limit"),
        includeSource: v.source ? true : v["no-source"] ? false : null,
      });
      if (r.anchors.length === 0 && !r.fileView) throw new NotFound(JSON.stringify(r));
      return r;
    },
  },
  packet: {
    usage: "packet TARGET [--limit N] [--no-source]",
    summary: "a bounded evidence packet for a handle, file path or declaration name",
    options: { limit: { type: "string" }, "no-source": { type: "boolean" } },
    run: (s, a, v) => s.packetGet({ target: need(a, 1, "TARGET").join(" "), limit: int(v, "limit"), includeSource: !v["no-source"] }),
  },
  context: {
    usage: "context [PATH...] [--budget 32k] [--symbol NAME]... [--diff SPEC] [--compress MODE] [--markdown] [--profile NAME] [--list-profiles]",
    summary: "pack files (or declarations) under a token budget for a model, changed files first",
    options: {
      budget: { type: "string" },
      symbol: { type: "string", multiple: true },
      diff: { type: "string" },
      compress: { type: "string" },
      markdown: { type: "boolean" },
      format: { type: "string" },
      profile: { type: "string" },
      "list-profiles": { type: "boolean" },
    },
    run: (s, a, v) => {
      const budget = v.budget as string | undefined;
      return s.context({
        focus: a,
        focusSymbol: (v.symbol as string[] | undefined) ?? [],
        budget: budget === undefined ? null : /^\d+$/.test(budget) ? Number(budget) : budget,
        diff: (v.diff as string | undefined) ?? null,
        compress: (v.compress as string | undefined) ?? null,
        format: v.markdown ? "markdown" : ((v.format as string | undefined) ?? null),
        profile: (v.profile as string | undefined) ?? null,
        listProfiles: Boolean(v["list-profiles"]),
      });
    },
  },
  search: {
    usage: "search QUERY... [--limit N]",
    summary: "ranked search over paths, declarations and their code, for words or identifiers",
    options: { limit: { type: "string" } },
    run: (s, a, v) => {
      const r = s.search({ query: need(a, 1, "QUERY").join(" "), limit: int(v, "limit") });
      if (r.hits.length === 0) throw new NotFound(JSON.stringify(r));
      return r;
    },
  },
  symbols: {
    usage: "symbols QUERY [--kind K]... [--exported] [--imports] [--file-glob G] [--limit N]",
    summary: "find declarations by name, qualified name or handle",
    options: {
      kind: { type: "string", multiple: true },
      exported: { type: "boolean" },
      imports: { type: "boolean" },
      "file-glob": { type: "string" },
      limit: { type: "string" },
    },
    run: (s, a, v) => {
      const r = s.workspaceSymbols({
        query: need(a, 1, "QUERY").join(" "),
        kinds: (v.kind as string[] | undefined) ?? [],
        exportedOnly: Boolean(v.exported),
        includeImports: Boolean(v.imports),
        fileGlob: (v["file-glob"] as string | undefined) ?? null,
        limit: int(v, "limit"),
      });
      if (r.symbols.length === 0) throw new NotFound(JSON.stringify(r));
      return r;
    },
  },
  file: {
    usage: "file PATH [--offset N] [--limit N] [--max-bytes N] [--graph] [--allow-sensitive]",
    summary: "read a file page with numbered lines",
    options: {
      offset: { type: "string" },
      limit: { type: "string" },
      "max-bytes": { type: "string" },
      graph: { type: "boolean" },
      "allow-sensitive": { type: "boolean" },
    },
    run: (s, a, v) =>
      s.getFile({
        file: need(a, 1, "PATH")[0],
        offset: int(v, "offset"),
        limit: int(v, "limit"),
        maxBytes: int(v, "max-bytes"),
        includeGraphContext: Boolean(v.graph),
        allowSensitive: Boolean(v["allow-sensitive"]),
      }),
  },
  symbol: {
    usage: "symbol HANDLE",
    summary: "one declaration by handle (e.g. src/geo.rs::Circle::area), with members and relations",
    run: (s, a) => s.getSymbol({ handle: need(a, 1, "HANDLE")[0] }),
  },
  goto: {
    usage: "goto PATH:LINE[:COLUMN]",
    summary: "the definition of the name at a position",
    run: (s, a) => {
      const r = s.goto(position(need(a, 1, "PATH:LINE[:COLUMN]")[0]));
      if (r.definitions.length === 0) throw new NotFound(JSON.stringify(r));
      return r;
    },
  },
  refs: {
    usage: "refs HANDLE|PATH:LINE[:COLUMN] [--limit N]",
    summary: "every use site of a declaration (imports, calls, references)",
    options: { limit: { type: "string" } },
    run: (s, a, v) => {
      const target = need(a, 1, "HANDLE or PATH:LINE[:COLUMN]")[0];
      const pos = parsePosition(target);
      return s.refs(pos ? { ...pos, limit: int(v, "limit") } : { handle: target, limit: int(v, "limit") });
    },
  },
  callers: {
    usage: "callers HANDLE [--depth N] [--limit N]",
    summary: "who calls a function or method, grouped by caller with exact call sites",
    options: { depth: { type: "string" }, limit: { type: "string" } },
    run: (s, a, v) => s.callers({ handle: need(a, 1, "HANDLE")[0], depth: int(v, "depth"), limit: int(v, "limit") }),
  },
  callees: {
    usage: "callees HANDLE [--depth N] [--limit N]",
    summary: "what a function or method calls, with exact call sites",
    options: { depth: { type: "string" }, limit: { type: "string" } },
    run: (s, a, v) => s.callees({ handle: need(a, 1, "HANDLE")[0], depth: int(v, "depth"), limit: int(v, "limit") }),
  },
  deps: {
    usage: "deps FILE [--limit N]",
    summary: "files a file imports",
    options: { limit: { type: "string" } },
    run: (s, a, v) => s.deps({ file: need(a, 1, "FILE")[0], limit: int(v, "limit") }),
  },
  rdeps: {
    usage: "rdeps FILE [--limit N]",
    summary: "files that import a file",
    options: { limit: { type: "string" } },
    run: (s, a, v) => s.rdeps({ file: need(a, 1, "FILE")[0], limit: int(v, "limit") }),
  },
  path: {
    usage: "path FROM TO",
    summary: "a shortest import chain from one file to another",
    run: (s, a) => {
      const [from, to] = need(a, 2, "FROM and TO files");
      const r = s.path({ from, to });
      if (!r.path) throw new NotFound(JSON.stringify(r));
      return r;
    },
  },
  status: {
    usage: "status",
    summary: "indexed files by language, skipped files with reasons, the persisted snapshot",
    run: (s) => s.status({}),
  },
  index: {
    usage: "index",
    summary: "build or refresh the index and persist it in .codegraph/ (read only files that changed)",
    run: (s) => s.status({}),
  },
  init: {
    usage: "init",
    summary: "create .codegraph/ (with its own .gitignore) and build the persisted index",
    run: (s) => s.status({}),
  },
  sync: {
    usage: "sync",
    summary: "bring the persisted index up to date with the files on disk",
    run: (s) => s.status({}),
  },
};

/** `codegraph uninit --force`: removes the persisted index folder; touches nothing else. */
function uninit(rest: string[], io: Io): number {
  let values: Values;
  try {
    values = parseArgs({ args: rest, options: { root: { type: "string" }, force: { type: "boolean" }, json: { type: "boolean" } }, strict: true }).values as Values;
  } catch (e) {
    io.err(`codegraph uninit: ${(e as Error).message}; usage: codegraph uninit --force [--root DIR]`);
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

export function helpText(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length));
  const lines = [
    `codegraph ${packageVersion()} — code intelligence for coding agents`,
    "",
    "usage: codegraph <command> [arguments] [--root DIR] [--json]",
    "",
    "commands:",
    ...Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    "",
    "  uninit --force [--root DIR]  delete the persisted index (.codegraph/)",
    `  ${DOCTOR_USAGE}`,
    "      installation, engine and native binary origin, update state, index and configured clients",
    `  ${MCP_USAGE}`,
    "      serve the tools over MCP (stdio by default; Streamable HTTP at http://127.0.0.1:7331/mcp with --port)",
    `  ${INSTALL_USAGE}`,
    "      wire the MCP server into agent clients (codex, claude, cursor, gemini, opencode, agents); asks first",
    `  ${PRINT_CONFIG_USAGE}`,
    "      print one client's config snippet; touches nothing",
    `  ${UNINSTALL_USAGE}`,
    "      remove exactly what install added",
    "",
    "options for every command:",
    "  --root DIR            repository root (default: current directory)",
    "  --json                print exactly the API's JSON answer",
    "  --engine native|wasm  force an engine (default: native, falling back to wasm)",
    "  --include PATTERN     only index matching files (glob with * ? [ ; otherwise a regex); repeatable",
    "  --ignore PATTERN      skip matching files; repeatable",
    "  --no-gitignore        don't read .gitignore / .codegraphignore",
    "  --max-file-bytes N    skip files larger than N bytes (default 1048576)",
    "  --no-persist          don't read or write the index snapshot in <root>/.codegraph/",
    "",
    "positions are PATH:LINE[:COLUMN] (1-based); symbols are handles like src/geo.rs::Circle::area.",
    "exit codes: 0 success, 1 not found, 2 bad usage.",
  ];
  return lines.join("\n");
}

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Set when stderr is a terminal: long builds report progress through it (a line to redraw in
   *  place, or "" to clear it). */
  progress?: (line: string) => void;
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
      show(phase === "parse" ? `indexing: ${done}/${total} files parsed (${Math.round(rate)} files/s)` : `indexing: resolving references across ${total} files`);
    },
    finish(): void {
      if (shown) show("");
    },
  };
}

/** Runs the CLI; returns the exit code. */
export function run(argv: string[], io: Io): number {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(helpText());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    io.out(packageVersion());
    return 0;
  }
  if (name === "uninit") return uninit(rest, io);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (name === "doctor") return (require("./doctor") as typeof import("./doctor")).runDoctor(rest, io);
  const command = COMMANDS[name];
  if (!command) {
    io.err(`codegraph: unknown command ${JSON.stringify(name)}; run \`codegraph --help\` for the list`);
    return 2;
  }
  let values: Values;
  let positionals: string[];
  try {
    const parsed = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...(command.options ?? {}) }, allowPositionals: true, strict: true });
    values = parsed.values as Values;
    positionals = parsed.positionals;
  } catch (e) {
    io.err(`codegraph ${name}: ${(e as Error).message}; usage: codegraph ${command.usage}`);
    return 2;
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
    const maxFileBytes = int(values, "max-file-bytes");
    const session = openSession({
      root: (values.root as string | undefined) ?? ".",
      engine: engine as "native" | "wasm" | undefined,
      include: (values.include as string[] | undefined) ?? [],
      ignore: (values.ignore as string[] | undefined) ?? [],
      noGitignore: Boolean(values["no-gitignore"]),
      maxFileBytes: maxFileBytes ?? null,
      persist: !values["no-persist"],
    });
    if (io.progress && !json && name !== "file") {
      const progress = progressReporter(io.progress);
      try {
        session.prepare(progress.report);
      } finally {
        progress.finish();
      }
    }
    let answer: unknown;
    let found = true;
    try {
      answer = command.run(session, positionals, values);
    } catch (e) {
      if (!(e instanceof NotFound)) throw e;
      answer = JSON.parse(e.message);
      found = false;
    }
    io.out(json ? JSON.stringify(answer, null, 2) : formatters[name](answer as never));
    return found ? 0 : 1;
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err instanceof UsageError) {
      io.err(`codegraph ${name}: ${err.message}; usage: codegraph ${command.usage}`);
      return 2;
    }
    const code = err.code ?? "ERROR";
    io.err(`codegraph ${name}: ${err.message}`);
    return code === "INVALID_ARGUMENT" || code === "OUTSIDE_ROOT" ? 2 : 1;
  }
}

const installIo = {
  out: (t: string) => process.stdout.write(t.endsWith("\n") ? t : `${t}\n`),
  err: (t: string) => process.stderr.write(t.endsWith("\n") ? t : `${t}\n`),
};

/** Subcommands with their own modules, loaded only when asked for: the fast commands never pay for
 *  the MCP SDK or the installer. Each resolves to an exit code (undefined: a server keeps running). */
const ASYNC_COMMANDS: Record<string, (argv: string[]) => Promise<number | undefined>> = {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  mcp: (argv) => (require("./mcp") as typeof import("./mcp")).runMcp(argv),
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  install: (argv) => (require("../install/command") as typeof import("../install/command")).runInstall(argv, installIo),
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  uninstall: (argv) => (require("../install/command") as typeof import("../install/command")).runUninstall(argv, installIo),
};

export function main(argv: string[]): void {
  // `codegraph … | head`: a reader that stops early is not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  const asyncCommand = ASYNC_COMMANDS[argv[0] ?? ""];
  if (asyncCommand) {
    asyncCommand(argv.slice(1)).then(
      (code) => {
        if (code !== undefined) process.exitCode = code;
      },
      (e: Error) => {
        process.stderr.write(`codegraph ${argv[0]}: ${e.message}\n`);
        process.exitCode = 1;
      },
    );
    return;
  }
  const code = run(argv, {
    out: (t) => process.stdout.write(t.endsWith("\n") ? t : `${t}\n`),
    err: (t) => process.stderr.write(t.endsWith("\n") ? t : `${t}\n`),
    progress: process.stderr.isTTY ? (line) => process.stderr.write(`\r\x1b[2K${line}`) : undefined,
  });
  process.exitCode = code;
}

export type { T };
