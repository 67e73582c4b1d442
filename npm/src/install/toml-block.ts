// Owns one marked block in a TOML file (`# >>> codegraph >>>` … `# <<< codegraph <<<`), edited as
// text so every byte outside it stays put, and checks every result by parsing the WHOLE file with a
// real TOML parser before it may be written.

import type * as SmolToml from "smol-toml" with { "resolution-mode": "import" };

import { InstallError, leftAlone, transportSwitch, type PlannedEdit, type TargetId, type Transport } from "./types";

// smol-toml ships a CommonJS build (dist/index.cjs, its "require" export) but declares its types for
// ESM only, so the module is required and typed from the ESM declarations.
const { parse, TomlError } = require("smol-toml") as typeof SmolToml;

export const BLOCK_START = "# >>> codegraph >>>";
export const BLOCK_END = "# <<< codegraph <<<";

/** What one TOML target owns: the block's body and the dotted key it defines. */
export interface TomlBlockSpec {
  target: TargetId;
  path: string;
  /** The block's lines between the markers. */
  body: string[];
  /** The key the block defines, e.g. ["mcp_servers", "codegraph"]. */
  keyPath: string[];
  /** The uninstall command named in the block's comment. */
  uninstallHint: string;
  /** Whether body lines found between the markers are ones the installer writes (for some
   *  launcher): anything else was edited by hand, and install leaves it alone without --force. */
  ownsBody(body: string[]): boolean;
  /** How the block to write reaches the server, and how found body lines do: replacing the
   *  installer's block by one of the other transport is a collision without --force. */
  transport?: Transport;
  transportOf?(body: string[]): Transport | undefined;
}

/** The comment a block starts with when the installer created the file, so uninstall deletes it again. */
const CREATED_NOTE = "it created this file";

/** The whole block, markers included, with the file's line ends and a final one. */
export function renderBlock(spec: TomlBlockSpec, eol = "\n", createdFile = false): string {
  const note = createdFile
    ? `# Written by \`codegraph install\` (${CREATED_NOTE}); \`${spec.uninstallHint}\` removes this block, and the file if nothing else is left.`
    : `# Written by \`codegraph install\`; \`${spec.uninstallHint}\` removes this block.`;
  return [BLOCK_START, note, ...spec.body, BLOCK_END, ""].join(eol);
}

/** A TOML basic string. JSON's escapes are TOML's, except that TOML also forbids a raw DEL. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\u007f/g, "\\u007F");
}

export function tomlStringArray(values: string[]): string {
  return `[${values.map(tomlString).join(", ")}]`;
}

/** Parses the whole file; a syntax error is a clear InstallError with the parser's line and column. */
export function parseToml(path: string, text: string, what = "is not valid TOML"): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (e) {
    const detail = e instanceof TomlError ? `line ${e.line}, column ${e.column}: ${e.message.split("\n")[0]}` : (e as Error).message;
    throw new InstallError(`${path} ${what} (${detail}); fix it and run again — nothing was written`, "MALFORMED_CONFIG", path);
  }
}

interface BlockRange {
  /** Offset of the start marker's line. */
  start: number;
  /** Offset just past the end marker's line end. */
  end: number;
}

/** Finds the one marked block; damaged markers (one without the other, two blocks) are an error. */
function findBlock(path: string, text: string): BlockRange | undefined {
  const starts: number[] = [];
  const ends: number[] = [];
  let offset = 0;
  for (const line of text.split("\n")) {
    const bare = line.replace(/\r$/, "").trimEnd();
    if (bare === BLOCK_START) starts.push(offset);
    if (bare === BLOCK_END) ends.push(offset + line.length + 1);
    offset += line.length + 1;
  }
  if (starts.length === 0 && ends.length === 0) return undefined;
  const [start, end] = [starts[0], ends[0]];
  if (starts.length !== 1 || ends.length !== 1 || start === undefined || end === undefined || end < start) {
    throw new InstallError(
      `${path} has damaged codegraph markers (expected one "${BLOCK_START}" line followed by one "${BLOCK_END}" line); fix them by hand — nothing was written`,
      "MALFORMED_CONFIG",
      path,
    );
  }
  return { start, end: Math.min(end, text.length) };
}

