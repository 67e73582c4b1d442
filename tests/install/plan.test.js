// The pure planner: config locations per OS (Linux, macOS, Windows) and scope, the launcher it
// records (absolute executable, node + script, or `codegraph` from PATH), and that planning reads
// through the given file view only — nothing on disk is needed or touched.
"use strict";

const { describe, test } = require("node:test");
const assert = require("node:assert/strict");
const { parse: parseToml } = require("smol-toml");

const { planner, memoryFiles, dist } = require("./helpers");
const { resolveLauncher, isCodegraphLaunch } = require(`${dist}/install/launcher.js`);

const ALL = ["codex", "claude", "cursor", "gemini", "opencode", "agents"];

function environment(platform, extra = {}) {
  const win = platform === "win32";
  return {
    home: win ? "C:\\Users\\me" : platform === "darwin" ? "/Users/me" : "/home/me",
    cwd: win ? "D:\\src\\app" : "/src/app",
    platform,
    env: {},
    executablePath: win ? "C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\codegraph\\bin\\codegraph.js" : "/usr/local/bin/codegraph",
    nodePath: win ? "C:\\Program Files\\nodejs\\node.exe" : "/usr/local/bin/node",
    ...extra,
  };
}

function paths(platform, scope) {
  const p = planner.plan({ action: "install", targets: ALL, scope, environment: environment(platform), files: memoryFiles() });
  return p.edits.map((e) => [e.target, e.path]);
}

describe("locations", () => {
  test("Linux, user scope", () => {
    assert.deepEqual(paths("linux", "user"), [
      ["codex", "/home/me/.codex/config.toml"],
      ["claude", "/home/me/.claude.json"],
      ["cursor", "/home/me/.cursor/mcp.json"],
      ["gemini", "/home/me/.gemini/settings.json"],
      ["opencode", "/home/me/.config/opencode/opencode.json"],
      ["agents", "/home/me/.agents/skills/codegraph/.codegraph-install"],
      ["agents", "/home/me/.agents/skills/codegraph/SKILL.md"],
    ]);
  });

  test("macOS, user scope (the clients use the same dot-folders, not ~/Library)", () => {
    assert.deepEqual(
      paths("darwin", "user").map(([, p]) => p.replace("/Users/me/", "~/")),
      [
        "~/.codex/config.toml",
        "~/.claude.json",
        "~/.cursor/mcp.json",
        "~/.gemini/settings.json",
        "~/.config/opencode/opencode.json",
        "~/.agents/skills/codegraph/.codegraph-install",
        "~/.agents/skills/codegraph/SKILL.md",
      ],
    );
  });

  test("Windows, user scope", () => {
    assert.deepEqual(paths("win32", "user"), [
      ["codex", "C:\\Users\\me\\.codex\\config.toml"],
      ["claude", "C:\\Users\\me\\.claude.json"],
      ["cursor", "C:\\Users\\me\\.cursor\\mcp.json"],
      ["gemini", "C:\\Users\\me\\.gemini\\settings.json"],
      ["opencode", "C:\\Users\\me\\.config\\opencode\\opencode.json"],
      ["agents", "C:\\Users\\me\\.agents\\skills\\codegraph\\.codegraph-install"],
      ["agents", "C:\\Users\\me\\.agents\\skills\\codegraph\\SKILL.md"],
    ]);
  });

  test("project scope, Linux and Windows", () => {
    assert.deepEqual(
      paths("linux", "project").map(([, p]) => p),
      [
        "/src/app/.codex/config.toml",
        "/src/app/.mcp.json",
        "/src/app/.cursor/mcp.json",
        "/src/app/.gemini/settings.json",
        "/src/app/opencode.json",
        "/src/app/.agents/skills/codegraph/.codegraph-install",
        "/src/app/.agents/skills/codegraph/SKILL.md",
      ],
    );
    assert.equal(paths("win32", "project")[1][1], "D:\\src\\app\\.mcp.json");
  });

  test("an existing opencode.jsonc is edited instead of creating opencode.json", () => {
    const files = memoryFiles({ "/home/me/.config/opencode/opencode.jsonc": "{}\n" });
    const p = planner.plan({ action: "install", targets: ["opencode"], scope: "user", environment: environment("linux"), files });
    assert.equal(p.edits[0].path, "/home/me/.config/opencode/opencode.jsonc");
    assert.equal(p.edits[0].kind, "modify");
  });

  test("detection looks at config folders only", () => {
    const files = memoryFiles({
      "/home/me/.cursor/extensions.json": "[]",
      "/home/me/.claude.json": "{}",
      "/home/me/.config/opencode/x": "",
    });
    assert.deepEqual(planner.detectTargets("user", environment("linux"), files), ["claude", "cursor", "opencode"]);
    assert.deepEqual(planner.detectTargets("project", environment("linux"), files), []);
  });
});

