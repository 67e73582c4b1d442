// What the MCP server asks: a session's `call`, answered in this thread (a library Session, as the
// in-process tests use) or off the event loop in a worker thread that owns the session
// (`SessionWorker`, what `codegraph mcp serve` runs), so that /health, other HTTP sessions and the
// stdio reader stay responsive while a long call (a cold build, refresh_index) runs.

import * as path from "node:path";
import { Worker } from "node:worker_threads";

import type { ApiMethod } from "../generated/types";
import type { OpenSessionOptions } from "../index";

/** The part of a session the server uses; a library `Session` is one. */
export interface Answerer {
  readonly root: string;
  readonly engine: string;
  call(method: ApiMethod, request: never): unknown;
  /** What went wrong with the persisted index since the last call (each reported once). */
  takeNotes?(): string[] | Promise<string[]>;
}

/** A failure of the core, with its stable code, as the worker sends it back. */
interface WireError {
  code: string;
  message: string;
}

type Reply = { id: number; ok: true; value: unknown; notes: string[] } | { id: number; ok: false; error: WireError };

/** A session owned by a worker thread: calls are queued there in order, answers come back as promises. */
export class SessionWorker implements Answerer {
  readonly root: string;
  engine = "starting";
  private readonly worker: Worker;
  private next = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  private notes: string[] = [];
  private readonly ready: Promise<void>;

  constructor(options: OpenSessionOptions & { root: string }) {
    this.root = path.resolve(options.root);
    this.worker = new Worker(path.join(__dirname, "worker.js"), { workerData: { ...options, root: this.root } });
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      this.worker.once("message", (m: { type: string; engine?: string; error?: WireError }) => {
        if (m.type === "ready") {
          this.engine = m.engine ?? "unknown";
          this.worker.on("message", (r: Reply) => this.settle(r));
          resolve();
        } else {
          reject(Object.assign(new Error(m.error?.message ?? "the session could not be opened"), { code: m.error?.code }));
        }
      });
      this.worker.once("error", reject);
    });
    this.worker.on("error", (e) => this.failAll(e));
    this.worker.on("exit", (code) => this.failAll(new Error(`the session worker exited (${code})`)));
  }

  /** Resolves once the session is open in the worker (rejects with its error when it can't be). */
  started(): Promise<void> {
    return this.ready;
  }

  /** Builds the index and the lexical index now (a server's warm-up); resolves to the file count. */
  async warmup(): Promise<number> {
    await this.ready;
    return (await this.send({ type: "warmup" })) as number;
  }

  async call(method: ApiMethod, request: never): Promise<unknown> {
    await this.ready;
    return this.send({ type: "call", method, request });
  }

  takeNotes(): string[] {
    return this.notes.splice(0);
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private send(message: Record<string, unknown>): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (reply.ok) {
      this.notes.push(...reply.notes);
      waiting.resolve(reply.value);
    } else {
      waiting.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    }
  }

  private failAll(error: unknown): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
