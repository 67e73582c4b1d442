// Edits one owned entry (e.g. `mcpServers.codegraph`) in a JSON or JSONC config file and leaves
// every other byte where it was: comments, trailing commas, key order, indentation and line ends.
// jsonc-parser finds the nodes; the inserted text is formatted here, in the file's own indentation,
// because jsonc-parser's formatter would also reformat the neighbouring lines it touches.

import { applyEdits, findNodeAtLocation, modify, parse, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";

import { InstallError, leftAlone, transportSwitch, type PlannedEdit, type TargetId, type Transport } from "./types";

/** What one JSON target owns and how it recognises its own entry. */
export interface JsonEntrySpec {
  target: TargetId;
  path: string;
  /** Property path of the owned entry, e.g. ["mcpServers", "codegraph"]. */
  keyPath: string[];
  /** The entry to write. */
  entry: unknown;
  /** Whether an entry found in the file was written by the installer (same shape, any launcher path). */
  isOwned(existing: unknown): boolean;
  /** How the entry to write reaches the server, and how an existing one does: replacing one of the
   *  installer's entries by one of the other transport is a collision without --force. */
  transport?: Transport;
  transportOf?(existing: unknown): Transport | undefined;
  /** Top-level properties a new file starts with besides the entry (e.g. opencode's `$schema`). */
  newFileProperties?: Record<string, unknown>;
}

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true };

