// Per-target installs into a temporary HOME: golden files for a fresh install and for an install
// into an existing config (comments, other servers, odd formatting), install → uninstall leaving
// every file byte-identical (or absent), idempotence, collisions, --force, and malformed configs.
//
// Run: node --test tests/install/   (UPDATE_GOLDEN=1 rewrites tests/install/golden/)
"use strict";

const { describe, test } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const { sandbox, run, snapshot, write, read, golden, fixture, EXECUTABLE, TARGET_FILES, parses, entryOf } = require("./helpers");

const TARGETS = TARGET_FILES;

describe("fresh install, per target", () => {
  for (const [id, spec] of Object.entries(TARGETS)) {
    test(`${id}: golden file, valid config, then uninstall removes the file`, async (t) => {
      const box = sandbox(t);
      const r = await run("install", ["--target", id, "--yes"], box.environment);
      assert.equal(r.code, 0, r.err);
      const file = path.join(box.home, spec.freshFile ?? spec.file);
      const text = read(file);
      golden(`${id}.fresh.${spec.ext === "jsonc" ? "json" : spec.ext}`, text);
      const entry = entryOf(id, text);
      if (id === "opencode") {
        assert.deepEqual(entry, { type: "local", enabled: true, command: [EXECUTABLE, "mcp", "serve", "--root", ".", "--stdio"] });
      } else {
        assert.equal(entry.command, EXECUTABLE);
        assert.deepEqual(entry.args, ["mcp", "serve", "--root", id === "cursor" ? "${workspaceFolder}" : ".", "--stdio"]);
      }
      if (id === "codex") assert.equal(entry.startup_timeout_ms, 20000);
      if (id === "claude" || id === "cursor") assert.equal(entry.type, "stdio");

      const u = await run("uninstall", ["--target", id, "--yes"], box.environment);
      assert.equal(u.code, 0, u.err);
      assert.equal(read(file), undefined, "the file the installer created is gone");
      assert.deepEqual(snapshot(box.home), {}, "no file is left behind (no backups of installer-only files)");
    });
  }

  test("agents: golden SKILL.md and marker; uninstall removes the skill folder", async (t) => {
    const box = sandbox(t);
    const r = await run("install", ["--target", "agents", "--yes"], box.environment);
    assert.equal(r.code, 0, r.err);
    const dir = path.join(box.home, ".agents/skills/codegraph");
    golden("agents.SKILL.md", read(path.join(dir, "SKILL.md")));
    golden("agents.codegraph-install", read(path.join(dir, ".codegraph-install")));
    const u = await run("uninstall", ["--target", "agents", "--yes"], box.environment);
    assert.equal(u.code, 0, u.err);
    assert.equal(read(path.join(dir, "SKILL.md")), undefined);
    assert.equal(fs.existsSync(dir), false, "the empty skill folder is removed");
  });
});

