// Human output of the CLI commands, one typed function per answer. The JSON answer is the truth;
// these only lay it out (file names and other text from the repository escaped for the terminal).

import type * as T from "../generated/types";

function where(s: { path: string; line: number; column?: number }): string {
  return s.column === undefined ? `${s.path}:${s.line}` : `${s.path}:${s.line}:${s.column}`;
}

function symbolLine(s: T.SymbolInfo): string {
  return `${s.kind.padEnd(9)} ${s.handle}  (${where(s)})`;
}

function omissions(o: T.Omitted): string[] {
  const parts = [
    ...Object.entries(o.byLimit ?? {}).map(([k, n]) =>
      k === "budget" ? `${n} entries over the budget (raise --budget)` : `${n} more ${k} (raise --limit)`,
    ),
    ...Object.entries(o.other ?? {}).map(([k, n]) => `${k}: ${n}`),
  ];
  return parts.length ? [`omitted: ${parts.join("; ")}`] : [];
}

export function formatOrient(r: T.OrientResponse): string {
  return [
    `${r.files} files, ${r.symbols} symbols${r.otherFiles ? ` (${r.otherFiles} other files not parsed)` : ""}`,
    "",
    "languages:",
    ...r.languages.map(
      (l) =>
        `  ${l.language.padEnd(11)} ${String(l.files).padStart(6)} files ${String(l.lines).padStart(8)} lines ${String(l.symbols).padStart(7)} symbols`,
    ),
    "",
    "layout:",
    ...r.layout.map((d) => `  ${d.dir.padEnd(30)} ${String(d.files).padStart(6)} files  ${d.languages.join(", ")}`),
    "",
    "entry points:",
    ...(r.entryPoints.length ? r.entryPoints.map((p) => `  ${p}`) : ["  (none found)"]),
    "",
    "public API (most used):",
    ...(r.publicApi.length
      ? r.publicApi.map((a) => `  ${a.kind.padEnd(9)} ${a.handle} (${a.uses} uses)`)
      : ["  (no exported declarations)"]),
    "",
    `tests: ${r.tests.files} files${r.tests.dirs.length ? ` in ${r.tests.dirs.map((d) => `${d.dir} (${d.files})`).join(", ")}` : ""}`,
    "",
    "most depended-on files:",
    ...(r.mostDependedOn.length ? r.mostDependedOn.map((f) => `  ${f.path} (${f.dependents} dependents)`) : ["  (no import edges)"]),
    "",
    `references: ${r.resolution.resolvedReferences} resolved, ${r.resolution.unresolvedReferences} unresolved; ${r.resolution.importEdges} file dependencies`,
    ...(r.skippedFileCount
      ? [`skipped ${r.skippedFileCount} files, e.g.:`, ...r.skippedSample.map((s) => `  ${s.path}: ${s.reason}`)]
      : []),
    ...omissions(r.omitted),
  ].join("\n");
}

export function formatExplore(r: T.ExploreResponse): string {
  return [
    ...(r.anchors.length ? ["anchors:"] : [`nothing in the repository matches ${JSON.stringify(r.query)}`]),
    ...r.anchors.map(
      (a) =>
        `  ${a.kind === "file" ? "file     " : (a.symbolKind ?? "").padEnd(9)} ${a.handle ?? a.path}${a.line ? `  (${a.path}:${a.line})` : ""}  [${a.matched.join(", ")}]`,
    ),
    ...(r.unknownWords?.length ? [`words found nowhere: ${r.unknownWords.join(", ")}`] : []),
    ...r.packets.flatMap((p) => ["", packet(p)]),
    ...(r.paths.length ? ["", "import paths:", ...r.paths.map((p) => `  ${p.files.join(" → ")}`)] : []),
    ...(r.blastRadius.total
      ? [
          "",
          `blast radius: ${r.blastRadius.total} files within two imports`,
          ...r.blastRadius.files.map((d) => `  ${d.path} (${d.distance})`),
        ]
      : []),
    ...(r.candidateTests.length ? ["", "candidate tests:", ...r.candidateTests.map((t) => `  ${t.path}  (${t.reason})`)] : []),
    ...(r.followUps.length ? ["", "next:", ...r.followUps.map((f) => `  ${f.tool} ${JSON.stringify(f.arguments)}  — ${f.why}`)] : []),
    ...(r.fileView ? ["", `${r.fileView.file}:`, r.fileView.content] : []),
    ...omissions(r.omitted),
  ].join("\n");
}

