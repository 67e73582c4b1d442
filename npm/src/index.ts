// The library: `openSession({ root })` gives a typed session over whichever engine loads (native
// first, wasm always there). `session.call(method, request)` forwards one request of the core's
// method table, and every method has a typed convenience of the same name; the types are generated
// from the core's Rust types (npm/src/generated/types.ts).

import * as fs from "node:fs";
import * as path from "node:path";

import type { EngineKind, ParseOnlyStats, RawSession } from "./binding";
import { API_METHODS, type ApiMethod, type ApiRequests, type ApiResponses } from "./generated/types";
import type * as T from "./generated/types";
import { loadEngine, type LoadAttempt, type LoadedEngine } from "./loader";
import type * as WasmHost from "./wasm-host";

export type * from "./generated/types";
export { API_METHODS, METHOD_TABLE } from "./generated/types";
export { loadEngine, forceWasmFromEnv, platformTarget } from "./loader";
export type { LoadAttempt, LoadedEngine } from "./loader";
export type { EngineKind, ParseOnlyStats } from "./binding";

export interface OpenSessionOptions extends T.DiscoveryOptions {
  /** The repository root (default: the current directory). */
  root?: string;
  /** Force an engine; by default native, falling back to wasm. */
  engine?: EngineKind;
}

/** An error from the core, with its stable code (`NOT_FOUND`, `INVALID_ARGUMENT`, …). */
export interface CodegraphError extends Error {
  code: string;
}

/** The request type of a method, as its convenience takes it: optional when every field is. */
type RequestArg<M extends ApiMethod> = {} extends ApiRequests[M] ? [request?: ApiRequests[M]] : [request: ApiRequests[M]];

/** A convenience per method of the core's table: `session.refs(r)` is `session.call("refs", r)`. */
export type SessionMethods = { [M in ApiMethod]: (...request: RequestArg<M>) => ApiResponses[M] };

/** A session on one repository root. Builds its index on the first index-backed request. */
export interface Session extends SessionMethods {}
export class Session {
  readonly root: string;
  readonly engine: EngineKind;
  readonly enginePath: string;
  readonly loadAttempts: LoadAttempt[];
  /** How the engine was compiled: `release`, or `debug` (the test command's build, 3–4× slower). */
  readonly engineProfile: string;
  readonly raw: RawSession;

  constructor(raw: RawSession, root: string, loaded: LoadedEngine) {
    this.raw = raw;
    this.root = root;
    this.engine = loaded.kind;
    this.enginePath = loaded.path;
    this.loadAttempts = loaded.attempts;
    this.engineProfile = typeof loaded.module.buildProfile === "function" ? loaded.module.buildProfile() : "release";
  }

  /** Answers one request of the core's method table (`API_METHODS`); the core validates it. */
  call<M extends ApiMethod>(method: M, ...request: RequestArg<M>): ApiResponses[M] {
    return this.raw.call(method, request[0] ?? {}) as ApiResponses[M];
  }
  /** Builds the index now unless it is built. `progress` hears how far parsing got (after every batch
   *  of files, phase `parse`) and when resolution starts (phase `resolve`). Requests build lazily
   *  without it; call it first to show progress or to pay the build before the first question. */
  prepare(progress?: (phase: "parse" | "resolve", done: number, total: number) => void): void {
    this.raw.prepare(progress as ((phase: string, done: number, total: number) => void) | undefined);
  }
  /** Builds the index and the lexical index behind search and explore now (what a server's warm-up
   *  does, so the first question in words is answered at full speed). */
  prepareSearch(): void {
    this.raw.prepareSearch();
  }
  /** For benchmarks: walks, reads and tree-sitter-parses the files this session would index, and
   *  nothing else (the floor under a cold build). Leaves the session as it was. */
  parseOnly(): ParseOnlyStats {
    return this.raw.parseOnly();
  }
  /** What went wrong with the persisted index since the last call — a snapshot rejected as damaged
   *  (and rebuilt), a snapshot or lexical index that could not be written — each reported once. */
  takeNotes(): string[] {
    return this.raw.takeNotes();
  }
  /** Drops the index; the next request rebuilds it, parsing only changed content. */
  invalidate(): void {
    this.raw.invalidate();
  }
}

for (const method of API_METHODS) {
  Object.defineProperty(Session.prototype, method, {
    value(this: Session, request?: unknown) {
      return this.raw.call(method, request ?? {});
    },
    writable: true,
    configurable: true,
  });
}

/** Opens a session on a repository root. */
export function openSession(options: OpenSessionOptions = {}): Session {
  const { root = ".", engine, ...discovery } = options;
  const abs = path.resolve(root);
  if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) {
    const err = new Error(`root ${JSON.stringify(root)} is not a directory`) as CodegraphError;
    err.code = "NOT_FOUND";
    throw err;
  }
  const loaded = loadEngine(engine ? { prefer: engine } : {});
  // The wasm engine's host (and what it loads) only when that engine runs.
  const host = loaded.kind === "wasm" ? (require("./wasm-host") as typeof WasmHost).createNodeHost(abs) : abs;
  const raw = new loaded.module.Session(host, discovery);
  return new Session(raw, abs, loaded);
}

/** The package version (from package.json). */
export function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string };
  return pkg.version;
}
