// The MCP tool table: one entry per core request. Input schemas come from the core's generated JSON
// Schemas (flat objects, unknown fields rejected); the descriptions tell an agent when to use each
// tool. Adding a tool is one entry here.

import schema from "../generated/schema.json";
import type { ApiMethod } from "../binding";

export interface ToolSpec {
  name: string;
  /** The core request this tool forwards to. */
  method: ApiMethod;
  /** The request type in the generated schema. */
  request: string;
  description: string;
  /** Whether the answer depends on the index (and so on its freshness). */
  indexBacked: (args: Record<string, unknown>) => boolean;
}

const always = () => true;

export const TOOLS: ToolSpec[] = [
  {
    name: "orient",
    method: "orient",
    request: "OrientRequest",
    description: "Compact first-turn map: languages and sizes, layout, entry points, public API, where tests live, most depended-on files.",
    indexBacked: always,
  },
  {
    name: "explore",
    method: "explore",
    request: "ExploreRequest",
    description:
      "Recommended first tool for a broad question in words: ranked file/symbol anchors with evidence packets, import paths, blast radius, candidate tests and follow-up calls. A file path as query also returns the file (fileView).",
    indexBacked: always,
  },
  {
    name: "search",
    method: "search",
    request: "SearchRequest",
    description: "Ranked search over paths, declarations and their code and doc comments, for words or identifiers; each hit says what matched. Deterministic.",
    indexBacked: always,
  },
  {
    name: "packet_get",
    method: "packetGet",
    request: "PacketGetRequest",
    description: "Bounded evidence packet for a handle, file path or declaration name: signature, doc comment, members, who uses it, source excerpt.",
    indexBacked: always,
  },
  {
    name: "workspace_symbols",
    method: "workspaceSymbols",
    request: "WorkspaceSymbolsRequest",
    description: "Find declarations by exact name, qualified name (Circle::area) or handle, then prefix/token/substring. Filters: kinds, exportedOnly, includeImports, fileGlob. Returns portable handles.",
    indexBacked: always,
  },
  {
    name: "get_file",
    method: "getFile",
    request: "GetFileRequest",
    description: "Read a project file page (1-based offset/limit, maxBytes) as number<TAB>line rows; always live bytes. includeGraphContext adds imports, users and symbols from the index.",
    indexBacked: (a) => a.includeGraphContext === true,
  },
  {
    name: "get_symbol",
    method: "getSymbol",
    request: "GetSymbolRequest",
    description: "One declaration by handle: signature, range, members, supertypes/subtypes, reference and caller counts.",
    indexBacked: always,
  },
  {
    name: "goto",
    method: "goto",
    request: "GotoRequest",
    description: "Definition of the name at file:line:column (1-based).",
    indexBacked: always,
  },
  {
    name: "refs",
    method: "refs",
    request: "RefsRequest",
    description: "Every proven use site of a declaration (imports, calls, references) by handle OR by file+line(+column), with the enclosing symbol.",
    indexBacked: always,
  },
  {
    name: "callers",
    method: "callers",
    request: "CallsRequest",
    description: "Who calls a function/method (by handle), grouped by caller with exact call sites; depth up to 5. Use refs for all uses, deps for files.",
    indexBacked: always,
  },
  {
    name: "callees",
    method: "callees",
    request: "CallsRequest",
    description: "What a function/method calls (by handle), grouped by callee with exact call sites; depth up to 5.",
    indexBacked: always,
  },
  {
    name: "deps",
    method: "deps",
    request: "DepsRequest",
    description: "Files a file imports (resolved, in the repository).",
    indexBacked: always,
  },
  {
    name: "rdeps",
    method: "rdeps",
    request: "DepsRequest",
    description: "Files that import a file: who is affected when it changes.",
    indexBacked: always,
  },
  {
    name: "path",
    method: "path",
    request: "PathRequest",
    description: "A shortest import chain from one file to another.",
    indexBacked: always,
  },
  {
    name: "context",
    method: "context",
    request: "ContextRequest",
    description:
      "Pack files or declarations into one text under a token budget, changed files first; compress to signatures or skeletons; json or markdown; named profiles.",
    indexBacked: always,
  },
  {
    name: "status",
    method: "status",
    request: "StatusRequest",
    description: "Indexed files by language and skipped files with reasons (binary, too large, invalid UTF-8, symlink).",
    indexBacked: always,
  },
  {
    name: "refresh_index",
    method: "refresh",
    request: "RefreshIndexArgs",
    description: "Rebuild the index now (after a burst of edits larger than the automatic refresh limits).",
    indexBacked: () => false,
  },
];

type JsonSchema = Record<string, unknown>;

/** Client-friendly flat schema: references inlined, nullable unions collapsed, numeric formats and
 * null defaults dropped. */
function flatten(node: JsonSchema): JsonSchema {
  const ref = node.$ref as string | undefined;
  if (ref) {
    const { $ref: _, ...rest } = node;
    return flatten({ ...definitions[ref.replace("#/definitions/", "")], ...rest });
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "format" || key === "minimum" || key === "title" || (key === "default" && value === null)) continue;
    if (key === "type" && Array.isArray(value)) {
      const types = value.filter((t) => t !== "null");
      out.type = types.length === 1 ? types[0] : types;
    } else if (key === "anyOf" && Array.isArray(value)) {
      const options = (value as JsonSchema[]).filter((o) => o.type !== "null").map(flatten);
      if (options.length === 1) Object.assign(out, options[0]);
      else if (options.every((o) => Object.keys(o).length === 1 && typeof o.type === "string")) out.type = options.map((o) => o.type);
      else out.anyOf = options;
    } else if (key === "properties" && value && typeof value === "object") {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, flatten(v)]));
    } else if (key === "items" && value && typeof value === "object") {
      out.items = flatten(value as JsonSchema);
    } else {
      out[key] = value;
    }
  }
  return out;
}

const definitions = (schema as { definitions: Record<string, JsonSchema> }).definitions;

export function inputSchema(tool: ToolSpec): JsonSchema {
  if (tool.request === "RefreshIndexArgs") return { type: "object", properties: {}, additionalProperties: false };
  const def = definitions[tool.request];
  if (!def) throw new Error(`no generated schema for ${tool.request}`);
  const flat = flatten(def);
  return { type: "object", ...flat, additionalProperties: false };
}