export function formatPacket(r: T.PacketGetResponse): string {
  return [packet(r.packet), ...(r.alternatives?.length ? [`also named so: ${r.alternatives.join(", ")}`] : [])].join("\n");
}

export function formatContext(r: T.ContextResponse): string {
  if (r.profiles) {
    return r.profiles.length
      ? r.profiles.map((p) => `${p.name}: ${JSON.stringify({ ...p, name: undefined })}`).join("\n")
      : "no profiles (add [profiles.NAME.context] to .codegraph/config)";
  }
  if (r.markdown != null) return r.markdown;
  return [
    `${r.entries.length} entries, ${r.usedTokens} of ${r.budget} tokens (${r.tokenizer}), compress ${r.compress}`,
    ...(r.diff ? [`diff ${r.diff.spec}: ${r.diff.changed} changed paths, ${r.diff.indexed} indexed files packed first`] : []),
    ...r.entries.map((e) => `  ${e.reason.padEnd(11)} ${e.handle ?? e.path}`),
    ...omissions(r.omitted),
  ].join("\n");
}

export function formatSearch(r: T.SearchResponse): string {
  return [
    ...(r.hits.length ? [] : [`no results for ${JSON.stringify(r.query)}`]),
    ...r.hits.map((h) =>
      h.symbol ? `${symbolLine(h.symbol)}  [${h.matched.join(", ")}]` : `file      ${h.path}  [${h.matched.join(", ")}]`,
    ),
    ...omissions(r.omitted),
  ].join("\n");
}

export function formatSymbols(r: T.WorkspaceSymbolsResponse): string {
  return [
    ...(r.symbols.length ? [] : [`no symbols match ${JSON.stringify(r.query)}`]),
    ...r.symbols.map((s) => `${symbolLine(s)}${s.importOf ? `  → ${s.importOf}` : ""}`),
    ...omissions(r.omitted),
  ].join("\n");
}

export function formatFile(r: T.GetFileResponse): string {
  if (r.sensitive?.redacted) return `${r.file}: sensitive (${r.sensitive.kind}); content withheld, pass --allow-sensitive to read it`;
  const lines = [r.content];
  if (r.page) lines.push(`… ${r.totalLines} lines in all; continue with --offset ${r.page.nextOffset}`);
  if (r.graphContext) {
    lines.push("", `imports: ${r.graphContext.imports.join(", ") || "(none)"}`, `used by: ${r.graphContext.usedBy.join(", ") || "(none)"}`);
  }
  return lines.join("\n");
}

export function formatSymbol(r: T.GetSymbolResponse): string {
  return [
    symbolLine(r.symbol),
    `  ${r.symbol.signature}`,
    `  ${r.referenceCount} references, ${r.callerCount} callers`,
    ...(r.supertypes.length ? [`  supertypes: ${r.supertypes.join(", ")}`] : []),
    ...(r.subtypes.length ? [`  subtypes: ${r.subtypes.join(", ")}`] : []),
    ...(r.members.length ? ["  members:", ...r.members.map((m) => `    ${symbolLine(m)}`)] : []),
  ].join("\n");
}

export function formatGoto(r: T.GotoResponse): string {
  return r.definitions.length
    ? r.definitions.map((d) => `${where(d)}  ${d.kind} ${d.handle}\n  ${d.signature}`).join("\n")
    : `\`${r.name}\` does not resolve to a declaration in this repository`;
}

export function formatRefs(r: T.RefsResponse): string {
  return [
    `${r.total} references to ${r.symbol.handle}`,
    ...r.refs.map((s) => `  ${where(s).padEnd(50)} ${s.kind.padEnd(9)} ${s.enclosing ?? ""}`),
    ...omissions(r.omitted),
  ].join("\n");
}

export function formatCallers(r: T.CallsResponse): string {
  return calls("callers of", r);
}

export function formatCallees(r: T.CallsResponse): string {
  return calls("callees of", r);
}

export function formatDeps(r: T.DepsResponse): string {
  return [`${r.file} imports ${r.total} files`, ...r.files.map((f) => `  ${f}`), ...omissions(r.omitted)].join("\n");
}

