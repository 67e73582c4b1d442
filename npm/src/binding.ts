// The contract both engines satisfy: a Session class that answers every request of the core's method
// table through one `call(method, request)`, plus metadata functions. The native addon takes the root
// path; the wasm module takes a Node file host. Nothing here interprets answers: the core decides them.

import type { ApiMethod } from "./generated/types";

export type { ApiMethod };

/** One engine's session object: JSON in, JSON out. */
export interface RawSession {
  call(method: ApiMethod, request?: unknown): unknown;
  invalidate(): void;
  prepare(progress?: (phase: string, done: number, total: number) => void): void;
  prepareSearch(): void;
  parseOnly(): ParseOnlyStats;
  takeNotes(): string[];
}

/** What `parseOnly` measured: the floor under a cold build (walk, read, tree-sitter parse only). */
export interface ParseOnlyStats {
  files: number;
  bytes: number;
  nodes: number;
  walkMs: number;
  readMs: number;
  parseMs: number;
  totalMs: number;
}

/** What the native addon (`.node`) and the wasm module both export. */
export interface EngineModule {
  Session: { new (rootOrHost: unknown, options?: unknown): RawSession; prototype: RawSession };
  apiMethods(): string[];
  version(): string;
  supportedLanguages(): string[];
  engine(): string;
  /** `release` or `debug`. */
  buildProfile(): string;
}

export type EngineKind = "native" | "wasm";
