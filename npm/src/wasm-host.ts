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

function kindOf(st: fs.Stats): HostEntry["kind"] {
  if (st.isSymbolicLink()) return "symlink";
  if (st.isDirectory()) return "dir";
  if (st.isFile()) return "file";
  return "other";
}

/** Creates the host object the wasm `Session` constructor expects. */
export function createNodeHost(root: string) {
  const abs = (rel: string) => (rel === "" ? root : path.join(root, rel));
  return {
    readDir(rel: string): HostEntry[] {
      const dir = abs(rel);
      return fs.readdirSync(dir).map((name) => {
        const st = fs.lstatSync(path.join(dir, name));
        return { name, kind: kindOf(st), size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
      });
    },
    readFile(rel: string): Uint8Array {
      return fs.readFileSync(abs(rel));
    },
    stat(rel: string): HostEntry {
      const st = fs.statSync(abs(rel));
      return { name: path.basename(rel), kind: kindOf(st), size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
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
    /** Runs git in the root and returns what it printed; throws with git's own message. */
    git(args: string[]): string {
      try {
        return execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 << 20 });
      } catch (e) {
        const err = e as { stderr?: string; message: string };
        throw new Error((err.stderr ?? "").trim() || err.message);
      }
    },
  };
}
