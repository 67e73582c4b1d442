// Shared helpers of the installer tests: a temporary HOME and project directory per test (never the
// real home), the environment passed explicitly to the planner and the command, in-process runs of
// `codegraph install`/`uninstall` with captured output, and golden-file comparison
// (UPDATE_GOLDEN=1 rewrites the files under tests/install/golden/).
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const repo = path.resolve(__dirname, "../..");
const bin = path.join(repo, "bin/codegraph.js");
const dist = path.join(repo, "npm/dist");
const command = require(path.join(dist, "cli/install.js"));
const environment = require(path.join(dist, "install/environment.js"));
const planner = require(path.join(dist, "install/plan.js"));
const apply = require(path.join(dist, "install/apply.js"));

/** The executable every golden file records: a stable absolute path, as a global npm install has. */
const EXECUTABLE = "/opt/codegraph/bin/codegraph";

/** A fresh temporary HOME and project directory, removed after the test. */
function sandbox(t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-install-"));
  const home = path.join(root, "home");
  const cwd = path.join(root, "project");
  fs.mkdirSync(home);
  fs.mkdirSync(cwd);
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const environment = { home, cwd, platform: process.platform, env: {}, executablePath: EXECUTABLE, nodePath: "/usr/bin/node" };
  return { root, home, cwd, environment };
}

/** Runs the command in-process; resolves to { code, out, err }. */
async function run(action, argv, environment, extra = {}) {
  const out = [];
  const err = [];
  const io = { out: (t) => out.push(t), err: (t) => err.push(t), environment, interactive: false, ...extra };
  const code = await command.runInstallCommand(action, argv, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** Every file under `dir` as { relativePath: text }, sorted (an absent dir is {}). */
function snapshot(dir) {
  const files = {};
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (fs.statSync(p).isDirectory()) walk(p);
      else files[path.relative(dir, p).split(path.sep).join("/")] = fs.readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return files;
}

function write(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function read(file) {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

/** Compares `actual` with tests/install/golden/<name>; UPDATE_GOLDEN=1 writes it instead. */
function golden(name, actual) {
  const file = path.join(__dirname, "golden", name);
  if (process.env.UPDATE_GOLDEN === "1") {
    write(file, actual);
    return;
  }
  assert.ok(fs.existsSync(file), `missing golden file ${file}; run with UPDATE_GOLDEN=1 to create it`);
  assert.equal(actual, fs.readFileSync(file, "utf8"), `differs from golden/${name}`);
}

function fixture(name) {
  return fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8");
}

/** An in-memory FileView for pure planning. */
function memoryFiles(files = {}) {
  return {
    readFile: (p) => files[p],
    // A path exists when it is a file or a folder holding one.
    exists: (p) => Object.keys(files).some((f) => f === p || f.startsWith(p + (p.includes("\\") ? "\\" : "/"))),
  };
}

/** The process environment for a spawned CLI: HOME is the sandbox, nothing that moves a client's config leaks in. */
function childEnv(home) {
  const env = { ...process.env, HOME: home, USERPROFILE: home };
  for (const name of ["CODEX_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "LOCALAPPDATA"]) delete env[name];
  return env;
}

/** Where each target writes in user scope, relative to HOME, and the fixture for an existing config. */
const TARGET_FILES = {
  codex: { file: ".codex/config.toml", fixture: "codex.config.toml", ext: "toml" },
  claude: { file: ".claude.json", fixture: "claude.claude.json", ext: "json" },
  cursor: { file: ".cursor/mcp.json", fixture: "cursor.mcp.json", ext: "json" },
  gemini: { file: ".gemini/settings.json", fixture: "gemini.settings.json", ext: "json" },
  opencode: {
    file: ".config/opencode/opencode.jsonc",
    freshFile: ".config/opencode/opencode.json",
    fixture: "opencode.opencode.jsonc",
    ext: "jsonc",
  },
};

/** A config's text parsed as its client reads it (TOML or JSON with comments), as plain objects. */
function parses(ext, text) {
  const { parse: parseToml } = require("smol-toml");
  const { parse: parseJsonc } = require("jsonc-parser");
  text = text.replace(/^\uFEFF/, "");
  if (ext === "toml") return JSON.parse(JSON.stringify(parseToml(text)));
  const errors = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true });
  assert.deepEqual(errors, [], "the result parses as JSON(C)");
  return value;
}

/** The codegraph server entry a target wrote, read back through the client's format. */
function entryOf(id, text) {
  const doc = parses(TARGET_FILES[id].ext, text);
  if (id === "codex") return doc.mcp_servers.codegraph;
  if (id === "opencode") return doc.mcp.codegraph;
  return doc.mcpServers.codegraph;
}

module.exports = {
  TARGET_FILES,
  parses,
  entryOf,
  repo,
  bin,
  dist,
  command,
  environment,
  planner,
  apply,
  EXECUTABLE,
  sandbox,
  run,
  snapshot,
  write,
  read,
  golden,
  fixture,
  memoryFiles,
  childEnv,
};
