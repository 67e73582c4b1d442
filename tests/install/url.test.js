// `codegraph install --url`: one shared HTTP server per repository, every client pointed at it.
// Golden configs per target for the URL form (fresh file, existing config with comments and other
// servers), install → uninstall byte-exact, switching an entry between stdio and URL is a
// collision unless --force, a token is only ever referenced (never written), --print-config
// parses, doctor reports the transport and whether a server answers, and end to end: a real
// `mcp serve --port` on a free loopback port, an install into a temporary HOME, the URL read back
// from the written config and a tool called through it with the MCP SDK client.
//
// Run: node --test tests/install/   (UPDATE_GOLDEN=1 rewrites tests/install/golden/)
"use strict";

const { describe, test } = require("node:test");
const assert = require("node:assert/strict");
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");

const { sandbox, run, snapshot, write, read, golden, fixture, TARGET_FILES, entryOf } = require("./helpers");

const REPO = path.resolve(__dirname, "..", "..");
const BIN = path.join(REPO, "bin", "codegraph.js");
const URL_LOCAL = "http://127.0.0.1:7331/mcp";
const URL_REMOTE = "https://codegraph.example.com/mcp";

const TARGETS = TARGET_FILES;

/** The URL and the token reference an entry holds, in each client's own form. */
function urlOf(id, entry) {
  return id === "gemini" ? entry.httpUrl : entry.url;
}

const EXPECTED_LOCAL = {
  codex: { url: URL_LOCAL },
  claude: { type: "http", url: URL_LOCAL },
  cursor: { url: URL_LOCAL },
  gemini: { httpUrl: URL_LOCAL },
  opencode: { type: "remote", url: URL_LOCAL, enabled: true },
};

const EXPECTED_REMOTE = {
  codex: { url: URL_REMOTE, bearer_token_env_var: "CODEGRAPH_MCP_TOKEN" },
  claude: { type: "http", url: URL_REMOTE, headers: { Authorization: "Bearer ${CODEGRAPH_MCP_TOKEN}" } },
  cursor: { url: URL_REMOTE, headers: { Authorization: "Bearer ${env:CODEGRAPH_MCP_TOKEN}" } },
  gemini: { httpUrl: URL_REMOTE, headers: { Authorization: "Bearer ${CODEGRAPH_MCP_TOKEN}" } },
  opencode: { type: "remote", url: URL_REMOTE, enabled: true, headers: { Authorization: "Bearer {env:CODEGRAPH_MCP_TOKEN}" } },
};

