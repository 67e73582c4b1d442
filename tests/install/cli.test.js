// The `codegraph install` / `uninstall` commands: --dry-run writes nothing, a non-interactive run
// without --yes prints the plan and exits 2 (spawned bin/codegraph.js, stdin not a terminal, HOME a
// temporary directory), the one prompt accepts only y/yes, --print-config parses as each client's
// format, --json, --detect, usage errors, and the help text.
"use strict";

const { describe, test } = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { parse: parseToml } = require("smol-toml");

const { bin, sandbox, run, snapshot, read, childEnv, EXECUTABLE } = require("./helpers");

const ALL = ["codex", "claude", "cursor", "gemini", "opencode", "agents"];

/** Runs bin/codegraph.js with stdin not a terminal and HOME set to the sandbox. */
function spawnCli(box, args, input = "") {
  return spawnSync(process.execPath, [bin, ...args], { cwd: box.cwd, env: childEnv(box.home), input, encoding: "utf8", timeout: 30000 });
}

describe("safety gates", () => {
  test("--dry-run prints the plan, writes nothing and exits 0 (even with --yes)", async (t) => {
    const box = sandbox(t);
    const r = await run("install", ["--all", "--dry-run", "--yes"], box.environment);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /dry run: nothing was written/);
    for (const id of ALL) assert.match(r.out, new RegExp(`^${id}\\s+create`, "m"));
    assert.match(r.out, new RegExp(`server command: ${EXECUTABLE} mcp serve --root \\. --stdio`));
    assert.match(r.out, /absolute path of this codegraph/, "the plan says why the absolute path is used");
    assert.deepEqual(snapshot(box.root), {});
  });

  test("--dry-run of an uninstall writes nothing either", async (t) => {
    const box = sandbox(t);
    await run("install", ["--all", "--yes"], box.environment);
    const before = snapshot(box.root);
    const r = await run("uninstall", ["--all", "--dry-run"], box.environment);
    assert.equal(r.code, 0);
    assert.match(r.out, /remove/);
    assert.deepEqual(snapshot(box.root), before);
  });

  test("spawned, not a terminal, without --yes: prints the plan, writes nothing, exits 2", (t) => {
    const box = sandbox(t);
    const r = spawnCli(box, ["install", "--target", "codex,claude"]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stdout, /codex\s+create\s+~\/\.codex\/config\.toml/);
    assert.match(r.stderr, /run again with --yes/);
    assert.deepEqual(snapshot(box.root), {});
    const u = spawnCli(box, ["uninstall", "--target", "codex"]);
    assert.equal(u.status, 0, "nothing to remove is not an error");
  });

  test("spawned with --yes: installs with node + the script by absolute path, then uninstalls to nothing", (t) => {
    const box = sandbox(t);
    const r = spawnCli(box, ["install", "--all", "--yes"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /next:/);
    assert.match(r.stdout, /then ask your agent: "/);
    const config = parseToml(read(path.join(box.home, ".codex/config.toml")));
    assert.equal(config.mcp_servers.codegraph.command, process.execPath);
    assert.deepEqual(config.mcp_servers.codegraph.args, [bin, "mcp", "serve", "--root", ".", "--stdio"]);
    const again = spawnCli(box, ["install", "--all"]);
    assert.equal(again.status, 0, "a second install has nothing to write, so it needs no --yes");
    assert.match(again.stdout, /nothing to do: already installed/);
    const u = spawnCli(box, ["uninstall", "--all", "--yes"]);
    assert.equal(u.status, 0, u.stderr);
    const files = snapshot(box.home);
    assert.deepEqual(files, {});
  });

  for (const [answer, applied] of [
    ["y", true],
    ["yes", true],
    ["Y\n", true],
    [" YES ", true],
    ["", false],
    ["n", false],
    ["no", false],
    ["yes please", false],
    ["ok", false],
  ]) {
    test(`the prompt: ${JSON.stringify(answer)} ${applied ? "applies" : "declines (exit 1, nothing written)"}`, async (t) => {
      const box = sandbox(t);
      const questions = [];
      const r = await run("install", ["--target", "gemini"], box.environment, {
        interactive: true,
        ask: async (q) => {
          questions.push(q);
          return answer;
        },
      });
      assert.deepEqual(questions, ["Apply these changes? [y/N] "], "asked once");
      assert.equal(r.code, applied ? 0 : 1);
      assert.equal(read(path.join(box.home, ".gemini/settings.json")) !== undefined, applied);
    });
  }

  test("--yes skips the prompt", async (t) => {
    const box = sandbox(t);
    const r = await run("install", ["--target", "gemini", "--yes"], box.environment, {
      interactive: true,
      ask: async () => assert.fail("must not ask"),
    });
    assert.equal(r.code, 0);
  });
});

describe("--print-config", () => {
  for (const id of ALL) {
    test(`${id}: the snippet parses as the client's format and nothing is touched`, (t) => {
      const box = sandbox(t);
      const r = spawnCli(box, ["install", "--print-config", id]);
      assert.equal(r.status, 0, r.stderr);
      const text = r.stdout;
      if (id === "codex") {
        const doc = parseToml(text);
        assert.equal(doc.mcp_servers.codegraph.startup_timeout_ms, 20000);
        assert.deepEqual(doc.mcp_servers.codegraph.args.slice(-5), ["mcp", "serve", "--root", ".", "--stdio"]);
      } else if (id === "agents") {
        const front = /^---\n([\s\S]*?)\n---\n/.exec(text);
        assert.ok(front, "SKILL.md starts with YAML front matter");
        assert.match(front[1], /^name: codegraph$/m);
        assert.match(front[1], /^description: .{20,1024}$/m);
      } else {
        const doc = JSON.parse(text);
        const entry = id === "opencode" ? doc.mcp.codegraph : doc.mcpServers.codegraph;
        assert.ok(entry);
        if (id === "opencode") assert.equal(doc.$schema, "https://opencode.ai/config.json");
      }
      assert.deepEqual(snapshot(box.root), {});
    });
  }

  test("an unknown target is a usage error", async (t) => {
    const box = sandbox(t);
    const r = await run("install", ["--print-config", "vscode"], box.environment);
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown target "vscode"; targets: codex, claude, cursor, gemini, opencode, agents/);
  });
});