export function formatRdeps(r: T.DepsResponse): string {
  return [`${r.total} files import ${r.file}`, ...r.files.map((f) => `  ${f}`), ...omissions(r.omitted)].join("\n");
}

export function formatPath(r: T.PathResponse): string {
  return r.path ? r.path.join("\n  → ") : `no import path from ${r.from} to ${r.to}`;
}

export function formatHierarchy(title: string, r: T.HierarchyResponse): string {
  return [
    `${r.total} ${title} ${r.symbol.handle}`,
    ...r.types.map((t) => `  ${t.depth > 1 ? `[depth ${t.depth}] ` : ""}${symbolLine(t.symbol)}  ${t.relation} via ${t.via}`),
    ...omissions(r.omitted),
  ].join("\n");
}

export function formatImplementations(r: T.ImplementationsResponse): string {
  return [
    `${r.total} implementations of ${r.symbol.handle}`,
    ...r.implementations.map((t) => `  ${symbolLine(t.symbol)}`),
    ...omissions(r.omitted),
  ].join("\n");
}

export function formatImpact(r: T.ImpactResponse): string {
  const lines: string[] = [];
  if (r.range) lines.push(`impact of ${r.range.base}..${r.range.head} (depth ${r.depth})`);
  if (r.changedFiles.length) {
    lines.push(`${r.changedFiles.length} changed files:`);
    for (const f of r.changedFiles)
      lines.push(`  ${f.status.padEnd(9)} ${f.oldPath ? `${f.oldPath} → ` : ""}${f.path}  (${f.changedSymbols} declarations)`);
  }
  if (r.changed.length) {
    lines.push(`${r.changed.length} changed declarations:`);
    for (const c of r.changed) lines.push(`  ${c.change.padEnd(18)} ${c.kind.padEnd(9)} ${c.handle}  (${c.path}:${c.line})`);
  }
  if (r.impacted.length) {
    lines.push(`${r.impacted.length} impacted symbols:`);
    for (const i of r.impacted) {
      lines.push(
        `  ${i.depth > 1 ? `[depth ${i.depth}] ` : ""}${i.handle}  (${i.calls ? "calls" : "uses"} ${i.uses.join(", ")}; ${i.siteCount} sites)`,
      );
      for (const site of i.sites) lines.push(`      ${where(site)}`);
    }
  }
  for (const t of r.targets)
    lines.push(
      `${t.target}: ${t.dependent_count} dependents${t.dependents.length ? ` — ${t.dependents.map((d) => d.path).join(", ")}` : ""}`,
    );
  if (r.candidateTests.length) {
    lines.push("candidate tests:");
    for (const t of r.candidateTests) lines.push(`  ${t.path}  (${t.reason})`);
  }
  for (const d of r.diagnostics) {
    lines.push(`${d.kind}: ${d.message}`);
    for (const site of d.sites ?? []) lines.push(`      ${where(site)}`);
  }
  if (r.gate) {
    lines.push(
      r.gate.crossed
        ? `gate crossed: ${r.gate.violations.map((v) => `${v.target} has ${v.dependent_count} dependents`).join("; ")} (fail-on ${r.gate.fail_on})`
        : `gate held: no target reaches ${r.gate.fail_on} dependents`,
    );
  }
  if (!r.complete) lines.push("incomplete: some changed files could not be analysed (see above)");
  lines.push(...omissions(r.omitted));
  return lines.join("\n");
}

export function formatReview(r: T.ReviewResponse): string {
  const risk = r.riskSummary;
  return [
    `review of ${r.range.base}..${r.range.head} (${r.reviewDepth}): risk ${risk.level} (${risk.score})`,
    ...risk.reasons.map((x) => `  - ${x.message}${x.handles.length ? `: ${x.handles.slice(0, 5).join(", ")}` : ""}`),
    ...(r.reviewTasks.length ? ["tasks:"] : []),
    ...r.reviewTasks.flatMap((t) => [
      `  ${t.priority}. ${t.check}`,
      ...(t.targets.length ? [`     ${t.targets.slice(0, 8).join(", ")}`] : []),
      ...t.sites.slice(0, 8).map((s) => `     ${where(s)}`),
    ]),
    ...(r.candidateTests.length ? ["candidate tests:", ...r.candidateTests.map((t) => `  ${t.path}  (${t.reason})`)] : []),
    ...omissions(r.omitted),
  ].join("\n");
}

