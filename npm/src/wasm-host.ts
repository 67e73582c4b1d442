// The file host for the wasm engine: synchronous Node `fs` calls under a root. It only reports
// what is on disk; the core decides what is included, what is too large and what escapes the root.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export interface HostEntry {
  name: string;
  kind: "file" | "dir" | "symlink" | "other";
  size: number;
  mtimeMs: number;
}

function kindOf(st: fs.Stats | fs.BigIntStats): HostEntry["kind"] {
  if (st.isSymbolicLink()) return "symlink";
  if (st.isDirectory()) return "dir";
  if (st.isFile()) return "file";
  return "other";
}

/** Modification time in whole milliseconds, truncated from the nanoseconds as the native host does
 *  (a float `mtimeMs` can round up past the millisecond). */
function mtimeMs(st: fs.BigIntStats): number {
  return Number(st.mtimeNs / 1000000n);
}

// Without O_NOFOLLOW (Windows) a symlink is refused by an lstat first.
const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = fs.constants.O_NONBLOCK ?? 0;

/** Opens a regular file of at most `limit` bytes for reading, without following a symlink at its
 *  end or blocking on a FIFO; the caller closes it. */
function openChecked(file: string, limit: number): { fd: number; size: number } {
  if (NO_FOLLOW === 0 && fs.lstatSync(file).isSymbolicLink()) throw new Error("a symlink (not followed)");
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NO_FOLLOW | NON_BLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ELOOP") throw new Error("a symlink (not followed)");
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error("not a regular file");
    if (st.size > limit) throw new Error(`larger than the read limit (${st.size} > ${limit} bytes)`);
    return { fd, size: st.size };
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

/** Fills `buf` from `fd` (at `position`, or from the current offset when null) until it is full or
 *  the file ends; returns the bytes read. */
function readFully(fd: number, buf: Buffer, position: number | null): number {
  let n = 0;
  while (n < buf.length) {
    const got = fs.readSync(fd, buf, n, buf.length - n, position === null ? null : position + n);
    if (got === 0) break;
    n += got;
  }
  return n;
}

/** Creates the host object the wasm `Session` constructor expects. */
export function createNodeHost(root: string) {
  const abs = (rel: string) => (rel === "" ? root : path.join(root, rel));
  return {
    readDir(rel: string): HostEntry[] {
      const dir = abs(rel);
      return fs.readdirSync(dir).map((name) => {
        const st = fs.lstatSync(path.join(dir, name), { bigint: true });
        return { name, kind: kindOf(st), size: Number(st.size), mtimeMs: mtimeMs(st) };
      });
    },
    /** A regular file of at most `limit` bytes: a symlink is not followed, a FIFO or device is
     *  refused without blocking, a larger file is refused before it is read (the core's rules). */
    readFile(rel: string, limit: number): Uint8Array {
      const fd = openChecked(abs(rel), limit).fd;
      try {
        // One byte more than the limit tells a file that grew while read from one that did not.
        const buf = Buffer.allocUnsafe(Math.min(fs.fstatSync(fd).size, limit) + 1);
        const n = readFully(fd, buf, null);
        if (n > limit) throw new Error(`grew past the read limit (${limit} bytes) while read`);
        return buf.subarray(0, n);
      } finally {
        fs.closeSync(fd);
      }
    },
    /** Opens a file under the rules of `readFile` and keeps it open for `readAt` (the persisted
     *  index: a warm start reads the parts it needs); `closeFile` closes it. */
    openFile(rel: string, limit: number): { fd: number; size: number } {
      return openChecked(abs(rel), limit);
    },
    readAt(fd: number, offset: number, length: number): Uint8Array {
      const buf = Buffer.allocUnsafe(length);
      const n = readFully(fd, buf, offset);
      if (n !== length) throw new Error(`read ${n} of ${length} bytes at ${offset}`);
      return buf;
    },
    closeFile(fd: number): void {
      fs.closeSync(fd);
    },
    stat(rel: string): HostEntry {
      const st = fs.statSync(abs(rel), { bigint: true });
      return { name: path.basename(rel), kind: kindOf(st), size: Number(st.size), mtimeMs: mtimeMs(st) };
    },
    lstat(rel: string): HostEntry {
      const st = fs.lstatSync(abs(rel), { bigint: true });
      return { name: path.basename(rel), kind: kindOf(st), size: Number(st.size), mtimeMs: mtimeMs(st) };
    },
    realpath(rel: string): string {
      return fs.realpathSync(abs(rel)).split(path.sep).join("/");
    },
    /** Temp file in the same directory, then rename: readers never see half a file. */
    writeFileAtomic(rel: string, bytes: Uint8Array): void {
      const target = abs(rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}-${Date.now()}`);
      try {
        fs.writeFileSync(tmp, bytes);
        fs.renameSync(tmp, target);
      } catch (e) {
        fs.rmSync(tmp, { force: true });
        throw e;
      }
    },
    /** Creates a file only if it does not exist (the writer lock). */
    createExclusive(rel: string, bytes: Uint8Array): boolean {
      const target = abs(rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      try {
        fs.writeFileSync(target, bytes, { flag: "wx" });
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw e;
      }
    },
    removeFile(rel: string): void {
      fs.rmSync(abs(rel), { force: true });
    },
    /** This process's id, which the writer lock records. */
    pid(): number {
      return process.pid;
    },
    /** Whether a process runs (null when it can't be told): a lock of a dead writer is broken at once. */
    processAlive(pid: number): boolean | null {
      try {
        process.kill(pid, 0);
        return true;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        return code === "EPERM" ? true : code === "ESRCH" ? false : null;
      }
    },
    /** Runs git in the root (no shell) and returns what it printed; throws with git's own message.
     *  The environment is exactly `env` plus the `keep` variables of ours (the core's choice). */
    git(args: string[], env: Record<string, string>, keep: string[]): string {
      const childEnv: Record<string, string> = { ...env };
      for (const key of keep) {
        const value = process.env[key];
        if (value !== undefined) childEnv[key] = value;
      }
      try {
        return execFileSync("git", args, {
          cwd: root,
          env: childEnv,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
          maxBuffer: 256 << 20,
        });
      } catch (e) {
        const err = e as { stderr?: string; message: string };
        throw new Error((err.stderr ?? "").trim() || err.message);
      }
    },
  };
}