describe("install into an existing config, per target", () => {
  for (const [id, spec] of Object.entries(TARGETS)) {
    test(`${id}: golden file; everything outside the entry byte-identical; uninstall restores the original`, async (t) => {
      const box = sandbox(t);
      const file = path.join(box.home, spec.file);
      const original = fixture(spec.fixture);
      write(file, original);
      const r = await run("install", ["--target", id, "--yes"], box.environment);
      assert.equal(r.code, 0, r.err);
      const installed = read(file);
      golden(`${id}.existing.${spec.ext === "jsonc" ? "json" : spec.ext}`, installed);
      // The other settings survive (read back through the format), and the entry is there.
      const before = parses(spec.ext, original);
      const after = parses(spec.ext, installed);
      if (id === "codex") {
        assert.deepEqual(after.mcp_servers.docs, before.mcp_servers.docs);
        assert.deepEqual(after.profiles, before.profiles);
        assert.equal(after.model, before.model);
      } else {
        const key = id === "opencode" ? "mcp" : "mcpServers";
        for (const [name, value] of Object.entries(before[key] ?? {})) assert.deepEqual(after[key][name], value, `${key}.${name} kept`);
        for (const k of Object.keys(before).filter((k) => k !== key)) assert.deepEqual(after[k], before[k], `${k} kept`);
      }
      assert.ok(entryOf(id, installed));
      // A backup of the original, byte for byte.
      const backups = Object.entries(snapshot(path.dirname(file))).filter(([name]) => name.endsWith(".codegraph-backup"));
      assert.equal(backups.length, 1, "one backup");
      assert.equal(backups[0][1], original);

      const again = await run("install", ["--target", id, "--yes"], box.environment);
      assert.equal(again.code, 0, again.err);
      assert.match(again.out, /unchanged/);
      assert.equal(read(file), installed, "a second install changes nothing");

      const u = await run("uninstall", ["--target", id, "--yes"], box.environment);
      assert.equal(u.code, 0, u.err);
      assert.equal(read(file), original, "uninstall leaves the file byte-identical to before install");
    });
  }

  test("agents: other skills in ~/.agents/skills are untouched", async (t) => {
    const box = sandbox(t);
    const other = path.join(box.home, ".agents/skills/release-notes/SKILL.md");
    write(other, "---\nname: release-notes\ndescription: x\n---\nbody\n");
    const before = snapshot(box.home);
    assert.equal((await run("install", ["--target", "agents", "--yes"], box.environment)).code, 0);
    assert.equal(read(other), before[".agents/skills/release-notes/SKILL.md"]);
    assert.equal((await run("uninstall", ["--target", "agents", "--yes"], box.environment)).code, 0);
    assert.deepEqual(snapshot(box.home), before);
  });
});

describe("byte-identical round trips on awkward inputs", () => {
  const cases = {
    codex: ["", '\uFEFFmodel = "o3"\n', 'model = "o3"', 'model = "o3"\n', 'model = "o3"\r\n\r\n[x]\r\ny = 1\r\n', "# only a comment\n\n\n"],
    claude: [
      '{"numStartups":1}',
      // Containers and files the person had, empty: they stay exactly so.
      '{"theme": "Dracula", "mcpServers": {}}',
      "{}",
      "",
      "  \n\n",
      '{\n  "mcpServers": {\n    "a": {"command": "a"}\n  }\n}\n',
      '{\r\n\t"x": [1, 2],\r\n\t"mcpServers": {"a": {}}\r\n}',
    ],
    // Cursor's own skeleton, `{"mcpServers": {}}`, in two layouts.
    cursor: [
      '// c\n{ "a": 1 }\n',
      '{\n  "mcpServers": {\n    "a": {"command": "a"}, // one\n    // two\n  } /* three */\n}\n',
      '{\n  "mcpServers": {}\n}',
      '{"mcpServers":{}}',
    ],
    gemini: ['{"theme":"x",}', '{\n    "theme": "x"\n}', '\uFEFF{\r\n  "theme": "x"\r\n}\r\n'],
    opencode: ['{\n  "$schema": "https://opencode.ai/config.json",\n}\n', '{"mcp":{"x":{"type":"remote","url":"u"}}}', '{"mcp": {}}', "{}"],
  };
  for (const [id, inputs] of Object.entries(cases)) {
    inputs.forEach((input, i) => {
      test(`${id} #${i + 1}: install → uninstall restores ${JSON.stringify(input.slice(0, 40))}`, async (t) => {
        const box = sandbox(t);
        const file = path.join(box.home, TARGETS[id].file);
        write(file, input);
        assert.equal((await run("install", ["--target", id, "--yes"], box.environment)).code, 0);
        const installed = read(file);
        assert.ok(entryOf(id, installed), "the entry is there");
        assert.ok(installed.length > input.length);
        assert.equal((await run("uninstall", ["--target", id, "--yes"], box.environment)).code, 0);
        assert.equal(read(file), input);
      });
    });
  }
});

