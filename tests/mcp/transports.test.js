// The MCP server end to end, spawned from bin/codegraph.js, with the SDK client: stdio (initialize
// advertises the version, a tool call, a malformed line does not kill it, stdout is protocol only)
// and Streamable HTTP on a real loopback port (two concurrent clients on one warm session, health,
// 403 for a foreign Origin, 401 without a token beyond loopback, 400 for malformed JSON).
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { repo, bin, fixture, body, startHttp } = require("./helpers.js");

const version = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")).version;

test("stdio: initialize advertises the version and tools answer", async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "serve", "--root", fixture, "--no-persist", "--stdio"],
    env: process.env,
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e", version: "0" });
  await client.connect(transport);
  assert.deepStrictEqual(client.getServerVersion(), { name: "codegraph", version });
  const r = await client.callTool({ name: "callers", arguments: { handle: "rust/src/jobs.rs::spawn_job" } });
  assert.equal(r.structuredContent.groups[0].handle, "rust/src/report.rs::summary");
  await client.close();
});

test("stdio: a malformed line is answered or ignored, the server stays up, stdout is only JSON-RPC", async () => {
  const child = spawn(process.execPath, [bin, "mcp", "serve", "--root", fixture, "--no-persist"], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  };
  child.stdin.write("this is not json\n");
  child.stdin.write(JSON.stringify(init) + "\n");
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "orient", arguments: {} } }) + "\n");
  const deadline = Date.now() + 20000;
  while (!out.includes('"id":2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.stdin.end(); // closing stdin ends the server cleanly
  assert.equal(await exited, 0);
  const lines = out.trim().split("\n");
  for (const line of lines) JSON.parse(line); // nothing but protocol on stdout
  const answer = lines.map((l) => JSON.parse(l)).find((m) => m.id === 2);
  assert.equal(answer.result.structuredContent.files, 41);
});

test("http: two concurrent clients share one warm session", async (t) => {
  const server = await startHttp(["--root", fixture, "--no-persist", "--warmup"]);
  t.after(() => server.child.kill("SIGTERM"));
  const connect = async () => {
    const client = new Client({ name: "e2e", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    return client;
  };
  const [a, b] = await Promise.all([connect(), connect()]);
  assert.deepStrictEqual(a.getServerVersion(), { name: "codegraph", version });
  const [ra, rb] = await Promise.all([
    a.callTool({ name: "refs", arguments: { handle: "ts/src/geo/circle.ts::Circle" } }),
    b.callTool({ name: "deps", arguments: { file: "ts/src/main.ts" } }),
  ]);
  assert.ok(ra.structuredContent.total >= 3);
  assert.ok(rb.structuredContent.files.includes("ts/src/geo/index.ts"));
  const health = await (await fetch(server.url.replace(/\/mcp$/, "/health"))).json();
  assert.equal(health.status, "ok");
  assert.equal(health.sessions, 2);
  assert.match(server.stderr(), /warmed up 41 files/);
  await a.close();
  await b.close();
});

test("http: foreign Origin → 403, malformed JSON → 400, oversized body → 413", async (t) => {
  const server = await startHttp(["--root", fixture, "--no-persist"]);
  t.after(() => server.child.kill("SIGTERM"));
  const post = (headers, bodyText) =>
    fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: bodyText,
    });
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "0" } },
  });
  assert.equal((await post({ origin: "http://evil.example" }, init)).status, 403);
  assert.equal((await post({ origin: "http://localhost:3000" }, init)).status, 200);
  assert.equal((await post({}, "{not json")).status, 400);
  assert.equal((await post({}, "x".repeat(5 * 1024 * 1024))).status, 413);
});

