// The MCP tool table: one entry per core request, with the description that tells an agent when to
// use it. Input schemas come from the request types the core's method table names (generated JSON
// Schemas, flattened: flat objects, unknown fields rejected). Whether a call reads the index, and so
// whether it is checked for changed files first, is the core's decision, never this table's.

import schema from "../generated/schema.json";
import { METHOD_TABLE, type ApiMethod, type CustomTool } from "../generated/types";

export interface ToolSpec {
  name: string;
  /** The core request this tool forwards to (its request type comes from the core's method table). */
  method: ApiMethod;
  description: string;
  /** Arguments the tool always sends, and then takes none of its own (`refresh_index`). */
  fixed?: Record<string, unknown>;
  /** The request its arguments become, when not the arguments themselves (custom tools). */
  request?: (args: Record<string, unknown>) => Record<string, unknown>;
  /** Its input schema, when not its request type's (custom tools: the core derives it). */
  schema?: Record<string, unknown>;
}

export const TOOLS: ToolSpec[] = [
  {
    name: "orient",
    method: "orient",
    description: "Compact first-turn map: languages and sizes, layout, entry points, public API, where tests live, most depended-on files.",
  },
  {
    name: "explore",
    method: "explore",
    description:
      "Recommended first tool for a broad question in words: ranked file/symbol anchors with evidence packets, import paths, blast radius, candidate tests and follow-up calls. A file path as query also returns the file (fileView).",
  },
  {
    name: "search",
    method: "search",
    description:
      "Ranked search over paths, declarations and their code and doc comments, for words or identifiers; each hit says what matched. Deterministic.",
  },
  {
    name: "packet_get",
    method: "packetGet",
    description:
      "Bounded evidence packet for a handle, file path or declaration name: signature, doc comment, members, who uses it, source excerpt.",
  },
  {
    name: "workspace_symbols",
    method: "workspaceSymbols",
    description:
      "Find declarations by exact name, qualified name (Circle::area) or handle, then prefix/token/substring. Filters: kinds, exportedOnly, includeImports, fileGlob. Returns portable handles.",
  },
  {
    name: "get_file",
    method: "getFile",
    description:
      "Read a project file page (1-based offset/limit, maxBytes) as number<TAB>line rows; always live bytes. includeGraphContext adds imports, users and symbols from the index.",
  },
  {
    name: "get_symbol",
    method: "getSymbol",
    description: "One declaration by handle: signature, range, members, supertypes/subtypes, reference and caller counts.",
  },
  {
    name: "goto",
    method: "goto",
    description: "Definition of the name at file:line:column (1-based).",
  },
  {
    name: "refs",
    method: "refs",
    description:
      "Every proven use site of a declaration (imports, calls, references) by handle OR by file+line(+column), with the enclosing symbol.",
  },
  {
    name: "callers",
    method: "callers",
    description:
      "Who calls a function/method (by handle OR file+line(+column)), grouped by caller with exact call sites; depth up to 5. Use refs for all uses, deps for files.",
  },
  {
    name: "callees",
    method: "callees",
    description: "What a function/method calls (by handle OR file+line(+column)), grouped by callee with exact call sites; depth up to 5.",
  },
  {
    name: "deps",
    method: "deps",
    description: "Files a file imports (resolved, in the repository).",
  },
  {
    name: "rdeps",
    method: "rdeps",
    description: "Files that import a file: who is affected when it changes.",
  },
  {
    name: "path",
    method: "path",
    description: "A shortest import chain from one file to another.",
  },
  {
    name: "supertypes",
    method: "supertypes",
    description: "Proven supertypes of a type by handle (extends/implements/impl Trait/base classes), nearest first; depth 1-10.",
  },
  {
    name: "subtypes",
    method: "subtypes",
    description: "Proven subtypes of a type by handle (classes extending it, types implementing it), nearest first; depth 1-10.",
  },
  {
    name: "implementations",
    method: "implementations",
    description:
      "Concrete types implementing a type, or the members implementing/overriding an interface or trait member, by handle. No same-name guesses.",
  },
  {
    name: "impact",
    method: "impact",
    description:
      "Before or after an edit: what a git range (base, head: ref, STAGED or WORKTREE) or a set of files breaks — changed declarations, impacted callers/referrers with sites, dependent files, candidate tests, breaks. fail_on returns a gate, never an error.",
  },
  {
    name: "review",
    method: "review",
    description:
      "Review a git range: riskSummary (level, score, reasons), ordered reviewTasks with targets and sites, candidate tests. reviewDepth minimal|standard|deep.",
  },
  {
    name: "rename_preview",
    method: "renamePreview",
    description:
      "Read-only rename plan by handle: exact edits (with overrides and implementations), safe + reasons, conflicts, unsafe sites, filename suggestions, tests. Nothing is written.",
  },
  {
    name: "refactor_plan",
    method: "refactorPlan",
    description:
      "One evidence packet before changing a declaration: references, callers/callees, type hierarchy, implementations, tests, follow-ups; renameTo adds an authoritative rename preview.",
  },
  {
    name: "loc",
    method: "loc",
    description:
      "Lines of code, comment and blank lines per language with declaration counts (functions, types, constants); detail lists declarations.",
  },
  {
    name: "graph",
    method: "graph",
    description:
      "File dependency graph as json, markdown (mermaid), xml, dot or mermaid; focus roots and depth, or dependsOn for the files depending on one, with its blast radius.",
  },
  {
    name: "context",
    method: "context",
    description:
      "Pack files or declarations into one text under a token budget, changed files first; compress to signatures or skeletons; json or markdown; named profiles.",
  },
  {
    name: "query_sqlite",
    method: "querySqlite",
    description:
      "One read-only SELECT over the SQLite artifact (tables meta, files, symbols, refs, calls, file_deps, type_relations, unresolved); ? params bound in order; rows and bytes capped; refuses a stale artifact it can't refresh.",
  },
  {
    name: "artifact_build",
    method: "artifactBuild",
    description:
      "Write the SQLite artifact (codegraph.sqlite, manifest.json, CODEGRAPH_REPORT.md) under .codegraph/artifacts from the current index. Only on a server started with --allow-build.",
  },
  {
    name: "status",
    method: "status",
    description: "Indexed files by language and skipped files with reasons (binary, too large, invalid UTF-8, symlink).",
  },
  {
    name: "refresh_index",
    method: "refresh",
    description: "Rebuild the index now (after a burst of edits larger than the automatic refresh limits).",
    fixed: { force: true },
  },
];