describe("the install record: uninstall removes exactly what install wrote", () => {
  test("edits elsewhere in the file between install and uninstall are kept; only the insertion goes", async (t) => {
    const box = sandbox(t);
    const file = path.join(box.home, ".claude.json");
    write(file, '{"theme": "Dracula", "mcpServers": {}}');
    assert.equal((await run("install", ["--target", "claude", "--yes"], box.environment)).code, 0);
    // The client rewrites a setting before and adds a server after ours.
    const installed = read(file).replace('"Dracula"', '"Nord"').replace(/\n}}$/, ',\n  "other": {"command": "x"}\n}}');
    write(file, installed);
    assert.equal((await run("uninstall", ["--target", "claude", "--yes"], box.environment)).code, 0);
    const after = read(file);
    assert.ok(!/codegraph/.test(after), after);
    assert.deepEqual(parses("json", after), { theme: "Nord", mcpServers: { other: { command: "x" } } });
    assert.deepEqual(Object.keys(snapshot(path.join(box.home, ".local"))), [], "the record is gone with its last entry");
  });

  test("an update of the entry (another launcher path) still uninstalls to the original bytes", async (t) => {
    const box = sandbox(t);
    const file = path.join(box.home, ".cursor/mcp.json");
    write(file, '{"mcpServers":{}}');
    assert.equal((await run("install", ["--target", "cursor", "--yes"], box.environment)).code, 0);
    const moved = { ...box.environment, executablePath: "/usr/local/bin/codegraph" };
    const r = await run("install", ["--target", "cursor", "--yes"], moved);
    assert.equal(r.code, 0, r.err);
    assert.match(read(file), /\/usr\/local\/bin\/codegraph/);
    assert.equal((await run("uninstall", ["--target", "cursor", "--yes"], moved)).code, 0);
    assert.equal(read(file), '{"mcpServers":{}}');
  });

  test("without a record (an install by an older version), uninstall removes the entry and keeps every container", async (t) => {
    const box = sandbox(t);
    const file = path.join(box.home, ".gemini/settings.json");
    write(file, '{"theme": "x", "mcpServers": {}}');
    assert.equal((await run("install", ["--target", "gemini", "--yes"], box.environment)).code, 0);
    fs.rmSync(path.join(box.home, ".local"), { recursive: true });
    assert.equal((await run("uninstall", ["--target", "gemini", "--yes"], box.environment)).code, 0);
    assert.deepEqual(parses("json", read(file)), { theme: "x", mcpServers: {} });
  });
});

