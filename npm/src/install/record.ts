// The install record: what each install wrote into each file, kept in codegraph's own state
// directory (never in the client's config), so that uninstall removes exactly that and gives the
// file back byte for byte — an empty `mcpServers` the person had stays, a file that was empty or
// whitespace comes back as it was, and only a file the installer created is deleted.
//
// An edit is recorded as a splice: the text the install took out (usually nothing) and the text it
// put in, found by the longest common prefix and suffix of the file before and after. Uninstall
// looks for the inserted text in the file as it is now; when it is there exactly once, putting the
// removed text back is the exact inverse, and the target's own planner confirms the result holds no
// codegraph entry. Anything else (the entry was edited by hand, no record from an older version)
// falls back to the format-aware removal of the planner. Pure functions, except `load`/`save`.

import * as fs from "node:fs";
import * as path from "node:path";

import type { InstallEnvironment, PlannedEdit, TargetId } from "./types";

export const RECORD_VERSION = 1;

/** What one install put into one file for one target. */
export interface RecordedEdit {
  path: string;
  target: TargetId;
  /** The text the install replaced (usually empty: a pure insertion). */
  removed: string;
  /** The text it put in its place. */
  inserted: string;
  /** Whether the file did not exist before. */
  createdFile: boolean;
  /** When it was recorded (ISO). */
  at: string;
}

export interface InstallRecord {
  version: number;
  edits: RecordedEdit[];
}

export function emptyRecord(): InstallRecord {
  return { version: RECORD_VERSION, edits: [] };
}

/** `<state dir>/codegraph/install-record.json`: XDG_STATE_HOME (else ~/.local/state) on Linux,
 *  ~/Library/Application Support on macOS, LOCALAPPDATA on Windows. */
export function recordPath(environment: InstallEnvironment): string {
  const p = environment.platform === "win32" ? path.win32 : path.posix;
  const env = environment.env;
  let base: string;
  if (environment.platform === "win32") base = env.LOCALAPPDATA || p.join(environment.home, "AppData", "Local");
  else if (environment.platform === "darwin") base = p.join(environment.home, "Library", "Application Support");
  else base = env.XDG_STATE_HOME && p.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : p.join(environment.home, ".local", "state");
  return p.join(base, "codegraph", "install-record.json");
}

/** Reads the record; a missing, unreadable or foreign one is empty (uninstall then falls back). */
export function loadRecord(file: string): InstallRecord {
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8")) as InstallRecord;
    if (value.version === RECORD_VERSION && Array.isArray(value.edits)) {
      return { version: RECORD_VERSION, edits: value.edits.filter(isRecordedEdit) };
    }
  } catch {
    // No record yet, or one this version can't read: nothing recorded.
  }
  return emptyRecord();
}

function isRecordedEdit(e: unknown): e is RecordedEdit {
  const r = e as RecordedEdit;
  return (
    r !== null &&
    typeof r === "object" &&
    typeof r.path === "string" &&
    typeof r.target === "string" &&
    typeof r.removed === "string" &&
    typeof r.inserted === "string" &&
    typeof r.createdFile === "boolean"
  );
}

/** Writes the record atomically (a temporary file and a rename), creating its directory; an empty
 *  record removes the file (and its directory when nothing else is in it). */
export function saveRecord(file: string, record: InstallRecord): void {
  if (record.edits.length === 0) {
    fs.rmSync(file, { force: true });
    try {
      fs.rmdirSync(path.dirname(file));
    } catch {
      // Not empty (the native cache, another record), or gone: it stays.
    }
    return;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  fs.writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

export function findRecorded(record: InstallRecord, file: string, target: TargetId): RecordedEdit | undefined {
  return record.edits.find((e) => e.path === file && e.target === target);
}

/** The splice that turns `before` into `after`: the differing middle of each. */
export function splice(before: string, after: string): { at: number; removed: string; inserted: string } {
  let prefix = 0;
  const max = Math.min(before.length, after.length);
  while (prefix < max && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  return { at: prefix, removed: before.slice(prefix, before.length - suffix), inserted: after.slice(prefix, after.length - suffix) };
}

/** The only place `needle` occurs in `text`, or undefined when it is absent, empty or repeated. */
export function uniqueIndex(text: string, needle: string): number | undefined {
  if (needle === "") return undefined;
  const at = text.indexOf(needle);
  if (at < 0 || text.indexOf(needle, at + 1) >= 0) return undefined;
  return at;
}

/**
 * The record after an install edit was written. A first install records its splice. An install
 * that changes a file it already wrote into (an update of its own entry) folds the change into the
 * recorded insertion when the change lies inside it, so uninstall still restores the original;
 * otherwise this splice replaces the entry.
 */
export function recordInstall(record: InstallRecord, edit: PlannedEdit, at: string): InstallRecord {
  if (edit.after === null) return record;
  const others = record.edits.filter((e) => !(e.path === edit.path && e.target === edit.target));
  const prior = findRecorded(record, edit.path, edit.target);
  const before = edit.before ?? "";
  const change = splice(before, edit.after);
  const start = prior && uniqueIndex(before, prior.inserted);
  if (prior && start !== undefined) {
    const end = start + prior.inserted.length;
    if (change.at >= start && change.at + change.removed.length <= end) {
      const grown = end + change.inserted.length - change.removed.length;
      return { ...record, edits: [...others, { ...prior, inserted: edit.after.slice(start, grown), at }] };
    }
  }
  // A first install, or one whose earlier insertion is gone from the file: this splice alone.
  const entry = {
    path: edit.path,
    target: edit.target,
    removed: change.removed,
    inserted: change.inserted,
    createdFile: edit.before === null,
    at,
  };
  return { ...record, edits: [...others, entry] };
}

/** The record after an uninstall removed (or found no) entry of `target` in `file`. */
export function forget(record: InstallRecord, file: string, target: TargetId): InstallRecord {
  return { ...record, edits: record.edits.filter((e) => !(e.path === file && e.target === target)) };
}

/**
 * The file as it was before the recorded install, when the recorded insertion is still there
 * exactly once: `text` with it replaced by what it replaced. `undefined` when it can't be undone
 * exactly (the caller then keeps the planner's removal).
 */
export function undo(recorded: RecordedEdit, text: string): string | undefined {
  const at = uniqueIndex(text, recorded.inserted);
  if (at === undefined) return undefined;
  return text.slice(0, at) + recorded.removed + text.slice(at + recorded.inserted.length);
}
