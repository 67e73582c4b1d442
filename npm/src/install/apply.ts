// The only module of the installer that writes. Each planned file edit is checked against what the
// file held when it was planned, backed up when it holds content the installer doesn't own (one
// backup per file, `<file>.codegraph-backup`, replaced by the next), then written as a temporary
// file in the same directory and renamed over the original, so a reader (or a crash) sees the old
// file or the new one, never a partial write. A config that is a symbolic link (dotfiles, stow,
// home-manager) is written through to its target, atomically there, and the link stays; a
// read-only config is refused, not replaced.

import * as fs from "node:fs";
import * as path from "node:path";

import type { PlannedEdit } from "./types";

/** The file operations apply uses; tests replace some (for example a rename that fails). */
export interface FileOps {
  readFile(p: string): string | undefined;
  /** Writes a new file that must not exist yet, flushed to disk, with the given mode. */
  writeNewFile(p: string, data: string, mode: number): void;
  rename(from: string, to: string): void;
  unlink(p: string): void;
  mkdir(p: string): void;
  /** Permission bits of an existing file, or undefined. */
  mode(p: string): number | undefined;
  /** The file a symbolic link at `p` finally points to (links resolved), or undefined when `p` is
   *  not a link. */
  linkTarget(p: string): string | undefined;
  /** Removes a directory if it is empty; false when it is not (or is gone). */
  removeEmptyDir(p: string): boolean;
}

/** A client config larger than this is not a config: it is refused, not read. */
const CONFIG_READ_CAP = 16 * 1024 * 1024;

export const nodeFileOps: FileOps = {
  readFile(p) {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
    // A FIFO or device would block or never end; a huge file is not a client config.
    if (!st.isFile()) throw new Error(`${p} is not a regular file`);
    if (st.size > CONFIG_READ_CAP) throw new Error(`${p} is ${st.size} bytes, over the ${CONFIG_READ_CAP}-byte limit for a config`);
    return fs.readFileSync(p, "utf8");
  },
  writeNewFile(p, data, mode) {
    const fd = fs.openSync(p, "wx", mode);
    try {
      fs.writeFileSync(fd, data, "utf8");
      fs.fchmodSync(fd, mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  rename: (from, to) => fs.renameSync(from, to),
  unlink: (p) => fs.unlinkSync(p),
  mkdir: (p) => void fs.mkdirSync(p, { recursive: true }),
  mode(p) {
    try {
      return fs.statSync(p).mode & 0o777;
    } catch {
      return undefined;
    }
  },
  linkTarget(p) {
    try {
      if (!fs.lstatSync(p).isSymbolicLink()) return undefined;
    } catch {
      return undefined;
    }
    return fs.realpathSync(p);
  },
  removeEmptyDir(p) {
    try {
      fs.rmdirSync(p);
      return true;
    } catch {
      return false;
    }
  },
};

export interface ApplyOptions {
  ops?: Partial<FileOps>;
}

/** What happened to one planned edit. */
export interface AppliedEdit {
  edit: PlannedEdit;
  status: "written" | "skipped" | "failed";
  /** Where the old file was copied, when it was. */
  backup?: string;
  /** Why it failed or was skipped. */
  reason?: string;
}

/** The one backup of a file: `<file>.codegraph-backup`, replaced by each later backup. */
export function backupPath(file: string): string {
  return `${file}.codegraph-backup`;
}

/** Writes `data` to `file` through a temporary file in the same directory and a rename; the file
 *  keeps its permissions (or takes `mode`). */
function atomicWrite(file: string, data: string, ops: FileOps, mode?: number): void {
  const dir = path.dirname(file);
  ops.mkdir(dir);
  const temp = path.join(dir, `.${path.basename(file)}.codegraph-tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  try {
    ops.writeNewFile(temp, data, mode ?? ops.mode(file) ?? 0o644);
    ops.rename(temp, file);
  } catch (e) {
    try {
      ops.unlink(temp);
    } catch {
      // The temporary file is already gone; the original was never touched.
    }
    throw e;
  }
}

function applyOne(edit: PlannedEdit, ops: FileOps): AppliedEdit {
  const current = ops.readFile(edit.path);
  if ((current ?? null) !== edit.before) {
    return { edit, status: "failed", reason: "the file changed since the plan was made; nothing written — run the command again" };
  }
  const mode = current === undefined ? undefined : ops.mode(edit.path);
  if (mode !== undefined && (mode & 0o222) === 0) {
    const octal = mode.toString(8).padStart(4, "0");
    return { edit, status: "failed", reason: `the file is read-only (mode ${octal}); make it writable and run again — nothing written` };
  }
  let backup: string | undefined;
  if (edit.backup && current !== undefined) {
    backup = backupPath(edit.path);
    // As private as the file it copies.
    atomicWrite(backup, current, ops, mode);
  }
  const link = current === undefined ? undefined : ops.linkTarget(edit.path);
  if (edit.kind === "remove") {
    if (link !== undefined && edit.ifKept !== undefined) atomicWrite(link, edit.ifKept, ops);
    else ops.unlink(edit.path);
  } else {
    atomicWrite(link ?? edit.path, edit.after!, ops);
  }
  for (const dir of edit.pruneDirs ?? []) ops.removeEmptyDir(dir);
  return { edit, status: "written", backup };
}

/**
 * Carries out the create/modify/remove edits of a plan, in order; unchanged and collision edits are
 * skipped. A failed edit leaves its file as it was and stops the later edits of the same target.
 */
export function applyPlan(edits: PlannedEdit[], options: ApplyOptions = {}): AppliedEdit[] {
  const ops: FileOps = { ...nodeFileOps, ...options.ops };
  const failedTargets = new Set<string>();
  return edits.map((edit): AppliedEdit => {
    if (edit.kind === "unchanged" || edit.kind === "collision") return { edit, status: "skipped", reason: edit.kind };
    if (failedTargets.has(edit.target)) return { edit, status: "skipped", reason: `an earlier write for ${edit.target} failed` };
    try {
      const result = applyOne(edit, ops);
      if (result.status === "failed") failedTargets.add(edit.target);
      return result;
    } catch (e) {
      failedTargets.add(edit.target);
      return { edit, status: "failed", reason: `${(e as Error).message}; the file was left as it was` };
    }
  });
}
