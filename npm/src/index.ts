// The library: `openSession({ root })` gives a typed session over whichever engine loads (native
// first, wasm always there). Each method forwards one request to the core; the types are generated
// from the core's Rust types (npm/src/generated/types.ts).

import * as fs from "node:fs";
import * as path from "node:path";

import type { EngineKind, ParseOnlyStats, RawSession } from "./binding";
import type * as T from "./generated/types";
import { loadEngine, type LoadAttempt } from "./loader";
import { createNodeHost } from "./wasm-host";

export type * from "./generated/types";
export { API_METHODS } from "./generated/types";
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

/** A session on one repository root. Builds its index on the first index-backed request. */
export class Session {
  readonly root: string;
  readonly engine: EngineKind;
  readonly enginePath: string;
  readonly loadAttempts: LoadAttempt[];
  readonly raw: RawSession;

  constructor(raw: RawSession, root: string, engine: EngineKind, enginePath: string, attempts: LoadAttempt[]) {
    this.raw = raw;
    this.root = root;
    this.engine = engine;
    this.enginePath = enginePath;
    this.loadAttempts = attempts;
  }

  orient(request: T.OrientRequest = {}): T.OrientResponse {
    return this.raw.orient(request) as T.OrientResponse;
  }
  /** The first call for a broad question: ranked anchors with evidence packets, import paths between
   *  them, what depends on them, candidate tests and follow-up calls. */
  explore(request: T.ExploreRequest): T.ExploreResponse {
    return this.raw.explore(request) as T.ExploreResponse;
  }
  /** A bounded evidence packet by handle, file path or declaration name. */
  packetGet(request: T.PacketGetRequest): T.PacketGetResponse {
    return this.raw.packetGet(request) as T.PacketGetResponse;
  }
  /** A context pack under a token budget: changed files first, focus paths or declarations,
   *  optional signatures/skeleton compression, JSON or markdown; profiles from `.codegraph/config`. */
  context(request: T.ContextRequest = {}): T.ContextResponse {
    return this.raw.context(request) as T.ContextResponse;
  }
  search(request: T.SearchRequest): T.SearchResponse {
    return this.raw.search(request) as T.SearchResponse;
  }
  workspaceSymbols(request: T.WorkspaceSymbolsRequest): T.WorkspaceSymbolsResponse {
    return this.raw.workspaceSymbols(request) as T.WorkspaceSymbolsResponse;
  }
  getFile(request: T.GetFileRequest): T.GetFileResponse {
    return this.raw.getFile(request) as T.GetFileResponse;
  }
  getSymbol(request: T.GetSymbolRequest): T.GetSymbolResponse {
    return this.raw.getSymbol(request) as T.GetSymbolResponse;
  }
  goto(request: T.GotoRequest): T.GotoResponse {
    return this.raw.goto(request) as T.GotoResponse;
  }
  refs(request: T.RefsRequest): T.RefsResponse {
    return this.raw.refs(request) as T.RefsResponse;
  }
  callers(request: T.CallsRequest): T.CallsResponse {
    return this.raw.callers(request) as T.CallsResponse;
  }
  callees(request: T.CallsRequest): T.CallsResponse {
    return this.raw.callees(request) as T.CallsResponse;
  }
  deps(request: T.DepsRequest): T.DepsResponse {
    return this.raw.deps(request) as T.DepsResponse;
  }
  rdeps(request: T.DepsRequest): T.DepsResponse {
    return this.raw.rdeps(request) as T.DepsResponse;
  }
  path(request: T.PathRequest): T.PathResponse {
    return this.raw.path(request) as T.PathResponse;
  }
  status(request: T.StatusRequest = {}): T.StatusResponse {
    return this.raw.status(request) as T.StatusResponse;
  }
  /** Picks up changed files (small change sets automatically, any with `force`); reports freshness. */
  refresh(request: T.RefreshRequest = {}): T.RefreshResponse {
    return this.raw.refresh(request) as T.RefreshResponse;
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
  /** Drops the index; the next request rebuilds it, parsing only changed content. */
  invalidate(): void {
    this.raw.invalidate();
  }
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
  const host = loaded.kind === "wasm" ? createNodeHost(abs) : abs;
  const raw = new loaded.module.Session(host, discovery);
  return new Session(raw, abs, loaded.kind, loaded.path, loaded.attempts);
}

/** The package version (from package.json). */
export function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string };
  return pkg.version;
}
