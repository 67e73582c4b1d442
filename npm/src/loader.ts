// The only module that loads binaries. Order: CODEGRAPH_NATIVE_PATH, the platform package's `.node`
// (verified against the blake3 in the package's build-manifest.json, copied into the native cache and
// loaded from there), the local development build (npm/native/), then the wasm module shipped in the
// package. Every attempt is recorded; a failure is never fatal while another engine works. A `.node`
// whose hash doesn't match is never loaded. CODEGRAPH_FORCE_WASM accepts only 1/0/true/false;
// CODEGRAPH_NATIVE_CACHE=0 loads the verified package file directly.

import * as fs from "node:fs";
import * as path from "node:path";

import type { EngineKind, EngineModule } from "./binding";
import { blake3File, cachedCopy, HashMismatch, nativeCacheRoot, pruneCache } from "./native-cache";
import { nativeFileName, platformPackageName, workspaceFileName, workspaceProfiles, type BuildManifest } from "./platforms";

export interface LoadAttempt {
  engine: EngineKind;
  source: string;
  path: string;
  ok: boolean;
  error?: string;
}

/** Where the native addon in use came from. */
export interface NativeOrigin {
  /** `override` (CODEGRAPH_NATIVE_PATH), `workspace` (development build), `package` (the platform
   *  package's file, verified), `cache` (a verified copy in the native cache). */
  mode: "override" | "workspace" | "package" | "cache";
  packageName?: string;
  packageVersion?: string;
  target: string;
  sourcePath: string;
  loadedPath: string;
  cacheKey?: string;
  /** blake3 of the loaded file as the build manifest records it. */
  hash?: string;
  /** True when replacing the installed package can't touch the loaded file (it is a cache copy). */
  updateSafeForCurrentProcess: boolean;
  /** Why the cache could not be used (the package file was loaded instead). */
  cacheError?: string;
  /** How the addon was compiled: `release`, or `debug` (the test command's build, 3–4× slower). */
  profile?: string;
}

export interface LoadedEngine {
  kind: EngineKind;
  module: EngineModule;
  path: string;
  attempts: LoadAttempt[];
  /** Set for the native engine. */
  origin?: NativeOrigin;
}

/** The directory of the npm package (holds package.json). */
export const packageRoot = path.resolve(__dirname, "..", "..");