describe("install --url, per target", () => {
  for (const [id, spec] of Object.entries(TARGETS)) {
    test(`${id}: fresh golden file; uninstall removes it`, async (t) => {
      const box = sandbox(t);
      const r = await run("install", ["--target", id, "--url", URL_LOCAL, "--yes"], box.environment);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /shared server: http:\/\/127\.0\.0\.1:7331\/mcp/);
      const file = path.join(box.home, spec.freshFile ?? spec.file);
      const text = read(file);
      golden(`${id}.url.fresh.${spec.ext === "jsonc" ? "json" : spec.ext}`, text);
      assert.deepEqual(entryOf(id, text), EXPECTED_LOCAL[id]);
      const again = await run("install", ["--target", id, "--url", URL_LOCAL, "--yes"], box.environment);
      assert.equal(again.code, 0, again.err);
      assert.equal(read(file), text, "idempotent");
      const u = await run("uninstall", ["--target", id, "--yes"], box.environment);
      assert.equal(u.code, 0, u.err);
      assert.deepEqual(snapshot(box.home), {}, "nothing is left behind");
    });

    test(`${id}: into an existing config (golden), a token by reference only, uninstall byte-exact`, async (t) => {
      const box = sandbox(t);
      const file = path.join(box.home, spec.file);
      const original = fixture(spec.fixture);
      write(file, original);
      const r = await run("install", ["--target", id, "--url", URL_REMOTE, "--yes"], box.environment);
      assert.equal(r.code, 0, r.err);
      const installed = read(file);
      golden(`${id}.url.existing.${spec.ext === "jsonc" ? "json" : spec.ext}`, installed);
      assert.deepEqual(entryOf(id, installed), EXPECTED_REMOTE[id], "beyond loopback the token is an environment reference");
      const u = await run("uninstall", ["--target", id, "--yes"], box.environment);
      assert.equal(u.code, 0, u.err);
      assert.equal(read(file), original, "uninstall gives the file back byte for byte");
    });

    test(`${id}: switching between stdio and the URL is a collision unless --force`, async (t) => {
      const box = sandbox(t);
      assert.equal((await run("install", ["--target", id, "--yes"], box.environment)).code, 0);
      const file = path.join(box.home, spec.freshFile ?? spec.file);
      const stdio = read(file);
      const switched = await run("install", ["--target", id, "--url", URL_LOCAL, "--yes"], box.environment);
      assert.equal(switched.code, 1, switched.out);
      assert.match(switched.out, /collision/);
      assert.match(switched.out, /stdio entry; switching it to shared-server \(URL\) is left to --force/);
      assert.equal(read(file), stdio, "left alone");
      const forced = await run("install", ["--target", id, "--url", URL_LOCAL, "--yes", "--force"], box.environment);
      assert.equal(forced.code, 0, forced.err);
      assert.deepEqual(entryOf(id, read(file)), EXPECTED_LOCAL[id]);
      // And back: the URL entry is the installer's too.
      const back = await run("install", ["--target", id, "--yes"], box.environment);
      assert.equal(back.code, 1);
      assert.match(back.out, /shared-server \(URL\) entry; switching it to stdio is left to --force/);
    });
  }

  test("agents: the skill names the shared server and how to start it", async (t) => {
    const box = sandbox(t);
    const r = await run("install", ["--target", "agents", "--url", URL_LOCAL, "--yes"], box.environment);
    assert.equal(r.code, 0, r.err);
    const skill = read(path.join(box.home, ".agents/skills/codegraph/SKILL.md"));
    assert.match(skill, /## The shared server/);
    assert.match(skill, /at http:\/\/127\.0\.0\.1:7331\/mcp/);
    assert.match(skill, /codegraph mcp serve --root \. --port 7331 --warmup/);
    const u = await run("uninstall", ["--target", "agents", "--yes"], box.environment);
    assert.equal(u.code, 0, u.err);
    assert.deepEqual(snapshot(box.home), {});
  });

  test("--print-config --url parses for every target; bad URLs and clear-text tokens are refused", async (t) => {
    const box = sandbox(t);
    for (const id of Object.keys(TARGETS)) {
      const r = await run("install", ["--print-config", id, "--url", URL_REMOTE, "--auth-token-env", "TEAM_TOKEN"], box.environment);
      assert.equal(r.code, 0, r.err);
      const entry = entryOf(id, r.out);
      assert.equal(urlOf(id, entry), URL_REMOTE);
      assert.ok(JSON.stringify(entry).includes("TEAM_TOKEN"), `${id} references the named variable`);
    }
    for (const [args, pattern] of [
      [["--url", "ftp://x/mcp"], /http:\/\/ or https:\/\//],
      [["--url", "not a url"], /must be an http\(s\) URL/],
      [["--url", "http://u:secret@127.0.0.1:7331/mcp"], /must not carry credentials/],
      [["--url", URL_LOCAL, "--auth-token", "s3cret"], /never writes a token/],
      [["--url", URL_LOCAL, "--auth-token-env", "not-a-name"], /environment variable name/],
      [["--auth-token-env", "X"], /goes with --url/],
    ]) {
      const r = await run("install", ["--target", "claude", ...args, "--yes"], box.environment);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}`);
      assert.match(r.err, pattern);
    }
    assert.deepEqual(snapshot(box.home), {}, "nothing written");
  });
});

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function waitForHealth(url, child) {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      const r = await fetch(new URL("/health", url));
      if (r.ok) return r.json();
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the server never answered /health");
}

test("end to end: a shared server, installs pointed at it, a tool called through the written URL", async (t) => {
  const box = sandbox(t);
  const root = path.join(REPO, "tests", "fixtures", "polyglot");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  // Doctor before the server runs: configured, but nobody answers.
  assert.equal((await run("install", ["--target", "claude,codex", "--url", url, "--yes"], box.environment)).code, 0);
  const env = { ...process.env, HOME: box.home, USERPROFILE: box.home, CODEX_HOME: "", CLAUDE_CONFIG_DIR: "" };
  delete env.CODEX_HOME;
  delete env.CLAUDE_CONFIG_DIR;
  const doctor = () =>
    JSON.parse(spawnSync(process.execPath, [BIN, "doctor", "--json", "--root", box.cwd], { env, encoding: "utf8" }).stdout);
  const down = doctor().clients.clients.filter((c) => c.transport === "http");
  assert.deepEqual(
    down.map((c) => [c.target, c.url, c.health.answers]),
    [
      ["codex", url, false],
      ["claude", url, false],
    ],
  );

  const child = spawn(process.execPath, [BIN, "mcp", "serve", "--root", root, "--port", String(port), "--no-persist"], {
    env: process.env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  t.after(() => child.kill());
  const health = await waitForHealth(url, child);
  assert.equal(health.root, root);

  const up = doctor().clients.clients.find((c) => c.target === "claude");
  assert.deepEqual([up.transport, up.health.answers, up.health.root], ["http", true, root]);

  // The URL as the client reads it from its own config, then a real MCP session through it.
  const written = entryOf("claude", read(path.join(box.home, ".claude.json")));
  const codex = entryOf("codex", read(path.join(box.home, ".codex/config.toml")));
  assert.equal(codex.url, written.url);
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const client = new Client({ name: "install-url-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(written.url)));
  const r = await client.callTool({ name: "workspace_symbols", arguments: { query: "Circle::new" } });
  assert.ok(!r.isError, r.content?.[0]?.text);
  assert.equal(r.structuredContent.symbols[0].handle, "rust/src/shapes/circle.rs::Circle::new");
  await client.close();
  fs.rmSync(path.join(box.home, ".claude.json"), { force: true });
});