describe("edges: links, duplicate keys, read-only files, hand-edited blocks", () => {
  test("a symlinked config is written through to its target; the link survives install and uninstall", async (t) => {
    const box = sandbox(t);
    const target = path.join(box.root, "dotfiles/claude.json");
    write(target, '{"numStartups": 2}\n');
    fs.symlinkSync(target, path.join(box.home, ".claude.json"));
    const link = path.join(box.home, ".claude.json");
    assert.equal((await run("install", ["--target", "claude", "--yes"], box.environment)).code, 0);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), "still a link");
    assert.ok(entryOf("claude", read(target)), "the target holds the entry");
    assert.equal((await run("uninstall", ["--target", "claude", "--yes"], box.environment)).code, 0);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), "still a link after uninstall");
    assert.equal(read(target), '{"numStartups": 2}\n');

    // A config the installer created and the person then moved into dotfiles behind a link: the
    // removal keeps the link and its target, without the entry.
    const codex = path.join(box.home, ".codex/config.toml");
    fs.mkdirSync(path.dirname(codex), { recursive: true });
    assert.equal((await run("install", ["--target", "codex", "--yes"], box.environment)).code, 0);
    const moved = path.join(box.root, "dotfiles/codex.toml");
    fs.renameSync(codex, moved);
    fs.symlinkSync(moved, codex);
    assert.equal((await run("uninstall", ["--target", "codex", "--yes"], box.environment)).code, 0);
    assert.ok(fs.lstatSync(codex).isSymbolicLink());
    assert.equal(read(moved), "");
  });

  test("a key repeated on the way to the entry is a malformed config: nothing written, the lines named", async (t) => {
    const box = sandbox(t);
    const file = path.join(box.home, ".claude.json");
    const text = '{\n  "mcpServers": {"a": {"command": "a"}},\n  "mcpServers": {}\n}\n';
    write(file, text);
    for (const action of ["install", "uninstall"]) {
      const r = await run(action, ["--target", "claude", "--yes"], box.environment);
      assert.equal(r.code, 1);
      assert.match(r.err, /"mcpServers" appears twice in the top level \(lines 2 and 3\)/);
      assert.equal(read(file), text);
    }
  });

  test("a read-only config is not replaced: the edit fails and says why", { skip: process.platform === "win32" }, async (t) => {
    const box = sandbox(t);
    const file = path.join(box.home, ".gemini/settings.json");
    write(file, '{"theme": "x"}');
    fs.chmodSync(file, 0o444);
    const r = await run("install", ["--target", "gemini", "--yes"], box.environment);
    assert.equal(r.code, 1);
    assert.match(r.out, /read-only \(mode 0444\)/);
    assert.equal(read(file), '{"theme": "x"}');
    assert.equal(fs.statSync(file).mode & 0o777, 0o444);
    assert.deepEqual(Object.keys(snapshot(path.dirname(file))), ["settings.json"], "no backup either");
  });

  test("codex: a hand-edited codegraph block is a collision for install; --force replaces it", async (t) => {
    const box = sandbox(t);
    const file = path.join(box.home, ".codex/config.toml");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    assert.equal((await run("install", ["--target", "codex", "--yes"], box.environment)).code, 0);
    const edited = read(file).replace("startup_timeout_ms = 20000", 'startup_timeout_ms = 60000\nenv = { RUST_LOG = "debug" }');
    write(file, edited);
    const r = await run("install", ["--target", "codex", "--yes"], box.environment);
    assert.equal(r.code, 1);
    assert.match(r.out, /collision[\s\S]*edited by hand/);
    assert.equal(read(file), edited);
    const forced = await run("install", ["--target", "codex", "--yes", "--force"], box.environment);
    assert.equal(forced.code, 0, forced.err);
    assert.match(read(file), /startup_timeout_ms = 20000/);
  });

  test("one backup per file across install/uninstall cycles", async (t) => {
    const box = sandbox(t);
    const file = path.join(box.home, ".claude.json");
    write(file, '{"numStartups": 1}');
    for (let i = 0; i < 3; i++) {
      assert.equal((await run("install", ["--target", "claude", "--yes"], box.environment)).code, 0);
      assert.equal((await run("uninstall", ["--target", "claude", "--yes"], box.environment)).code, 0);
    }
    assert.deepEqual(Object.keys(snapshot(box.home)), [".claude.json", ".claude.json.codegraph-backup"]);
  });
});

