// `codegraph mcp serve`: parses its flags, opens the one warm session for the root in a worker
// thread (so that long calls never block the transports), and starts the stdio or Streamable HTTP
// transport. Usage errors exit 2 before anything is served.

import * as path from "node:path";
import { parseArgs } from "node:util";

import type { ConfigResponse, CustomToolsResponse } from "../generated/types";
import { packageVersion } from "../index";
import { packageRoot } from "../loader";
import { SessionWorker } from "../mcp/answerer";
import { serveHttp } from "../mcp/http";
import { CodegraphMcp, selectTools } from "../mcp/server";
import { serveStdio } from "../mcp/stdio";

import { MCP_USAGE } from "./usage";

export { MCP_USAGE };

function fail(message: string): number {
  process.stderr.write(`codegraph mcp: ${message}; usage: codegraph ${MCP_USAGE}\n`);
  return 2;
}

/** Starts the server; resolves to an exit code only when it could not start. */
export async function runMcp(argv: string[]): Promise<number | undefined> {
  const [sub, ...rest] = argv;
  if (sub !== "serve") return fail(sub === undefined ? "missing subcommand" : `unknown subcommand ${JSON.stringify(sub)}`);
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({
      args: rest,
      allowPositionals: false,
      strict: true,
      options: {
        root: { type: "string" },
        stdio: { type: "boolean" },
        port: { type: "string" },
        host: { type: "string" },
        "auth-token": { type: "string" },
        "max-sessions": { type: "string" },
        warmup: { type: "boolean" },
        "warmup-symbols": { type: "boolean" },
        "allow-build": { type: "boolean" },
        engine: { type: "string" },
        include: { type: "string", multiple: true },
        ignore: { type: "string", multiple: true },
        "no-gitignore": { type: "boolean" },
        "no-persist": { type: "boolean" },
        tools: { type: "string" },
      },
    }).values;
  } catch (e) {
    return fail((e as Error).message);
  }
  const http = values.port !== undefined || values.host !== undefined;
  if (values.stdio && http) return fail("--stdio and --port/--host are exclusive");
  let port = 7331;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) return fail(`--port needs a port number (got ${JSON.stringify(values.port)})`);
  }
  let maxSessions: number | undefined;
  if (values["max-sessions"] !== undefined) {
    maxSessions = Number(values["max-sessions"]);
    if (!Number.isInteger(maxSessions) || maxSessions < 1)
      return fail(`--max-sessions needs a positive whole number (got ${JSON.stringify(values["max-sessions"])})`);
  }
  const engine = values.engine as string | undefined;
  if (engine !== undefined && engine !== "native" && engine !== "wasm") return fail(`--engine must be native or wasm`);
  let session: SessionWorker;
  try {
    session = new SessionWorker({
      root: (values.root as string | undefined) ?? ".",
      engine: engine as "native" | "wasm" | undefined,
      include: (values.include as string[] | undefined) ?? [],
      ignore: (values.ignore as string[] | undefined) ?? [],
      noGitignore: Boolean(values["no-gitignore"]),
      persist: !values["no-persist"],
      // A long-lived server looks for changed files before every answer that reads the index.
      autoRefresh: {},
      // Write access for the SQLite artifact: artifact_build, and query_sqlite's refresh of a stale one.
      allowBuild: Boolean(values["allow-build"]),
    });
    await session.started();
  } catch (e) {
    return fail((e as Error).message);
  }
  // The tools: --tools, else the project config's `[mcp] tools`, else all of them; with the custom
  // SQL tools of .codegraph/tools.yaml (a bad definition is said once here and skipped).
  let tools: string[] | undefined;
  let custom: CustomToolsResponse;
  try {
    custom = (await session.call("customTools", {} as never)) as CustomToolsResponse;
    for (const issue of custom.issues) {
      process.stderr.write(`codegraph mcp: ${custom.path}: ${issue.tool ? `tool ${issue.tool}: ` : ""}${issue.message} (skipped)\n`);
    }
    if (values.tools !== undefined) {
      tools = (values.tools as string)
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
      if (tools.length === 0) throw new Error("--tools needs a comma-separated list of tool names");
    } else {
      tools = ((await session.call("config", {} as never)) as ConfigResponse).mcp.tools ?? undefined;
    }
    selectTools(tools, custom.tools);
  } catch (e) {
    await session.close();
    return fail((e as Error).message);
  }
  const log = (m: string) => process.stderr.write(`${m}\n`);
  if (values.warmup || values["warmup-symbols"]) {
    // The base index and the symbol graph are built together: one warmup builds both, and the
    // lexical index of search and explore with them.
    const t0 = Date.now();
    try {
      const files = await session.warmup();
      log(`codegraph mcp: warmed up ${files} files in ${Date.now() - t0} ms`);
    } catch (e) {
      log(`codegraph mcp: warmup failed: ${(e as Error).message}`);
    }
  }
  const driftMs = Number(process.env.CODEGRAPH_DRIFT_INTERVAL_MS ?? "");
  const mcp = new CodegraphMcp({
    session,
    version: packageVersion(),
    packageJsonPath: path.join(packageRoot, "package.json"),
    tools,
    customTools: custom.tools,
    driftIntervalMs: Number.isFinite(driftMs) && driftMs > 0 ? driftMs : undefined,
    warn: log,
  });
  if (!http) {
    await serveStdio(mcp);
    return undefined;
  }
  const token = (values["auth-token"] as string | undefined) ?? process.env.CODEGRAPH_MCP_TOKEN;
  let running;
  try {
    running = await serveHttp(mcp, { host: (values.host as string | undefined) ?? "127.0.0.1", port, token, maxSessions, log });
  } catch (e) {
    await session.close();
    const err = e as Error & { code?: string };
    if (err.code === "INVALID_ARGUMENT") return fail(err.message);
    process.stderr.write(`codegraph mcp: cannot listen: ${err.message}\n`);
    return 1;
  }
  const shutdown = (signal: string) => {
    log(`codegraph mcp: ${signal}, finishing in-flight requests`);
    void running.close().then(() => process.exit(0));
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  // Announced only once the signal handlers are in place: whoever waits for this line may stop us.
  log(`codegraph mcp: serving ${session.root} at ${running.url} (health: ${running.url.replace(/\/mcp$/, "/health")})`);
  return undefined;
}
