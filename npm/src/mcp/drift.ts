// Version drift: the server captures its package version and package.json path at start; during tool
// calls, at most once per interval, it re-reads the installed metadata. A changed or unreadable
// install gives one deduplicated stderr warning. It never fails a request and never exits.

import * as fs from "node:fs";

export interface DriftOptions {
  packageJsonPath: string;
  runningVersion: string;
  intervalMs?: number;
  warn?: (message: string) => void;
  now?: () => number;
}

export class VersionDrift {
  private readonly intervalMs: number;
  private readonly warn: (message: string) => void;
  private readonly now: () => number;
  private last: number;
  private readonly warned = new Set<string>();

  constructor(private readonly options: DriftOptions) {
    this.intervalMs = options.intervalMs ?? 30_000;
    this.warn = options.warn ?? ((m) => process.stderr.write(`${m}\n`));
    this.now = options.now ?? Date.now;
    this.last = this.now();
  }

  /** Called on every tool call; does work at most once per interval. */
  check(): void {
    const now = this.now();
    if (now - this.last < this.intervalMs) return;
    this.last = now;
    let key: string;
    let message: string;
    try {
      const installed = (JSON.parse(fs.readFileSync(this.options.packageJsonPath, "utf8")) as { version?: string }).version;
      if (installed === this.options.runningVersion) return;
      key = `version:${installed}`;
      message = `codegraph: the installed package is now ${installed} but this server runs ${this.options.runningVersion}; restart the MCP server to pick up the new version`;
    } catch (e) {
      key = "unreadable";
      message = `codegraph: cannot read the installed package metadata (${(e as Error).message}); this server keeps running ${this.options.runningVersion}, restart it after the install settles`;
    }
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warn(message);
  }
}
