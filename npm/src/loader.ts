// The only module that loads binaries. Order: CODEGRAPH_NATIVE_PATH, the local development build
// (npm/native/), then the wasm module shipped in the package. Every attempt is recorded; a failure is
// never fatal while another engine works. CODEGRAPH_FORCE_WASM accepts only 1/0/true/false.

import * as fs from "node:fs";
import * as path from "node:path";

import type { EngineKind, EngineModule } from "./binding";

export interface LoadAttempt {
  engine: EngineKind;
  source: string;
  path: string;
  ok: boolean;
  error?: string;
}

export interface LoadedEngine {
  kind: EngineKind;
  module: EngineModule;
  path: string;
  attempts: LoadAttempt[];
}

/** The directory of the npm package (holds package.json). */
export const packageRoot = path.resolve(__dirname, "..", "..");

/** `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, … */
export function platformTarget(): string {
  const { platform, arch } = process;
  if (platform === "linux") {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    const libc = report?.header?.glibcVersionRuntime ? "gnu" : "musl";
    return `${platform}-${arch}-${libc}`;
  }
  if (platform === "win32") return `${platform}-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** Reads CODEGRAPH_FORCE_WASM strictly: anything but 1/0/true/false is an error, not a guess. */
export function forceWasmFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env.CODEGRAPH_FORCE_WASM;
  if (raw === undefined || raw === "") return false;
  const v = raw.trim().toLowerCase();
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  const err = new Error(`CODEGRAPH_FORCE_WASM must be 1, 0, true or false (got ${JSON.stringify(raw)})`) as Error & { code: string };
  err.code = "INVALID_ARGUMENT";
  throw err;
}

function tryLoad(attempts: LoadAttempt[], engine: EngineKind, source: string, file: string): EngineModule | undefined {
  try {
    if (!fs.existsSync(file)) {
      attempts.push({ engine, source, path: file, ok: false, error: "not found" });
      return undefined;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as EngineModule;
    if (typeof mod.Session !== "function" || typeof mod.apiMethods !== "function") {
      throw new Error("not a codegraph engine (no Session / apiMethods export)");
    }
    attempts.push({ engine, source, path: file, ok: true });
    return mod;
  } catch (e) {
    attempts.push({ engine, source, path: file, ok: false, error: (e as Error).message });
    return undefined;
  }
}

let cached: LoadedEngine | undefined;

/** Loads an engine (once per process unless `fresh`). `prefer` forces one engine. */
export function loadEngine(options: { prefer?: EngineKind; fresh?: boolean } = {}): LoadedEngine {
  if (cached && !options.fresh && !options.prefer) return cached;
  const attempts: LoadAttempt[] = [];
  const wantWasm = options.prefer === "wasm" || (options.prefer === undefined && forceWasmFromEnv());
  if (!wantWasm) {
    const candidates: Array<[string, string]> = [];
    if (process.env.CODEGRAPH_NATIVE_PATH) candidates.push(["env CODEGRAPH_NATIVE_PATH", path.resolve(process.env.CODEGRAPH_NATIVE_PATH)]);
    candidates.push(["workspace build", path.join(packageRoot, "npm", "native", `codegraph.${platformTarget()}.node`)]);
    for (const [source, file] of candidates) {
      const mod = tryLoad(attempts, "native", source, file);
      if (mod) return remember({ kind: "native", module: mod, path: file, attempts }, options);
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
  if (!options.prefer) cached = engine;
  return engine;
}
