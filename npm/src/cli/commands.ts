// The CLI commands that ask the core one question each: the method of the core's table they call,
// how their arguments become its request, and the typed formatter of its answer. `apiCommand` closes
// over the method's types, so each command is checked against its own request and response.

import type { ParseArgsConfig } from "node:util";

import type { ApiMethod, ApiRequests, ApiResponses } from "../generated/types";
import type { Session } from "../index";
import * as F from "./format";

/** A usage error: printed as one line, exit code 2. */
export class UsageError extends Error {}

export type Values = Record<string, string | boolean | string[] | undefined>;
export type Options = NonNullable<ParseArgsConfig["options"]>;

/** How commands are grouped in `--help`, in the order people look for them. */
export const FAMILIES = ["start", "navigate", "change", "report", "serve", "manage"] as const;
export type Family = (typeof FAMILIES)[number];

/** What every command shows in `--help`. */
export interface CommandInfo {
  family: Family;
  /** The arguments after the name, as `--help` lists them (`QUESTION...`, `HANDLE`). */
  synopsis: string;
  /** The full usage line (`<name> <synopsis> [--flags]`). */
  usage: string;
  summary: string;
}

/** A command answered by one core request. */
export interface ApiCommand extends CommandInfo {
  kind: "api";
  options: Options;
  /** Asks the session; `exit` is the exit code the answer gives (1 when it is empty). */
  ask(session: Session, args: string[], values: Values): { answer: unknown; text: () => string; exit: number };
  /** The exit code of a failed request, when not the usual (2 bad usage, 1 otherwise). */
  errorExit?: number;
  /** Session options the command's flags set (write access for artifacts). */
  session?(values: Values): { allowBuild?: boolean };
}

interface ApiSpec<M extends ApiMethod> extends CommandInfo {
  method: M;
  options?: Options;
  request(args: string[], values: Values): ApiRequests[M];
  format(answer: ApiResponses[M], session: Session): string;
  /** Whether the answer found anything (default: yes). */
  found?(answer: ApiResponses[M]): boolean;
  /** The exit code of an answer, when it is more than found (0) or not (1). */
  exit?(answer: ApiResponses[M]): number;
  errorExit?: number;
  session?(values: Values): { allowBuild?: boolean };
}

function apiCommand<M extends ApiMethod>(spec: ApiSpec<M>): ApiCommand {
  return {
    kind: "api",
    family: spec.family,
    synopsis: spec.synopsis,
    usage: spec.usage,
    summary: spec.summary,
    options: spec.options ?? {},
    errorExit: spec.errorExit,
    session: spec.session,
    ask(session, args, values) {
      const answer = (session.call as (m: M, r: ApiRequests[M]) => ApiResponses[M])(spec.method, spec.request(args, values));
      const exit = spec.exit?.(answer) ?? ((spec.found?.(answer) ?? true) ? 0 : 1);
      return { answer, text: () => spec.format(F.forTerminal(answer), session), exit };
    },
  };
}

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

function first(args: string[], what: string): string {
  return need(args, 1, what)[0]!;
}

/** `path:line[:column]` → parts; undefined when the text is not a position. */
export function parsePosition(text: string): { file: string; line: number; column?: number } | undefined {
  const m = /^(.+?):(\d+)(?::(\d+))?$/.exec(text);
  if (!m || m[1]!.includes("::")) return undefined;
  return { file: m[1]!, line: Number(m[2]), column: m[3] === undefined ? undefined : Number(m[3]) };
}

/** A declaration named by handle or by a position of its name or of a use. */
function symbolTarget(args: string[]): { handle: string } | { file: string; line: number; column?: number } {
  const target = first(args, "HANDLE or PATH:LINE[:COLUMN]");
  return parsePosition(target) ?? { handle: target };
}

function position(text: string): { file: string; line: number; column?: number } {
  const pos = parsePosition(text);
  if (!pos) throw new UsageError(`expected a position path:line[:column], got ${JSON.stringify(text)}`);
  return pos;
}

