// The codegraph agent skill: SKILL.md (Agent Skills format: YAML front matter, then Markdown) that
// teaches an agent when and how to use codegraph's MCP tools, and the marker file that proves the
// folder is the installer's. Every tool named in backticks must exist in the server's tools/list
// (tests/install checks it against TOOLS).

import { createHash } from "node:crypto";

export const SKILL_NAME = "codegraph";
export const SKILL_FILE = "SKILL.md";
export const MARKER_FILE = ".codegraph-install";

export const SKILL_MD = `---
name: codegraph
description: Answer structural questions about a code repository with the codegraph MCP tools — where a symbol is defined, who calls or references it, what a file imports and what imports it, what is affected by a change. Use it before grepping or reading files one by one, and before editing code that others depend on.
---

# codegraph

codegraph keeps an index of the repository (declarations, references, calls, imports) and answers
from it in one call what would otherwise take many searches and file reads. Its MCP server is named
codegraph; some clients show its tools with a prefix (for example mcp__codegraph__search).

## Orient first

1. \`orient\` — once, at the start of work in an unfamiliar repository: languages and sizes, the
   top-level layout, entry points and the most depended-on files.
2. \`search\` — words or identifiers from the question. It ranks files and symbols and returns
   anchors: paths and symbol handles to follow up on.

## Then follow up narrowly

- \`workspace_symbols\` — a declaration by exact name, qualified name (Circle::area) or handle, with
  filters for kinds, exported symbols and file globs. Returns handles.
- \`get_symbol\` — one declaration by handle: signature, range, members, the types it extends and
  the types extending it, reference and caller counts.
- \`get_file\` — a page of a file (offset and limit, 1-based lines). Read the lines you need rather
  than whole files; it always returns the live bytes on disk.
- \`goto\` — the definition of the name at a file, line and column.
- \`refs\` — every use of a declaration (imports, calls, references), by handle or by position.
- \`callers\` and \`callees\` — who calls a function and what it calls, with exact call sites.
- \`deps\` and \`rdeps\` — the files a file imports, and the files that import it: \`rdeps\` is
  the quick answer to "what breaks if I change this file?".
- \`path\` — a shortest import chain from one file to another.
- \`supertypes\`, \`subtypes\` and \`implementations\` — the proven type hierarchy of a type, and the
  members that implement an interface or trait member.
- \`status\` — what was indexed, and which files were skipped and why.

Handles look like src/geo.rs::Circle::area. Pass them back exactly as a tool returned them.
Answers are bounded; when one reports omitted results, narrow the question or raise its limit.

## Around an edit

- \`impact\` — before editing, for some files; after, for a git range (base and head, where head
  may be WORKTREE or STAGED): changed declarations, the callers and referrers they impact with
  exact sites, dependent files, candidate tests, and breaks such as a removed function still called.
- \`review\` — a git range as risk: level and reasons, ordered review tasks, the tests to run.
- \`refactor_plan\` — before changing a declaration: its uses, callers, type hierarchy and tests in one
  answer; with renameTo, a rename preview.
- \`rename_preview\` — the exact edits of a rename and whether it is safe; apply them yourself
  only when safe is true.

## Questions across the whole graph

- \`query_sqlite\` — one read-only SELECT over the SQLite artifact (tables files, symbols, refs,
  calls, file_deps, type_relations, unresolved) for what no other tool answers: counts, rankings,
  joins. Bind values with ? and params. STALE_ARTIFACT or NOT_FOUND means the artifact needs
  rebuilding: \`artifact_build\`, only on a server started with --allow-build.
- The project's own SQL tools (from .codegraph/tools.yaml) are tools of their own, by name.

## After editing, check freshness

Index-backed answers carry \`freshness\`: \`fresh\`, \`refreshed\` (your recent edits were picked up
before answering) or \`stale\` (too many files changed to refresh automatically; it lists how many
and a sample). When an answer is \`stale\`, call \`refresh_index\`, then ask again.

## Without the MCP tools

If the tools are not available in this session, run the CLI from the repository root (add --json
for machine-readable answers, --root DIR for another repository):

\`\`\`sh
codegraph orient
codegraph search "parse config"
codegraph symbols Circle::area
codegraph file src/geo.rs --offset 40 --limit 60
codegraph symbol src/geo.rs::Circle::area
codegraph goto src/main.rs:12:9
codegraph refs src/geo.rs::Circle::area
codegraph callers src/geo.rs::Circle::area
codegraph callees src/geo.rs::Circle::area
codegraph deps src/main.rs
codegraph rdeps src/geo.rs
codegraph path src/main.rs src/geo.rs
codegraph subtypes src/geo.rs::Shape
codegraph impact --base HEAD
codegraph review --base main --head HEAD
codegraph rename-preview src/geo.rs::Circle::area surface
codegraph status
\`\`\`
`;

/** SKILL.md for clients pointed at one shared server (`install --url`): which server it is, and
 * how to start it when its tools are missing. */
export function skillFor(remote: { url: string; tokenEnv: string | null } | null): string {
  if (!remote) return SKILL_MD;
  const port = (() => {
    try {
      return new URL(remote.url).port || "7331";
    } catch {
      return "7331";
    }
  })();
  return `${SKILL_MD}
## The shared server

The clients here use one shared codegraph server at ${remote.url} instead of starting their own,
so every agent and editor asks the same warm index. If the codegraph tools are missing or fail to
connect, the server is not running: start it from the repository root (it keeps running)${remote.tokenEnv ? `, with the token in ${remote.tokenEnv}` : ""}:

\`\`\`sh
codegraph mcp serve --root . --port ${port} --warmup
\`\`\`
`;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The marker file: who wrote the folder, and the hash of the SKILL.md it wrote. */
export function markerText(skill: string): string {
  return [
    "codegraph install marker v1",
    "This folder was written by `codegraph install --target agents`; `codegraph uninstall --target agents` removes it.",
    "An edited SKILL.md is left in place by both (--force overrides).",
    `SKILL.md sha256 ${sha256(skill)}`,
    "",
  ].join("\n");
}

/** The SKILL.md hash a marker records, or undefined when the text is not our marker. */
export function markerHash(text: string | undefined): string | undefined {
  if (text === undefined || !text.startsWith("codegraph install marker v1")) return undefined;
  return /^SKILL\.md sha256 ([0-9a-f]{64})$/m.exec(text)?.[1];
}
