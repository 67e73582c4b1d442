// Shared helpers of the MCP tests: a real SDK client over an in-memory linked transport (in-process)
// or over stdio / Streamable HTTP (spawned bin/codegraph.js).
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { InMemoryTransport } = require("@modelcontextprotocol/sdk/inMemory.js");

const repo = path.resolve(__dirname, "../..");
const bin = path.join(repo, "bin/codegraph.js");
const fixture = path.join(repo, "tests/fixtures/polyglot");

async function inProcessClient(mcp) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.createServer().connect(serverSide);
  const client = new Client({ name: "test", version: "0.0.0" });
  await client.connect(clientSide);
  return client;
}

/** Parses a tool result's JSON text (success or error). */
function body(result) {
  return JSON.parse(result.content[0].text);
}

/** Starts `codegraph mcp serve` over HTTP on a free port; resolves once it is listening. */
function startHttp(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "mcp", "serve", "--port", "0", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 30000);
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], stderr: () => stderr });
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
}

module.exports = { repo, bin, fixture, inProcessClient, body, startHttp };
