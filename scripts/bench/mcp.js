#!/usr/bin/env node
// MCP benchmark (run by hand, not a test): in-server latency of workspace_symbols, refs, callers,
// search and explore with a warm session (search/explore ask the corpus's navigation questions and
// identifier queries; the first search, which builds the lexical index, is reported apart), the size
// in tokens (bytes/4) of default explore answers, time to first answer over stdio with and without
// --warmup, and the size of the default tools/list.
//   node scripts/bench/mcp.js [CORPUS_DIR]   (default: ~/.cache/codegraph-corpus/rust; build it with
//   ../shared/corpus/make-corpus.sh, and the engines with scripts/build.sh)
"use strict";
const os = require("node:os");
const path = require("node:path");

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { InMemoryTransport } = require("@modelcontextprotocol/sdk/inMemory.js");
const { openSession } = require("../../npm/dist/index.js");
const { CodegraphMcp } = require("../../npm/dist/mcp/server.js");

const root = process.argv[2] ?? path.join(os.homedir(), ".cache/codegraph-corpus/rust");
const bin = path.resolve(__dirname, "../../bin/codegraph.js");

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timeCalls(client, name, argsList) {
  const times = [];
  for (const args of argsList) {
    const t0 = process.hrtime.bigint();
    const r = await client.callTool({ name, arguments: args });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content[0].text}`);
  }
  times.sort((a, b) => a - b);
  return { calls: times.length, p50: pct(times, 50).toFixed(2), p99: pct(times, 99).toFixed(2) };
}

async function firstAnswer(extra) {
  const t0 = Date.now();
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", "serve", "--root", root, "--stdio", ...extra],
      stderr: "ignore",
    }),
  );
  const initialized = Date.now() - t0;
  await client.callTool({ name: "workspace_symbols", arguments: { query: "spawn_blocking" } });
  const answered = Date.now() - t0;
  await client.close();
  return { initializeMs: initialized, firstAnswerMs: answered };
}

async function main() {
  const session = openSession({ root });
  const mcp = new CodegraphMcp({ session, version: "bench", packageJsonPath: path.resolve(__dirname, "../../package.json") });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await mcp.createServer().connect(b);
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(a);
  const t0 = Date.now();
  await client.callTool({ name: "orient", arguments: {} });
  const coldMs = Date.now() - t0;
  const { tools } = await client.listTools();
  const toolsListBytes = Buffer.byteLength(JSON.stringify({ tools }));
  const names = [
    "spawn",
    "block",
    "read",
    "write",
    "new",
    "poll",
    "parse",
    "map",
    "Error",
    "Builder",
    "serialize",
    "Regex",
    "Command",
    "Runtime",
    "Handle",
    "channel",
    "lock",
    "task",
    "buf",
    "drop",
  ];
  const handles = [];
  for (const query of names) {
    const r = await client.callTool({ name: "workspace_symbols", arguments: { query, limit: 20 } });
    for (const s of r.structuredContent.symbols) handles.push(s.handle);
  }
  const sample = handles.filter((_, i) => i % Math.max(1, Math.floor(handles.length / 200)) === 0).slice(0, 200);
  const corpus = path.basename(root);
  const questionsFile = path.join(__dirname, "questions", `${corpus}.json`);
  const questions = require("node:fs").existsSync(questionsFile) ? require(questionsFile).questions.map((q) => q.q) : [];
  const words = questions.concat(names);
  let t1 = Date.now();
  await client.callTool({ name: "search", arguments: { query: "first search builds the lexical index" } });
  const firstSearchMs = Date.now() - t1;
  const exploreBytes = [];
  for (const query of words) {
    const r = await client.callTool({ name: "explore", arguments: { query } });
    exploreBytes.push(Buffer.byteLength(r.content[0].text));
  }
  exploreBytes.sort((a, b) => a - b);
  const results = {
    engine: session.engine,
    root,
    files: session.status().files,
    coldIndexMs: coldMs,
    toolsListBytes,
    toolsListTokens: Math.ceil(toolsListBytes / 4),
    firstSearchMs,
    search: await timeCalls(
      client,
      "search",
      words.map((query) => ({ query })),
    ),
    explore: await timeCalls(
      client,
      "explore",
      words.map((query) => ({ query })),
    ),
    exploreTokens: { p50: Math.ceil(pct(exploreBytes, 50) / 4), max: Math.ceil(exploreBytes[exploreBytes.length - 1] / 4) },
    workspace_symbols: await timeCalls(
      client,
      "workspace_symbols",
      names.concat(names).map((query) => ({ query })),
    ),
    refs: await timeCalls(
      client,
      "refs",
      sample.map((handle) => ({ handle })),
    ),
    callers: await timeCalls(
      client,
      "callers",
      sample.map((handle) => ({ handle })),
    ),
    withoutWarmup: await firstAnswer([]),
    withWarmup: await firstAnswer(["--warmup"]),
  };
  await client.close();
  console.log(JSON.stringify(results, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