function valueAt(root: Record<string, unknown>, keyPath: string[]): unknown {
  let value: unknown = root;
  for (const key of keyPath) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Removes the block and the one line end the installer put before it (see `appendBlock`). */
function cutBlock(text: string, range: BlockRange): string {
  let start = range.start;
  if (text.slice(start - 2, start) === "\r\n") start -= 2;
  else if (text[start - 1] === "\n") start -= 1;
  return text.slice(0, start) + text.slice(range.end);
}

/**
 * Appends the block. A non-empty file gets one line end before it: that ends a last line without
 * one, or leaves a blank line otherwise; `cutBlock` removes exactly that line end again.
 */
function appendBlock(text: string, block: string, eol: string): string {
  return text === "" ? block : text + eol + block;
}

/**
 * Removes hand-written `[mcp_servers.codegraph]` tables (and their sub-tables), for --force. Other
 * forms (inline tables, dotted keys) are left for the person: the result is re-parsed and checked.
 */
function removeTables(text: string, keyPath: string[]): string {
  const key = keyPath.map((k) => `(?:${k}|"${k}"|'${k}')`).join("\\s*\\.\\s*");
  const header = new RegExp(`^\\s*\\[\\s*${key}\\s*(?:\\.[^\\]]*)?\\]\\s*(?:#.*)?$`);
  const lines = text.split("\n");
  const kept: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (/^\s*\[/.test(line)) skipping = header.test(line.replace(/\r$/, ""));
    if (!skipping) kept.push(line);
  }
  return kept.join("\n");
}

/** Plans writing the block: create the file, append or replace the block, or report why not. */
export function planTomlInstall(spec: TomlBlockSpec, text: string | undefined, force: boolean): PlannedEdit {
  const label = `[${spec.keyPath.join(".")}]`;
  const base = { target: spec.target, path: spec.path, before: text ?? null };
  const eol = text?.includes("\r\n") ? "\r\n" : "\n";
  const block = renderBlock(spec, eol);
  const check = (after: string) => {
    const parsed = parseToml(spec.path, after, `would not be valid TOML with the codegraph block`);
    if (valueAt(parsed, spec.keyPath) === undefined) {
      throw new InstallError(`${spec.path}: ${label} is not where the block puts it; nothing was written`, "UNSUPPORTED_CONFIG", spec.path);
    }
    return after;
  };
  const preview = renderBlock(spec);
  if (text === undefined) {
    const created = renderBlock(spec, eol, true);
    return {
      ...base,
      kind: "create",
      after: check(created),
      description: `create the file with ${label} in a codegraph block`,
      preview: renderBlock(spec, "\n", true),
      backup: false,
    };
  }
  const parsed = parseToml(spec.path, text);
  const range = findBlock(spec.path, text);
  if (range) {
    const found = text.slice(range.start, range.end);
    const createdFile = found.includes(CREATED_NOTE);
    const [, note, ...rest] = found.replace(/\r?\n$/, "").split(/\r?\n/);
    const body = rest.slice(0, -1);
    const ours = renderBlock(spec, eol, createdFile).split(/\r?\n/)[1] === note && spec.ownsBody(body);
    if (!ours && !force) {
      return leftAlone(base, "collision", "the codegraph block was edited by hand; left alone (--force replaces it, keeping a backup)");
    }
    const switched = ours ? transportSwitch(base, label, spec.transportOf?.(body), spec.transport, force) : undefined;
    if (switched) return switched;
    const after = text.slice(0, range.start) + renderBlock(spec, eol, createdFile) + text.slice(range.end);
    if (after === text) return leftAlone(base, "unchanged", `${label} is already installed`);
    // A file holding nothing but the block needs no backup.
    const backup = cutBlock(text, range) !== "";
    return { ...base, kind: "modify", after: check(after), description: `update the codegraph block (${label})`, preview, backup };
  }
  if (valueAt(parsed, spec.keyPath) !== undefined) {
    if (!force) {
      return leftAlone(
        base,
        "collision",
        `${label} already exists outside a codegraph block; left alone (--force replaces it, keeping a backup)`,
      );
    }
    const without = removeTables(text, spec.keyPath);
    if (valueAt(parseToml(spec.path, without, "could not be edited"), spec.keyPath) !== undefined) {
      throw new InstallError(
        `${spec.path}: ${label} is not a plain table, so --force cannot replace it; remove it by hand — nothing was written`,
        "UNSUPPORTED_CONFIG",
        spec.path,
      );
    }
    return {
      ...base,
      kind: "modify",
      after: check(appendBlock(without, block, eol)),
      description: `replace the existing ${label} with a codegraph block (--force)`,
      preview,
      backup: true,
    };
  }
  return {
    ...base,
    kind: "modify",
    after: check(appendBlock(text, block, eol)),
    description: `add ${label} in a codegraph block`,
    preview,
    backup: true,
  };
}

/** Plans removing the block; a file left empty (the installer created it) is deleted. */
export function planTomlUninstall(spec: TomlBlockSpec, text: string | undefined, force: boolean): PlannedEdit {
  const label = `[${spec.keyPath.join(".")}]`;
  const base = { target: spec.target, path: spec.path, before: text ?? null };
  if (text === undefined) return leftAlone(base, "unchanged", "not installed (no such file)");
  const parsed = parseToml(spec.path, text);
  const range = findBlock(spec.path, text);
  if (!range) {
    if (valueAt(parsed, spec.keyPath) === undefined) return leftAlone(base, "unchanged", "not installed (no codegraph block)");
    if (!force) {
      return leftAlone(
        base,
        "collision",
        `${label} was not written by codegraph install (no codegraph block); left alone (--force removes it)`,
      );
    }
    const after = removeTables(text, spec.keyPath);
    if (valueAt(parseToml(spec.path, after, "could not be edited"), spec.keyPath) !== undefined) {
      throw new InstallError(
        `${spec.path}: ${label} is not a plain table; remove it by hand — nothing was written`,
        "UNSUPPORTED_CONFIG",
        spec.path,
      );
    }
    return { ...base, kind: "modify", after, description: `remove ${label} (--force; it was not in a codegraph block)`, backup: true };
  }
  const preview = text.slice(range.start, range.end).replace(/\r\n/g, "\n");
  const after = cutBlock(text, range);
  if (after === "" && preview.includes(CREATED_NOTE)) {
    return {
      ...base,
      kind: "remove",
      after: null,
      ifKept: "",
      description: "delete the file (codegraph install created it for the block alone)",
      preview,
      backup: false,
    };
  }
  if (after === "")
    return {
      ...base,
      kind: "modify",
      after,
      description: "remove the codegraph block (the file is left empty, as it was)",
      preview,
      backup: false,
    };
  parseToml(spec.path, after, "would not be valid TOML without the codegraph block");
  return { ...base, kind: "modify", after, description: "remove the codegraph block", preview, backup: true };
}