type JsonSchema = Record<string, unknown>;

/** Client-friendly flat schema: references inlined, nullable unions collapsed (an optional field is
 * left out rather than null; a list's items keep null when they may be null), numeric formats and
 * null defaults dropped. */
function flatten(node: JsonSchema, keepNull = false): JsonSchema {
  const ref = node.$ref as string | undefined;
  if (ref) {
    const { $ref: _, ...rest } = node;
    return flatten({ ...definitions[ref.replace("#/definitions/", "")], ...rest }, keepNull);
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "format" || key === "minimum" || key === "title" || (key === "default" && value === null)) continue;
    if (key === "type" && Array.isArray(value)) {
      const types = value.filter((t) => keepNull || t !== "null");
      out.type = types.length === 1 ? types[0] : types;
    } else if (key === "anyOf" && Array.isArray(value)) {
      const options = (value as JsonSchema[]).filter((o) => keepNull || o.type !== "null").map((o) => flatten(o));
      if (options.length === 1) Object.assign(out, options[0]);
      else if (options.every((o) => Object.keys(o).length === 1 && typeof o.type === "string")) out.type = options.map((o) => o.type);
      else out.anyOf = options;
    } else if (key === "properties" && value && typeof value === "object") {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, flatten(v)]));
    } else if (key === "items" && value && typeof value === "object") {
      out.items = flatten(value as JsonSchema, true);
    } else {
      out[key] = value;
    }
  }
  return out;
}

const definitions = (schema as { definitions: Record<string, JsonSchema> }).definitions;

/** The MCP tools of the custom SQL tools the core loaded from `.codegraph/tools.yaml`. */
export function customToolSpecs(tools: CustomTool[]): ToolSpec[] {
  return tools.map((t) => ({
    name: t.name,
    method: "runTool",
    description: `${t.description} (custom SQL tool from .codegraph/tools.yaml)`,
    request: (args) => ({ name: t.name, params: args }),
    schema: t.inputSchema as JsonSchema,
  }));
}

export function inputSchema(tool: ToolSpec): JsonSchema {
  if (tool.schema) return tool.schema;
  if (tool.fixed) return { type: "object", properties: {}, additionalProperties: false };
  const request = METHOD_TABLE.find((m) => m.name === tool.method)?.request;
  const def = request && definitions[request];
  if (!def) throw new Error(`no generated schema for the request of ${tool.method}`);
  const flat = flatten(def);
  return { type: "object", ...flat, additionalProperties: false };
}