/** Renders a value in the file's style: objects one property per line, arrays of scalars on one line. */
export function formatJson(value: unknown, unit: string, indent: string, eol: string): string {
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== "object")) return `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
    const inner = indent + unit;
    return `[${eol}${value.map((v) => inner + formatJson(v, unit, inner, eol)).join(`,${eol}`)}${eol}${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return "{}";
    const inner = indent + unit;
    const lines = entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatJson(v, unit, inner, eol)}`);
    return `{${eol}${lines.join(`,${eol}`)}${eol}${indent}}`;
  }
  return JSON.stringify(value);
}

/** A new file holding only the entry (and `extra` top-level properties). */
export function newJsonFile(keyPath: string[], entry: unknown, extra: Record<string, unknown> = {}): string {
  let value: unknown = entry;
  for (let i = keyPath.length - 1; i >= 0; i--) value = { [keyPath[i]!]: value };
  return `${formatJson({ ...extra, ...(value as Record<string, unknown>) }, "  ", "", "\n")}\n`;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** Parses a JSONC document; a syntax error is a clear InstallError naming the place. */
export function parseJsonDocument(path: string, text: string): { value: unknown; tree: Node | undefined } {
  const errors: ParseError[] = [];
  const value = parse(text, errors, PARSE_OPTIONS);
  const error = errors[0];
  if (error) {
    const { line, column } = lineColumn(text, error.offset);
    throw new InstallError(
      `${path} is not valid JSON (line ${line}, column ${column}: ${printParseErrorCode(error.error)}); fix it and run again — nothing was written`,
      "MALFORMED_CONFIG",
      path,
    );
  }
  return { value, tree: parseTree(text, [], PARSE_OPTIONS) };
}

/**
 * Refuses a key that appears twice in an object on the way to the entry: parsers keep one of the
 * two (jsonc-parser the last, the planner's edit would land in the first), so every install would
 * add another entry and uninstall would find none.
 */
function checkDuplicateKeys(path: string, text: string, tree: Node | undefined, keyPath: string[]): void {
  let node = tree;
  for (let i = 0; i < keyPath.length && node?.type === "object"; i++) {
    const key = keyPath[i]!;
    const matches = (node.children ?? []).filter((p) => p.children?.[0]?.value === key);
    if (matches.length > 1) {
      const where = i === 0 ? "the top level" : keyPath.slice(0, i).join(".");
      const lines = matches.map((m) => lineColumn(text, m.offset).line).join(" and ");
      throw new InstallError(
        `${path}: ${JSON.stringify(key)} appears twice in ${where} (lines ${lines}); clients read only one of them — merge them and run again; nothing was written`,
        "MALFORMED_CONFIG",
        path,
      );
    }
    node = matches[0]?.children?.[1];
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The value at `keyPath`, checking every container on the way is an object (or absent). */
/** The value at `keyPath` of a JSON(C) config's text (undefined when absent). */
export function entryAt(path: string, text: string, keyPath: string[]): unknown {
  return valueAt(path, parseJsonDocument(path, text).value, keyPath);
}

function valueAt(path: string, root: unknown, keyPath: string[]): unknown {
  let value = root;
  for (let i = 0; i < keyPath.length; i++) {
    if (value === undefined) return undefined;
    if (!isPlainObject(value)) {
      const where = i === 0 ? "the top level" : keyPath.slice(0, i).join(".");
      throw new InstallError(
        `${path}: ${where} is not a JSON object; fix it and run again — nothing was written`,
        "UNSUPPORTED_CONFIG",
        path,
      );
    }
    value = value[keyPath[i]!];
  }
  return value;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

interface Style {
  unit: string;
  eol: string;
}

/** The file's indentation unit and line end (two spaces and \n when it shows none). */
function styleOf(text: string, tree: Node | undefined): Style {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const first = tree?.type === "object" ? tree.children?.[0] : undefined;
  const indent = first ? ownLineIndent(text, first.offset) : undefined;
  return { unit: indent && indent.length > 0 ? indent : "  ", eol };
}

/** The whitespace before `offset` on its line, or undefined when something else precedes it there. */
function ownLineIndent(text: string, offset: number): string | undefined {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const lead = text.slice(lineStart, offset);
  return /^[ \t]*$/.test(lead) ? lead : undefined;
}

/** The indentation of an object's properties: their own, else the object's line indent plus one unit. */
function childIndent(text: string, object: Node, style: Style): string {
  const first = object.children?.[0];
  const own = first ? ownLineIndent(text, first.offset) : undefined;
  if (own !== undefined) return own;
  return lineIndent(text, object.offset) + style.unit;
}

function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** Adds `key: value` as the last property of `object`, touching no existing byte. */
function insertProperty(text: string, object: Node, key: string, value: unknown, style: Style): string {
  const indent = childIndent(text, object, style);
  const property = `${JSON.stringify(key)}: ${formatJson(value, style.unit, indent, style.eol)}`;
  const children = object.children ?? [];
  if (children.length > 0) {
    const last = children[children.length - 1]!;
    const at = last.offset + last.length;
    return text.slice(0, at) + `,${style.eol}${indent}${property}` + text.slice(at);
  }
  // An empty object: the property goes on its own line right after the brace; the brace's interior
  // (a line end, a comment) stays after it.
  const at = object.offset + 1;
  const interior = text.slice(at, object.offset + object.length - 1);
  const close = interior.includes("\n") ? "" : style.eol + lineIndent(text, object.offset);
  return text.slice(0, at) + style.eol + indent + property + close + text.slice(at);
}

/** Plans writing the owned entry: create the file, add or update the entry, or report why not. */
export function planJsonInstall(spec: JsonEntrySpec, file: string | undefined, force: boolean): PlannedEdit {
  return withBom(file, (text) => planInstallText(spec, text, force));
}

/** Plans removing the owned entry; the file is deleted when nothing but what the installer wrote is left. */
export function planJsonUninstall(spec: JsonEntrySpec, file: string | undefined, force: boolean): PlannedEdit {
  return withBom(file, (text) => planUninstallText(spec, text, force));
}

/**
 * Plans on the text after a byte-order mark (which some Windows editors write and jsonc-parser
 * rejects) and puts the mark back on the result, so it too is kept byte for byte.
 */
function withBom(file: string | undefined, planText: (text: string | undefined) => PlannedEdit): PlannedEdit {
  if (file === undefined || !file.startsWith("\uFEFF")) return planText(file);
  const edit = planText(file.slice(1));
  return { ...edit, before: file, after: edit.after === null ? null : `\uFEFF${edit.after}` };
}

function planInstallText(spec: JsonEntrySpec, text: string | undefined, force: boolean): PlannedEdit {
  const label = spec.keyPath.join(".");
  const preview = formatJson({ [spec.keyPath[spec.keyPath.length - 1]!]: spec.entry }, "  ", "", "\n");
  const base = { target: spec.target, path: spec.path, before: text ?? null, preview };
  if (text === undefined) {
    return {
      ...base,
      kind: "create",
      after: newJsonFile(spec.keyPath, spec.entry, spec.newFileProperties),
      description: `create the file with ${label}`,
      backup: false,
    };
  }
  const { value, tree } = parseJsonDocument(spec.path, text);
  checkDuplicateKeys(spec.path, text, tree, spec.keyPath);
  const existing = valueAt(spec.path, value, spec.keyPath);
  const style = styleOf(text, tree);
  if (existing === undefined) {
    let after: string;
    if (tree === undefined) {
      after = newJsonFile(spec.keyPath, spec.entry, spec.newFileProperties);
    } else {
      // Insert at the deepest container that exists, creating the missing ones in one property.
      let depth = spec.keyPath.length - 1;
      while (depth > 0 && findNodeAtLocation(tree, spec.keyPath.slice(0, depth)) === undefined) depth--;
      const container = depth === 0 ? tree : findNodeAtLocation(tree, spec.keyPath.slice(0, depth))!;
      let value: unknown = spec.entry;
      for (let i = spec.keyPath.length - 1; i > depth; i--) value = { [spec.keyPath[i]!]: value };
      after = insertProperty(text, container, spec.keyPath[depth]!, value, style);
    }
    return { ...base, kind: "modify", after, description: `add ${label}`, backup: true };
  }
  if (deepEqual(existing, spec.entry)) {
    return leftAlone({ ...base, preview: undefined }, "unchanged", `${label} is already installed`);
  }
  const owned = spec.isOwned(existing);
  if (!owned && !force) {
    return leftAlone(base, "collision", `${label} already exists with other settings; left alone (--force replaces it, keeping a backup)`);
  }
  const switched = owned ? transportSwitch(base, label, spec.transportOf?.(existing), spec.transport, force) : undefined;
  if (switched) return switched;
  const node = findNodeAtLocation(tree!, spec.keyPath)!;
  const indent = lineIndent(text, node.parent!.offset);
  const after = text.slice(0, node.offset) + formatJson(spec.entry, style.unit, indent, style.eol) + text.slice(node.offset + node.length);
  const description = owned
    ? `update ${label} (written by an earlier install with another command)`
    : `replace the existing ${label} (--force)`;
  // A file holding nothing but the installer's own entry needs no backup.
  const onlyOurs = owned && text === newJsonFile(spec.keyPath, existing, spec.newFileProperties);
  return { ...base, kind: "modify", after, description, backup: !onlyOurs };
}

/** Removes the property at `keyPath` (and the comma that joined it), as jsonc-parser does without reformatting. */
function removeProperty(text: string, keyPath: string[]): string {
  return applyEdits(text, modify(text, keyPath, undefined, {}));
}

function planUninstallText(spec: JsonEntrySpec, text: string | undefined, force: boolean): PlannedEdit {
  const label = spec.keyPath.join(".");
  const base = { target: spec.target, path: spec.path, before: text ?? null };
  if (text === undefined) return leftAlone(base, "unchanged", "not installed (no such file)");
  const { value, tree } = parseJsonDocument(spec.path, text);
  checkDuplicateKeys(spec.path, text, tree, spec.keyPath);
  const existing = valueAt(spec.path, value, spec.keyPath);
  if (existing === undefined) return leftAlone(base, "unchanged", `not installed (no ${label})`);
  const owned = spec.isOwned(existing);
  if (!owned && !force) {
    return leftAlone(
      base,
      "collision",
      `${label} was not written by codegraph install (its settings differ); left alone (--force removes it)`,
    );
  }
  const preview = formatJson({ [spec.keyPath[spec.keyPath.length - 1]!]: existing }, "  ", "", "\n");
  // A file that is exactly what a fresh install writes was created by the installer: delete it.
  if (owned && text === newJsonFile(spec.keyPath, existing, spec.newFileProperties)) {
    return {
      ...base,
      kind: "remove",
      after: null,
      ifKept: removeProperty(text, spec.keyPath),
      description: `delete the file (it holds only ${label})`,
      preview,
      backup: false,
    };
  }
  // Containers stay, even left empty: without the install record (record.ts), which gives the file
  // back exactly, a container the person had can't be told from one the installer created.
  const after = removeProperty(text, spec.keyPath);
  const description = owned ? `remove ${label}` : `remove ${label} (--force; it was not written by codegraph install)`;
  return { ...base, kind: "modify", after, description, preview, backup: true };
}