describe("launcher", () => {
  test("an executable: its absolute path, and the plan says why", () => {
    const l = resolveLauncher(environment("linux"));
    assert.deepEqual([l.command, l.prefixArgs], ["/usr/local/bin/codegraph", []]);
    assert.match(l.note, /narrower PATH/);
  });

  test("a script (Windows, or node bin/codegraph.js): node and the script by absolute path", () => {
    const env = environment("win32");
    const l = resolveLauncher(env);
    assert.deepEqual([l.command, l.prefixArgs], [env.nodePath, [env.executablePath]]);
    // Backslashes survive the TOML block and the JSON entries.
    const codex = planner.plan({ action: "install", targets: ["codex", "claude"], scope: "user", environment: env, files: memoryFiles() });
    const toml = parseToml(codex.edits[0].after);
    assert.equal(toml.mcp_servers.codegraph.command, "C:\\Program Files\\nodejs\\node.exe");
    assert.deepEqual(toml.mcp_servers.codegraph.args, [env.executablePath, "mcp", "serve", "--root", ".", "--stdio"]);
    assert.equal(JSON.parse(codex.edits[1].after).mcpServers.codegraph.command, "C:\\Program Files\\nodejs\\node.exe");
  });

  test("unknown, or run from npx's temporary cache: `codegraph` from PATH, and the plan says so", () => {
    assert.equal(resolveLauncher(environment("linux", { executablePath: null })).command, "codegraph");
    const npx = resolveLauncher(environment("linux", { executablePath: "/home/me/.npm/_npx/1a2b/node_modules/.bin/codegraph" }));
    assert.equal(npx.command, "codegraph");
    assert.match(npx.note, /npx/);
  });

  test("which recorded launches count as the installer's own", () => {
    const args = ["mcp", "serve", "--root", ".", "--stdio"];
    assert.ok(isCodegraphLaunch("codegraph", args));
    assert.ok(isCodegraphLaunch("/opt/x/bin/codegraph", args));
    assert.ok(isCodegraphLaunch("C:\\npm\\codegraph.cmd", args));
    assert.ok(isCodegraphLaunch("/usr/bin/node", ["/lib/node_modules/codegraph/bin/codegraph.js", ...args]));
    assert.ok(!isCodegraphLaunch("docker", ["run", "codegraph", ...args]));
    assert.ok(!isCodegraphLaunch("codegraph", ["mcp", "serve", "--root", "/src", "--stdio"]));
    assert.ok(!isCodegraphLaunch("/usr/bin/node", ["other.js", ...args]));
    assert.ok(isCodegraphLaunch("codegraph", ["mcp", "serve", "--root", "${workspaceFolder}", "--stdio"], "${workspaceFolder}"));
  });
});

test("planning is pure: it reads through the file view and never needs the paths to exist", () => {
  const reads = [];
  const files = {
    readFile: (p) => {
      reads.push(p);
      return undefined;
    },
    exists: () => false,
  };
  const env = environment("linux", { home: "/nonexistent/home" });
  const p = planner.plan({ action: "install", targets: ALL, scope: "user", environment: env, files });
  assert.ok(p.edits.every((e) => e.kind === "create"));
  assert.ok(reads.length >= 6 && reads.every((r) => r.startsWith("/nonexistent/home/")));
  assert.deepEqual(
    planner.plan({ action: "uninstall", targets: ALL, scope: "user", environment: env, files }).edits.map((e) => e.kind),
    Array(6).fill("unchanged"),
  );
});