const LIMIT: Options = { limit: { type: "string" } };

/** A value given on the command line for a `?` parameter: a number when it reads as one. */
function sqlValue(text: string): string | number {
  return /^-?\d+(\.\d+)?$/.test(text.trim()) && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** `--param k=v` pairs of a custom tool (the core converts and checks each by its type). */
function toolParams(values: Values): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (values.param as string[] | undefined) ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--param needs NAME=VALUE (got ${JSON.stringify(pair)})`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

const ALLOW_BUILD: Options = { "allow-build": { type: "boolean" } };

/** A status report, and which engine (and build) answered it. */
function statusWithEngine(r: ApiResponses["status"], session: Session): string {
  const build = session.engineProfile === "debug" ? " (debug build, 3-4x slower)" : "";
  return `${F.formatStatus(r)}\nengine: ${session.engine}${build} from ${F.forTerminal(session.enginePath)}`;
}

/** `index`, `init` and `sync`: build or bring up to date the persisted index, then report on it. */
function statusLike(summary: string): ApiCommand {
  return apiCommand({
    family: "manage",
    method: "status",
    synopsis: "",
    usage: "",
    summary,
    request: () => ({}),
    format: statusWithEngine,
  });
}

export const API_COMMANDS: Record<string, ApiCommand> = {
  orient: apiCommand({
    family: "start",
    method: "orient",
    synopsis: "",
    usage: "orient [--limit N]",
    summary: "compact map of the repository: languages, layout, entry points, public API, most depended-on files",
    options: LIMIT,
    request: (_a, v) => ({ limit: int(v, "limit") }),
    format: F.formatOrient,
  }),
  explore: apiCommand({
    family: "start",
    method: "explore",
    synopsis: "QUESTION...",
    usage: "explore QUESTION... [--limit N] [--packets N] [--list-limit N] [--source|--no-source]",
    summary: "the first question in words: ranked anchors with evidence, paths, blast radius, tests, next calls",
    options: {
      ...LIMIT,
      packets: { type: "string" },
      "list-limit": { type: "string" },
      source: { type: "boolean" },
      "no-source": { type: "boolean" },
    },
    request: (a, v) => ({
      query: need(a, 1, "QUESTION").join(" "),
      limit: int(v, "limit"),
      packets: int(v, "packets"),
      listLimit: int(v, "list-limit"),
      includeSource: v.source ? true : v["no-source"] ? false : null,
    }),
    format: F.formatExplore,
    found: (r) => r.anchors.length > 0 || r.fileView !== undefined,
  }),
  search: apiCommand({
    family: "start",
    method: "search",
    synopsis: "QUERY...",
    usage: "search QUERY... [--limit N]",
    summary: "ranked search over paths, declarations and their code, for words or identifiers",
    options: LIMIT,
    request: (a, v) => ({ query: need(a, 1, "QUERY").join(" "), limit: int(v, "limit") }),
    format: F.formatSearch,
    found: (r) => r.hits.length > 0,
  }),
  packet: apiCommand({
    family: "start",
    method: "packetGet",
    synopsis: "TARGET",
    usage: "packet TARGET [--limit N] [--no-source]",
    summary: "a bounded evidence packet for a handle, file path or declaration name",
    options: { ...LIMIT, "no-source": { type: "boolean" } },
    request: (a, v) => ({ target: need(a, 1, "TARGET").join(" "), limit: int(v, "limit"), includeSource: !v["no-source"] }),
    format: F.formatPacket,
  }),
  symbols: apiCommand({
    family: "navigate",
    method: "workspaceSymbols",
    synopsis: "QUERY",
    usage: "symbols QUERY [--kind K]... [--exported] [--imports] [--file-glob G] [--limit N]",
    summary: "find declarations by name, qualified name or handle",
    options: {
      ...LIMIT,
      kind: { type: "string", multiple: true },
      exported: { type: "boolean" },
      imports: { type: "boolean" },
      "file-glob": { type: "string" },
    },
    request: (a, v) => ({
      query: need(a, 1, "QUERY").join(" "),
      kinds: (v.kind as string[] | undefined) ?? [],
      exportedOnly: Boolean(v.exported),
      includeImports: Boolean(v.imports),
      fileGlob: (v["file-glob"] as string | undefined) ?? null,
      limit: int(v, "limit"),
    }),
    format: F.formatSymbols,
    found: (r) => r.symbols.length > 0,
  }),
  symbol: apiCommand({
    family: "navigate",
    method: "getSymbol",
    synopsis: "HANDLE",
    usage: "symbol HANDLE",
    summary: "one declaration by handle (e.g. src/geo.rs::Circle::area), with members and relations",
    request: (a) => ({ handle: first(a, "HANDLE") }),
    format: F.formatSymbol,
  }),
  goto: apiCommand({
    family: "navigate",
    method: "goto",
    synopsis: "PATH:LINE[:COLUMN]",
    usage: "goto PATH:LINE[:COLUMN]",
    summary: "the definition of the name at a position",
    request: (a) => position(first(a, "PATH:LINE[:COLUMN]")),
    format: F.formatGoto,
    found: (r) => r.definitions.length > 0,
  }),
  refs: apiCommand({
    family: "navigate",
    method: "refs",
    synopsis: "HANDLE|PATH:LINE[:COLUMN]",
    usage: "refs HANDLE|PATH:LINE[:COLUMN] [--limit N]",
    summary: "every use site of a declaration (imports, calls, references)",
    options: LIMIT,
    request: (a, v) => ({ ...symbolTarget(a), limit: int(v, "limit") }),
    format: F.formatRefs,
  }),
  callers: apiCommand({
    family: "navigate",
    method: "callers",
    synopsis: "HANDLE|PATH:LINE[:COLUMN]",
    usage: "callers HANDLE|PATH:LINE[:COLUMN] [--depth N] [--limit N]",
    summary: "who calls a function or method, grouped by caller with exact call sites",
    options: { ...LIMIT, depth: { type: "string" } },
    request: (a, v) => ({ ...symbolTarget(a), depth: int(v, "depth"), limit: int(v, "limit") }),
    format: F.formatCallers,
  }),
  callees: apiCommand({
    family: "navigate",
    method: "callees",
    synopsis: "HANDLE|PATH:LINE[:COLUMN]",
    usage: "callees HANDLE|PATH:LINE[:COLUMN] [--depth N] [--limit N]",
    summary: "what a function or method calls, with exact call sites",
    options: { ...LIMIT, depth: { type: "string" } },
    request: (a, v) => ({ ...symbolTarget(a), depth: int(v, "depth"), limit: int(v, "limit") }),
    format: F.formatCallees,
  }),
  deps: apiCommand({
    family: "navigate",
    method: "deps",
    synopsis: "FILE",
    usage: "deps FILE [--limit N]",
    summary: "files a file imports",
    options: LIMIT,
    request: (a, v) => ({ file: first(a, "FILE"), limit: int(v, "limit") }),
    format: F.formatDeps,
  }),
  rdeps: apiCommand({
    family: "navigate",
    method: "rdeps",
    synopsis: "FILE",
    usage: "rdeps FILE [--limit N]",
    summary: "files that import a file",
    options: LIMIT,
    request: (a, v) => ({ file: first(a, "FILE"), limit: int(v, "limit") }),
    format: F.formatRdeps,
  }),
  path: apiCommand({
    family: "navigate",
    method: "path",
    synopsis: "FROM TO",
    usage: "path FROM TO",
    summary: "a shortest import chain from one file to another",
    request: (a) => {
      const [from, to] = need(a, 2, "FROM and TO files") as [string, string];
      return { from, to };
    },
    format: F.formatPath,
    found: (r) => r.path != null,
  }),
  supertypes: apiCommand({
    family: "navigate",
    method: "supertypes",
    synopsis: "HANDLE",
    usage: "supertypes HANDLE [--depth N] [--limit N]",
    summary: "the types a type extends or implements (proven relations), to a depth",
    options: { ...LIMIT, depth: { type: "string" } },
    request: (a, v) => ({ handle: first(a, "HANDLE"), depth: int(v, "depth"), limit: int(v, "limit") }),
    format: (r) => F.formatHierarchy("supertypes of", r),
    found: (r) => r.types.length > 0,
  }),
  subtypes: apiCommand({
    family: "navigate",
    method: "subtypes",
    synopsis: "HANDLE",
    usage: "subtypes HANDLE [--depth N] [--limit N]",
    summary: "the types that extend or implement a type (proven relations), to a depth",
    options: { ...LIMIT, depth: { type: "string" } },
    request: (a, v) => ({ handle: first(a, "HANDLE"), depth: int(v, "depth"), limit: int(v, "limit") }),
    format: (r) => F.formatHierarchy("subtypes of", r),
    found: (r) => r.types.length > 0,
  }),
  implementations: apiCommand({
    family: "navigate",
    method: "implementations",
    synopsis: "HANDLE",
    usage: "implementations HANDLE [--limit N]",
    summary: "concrete types below a type, or the members implementing an interface/trait member",
    options: LIMIT,
    request: (a, v) => ({ handle: first(a, "HANDLE"), limit: int(v, "limit") }),
    format: F.formatImplementations,
    found: (r) => r.implementations.length > 0,
  }),
  file: apiCommand({
    family: "navigate",
    method: "getFile",
    synopsis: "PATH",
    usage: "file PATH [--offset N] [--limit N] [--max-bytes N] [--graph] [--allow-sensitive]",
    summary: "read a file page with numbered lines",
    options: {
      ...LIMIT,
      offset: { type: "string" },
      "max-bytes": { type: "string" },
      graph: { type: "boolean" },
      "allow-sensitive": { type: "boolean" },
    },
    request: (a, v) => ({
      file: first(a, "PATH"),
      offset: int(v, "offset"),
      limit: int(v, "limit"),
      maxBytes: int(v, "max-bytes"),
      includeGraphContext: Boolean(v.graph),
      allowSensitive: Boolean(v["allow-sensitive"]),
    }),
    format: F.formatFile,
  }),
  impact: apiCommand({
    family: "change",
    method: "impact",
    synopsis: "--base REF [--head REF] | --files FILE...",
    usage:
      "impact (--base REF [--head REF|WORKTREE|STAGED] | --files FILE...) [--depth N] [--focus PATH]... [--fail-on N] [--full] [--limit N]",
    summary: "what a change breaks: changed and impacted symbols, dependent files, tests; --fail-on gates (exit 2)",
    options: {
      ...LIMIT,
      base: { type: "string" },
      head: { type: "string" },
      files: { type: "boolean" },
      depth: { type: "string" },
      focus: { type: "string", multiple: true },
      "fail-on": { type: "string" },
      full: { type: "boolean" },
    },
    request: (a, v) => {
      if (v.files && v.base !== undefined) throw new UsageError("give --base/--head or --files, not both");
      if (!v.files && v.base === undefined) throw new UsageError("give --base REF (and optionally --head) or --files FILE...");
      return {
        base: (v.base as string | undefined) ?? null,
        head: (v.head as string | undefined) ?? null,
        files: v.files ? need(a, 1, "FILE") : [],
        depth: int(v, "depth"),
        focus: (v.focus as string[] | undefined) ?? [],
        fail_on: int(v, "fail-on"),
        format: v.full ? "full" : "compact",
        limit: int(v, "limit"),
      };
    },
    format: F.formatImpact,
    // 2: the gate was crossed, 0: it held (or there was none); 1: the analysis could not run.
    exit: (r) => r.gate?.exit_code ?? 0,
    errorExit: 1,
  }),
  review: apiCommand({
    family: "change",
    method: "review",
    synopsis: "--base REF [--head REF]",
    usage: "review --base REF [--head REF|WORKTREE|STAGED] [--review-depth minimal|standard|deep] [--limit N]",
    summary: "risk of a git range with the reasons, ordered review tasks and the tests to run",
    options: { ...LIMIT, base: { type: "string" }, head: { type: "string" }, "review-depth": { type: "string" } },
    request: (a, v) => {
      const base = (v.base as string | undefined) ?? a[0];
      if (base === undefined) throw new UsageError("missing --base REF");
      return {
        base,
        head: (v.head as string | undefined) ?? a[1] ?? null,
        reviewDepth: (v["review-depth"] as string | undefined) ?? null,
        limit: int(v, "limit"),
      };
    },
    format: F.formatReview,
  }),
  loc: apiCommand({
    family: "report",
    method: "loc",
    synopsis: "",
    usage: "loc [--detail] [--limit N]",
    summary: "lines of code, comments and blanks per language, with declaration counts (--detail lists them)",
    options: { ...LIMIT, detail: { type: "boolean" } },
    request: (_a, v) => ({ detail: Boolean(v.detail), limit: int(v, "limit") }),
    format: F.formatLoc,
  }),
  graph: apiCommand({
    family: "report",
    method: "graph",
    synopsis: "[--format json|markdown|xml|dot|mermaid]",
    usage: "graph [--format json|markdown|xml|dot|mermaid] [--focus PATH]... [--depth N] [--depends-on PATH]",
    summary: "the file dependency graph as data or a picture; --depends-on for what depends on a file",
    options: {
      format: { type: "string" },
      focus: { type: "string", multiple: true },
      depth: { type: "string" },
      "depends-on": { type: "string" },
    },
    request: (_a, v) => ({
      format: (v.format as string | undefined) ?? null,
      focus: (v.focus as string[] | undefined) ?? [],
      depth: int(v, "depth"),
      dependsOn: (v["depends-on"] as string | undefined) ?? null,
    }),
    format: F.formatGraph,
  }),
  "rename-preview": apiCommand({
    family: "change",
    method: "renamePreview",
    synopsis: "HANDLE NEWNAME",
    usage: "rename-preview HANDLE NEWNAME [--comments] [--strings] [--filenames] [--max-edits N]",
    summary: "the exact edits of a rename (read-only: nothing is written), and whether it is safe",
    options: {
      comments: { type: "boolean" },
      strings: { type: "boolean" },
      filenames: { type: "boolean" },
      "max-edits": { type: "string" },
    },
    request: (a, v) => {
      const [handle, newName] = need(a, 2, "HANDLE and NEWNAME") as [string, string];
      return {
        handle,
        newName,
        includeComments: Boolean(v.comments),
        includeStrings: Boolean(v.strings),
        includeFilenames: Boolean(v.filenames),
        maxEdits: int(v, "max-edits"),
      };
    },
    format: (r, session) =>
      F.formatRenamePreview(r, (file, line) => {
        try {
          const page = session.getFile({ file, offset: line, limit: 1 });
          return F.forTerminal(page.content.split("\t").slice(1).join("\t"));
        } catch {
          return undefined;
        }
      }),
    // 1 when the preview is not safe: a script can stop on it.
    exit: (r) => (r.safe ? 0 : 1),
  }),
  "refactor-plan": apiCommand({
    family: "change",
    method: "refactorPlan",
    synopsis: "HANDLE",
    usage: "refactor-plan HANDLE [--rename NEW] [--max-references N] [--max-callers N] [--max-hierarchy N] [--source]",
    summary: "one evidence packet for changing a declaration: uses, callers, hierarchy, tests, a rename preview",
    options: {
      rename: { type: "string" },
      "max-references": { type: "string" },
      "max-callers": { type: "string" },
      "max-hierarchy": { type: "string" },
      source: { type: "boolean" },
    },
    request: (a, v) => ({
      handle: first(a, "HANDLE"),
      renameTo: (v.rename as string | undefined) ?? null,
      maxReferences: int(v, "max-references"),
      maxCallers: int(v, "max-callers"),
      maxHierarchy: int(v, "max-hierarchy"),
      includeSource: Boolean(v.source),
    }),
    format: F.formatRefactorPlan,
  }),
  context: apiCommand({
    family: "change",
    method: "context",
    synopsis: "[PATH...]",
    usage:
      "context [PATH...] [--budget 32k] [--symbol NAME]... [--diff SPEC] [--compress MODE] [--markdown] [--profile NAME] [--list-profiles]",
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
    request: (a, v) => {
      const budget = v.budget as string | undefined;
      return {
        focus: a,
        focusSymbol: (v.symbol as string[] | undefined) ?? [],
        budget: budget === undefined ? null : /^\d+$/.test(budget) ? Number(budget) : budget,
        diff: (v.diff as string | undefined) ?? null,
        compress: (v.compress as string | undefined) ?? null,
        format: v.markdown ? "markdown" : ((v.format as string | undefined) ?? null),
        profile: (v.profile as string | undefined) ?? null,
        listProfiles: Boolean(v["list-profiles"]),
      };
    },
    format: F.formatContext,
  }),
  artifact: apiCommand({
    family: "report",
    method: "artifactBuild",
    synopsis: "build [--out DIR]",
    usage: "artifact build [--out DIR]",
    summary: "write the index as a SQLite database (+ manifest.json, CODEGRAPH_REPORT.md) under .codegraph/artifacts",
    options: { out: { type: "string" } },
    request: (a, v) => {
      if (a[0] !== "build" || a.length > 1)
        throw new UsageError(a.length ? `unknown artifact subcommand ${JSON.stringify(a.join(" "))}` : "missing subcommand build");
      return { out: (v.out as string | undefined) ?? null };
    },
    // The command is itself the request to write.
    session: () => ({ allowBuild: true }),
    format: F.formatArtifactBuild,
  }),
  sql: apiCommand({
    family: "report",
    method: "querySqlite",
    synopsis: "QUERY",
    usage: 'sql "SELECT …" [--param V]... [--limit N] [--allow-build]',
    summary: "one read-only SELECT over the SQLite artifact (? bound to --param values in order); --allow-build refreshes a stale one",
    options: { ...LIMIT, ...ALLOW_BUILD, param: { type: "string", multiple: true } },
    request: (a, v) => ({
      query: need(a, 1, "QUERY").join(" "),
      params: ((v.param as string[] | undefined) ?? []).map(sqlValue),
      limit: int(v, "limit"),
    }),
    session: (v) => ({ allowBuild: Boolean(v["allow-build"]) }),
    format: F.formatRows,
    found: (r) => r.rows.length > 0,
  }),
  tools: apiCommand({
    family: "report",
    method: "customTools",
    synopsis: "",
    usage: "tools",
    summary: "the custom SQL tools of .codegraph/tools.yaml, and the definitions skipped with why",
    request: () => ({}),
    format: F.formatCustomTools,
    exit: (r) => (r.issues.length ? 1 : 0),
  }),
  tool: apiCommand({
    family: "report",
    method: "runTool",
    synopsis: "NAME",
    usage: "tool NAME [--param NAME=VALUE]... [--allow-build]",
    summary: "run a custom SQL tool of .codegraph/tools.yaml",
    options: { ...ALLOW_BUILD, param: { type: "string", multiple: true } },
    request: (a, v) => ({ name: first(a, "NAME"), params: toolParams(v) }),
    session: (v) => ({ allowBuild: Boolean(v["allow-build"]) }),
    format: F.formatRows,
    found: (r) => r.rows.length > 0,
  }),
  status: apiCommand({
    family: "report",
    method: "status",
    synopsis: "",
    usage: "status",
    summary: "indexed files by language, skipped files with reasons, the persisted snapshot, build timings",
    request: () => ({}),
    format: statusWithEngine,
  }),
  index: { ...statusLike("build or refresh the index and persist it in .codegraph/ (reads only files that changed)"), usage: "index" },
  init: { ...statusLike("create .codegraph/ (with its own .gitignore) and build the persisted index"), usage: "init" },
  sync: { ...statusLike("bring the persisted index up to date with the files on disk"), usage: "sync" },
};
