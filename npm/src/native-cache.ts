// The native cache: verified copies of packaged `.node` files outside the package directory, so a
// running process keeps its binary when `npm update` replaces the package under it, and so a copy is
// hashed once, not at every start. Layout (one entry per target, version and hash):
//   <cache>/v1/<target>/<version>-<hash16>/codegraph.<target>.node   the binary
//   <cache>/v1/<target>/<version>-<hash16>/entry.json                 {hash, size, mtimeMs, version, target}
//   <cache>/v1/<target>/<version>-<hash16>/last-used                  mtime = last use (for pruning)
// Every file is written to a temporary name and renamed, so a reader never sees half of one; several
// processes filling the same entry at once all end with one valid entry. Nothing here loads code.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import type * as Blake3 from "@noble/hashes/blake3";
import type * as HashUtils from "@noble/hashes/utils";

export const CACHE_LAYOUT = "v1";
/** Entries unused for this long are removed by the next process that uses the cache. */
export const PRUNE_AFTER_MS = 30 * 24 * 3600 * 1000;
/** `last-used` is refreshed at most this often (a start costs a stat, not a write). */
const TOUCH_EVERY_MS = 24 * 3600 * 1000;

/** blake3 of a file, hex. The hash library is loaded here, on first use: a start that finds its
 *  cache entry by size and mtime hashes nothing and doesn't pay ~14 ms to load it. */
export function blake3File(file: string): string {
  const { blake3 } = require("@noble/hashes/blake3") as typeof Blake3;
  const { bytesToHex } = require("@noble/hashes/utils") as typeof HashUtils;
  return bytesToHex(blake3(fs.readFileSync(file)));
}

/** The cache directory for this platform, or an error saying why there is none. */
export function nativeCacheRoot(env: Record<string, string | undefined> = process.env, platform: string = process.platform): string {
  let base: string | undefined;
  if (platform === "win32") {
    base = env.LOCALAPPDATA;
    if (!base) throw new Error("LOCALAPPDATA is not set");
  } else {
    const home = env.HOME || safeHomedir();
    if (platform === "darwin") {
      if (!home) throw new Error("HOME is not set");
      base = path.join(home, "Library", "Caches");
    } else {
      base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : home ? path.join(home, ".cache") : undefined;
      if (!base) throw new Error("neither XDG_CACHE_HOME nor HOME is set");
    }
  }
  return path.join(base, "codegraph", "native-cache", CACHE_LAYOUT);
}

function safeHomedir(): string | undefined {
  try {
    return os.homedir() || undefined;
  } catch {
    return undefined;
  }
}

export interface CacheEntry {
  /** Absolute path of the cached binary. */
  file: string;
  /** `<target>/<version>-<hash16>`. */
  key: string;
  /** How the entry was found: `hit` (size and mtime matched), `verified` (hashed again), `filled`. */
  how: "hit" | "verified" | "filled";
}

interface EntryRecord {
  hash: string;
  size: number;
  mtimeMs: number;
  version: string;
  target: string;
}

/**
 * Returns a verified cached copy of `source` (whose expected blake3 is `hash`), filling or repairing
 * the entry when needed. Throws when the cache can't be written or the source doesn't match `hash`.
 */
export function cachedCopy(opts: {
  root: string;
  source: string;
  hash: string;
  version: string;
  target: string;
  now?: number;
}): CacheEntry {
  const { root, source, hash, version, target } = opts;
  const key = `${target}/${version}-${hash.slice(0, 16)}`;
  const dir = path.join(root, target, `${version}-${hash.slice(0, 16)}`);
  const file = path.join(dir, `codegraph.${target}.node`);
  const recordFile = path.join(dir, "entry.json");
  const now = opts.now ?? Date.now();
  const existing = statOrUndefined(file);
  if (existing) {
    const record = readRecord(recordFile);
    if (record && record.hash === hash && record.size === existing.size && record.mtimeMs === existing.mtimeMs) {
      touch(dir, now);
      return { file, key, how: "hit" };
    }
    // Stat changed (or no record): hash it; a match only needs a new record, a mismatch a new copy.
    if (blake3File(file) === hash) {
      writeRecord(recordFile, { hash, size: existing.size, mtimeMs: existing.mtimeMs, version, target });
      touch(dir, now);
      return { file, key, how: "verified" };
    }
  }
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    fs.copyFileSync(source, tmp);
    const got = blake3File(tmp);
    if (got !== hash) throw new HashMismatch(source, hash, got);
    try {
      fs.renameSync(tmp, file);
    } catch (e) {
      // Windows can't replace a binary another process has loaded; a good one there will do.
      if (!(fs.existsSync(file) && blake3File(file) === hash)) throw e;
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const st = fs.statSync(file);
  writeRecord(recordFile, { hash, size: st.size, mtimeMs: st.mtimeMs, version, target });
  touch(dir, now, true);
  return { file, key, how: "filled" };
}

/** A file whose blake3 is not the one the build manifest records. */
export class HashMismatch extends Error {
  constructor(
    readonly file: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`blake3 mismatch for ${file}: the build manifest says ${expected}, the file is ${actual}`);
  }
}

/** Removes entries (of any target) unused for `maxAgeMs`, except `keep`. Returns what was removed. */
export function pruneCache(root: string, keep: string | undefined, now = Date.now(), maxAgeMs = PRUNE_AFTER_MS): string[] {
  const removed: string[] = [];
  for (const target of readdirOrEmpty(root)) {
    const targetDir = path.join(root, target);
    for (const entry of readdirOrEmpty(targetDir)) {
      const dir = path.join(targetDir, entry);
      if (keep && path.resolve(dir) === path.resolve(keep)) continue;
      const used = statOrUndefined(path.join(dir, "last-used")) ?? statOrUndefined(path.join(dir, "entry.json")) ?? statOrUndefined(dir);
      if (used && now - used.mtimeMs > maxAgeMs) {
        try {
          fs.rmSync(dir, { recursive: true, force: true });
          removed.push(dir);
        } catch {
          // In use on Windows, or not ours to remove: the next prune tries again.
        }
      }
    }
  }
  return removed;
}

/** The entries in the cache, for doctor. */
export function listCache(root: string): Array<{ key: string; lastUsedMs?: number }> {
  const out: Array<{ key: string; lastUsedMs?: number }> = [];
  for (const target of readdirOrEmpty(root)) {
    for (const entry of readdirOrEmpty(path.join(root, target))) {
      const used = statOrUndefined(path.join(root, target, entry, "last-used"));
      out.push({ key: `${target}/${entry}`, lastUsedMs: used?.mtimeMs });
    }
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

function touch(dir: string, now: number, force = false): void {
  const marker = path.join(dir, "last-used");
  try {
    const st = statOrUndefined(marker);
    if (!st) fs.writeFileSync(marker, "");
    if (force || !st || now - st.mtimeMs > TOUCH_EVERY_MS) fs.utimesSync(marker, now / 1000, now / 1000);
  } catch {
    // Pruning is best effort; a read-only entry is still a good entry.
  }
}

function readRecord(file: string): EntryRecord | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(file, "utf8")) as EntryRecord;
    return typeof r.hash === "string" && typeof r.size === "number" && typeof r.mtimeMs === "number" ? r : undefined;
  } catch {
    return undefined;
  }
}

function writeRecord(file: string, record: EntryRecord): void {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(tmp, `${JSON.stringify(record)}\n`);
  fs.renameSync(tmp, file);
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return fs.readdirSync(dir).filter((n) => !n.startsWith("."));
  } catch {
    return [];
  }
}