describe("collisions", () => {
  const foreign = {
    codex: '[mcp_servers.codegraph]\ncommand = "my-own-codegraph"\nargs = ["serve"]\n',
    claude: '{\n  "mcpServers": {\n    "codegraph": { "command": "docker", "args": ["run", "codegraph"] }\n  }\n}\n',
    // Remote entries of a shape the installer does not write (`install --url` writes exactly
    // `{ "url": … }` and `{ "type": "remote", "url": …, "enabled": true }`).
    cursor: '{ "mcpServers": { "codegraph": { "url": "http://127.0.0.1:7331/mcp", "headers": { "X-Team": "a" } } } }\n',
    gemini: '{ "mcpServers": { "codegraph": { "command": "codegraph", "args": ["mcp", "serve", "--root", "/src", "--stdio"] } } }\n',
    opencode: '{ "mcp": { "codegraph": { "type": "remote", "url": "http://127.0.0.1:7331/mcp", "enabled": false } } }\n',
  };
  for (const [id, text] of Object.entries(foreign)) {
    test(`${id}: a different codegraph entry is a reported collision, exit 1, nothing written; --force replaces it`, async (t) => {
      const box = sandbox(t);
      const file = path.join(box.home, TARGETS[id].file);
      write(file, text);
      const before = snapshot(box.home);
      const r = await run("install", ["--target", id, "--yes"], box.environment);
      assert.equal(r.code, 1);
      assert.match(r.out, /collision/);
      assert.deepEqual(snapshot(box.home), before, "nothing written");

      const u = await run("uninstall", ["--target", id, "--yes"], box.environment);
      assert.equal(u.code, 1, "uninstall does not remove an entry it did not write");
      assert.deepEqual(snapshot(box.home), before);

      const forced = await run("install", ["--target", id, "--yes", "--force"], box.environment);
      assert.equal(forced.code, 0, forced.err);
      const entry = entryOf(id, read(file));
      assert.ok(JSON.stringify(entry).includes(EXECUTABLE), "--force wrote codegraph's entry");
      assert.match(forced.out, /backup/);
      assert.equal((await run("install", ["--target", id, "--yes"], box.environment)).code, 0, "and now it is the installer's");
    });
  }

  test("a collision in one target does not stop the others", async (t) => {
    const box = sandbox(t);
    write(path.join(box.home, ".cursor/mcp.json"), foreign.cursor);
    const r = await run("install", ["--target", "cursor,gemini", "--yes"], box.environment);
    assert.equal(r.code, 1);
    assert.equal(read(path.join(box.home, ".cursor/mcp.json")), foreign.cursor);
    assert.ok(entryOf("gemini", read(path.join(box.home, ".gemini/settings.json"))));
  });

  test("an entry written by an earlier install with another executable path is updated, not a collision", async (t) => {
    const box = sandbox(t);
    assert.equal(
      (
        await run("install", ["--target", "claude,codex,opencode", "--yes"], {
          ...box.environment,
          executablePath: "/old/prefix/bin/codegraph",
        })
      ).code,
      0,
    );
    const r = await run("install", ["--target", "claude,codex,opencode", "--yes"], box.environment);
    assert.equal(r.code, 0, r.out + r.err);
    for (const id of ["claude", "codex"]) assert.equal(entryOf(id, read(path.join(box.home, TARGETS[id].file))).command, EXECUTABLE);
    assert.equal((await run("uninstall", ["--target", "claude,codex,opencode", "--yes"], box.environment)).code, 0);
    assert.deepEqual(snapshot(box.home), {});
  });

  test("agents: a foreign codegraph skill, or an edited SKILL.md, is left alone", async (t) => {
    const box = sandbox(t);
    const skill = path.join(box.home, ".agents/skills/codegraph/SKILL.md");
    write(skill, "---\nname: codegraph\ndescription: mine\n---\n");
    assert.equal((await run("install", ["--target", "agents", "--yes"], box.environment)).code, 1);
    assert.equal(read(skill), "---\nname: codegraph\ndescription: mine\n---\n");
    fs.unlinkSync(skill);

    assert.equal((await run("install", ["--target", "agents", "--yes"], box.environment)).code, 0);
    write(skill, read(skill) + "\nMy own notes.\n");
    const edited = read(skill);
    assert.equal((await run("uninstall", ["--target", "agents", "--yes"], box.environment)).code, 1);
    assert.equal(read(skill), edited, "an edited SKILL.md survives uninstall");
    assert.equal((await run("install", ["--target", "agents", "--yes"], box.environment)).code, 1, "and install");
    assert.equal((await run("uninstall", ["--target", "agents", "--yes", "--force"], box.environment)).code, 0);
    assert.equal(read(skill), undefined);
  });
});