/** `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, … */
export function platformTarget(): string {
  const { platform, arch } = process;
  if (platform === "linux") return `${platform}-${arch}-${isMusl() ? "musl" : "gnu"}`;
  if (platform === "win32") return `${platform}-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** The C library: `ldd` names it (a file read); only without it the process report decides, which
 *  costs ~10 ms at every start. */
function isMusl(): boolean {
  try {
    return fs.readFileSync("/usr/bin/ldd", "utf8").includes("musl");
  } catch {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return !report?.header?.glibcVersionRuntime;
  }
}

/** Reads CODEGRAPH_FORCE_WASM strictly: anything but 1/0/true/false is an error, not a guess. */
export function forceWasmFromEnv(env: Record<string, string | undefined> = process.env): boolean {
  const raw = env.CODEGRAPH_FORCE_WASM;
  if (raw === undefined || raw === "") return false;
  const v = raw.trim().toLowerCase();
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  const err = new Error(`CODEGRAPH_FORCE_WASM must be 1, 0, true or false (got ${JSON.stringify(raw)})`) as Error & { code: string };
  err.code = "INVALID_ARGUMENT";
  throw err;
}

/** The package's build manifest, or undefined in a development checkout (it is written by scripts/pack.js). */
export function readBuildManifest(): BuildManifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(packageRoot, "build-manifest.json"), "utf8")) as BuildManifest;
  } catch {
    return undefined;
  }
}

function tryLoad(attempts: LoadAttempt[], engine: EngineKind, source: string, file: string): EngineModule | undefined {
  try {
    if (!fs.existsSync(file)) {
      attempts.push({ engine, source, path: file, ok: false, error: "not found" });
      return undefined;
    }
    const mod = require(file) as EngineModule;
    if (typeof mod.Session !== "function" || typeof mod.apiMethods !== "function" || typeof mod.Session.prototype.call !== "function") {
      throw new Error("not a codegraph engine of this version (no Session.call / apiMethods export)");
    }
    attempts.push({ engine, source, path: file, ok: true });
    return mod;
  } catch (e) {
    attempts.push({ engine, source, path: file, ok: false, error: (e as Error).message });
    return undefined;
  }
}

/** The platform package's addon: verified against the manifest, through the native cache unless it
 *  is disabled or can't be prepared. Undefined (with the reason in `attempts`) when it can't be used. */
function fromPlatformPackage(attempts: LoadAttempt[]): { module: EngineModule; origin: NativeOrigin } | undefined {
  const target = platformTarget();
  const name = platformPackageName(target);
  const source = `platform package ${name}`;
  const fail = (where: string, error: string) => {
    attempts.push({ engine: "native", source, path: where, ok: false, error });
    return undefined;
  };
  const manifest = readBuildManifest();
  if (!manifest) return fail(path.join(packageRoot, "build-manifest.json"), "no build manifest (a development checkout)");
  const artifact = manifest.artifacts.find((a) => a.kind === "native" && a.target === target);
  if (!artifact) return fail(path.join(packageRoot, "build-manifest.json"), `the build manifest lists no addon for ${target}`);
  let pkgDir: string;
  try {
    pkgDir = path.dirname(require.resolve(`${name}/package.json`, { paths: [packageRoot] }));
  } catch {
    return fail(name, "not installed (optional dependency missing for this platform)");
  }
  let pkgVersion: string;
  try {
    pkgVersion = (JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { version: string }).version;
  } catch (e) {
    return fail(pkgDir, `unreadable package.json: ${(e as Error).message}`);
  }
  const file = path.join(pkgDir, artifact.path || nativeFileName(target));
  if (pkgVersion !== manifest.version) return fail(file, `version ${pkgVersion} does not match codegraph ${manifest.version}`);
  const origin = { packageName: name, packageVersion: pkgVersion, target, sourcePath: file, hash: artifact.blake3 };
  let cacheError: string | undefined;
  if (!/^(0|false)$/i.test(process.env.CODEGRAPH_NATIVE_CACHE ?? "")) {
    let root: string | undefined;
    let entry: ReturnType<typeof cachedCopy> | undefined;
    try {
      root = nativeCacheRoot();
      entry = cachedCopy({ root, source: file, hash: artifact.blake3, version: manifest.version, target });
    } catch (e) {
      if (e instanceof HashMismatch) return fail(file, `${e.message}; not loaded`);
      cacheError = (e as Error).message;
    }
    if (root && entry) {
      const module = tryLoad(attempts, "native", `${source} (native cache)`, entry.file);
      if (!module) return undefined;
      try {
        pruneCache(root, path.dirname(entry.file));
      } catch {
        // Pruning is housekeeping; it never stands in the way of a load.
      }
      return {
        module,
        origin: { mode: "cache", ...origin, loadedPath: entry.file, cacheKey: entry.key, updateSafeForCurrentProcess: true },
      };
    }
  } else {
    cacheError = "disabled by CODEGRAPH_NATIVE_CACHE=0";
  }
  let actual: string;
  try {
    actual = blake3File(file);
  } catch (e) {
    return fail(file, (e as Error).message);
  }
  if (actual !== artifact.blake3) return fail(file, `${new HashMismatch(file, artifact.blake3, actual).message}; not loaded`);
  const module = tryLoad(attempts, "native", source, file);
  if (!module) return undefined;
  return { module, origin: { mode: "package", ...origin, loadedPath: file, updateSafeForCurrentProcess: false, cacheError } };
}

let cached: LoadedEngine | undefined;

/** Loads an engine (once per process unless `fresh`). `prefer` forces one engine. */
export function loadEngine(options: { prefer?: EngineKind; fresh?: boolean } = {}): LoadedEngine {
  if (cached && !options.fresh && !options.prefer) return cached;
  const attempts: LoadAttempt[] = [];
  const wantWasm = options.prefer === "wasm" || (options.prefer === undefined && forceWasmFromEnv());
  if (!wantWasm) {
    const target = platformTarget();
    if (process.env.CODEGRAPH_NATIVE_PATH) {
      const file = path.resolve(process.env.CODEGRAPH_NATIVE_PATH);
      const mod = tryLoad(attempts, "native", "env CODEGRAPH_NATIVE_PATH", file);
      const origin: NativeOrigin = { mode: "override", target, sourcePath: file, loadedPath: file, updateSafeForCurrentProcess: false };
      if (mod) return remember({ kind: "native", module: mod, path: file, attempts, origin }, options);
    }
    const packaged = fromPlatformPackage(attempts);
    if (packaged)
      return remember(
        { kind: "native", module: packaged.module, path: packaged.origin.loadedPath, attempts, origin: packaged.origin },
        options,
      );
    for (const profile of workspaceProfiles()) {
      const dev = path.join(packageRoot, "npm", "native", workspaceFileName(target, profile));
      const mod = tryLoad(attempts, "native", `workspace ${profile} build`, dev);
      const origin: NativeOrigin = { mode: "workspace", target, sourcePath: dev, loadedPath: dev, updateSafeForCurrentProcess: false };
      if (mod) return remember({ kind: "native", module: mod, path: dev, attempts, origin }, options);
    }
    if (options.prefer === "native") {
      throw new Error(`the native engine could not be loaded: ${attempts.map((a) => `${a.path}: ${a.error}`).join("; ")}`);
    }
  }
  const wasmFile = path.join(packageRoot, "npm", "wasm", "codegraph_wasm.js");
  const mod = tryLoad(attempts, "wasm", "package wasm", wasmFile);
  if (mod) return remember({ kind: "wasm", module: mod, path: wasmFile, attempts }, options);
  throw new Error(
    `no codegraph engine could be loaded; run scripts/build.sh in a checkout, or reinstall the package.\n` +
      attempts.map((a) => `  ${a.engine} (${a.source}) ${a.path}: ${a.error}`).join("\n"),
  );
}

function remember(engine: LoadedEngine, options: { prefer?: EngineKind }): LoadedEngine {
  if (engine.origin && typeof engine.module.buildProfile === "function") engine.origin.profile = engine.module.buildProfile();
  if (!options.prefer) cached = engine;
  return engine;
}