describe("--json, --detect, usage", () => {
  test("--json prints the plan and the results as one JSON document, without file contents", async (t) => {
    const box = sandbox(t);
    fs.writeFileSync(path.join(box.home, ".claude.json"), '{"oauthAccount": {"secret": "s3cr3t"}}');
    const r = await run("install", ["--target", "claude,cursor", "--yes", "--json"], box.environment);
    assert.equal(r.code, 0, r.err);
    const doc = JSON.parse(r.out);
    assert.equal(doc.action, "install");
    assert.equal(doc.applied, true);
    assert.deepEqual(doc.server.args, ["mcp", "serve", "--root", ".", "--stdio"]);
    assert.deepEqual(
      doc.edits.map((e) => [e.target, e.kind, e.status]),
      [
        ["claude", "modify", "written"],
        ["cursor", "create", "written"],
      ],
    );
    assert.ok(doc.edits[0].backup.endsWith(".codegraph-backup"));
    assert.equal(doc.nextSteps.length, 2);
    assert.ok(!r.out.includes("s3cr3t"), "config contents are never printed");
  });

  test("--json without --yes and no terminal: the plan, applied false, exit 2", async (t) => {
    const box = sandbox(t);
    const r = await run("install", ["--target", "codex", "--json"], box.environment);
    assert.equal(r.code, 2);
    assert.equal(JSON.parse(r.out).applied, false);
    assert.deepEqual(snapshot(box.root), {});
  });

  test("--detect picks the clients whose config folders exist", async (t) => {
    const box = sandbox(t);
    const none = await run("install", ["--detect", "--yes"], box.environment);
    assert.equal(none.code, 1);
    assert.match(none.err, /no supported client found/);
    fs.mkdirSync(path.join(box.home, ".codex"));
    fs.mkdirSync(path.join(box.home, ".gemini"));
    const r = await run("install", ["--detect", "--yes", "--json"], box.environment);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(
      JSON.parse(r.out).edits.map((e) => e.target),
      ["codex", "gemini"],
    );
  });

  for (const [args, message] of [
    [[], /choose the clients/],
    [["--target", "codex", "--all"], /exclusive/],
    [["--target", "codex,vim"], /unknown target "vim"/],
    [["--all", "--scope", "system"], /--scope must be user or project/],
    [["--all", "--bogus"], /Unknown option '--bogus'/],
    [["--print-config", "codex", "--target", "codex"], /--print-config takes one target/],
  ]) {
    test(`usage error: ${args.join(" ") || "(no arguments)"}`, async (t) => {
      const box = sandbox(t);
      const r = await run("install", args, box.environment);
      assert.equal(r.code, 2);
      assert.match(r.err, message);
      assert.match(r.err, /usage: codegraph install/);
    });
  }

  test("`codegraph --help` lists install and uninstall", (t) => {
    const box = sandbox(t);
    const r = spawnCli(box, ["--help"]);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /install --target T\[,T\.\.\.\] \| --all \| --detect/);
    assert.match(r.stdout, /install --print-config T/);
    assert.match(r.stdout, /uninstall --target/);
  });
});