describe("malformed configs: a clear error and nothing written", () => {
  const broken = {
    codex: ['model = "o3"\n[mcp_servers\ncommand = 1\n', /config\.toml is not valid TOML \(line 2/],
    claude: ['{\n  "mcpServers": {\n    "a": { "command": "a" \n  }\n}\n', /\.claude\.json is not valid JSON \(line \d+, column \d+: /],
    cursor: ['{ "mcpServers": [] }', /mcpServers is not a JSON object/],
    gemini: ['{ "theme": "x" "other": 1 }', /settings\.json is not valid JSON/],
    opencode: ["[1, 2]", /the top level is not a JSON object/],
  };
  for (const [id, [text, message]] of Object.entries(broken)) {
    test(`${id}`, async (t) => {
      const box = sandbox(t);
      write(path.join(box.home, TARGETS[id].file), text);
      const before = snapshot(box.home);
      for (const action of ["install", "uninstall"]) {
        const r = await run(action, ["--all", "--yes"], box.environment);
        assert.equal(r.code, 1);
        assert.match(r.err, message);
        assert.match(r.err, /nothing was written/);
        assert.deepEqual(snapshot(box.home), before, `${action} wrote nothing for any target`);
      }
    });
  }

  test("codex: damaged markers are an error", async (t) => {
    const box = sandbox(t);
    write(path.join(box.home, ".codex/config.toml"), 'a = 1\n# >>> codegraph >>>\n[mcp_servers.codegraph]\ncommand = "x"\n');
    const r = await run("install", ["--target", "codex", "--yes"], box.environment);
    assert.equal(r.code, 1);
    assert.match(r.err, /damaged codegraph markers/);
  });

  test("codex: a file whose result would not be valid TOML is refused, nothing written", async (t) => {
    const box = sandbox(t);
    // An inline mcp_servers table cannot be extended by a [mcp_servers.codegraph] header.
    const text = 'mcp_servers = { docs = { command = "docs" } }\n';
    write(path.join(box.home, ".codex/config.toml"), text);
    const r = await run("install", ["--target", "codex", "--yes"], box.environment);
    assert.equal(r.code, 1);
    assert.match(r.err, /would not be valid TOML with the codegraph block/);
    assert.equal(read(path.join(box.home, ".codex/config.toml")), text);
  });
});

describe("scopes and locations", () => {
  test("--scope project writes the project files", async (t) => {
    const box = sandbox(t);
    const r = await run("install", ["--all", "--scope", "project", "--yes"], box.environment);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(Object.keys(snapshot(box.cwd)).sort(), [
      ".agents/skills/codegraph/.codegraph-install",
      ".agents/skills/codegraph/SKILL.md",
      ".codex/config.toml",
      ".cursor/mcp.json",
      ".gemini/settings.json",
      ".mcp.json",
      "opencode.json",
    ]);
    // Only codegraph's own install record is in the home.
    assert.deepEqual(Object.keys(snapshot(box.home)), [".local/state/codegraph/install-record.json"], "user files untouched");
    assert.equal((await run("uninstall", ["--all", "--scope", "project", "--yes"], box.environment)).code, 0);
    assert.deepEqual(snapshot(box.cwd), {});
    assert.deepEqual(snapshot(box.home), {}, "the record is gone with the last entry");
  });

  test("CODEX_HOME, CLAUDE_CONFIG_DIR and XDG_CONFIG_HOME move the user files", async (t) => {
    const box = sandbox(t);
    const env = {
      CODEX_HOME: path.join(box.root, "codex"),
      CLAUDE_CONFIG_DIR: path.join(box.root, "claude"),
      XDG_CONFIG_HOME: path.join(box.root, "xdg"),
    };
    const r = await run("install", ["--target", "codex,claude,opencode", "--yes"], { ...box.environment, env });
    assert.equal(r.code, 0, r.err);
    assert.ok(read(path.join(box.root, "codex/config.toml")));
    assert.ok(read(path.join(box.root, "claude/.claude.json")));
    assert.ok(read(path.join(box.root, "xdg/opencode/opencode.json")));
    assert.deepEqual(Object.keys(snapshot(box.home)), [".local/state/codegraph/install-record.json"]);
  });
});