test("http: beyond loopback a token is required (401 without it)", async (t) => {
  const refused = spawnSync(
    process.execPath,
    [bin, "mcp", "serve", "--root", fixture, "--no-persist", "--host", "0.0.0.0", "--port", "0"],
    { encoding: "utf8", env: { ...process.env, CODEGRAPH_MCP_TOKEN: "" } },
  );
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /--auth-token/);
  const server = await startHttp(["--root", fixture, "--no-persist", "--host", "0.0.0.0", "--auth-token", "s3cret"]);
  t.after(() => server.child.kill("SIGTERM"));
  const url = server.url.replace("0.0.0.0", "127.0.0.1");
  const health = url.replace(/\/mcp$/, "/health");
  assert.equal((await fetch(health)).status, 401);
  assert.equal((await fetch(health, { headers: { authorization: "Bearer wrong" } })).status, 401);
  assert.equal((await fetch(health, { headers: { authorization: "Bearer s3cret" } })).status, 200);
  assert.equal((await fetch(health, { headers: { "x-api-key": "s3cret" } })).status, 200);
  const client = new Client({ name: "e2e", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer s3cret" } } }));
  assert.equal((await client.callTool({ name: "orient", arguments: {} })).structuredContent.files, 41);
  await client.close();
});

test("drift: a server started from a copy of the package warns once when that copy's version changes", async (t) => {
  const os = require("node:os");
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-drift-pkg-"));
  t.after(() => fs.rmSync(copy, { recursive: true, force: true }));
  for (const part of ["bin", "npm/dist", "npm/native", "npm/wasm"]) {
    fs.cpSync(path.join(repo, part), path.join(copy, part), { recursive: true });
  }
  fs.copyFileSync(path.join(repo, "package.json"), path.join(copy, "package.json"));
  fs.symlinkSync(path.join(repo, "node_modules"), path.join(copy, "node_modules"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(copy, "bin/codegraph.js"), "mcp", "serve", "--root", fixture, "--no-persist"],
    env: { ...process.env, CODEGRAPH_DRIFT_INTERVAL_MS: "1500" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr.on("data", (d) => (stderr += d));
  const client = new Client({ name: "e2e", version: "0" });
  await client.connect(transport);
  assert.equal(client.getServerVersion().version, version);
  const pkg = JSON.parse(fs.readFileSync(path.join(copy, "package.json"), "utf8"));
  fs.writeFileSync(path.join(copy, "package.json"), JSON.stringify({ ...pkg, version: "99.0.0" }));
  const call = async () => assert.ok(!(await client.callTool({ name: "orient", arguments: {} })).isError);
  await call(); // within the interval
  assert.doesNotMatch(stderr, /99\.0\.0/);
  await new Promise((r) => setTimeout(r, 1700));
  await call(); // after it: one warning
  await new Promise((r) => setTimeout(r, 1700));
  await call(); // deduplicated
  await client.close();
  assert.equal(stderr.match(/installed package is now 99\.0\.0/g)?.length, 1, stderr);
  assert.match(stderr, /restart/);
});

test("http: SIGTERM stops the server cleanly", async () => {
  const server = await startHttp(["--root", fixture, "--no-persist"]);
  const exited = new Promise((resolve) => server.child.on("exit", (code) => resolve(code)));
  server.child.kill("SIGTERM");
  assert.equal(await exited, 0);
});

/** A raw HTTP request with headers fetch() won't send (Host); resolves to { status, headers, body }. */
function rawRequest(url, { method = "GET", headers = {}, body } = {}) {
  const http = require("node:http");
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method, headers, setHost: !("host" in headers) },
      (res) => {
        let data = "";
        res.on("data", (d) => (data += d));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const INIT = (clientInfo = { name: "x", version: "0" }) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo } });
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

test("http: Host and Origin look-alikes of loopback are refused (DNS rebinding)", async (t) => {
  const server = await startHttp(["--root", fixture, "--no-persist"]);
  t.after(() => server.child.kill("SIGTERM"));
  const port = new URL(server.url).port;
  const health = server.url.replace(/\/mcp$/, "/health");
  for (const host of [
    `127.attacker.example:${port}`,
    `127.0.0.1.nip.io:${port}`,
    `localhost.evil.com:${port}`,
    `127.0.0.1@evil.com:${port}`,
    "",
    `evil.com`,
  ]) {
    assert.equal((await rawRequest(health, { headers: { host } })).status, 403, `Host ${JSON.stringify(host)}`);
  }
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `127.1.2.3:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
    assert.equal((await rawRequest(health, { headers: { host } })).status, 200, `Host ${JSON.stringify(host)}`);
  }
  for (const origin of [
    "http://127.1.2.3.evil.com",
    "http://127.attacker.example:7331",
    "http://localhost.evil.com",
    "null",
    "http://[::2]",
  ]) {
    assert.equal((await rawRequest(health, { headers: { origin } })).status, 403, `Origin ${origin}`);
  }
  for (const origin of ["http://127.0.0.1:3000", "http://localhost", "http://[::1]:8080", "http://127.9.9.9"]) {
    assert.equal((await rawRequest(health, { headers: { origin } })).status, 200, `Origin ${origin}`);
  }
});

test("http: sessions are capped, the longest idle one makes room, and a huge initialize is refused", async (t) => {
  const server = await startHttp(["--root", fixture, "--no-persist", "--max-sessions", "3"]);
  t.after(() => server.child.kill("SIGTERM"));
  const ids = [];
  for (let i = 0; i < 5; i++) {
    const r = await rawRequest(server.url, { method: "POST", headers: MCP_HEADERS, body: INIT() });
    assert.equal(r.status, 200, r.body);
    ids.push(r.headers["mcp-session-id"]);
  }
  const health = await (await fetch(server.url.replace(/\/mcp$/, "/health"))).json();
  assert.equal(health.sessions, 3);
  const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
  const call = (id) =>
    rawRequest(server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify(list),
    });
  assert.equal((await call(ids[0])).status, 404, "the oldest idle session was evicted");
  assert.equal((await call(ids[4])).status, 200);
  const huge = await rawRequest(server.url, {
    method: "POST",
    headers: MCP_HEADERS,
    body: INIT({ name: "x".repeat(3 * 1024 * 1024), version: "0" }),
  });
  assert.equal(huge.status, 413);
});
