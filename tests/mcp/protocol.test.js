// JSON-RPC 2.0 and MCP as a client sees them on the wire, against a spawned `codegraph mcp serve`:
// every request gets its answer (malformed JSON, batches, non-object params, wrong-typed tool
// arguments, requests before initialize), answers are written as each call completes, and long
// calls run off the event loop so that /health and other clients stay responsive.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const http = require("node:http");
const os = require("node:os");
const path = require("node:path");

const { bin, fixture, startHttp } = require("./helpers.js");

const INIT = {
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

/** A server on stdio spoken to line by line; `answer(id)` resolves with the reply to that id. */
class RawStdio {
  constructor(args = []) {
    this.child = spawn(process.execPath, [bin, "mcp", "serve", "--root", fixture, "--no-persist", ...args], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.lines = [];
    /** Each stdout chunk's parsed messages, in arrival order. */
    this.chunks = [];
    this.stderr = "";
    this.waiters = [];
    let partial = "";
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (d) => {
      partial += d;
      const complete = partial.split("\n");
      partial = complete.pop();
      const messages = complete.filter(Boolean).map((l) => JSON.parse(l));
      this.chunks.push(messages);
      this.lines.push(...messages);
      this.waiters = this.waiters.filter((w) => !w());
    });
    this.child.stderr.on("data", (d) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on("exit", resolve));
  }

  send(message) {
    this.child.stdin.write(typeof message === "string" ? `${message}\n` : `${JSON.stringify(message)}\n`);
  }

  /** Resolves once `count` messages match `pred`. */
  until(pred, count = 1) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer; got ${JSON.stringify(this.lines)}; stderr ${this.stderr}`)), 60000);
      const check = () => {
        const found = this.lines.filter(pred);
        if (found.length < count) return false;
        clearTimeout(timer);
        resolve(count === 1 ? found[0] : found);
        return true;
      };
      if (!check()) this.waiters.push(check);
    });
  }

  answer(id) {
    return this.until((m) => m.id === id);
  }

  async close() {
    this.child.stdin.end();
    return this.exited;
  }
}

test("stdio: every request is answered per JSON-RPC 2.0, before and after initialize", async () => {
  const s = new RawStdio();
  // Before initialize: a request is refused, ping is answered, a notification is dropped.
  s.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  assert.equal((await s.answer(1)).error.code, -32002);
  s.send({ jsonrpc: "2.0", id: 2, method: "ping" });
  assert.deepStrictEqual((await s.answer(2)).result, {});
  s.send(INIT);
  assert.equal((await s.answer("init")).result.serverInfo.name, "codegraph");
  s.send({ jsonrpc: "2.0", method: "notifications/initialized" });

  // Not JSON, a batch, not JSON-RPC, a method that is not a string, params that are not an object.
  s.send("{this is not json");
  s.send([{ jsonrpc: "2.0", id: 3, method: "ping" }]);
  s.send({ id: 4, method: "ping" });
  s.send({ jsonrpc: "2.0", id: 5, method: 7 });
  s.send({ jsonrpc: "2.0", id: 6, method: "tools/list", params: [1, 2] });
  s.send({ jsonrpc: "2.0", method: "notifications/initialized", params: "x" }); // a notification: no answer
  const nulls = await s.until((m) => m.id === null, 2);
  assert.deepStrictEqual(
    nulls.map((m) => m.error.code),
    [-32700, -32600],
  );
  assert.equal((await s.answer(4)).error.code, -32600);
  assert.equal((await s.answer(5)).error.code, -32600);
  assert.equal((await s.answer(6)).error.code, -32602);

  // Tool arguments: not an object, of the wrong type, unknown to the tool → invalid params, with
  // the core's code; a tool's own failure stays a result.
  const call = (id, name, args) => s.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  call(10, "refs", "handle=x");
  call(11, "refs", { handle: 5 });
  call(12, "refresh_index", { force: false });
  call(13, "workspace_symbols", { query: "x", bogus: true });
  call(14, "callers", { handle: "no::such" });
  call(15, "nope", {});
  for (const id of [10, 11, 12, 13, 15]) {
    const a = await s.answer(id);
    assert.equal(a.error?.code, -32602, `${id}: ${JSON.stringify(a)}`);
  }
  assert.equal((await s.answer(11)).error.data.code, "INVALID_ARGUMENT");
  assert.match((await s.answer(11)).error.message, /handle/);
  const notFound = await s.answer(14);
  assert.equal(notFound.result.isError, true);
  assert.equal(JSON.parse(notFound.result.content[0].text).error.code, "NOT_FOUND");

  // Still serving; and each request got exactly one answer.
  s.send({ jsonrpc: "2.0", id: 20, method: "tools/call", params: { name: "orient", arguments: {} } });
  assert.equal((await s.answer(20)).result.structuredContent.files, 41);
  assert.equal(await s.close(), 0);
  const ids = s.lines.map((m) => m.id).filter((id) => id !== null);
  assert.deepStrictEqual(
    [...ids].sort((x, y) => String(x).localeCompare(String(y))),
    [1, 10, 11, 12, 13, 14, 15, 2, 20, 4, 5, 6, "init"],
    "one answer per request",
  );
  assert.equal(s.lines.length, 15);
});

test("stdio: 200 pipelined calls in one write are answered in order, as each completes", async () => {
  const s = new RawStdio();
  const lines = [JSON.stringify(INIT), JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })];
  for (let i = 1; i <= 200; i++) {
    const params = { name: "explore", arguments: { query: `where is spawn_job used ${i}` } };
    lines.push(JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params }));
  }
  s.child.stdin.write(lines.join("\n") + "\n");
  const answers = await s.until((m) => typeof m.id === "number", 200);
  assert.deepStrictEqual(
    answers.map((a) => a.id),
    Array.from({ length: 200 }, (_, i) => i + 1),
  );
  assert.ok(answers.every((a) => a.result && !a.result.isError));
  // initialize was written before the calls finished: its answer came in an earlier chunk than
  // the last call's (a server that reads the whole input before answering writes them together).
  const chunkOf = (id) => s.chunks.findIndex((c) => c.some((m) => m.id === id));
  assert.ok(chunkOf("init") < chunkOf(200), `initialize answered in chunk ${chunkOf("init")}, the last call in ${chunkOf(200)}`);
  assert.equal(await s.close(), 0);
  assert.doesNotMatch(s.stderr, /MaxListenersExceeded|Warning/);
});

/** A repository big enough that its cold build takes a while (most of all on the debug addon). */
function generatedRepo() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-mcp-slow-"));
  for (let d = 0; d < 40; d++) {
    fs.mkdirSync(path.join(root, `pkg${d}`));
    for (let f = 0; f < 40; f++) {
      let text = `from pkg${(d + 1) % 40}.m${f} import helper_${f}_0\n\n`;
      for (let k = 0; k < 30; k++) text += `def helper_${f}_${k}(x):\n    return helper_${f}_0(x) + ${k}\n\n`;
      fs.writeFileSync(path.join(root, `pkg${d}`, `m${f}.py`), text);
    }
  }
  return root;
}

function post(url, headers, body) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

async function initialize(url) {
  const r = await post(url, {}, INIT);
  assert.equal(r.status, 200);
  await r.text();
  const session = r.headers.get("mcp-session-id");
  const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
  await (await post(url, headers, { jsonrpc: "2.0", method: "notifications/initialized" })).text();
  return headers;
}

test("http: a long call runs off the event loop — /health and other sessions answer meanwhile, and it is never evicted", async (t) => {
  const root = generatedRepo();
  const server = await startHttp(["--root", root, "--no-persist", "--max-sessions", "1"]);
  t.after(() => {
    server.child.kill("SIGTERM");
    fs.rmSync(root, { recursive: true, force: true });
  });
  const health = server.url.replace(/\/mcp$/, "/health");
  const a = await initialize(server.url);
  const order = [];
  // The first index-backed call builds the index cold.
  const long = post(server.url, a, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "refresh_index", arguments: {} } }).then(
    async (r) => {
      // The answer may come as an event stream whose headers go out at once: done is its body's end.
      const text = await r.text();
      order.push("call");
      return { status: r.status, text };
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  const h = await fetch(health);
  order.push("health");
  assert.equal(h.status, 200);
  assert.equal((await h.json()).sessions, 1);
  // The one session slot is taken by a session with a call in flight: a new client waits its turn
  // (503) instead of evicting it.
  const refused = await post(server.url, {}, INIT);
  order.push("second client");
  assert.equal(refused.status, 503);
  const done = await long;
  assert.equal(done.status, 200);
  assert.match(done.text, /"rebuilt":true/);
  assert.deepStrictEqual(order, ["health", "second client", "call"]);
});

test("http: protocol errors on POST bodies, and a chunked body over 4 MiB gets its 413 before the socket closes", async (t) => {
  const server = await startHttp(["--root", fixture, "--no-persist"]);
  t.after(() => server.child.kill("SIGTERM"));
  const a = await initialize(server.url);
  const batch = await post(server.url, a, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
  assert.equal(batch.status, 400);
  assert.equal((await batch.json()).error.code, -32600);
  const params = await post(server.url, a, { jsonrpc: "2.0", id: 2, method: "tools/list", params: "x" });
  assert.equal((await params.json()).error.code, -32602);
  const early = await post(server.url, {}, { jsonrpc: "2.0", id: 3, method: "tools/list" });
  assert.equal(early.status, 400);

  // Chunked (no content-length): the server reads until the cap, answers 413, then closes.
  const url = new URL(server.url);
  const status = await new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on("error", reject);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < 6 * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) return req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
  assert.equal(status, 413);
  // And the server is still there.
  assert.equal((await fetch(server.url.replace(/\/mcp$/, "/health"))).status, 200);
});

test("--tools and the project config's [mcp] tools choose the tools served; an unknown name is a usage error", async (t) => {
  const { spawnSync } = require("node:child_process");
  const refused = spawnSync(process.execPath, [bin, "mcp", "serve", "--root", fixture, "--no-persist", "--tools", "refs,nope"], {
    encoding: "utf8",
    input: "",
  });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /unknown tool nope; tools: orient, explore/);

  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-mcp-tools-"));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, "a.py"), "def alpha():\n    return 1\n");
  fs.mkdirSync(path.join(root, ".codegraph"));
  fs.writeFileSync(path.join(root, ".codegraph/config"), '[mcp]\ntools = ["explore", "status"]\n');
  const served = async (args) => {
    const child = spawn(process.execPath, [bin, "mcp", "serve", "--root", root, "--no-persist", ...args], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stdin.write(`${JSON.stringify(INIT)}\n${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    child.stdin.end();
    await new Promise((resolve) => child.on("exit", resolve));
    const answer = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((m) => m.id === 2);
    return answer.result.tools.map((tool) => tool.name);
  };
  assert.deepStrictEqual(await served([]), ["explore", "status"]);
  assert.deepStrictEqual(await served(["--tools", "refs, callers"]), ["refs", "callers"]);
});