/** The edits as a unified-diff-like listing: each touched line before and after (read live
 * through `getFile`), then whether the rename is safe and why not. */
export function formatRenamePreview(r: T.RenamePreviewResponse, readLine: (file: string, line: number) => string | undefined): string {
  const out: string[] = [
    `rename ${r.symbol.handle} → ${r.newName}: ${r.edits.length} edits in ${new Set(r.edits.map((e) => e.path)).size} files`,
  ];
  const byFile = new Map<string, T.RenameEdit[]>();
  for (const e of r.edits) byFile.set(e.path, [...(byFile.get(e.path) ?? []), e]);
  for (const [file, edits] of byFile) {
    out.push(`--- a/${file}`, `+++ b/${file}`);
    const byLine = new Map<number, T.RenameEdit[]>();
    for (const e of edits) byLine.set(e.line, [...(byLine.get(e.line) ?? []), e]);
    for (const [line, es] of byLine) {
      const before = readLine(file, line);
      out.push(`@@ -${line} +${line} @@ ${es.map((e) => e.kind).join(", ")}`);
      if (before === undefined) {
        for (const e of es) out.push(`  column ${e.column}: ${e.oldText} → ${e.newText}`);
        continue;
      }
      const chars = [...before];
      for (const e of [...es].sort((a, b) => b.column - a.column)) chars.splice(e.column - 1, e.endColumn - e.column, ...e.newText);
      out.push(`-${before}`, `+${chars.join("")}`);
    }
  }
  out.push(r.safe ? "safe: applying these edits keeps every proven use resolving to the renamed declaration" : "NOT SAFE:");
  for (const reason of r.reasons) out.push(`  - ${reason}`);
  for (const c of r.conflicts) out.push(`  conflict (${c.kind}): ${c.message}${c.path ? ` — ${c.path}${c.line ? `:${c.line}` : ""}` : ""}`);
  for (const u of r.unsafeSites.slice(0, 20)) out.push(`  unsafe (${u.kind}): ${where(u)}`);
  for (const f of r.filenameSuggestions) out.push(`suggestion: rename the file ${f.path} → ${f.newPath}`);
  out.push(...omissions(r.omitted));
  return out.join("\n");
}

export function formatRefactorPlan(r: T.RefactorPlanResponse): string {
  const groups = (title: string, list: T.CallGroup[]) =>
    list.length ? [`${title}:`, ...list.map((g) => `  ${g.handle} (${g.callsites.length} sites)`)] : [];
  const types = (title: string, list: T.HierarchyEntry[]) =>
    list.length ? [`${title}:`, ...list.map((t) => `  ${symbolLine(t.symbol)}`)] : [];
  return [
    symbolLine(r.symbol),
    `  ${r.symbol.signature}`,
    ...(r.source ? ["", r.source, ""] : []),
    `${r.referenceCount} references${r.references.length ? ":" : ""}`,
    ...r.references.map((s) => `  ${where(s).padEnd(50)} ${s.kind}`),
    ...groups("callers", r.callers),
    ...groups("callees", r.callees),
    ...types("supertypes", r.supertypes),
    ...types("subtypes", r.subtypes),
    ...types("implementations", r.implementations),
    ...(r.candidateTests.length ? ["candidate tests:", ...r.candidateTests.map((t) => `  ${t.path}  (${t.reason})`)] : []),
    ...r.sectionIssues.map((i) => `(${i.section}: ${i.message})`),
    ...(r.rename
      ? [
          `rename to ${r.rename.newName}: ${r.rename.edits.length} edits, ${r.rename.safe ? "safe" : `NOT SAFE — ${r.rename.reasons.join("; ")}`}`,
        ]
      : []),
    "next:",
    ...r.followUps.map((f) => `  ${f.tool} ${JSON.stringify(f.arguments)}  — ${f.why}`),
    ...omissions(r.omitted),
  ].join("\n");
}

/** An aligned table of counts per language, with a total row (and the declarations with --detail). */
export function formatLoc(r: T.LocResponse): string {
  const cols = ["language", "files", "code", "comment", "blank", "bytes", "functions", "types", "constants"] as const;
  const rows = [...r.languages, r.total].map((x) => cols.map((c) => String(x[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const out = [line([...cols]), rule, ...rows.slice(0, -1).map(line), rule, line(rows[rows.length - 1]!)];
  for (const d of r.declarations ?? []) out.push(`${where(d)}  ${d.kind.padEnd(9)} ${d.name}`);
  if (r.changedSinceIndexed) out.push(`${r.changedSinceIndexed} files changed since they were indexed and were not counted (refresh)`);
  out.push(...omissions(r.omitted));
  return out.join("\n");
}

/** Rows as an aligned table (text as is, numbers right-aligned, null as NULL, a blob as its size). */
export function formatRows(r: T.QuerySqliteResponse): string {
  const shown = (v: unknown): string =>
    v === null ? "NULL" : typeof v === "object" ? `<blob ${(v as { bytes: number }).bytes} bytes>` : String(v).replace(/\n/g, "\\n");
  const rows = r.rows.map((row) => row.map(shown));
  const widths = r.columns.map((c, i) => Math.min(60, Math.max(c.length, ...rows.map((row) => row[i]!.length))));
  const numeric = r.columns.map((_, i) => r.rows.length > 0 && r.rows.every((row) => typeof row[i] === "number" || row[i] === null));
  const cell = (c: string, i: number) => {
    const cut = c.length > widths[i]! ? `${c.slice(0, widths[i]! - 1)}…` : c;
    return numeric[i] ? cut.padStart(widths[i]!) : cut.padEnd(widths[i]!);
  };
  const out = [
    r.columns.map(cell).join("  ").trimEnd(),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...rows.map((row) => row.map(cell).join("  ").trimEnd()),
  ];
  out.push(
    `${r.rows.length} row${r.rows.length === 1 ? "" : "s"}${r.truncated ? ` (truncated by ${r.truncatedBy}: more exist)` : ""}; artifact ${r.artifact.state}${r.artifact.changedFiles != null ? ` (${r.artifact.changedFiles} files changed)` : ""}`,
  );
  out.push(...omissions(r.omitted));
  return out.join("\n");
}

export function formatArtifactBuild(r: T.ArtifactBuildResponse): string {
  return [
    `wrote ${r.dir}/ (schema ${r.schemaVersion}, index ${r.indexFingerprint.slice(0, 12)}):`,
    ...r.files.map((f) => `  ${f.path}  ${bytes(f.bytes)}`),
    `rows: ${Object.entries(r.rows)
      .map(([t, n]) => `${t} ${n}`)
      .join(", ")}`,
  ].join("\n");
}

export function formatCustomTools(r: T.CustomToolsResponse): string {
  if (!r.exists) return `no ${r.path} (see the README: custom SQL tools)`;
  const out = [`${r.tools.length} tool${r.tools.length === 1 ? "" : "s"} in ${r.path}`];
  for (const t of r.tools) {
    const params = t.parameters.map((p) => `${p.name}: ${p.type}${p.default !== undefined ? ` = ${JSON.stringify(p.default)}` : ""}`);
    out.push(`  ${t.name}(${params.join(", ")})  ${t.description}`);
  }
  for (const i of r.issues) out.push(`skipped ${i.tool ?? "(file)"}: ${i.message}`);
  return out.join("\n");
}

/** The graph in its format, or for json the edges one per line. */
export function formatGraph(r: T.GraphResponse): string {
  if (r.text) return r.text.replace(/\n$/, "");
  return [
    `${r.nodes.length} files, ${r.edges.length} imports${r.depthLimited ? ` (depth ${r.depth}; more beyond)` : ""}`,
    ...r.edges.map((e) => `  ${e.from} → ${e.to}`),
    ...omissions(r.omitted),
  ].join("\n");
}

export function formatStatus(r: T.StatusResponse): string {
  return [
    `${r.files} files indexed`,
    `snapshot: ${r.snapshot.state}, ${r.snapshot.reusedFiles} files reused unread, ${r.snapshot.readFiles} read${r.snapshot.written ? ", written to .codegraph/index.bin" : ""}`,
    ...(r.snapshot.bytes != null ? [`  .codegraph/index.bin: ${bytes(r.snapshot.bytes)}, written ${age(r.snapshot.ageMs ?? 0)} ago`] : []),
    ...(r.snapshot.note ? [`note: ${r.snapshot.note}`] : []),
    ...(r.freshness.state === "stale"
      ? [
          `stale: ${r.freshness.changedFileCount} files changed on disk since (${(r.freshness.changedFiles ?? []).slice(0, 5).join(", ")}${(r.freshness.changedFileCount ?? 0) > 5 ? ", …" : ""})`,
        ]
      : []),
    `build: ${ms(r.timings.totalMs)} (walk ${ms(r.timings.walkMs)}, snapshot load ${ms(r.timings.snapshotLoadMs)}, read ${ms(r.timings.readMs)}, parse ${ms(r.timings.parseMs)}, snapshot save ${ms(r.timings.snapshotSaveMs)}, resolve ${ms(r.timings.resolveMs)})`,
    ...r.languages.map((l) => `  ${l.language.padEnd(11)} ${l.files} files, ${l.lines} lines`),
    ...(r.skipped.length ? [`skipped ${r.skipped.length} files:`, ...r.skipped.map((s) => `  ${s.path}: ${s.reason}`)] : []),
  ].join("\n");
}
function packet(p: T.Packet): string {
  return [
    `${p.symbolKind ?? "file"} ${p.target}  (${p.path}:${p.startLine}-${p.endLine})`,
    ...(p.signature ? [`  ${p.signature}`] : []),
    ...(p.doc ? p.doc.split("\n").map((l) => `  │ ${l}`) : []),
    ...(p.declarations?.length ? [`  declares: ${p.declarations.join(", ")}`] : []),
    ...(p.imports?.length ? [`  imports: ${p.imports.join(", ")}`] : []),
    `  used: ${p.usedBy.total}${p.usedBy.symbols?.length ? ` by ${p.usedBy.symbols.join(", ")}` : p.usedBy.files.length ? ` in ${p.usedBy.files.join(", ")}` : ""}`,
    ...(p.excerpt
      ? [
          p.excerpt.text
            .split("\n")
            .map((l, i) => `  ${String(p.excerpt!.startLine + i).padStart(5)}  ${l}`)
            .join("\n"),
        ]
      : []),
  ].join("\n");
}

function ms(v: number): string {
  return v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${Math.round(v)} ms`;
}

function bytes(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

function age(msAgo: number): string {
  const s = Math.round(msAgo / 1000);
  return s < 60
    ? `${s} s`
    : s < 3600
      ? `${Math.round(s / 60)} min`
      : s < 86400
        ? `${Math.round(s / 3600)} h`
        : `${Math.round(s / 86400)} d`;
}

function calls(title: string, r: T.CallsResponse): string {
  return [
    `${r.total} ${title} ${r.symbol.handle}`,
    ...r.groups.flatMap((g) => [
      `  ${g.depth > 1 ? `[depth ${g.depth}] ` : ""}${g.handle}`,
      ...g.callsites.map((c) => `      ${where(c)}`),
    ]),
    ...omissions(r.omitted),
  ].join("\n");
}

/** Keys whose text is meant to span lines (file pages, excerpts, packs, doc comments). */
const MULTILINE_KEYS = new Set(["content", "text", "markdown", "doc"]);

/** A control character as printable text: `\n`, `\x1b`, `\u{9b}`. */
function escapeControl(c: string): string {
  const code = c.codePointAt(0)!;
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  if (c === "\t") return "\\t";
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
}

/**
 * The answer with every control character a terminal would act on escaped: ESC sequences, C1
 * controls and DEL everywhere, and line breaks and tabs too wherever a value is a name (paths,
 * handles) rather than a text that spans lines. File names come from the repository; the human
 * output must not let one move the cursor, recolour the terminal or forge a line.
 */
export function forTerminal<T>(answer: T, key = ""): T {
  if (typeof answer === "string") {
    const pattern = MULTILINE_KEYS.has(key) ? /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu : /[\u0000-\u001f\u007f-\u009f]/gu;
    return answer.replace(pattern, escapeControl) as T;
  }
  if (Array.isArray(answer)) return answer.map((v) => forTerminal(v, key)) as T;
  if (answer && typeof answer === "object") {
    return Object.fromEntries(Object.entries(answer).map(([k, v]) => [k, forTerminal(v, k)])) as T;
  }
  return answer;
}
