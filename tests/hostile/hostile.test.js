// Hostile repositories through the whole product: the CLI and the MCP server (stdio), on both
// engines, each process under a time and memory bound (helpers.js). A case passes when every
// process ends with an answer or a clear error: never a signal, a hang, a runaway allocation, a
// write outside the root, or a secret in the output. The core's own suite
// (core/tests/suite/hostile.rs) covers the same repositories in-process.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const { runBounded, mcpCalls, tempRepo, write, chainForms, mkfifo, sparse } = require("./helpers.js");
const { withoutClock } = require("../parity/questions.js");

const ENGINES = ["native", "wasm"];
const unix = process.platform !== "win32";

/** A finished process that was not killed and did not die by a signal. */
function assertEnded(r, what) {
  assert.equal(r.killed, undefined, `${what}: killed for ${r.killed} (peak ${r.peakMib} MiB)\n${r.stderr}`);
  assert.equal(r.signal, null, `${what}: died of ${r.signal}\n${r.stderr}`);
}

test("chains of 100,000 names in every grammar: the CLI and MCP answer on both engines, identically", async (t) => {
  const root = tempRepo(t);
  const forms = chainForms(100_000);
  for (const [rel, src] of Object.entries(forms)) write(root, rel, src);
  const answers = {};
  for (const engine of ENGINES) {
    const status = await runBounded(["status", "--json", "--no-persist", "--root", root, "--engine", engine], { timeoutMs: 120_000 });
    assertEnded(status, `${engine} status`);
    assert.equal(status.code, 0, status.stderr);
    const parsed = JSON.parse(status.stdout);
    assert.equal(parsed.files, Object.keys(forms).length, JSON.stringify(parsed.skipped));
    const mcp = await mcpCalls(
      root,
      engine,
      [
        ["search", { query: "b" }],
        ["goto", { file: "rs/calls.rs", line: 3, column: 16 }],
        ["orient", {}],
      ],
      {
        timeoutMs: 120_000,
        args: ["--no-persist"],
      },
    );
    assertEnded(mcp, `${engine} mcp`);
    for (const id of [2, 3, 4])
      assert.ok(mcp.answers[id]?.result && !mcp.answers[id].result.isError, `${engine} answer ${id}: ${JSON.stringify(mcp.answers[id])}`);
    answers[engine] = { status: withoutClock(parsed), calls: [2, 3, 4].map((id) => mcp.answers[id].result.structuredContent) };
  }
  assert.deepStrictEqual(answers.wasm, answers.native);
});

test(
  "ignore, config and index files that are FIFOs, /dev/zero or sparse giants are not read",
  { skip: !unix && "needs FIFOs and symlinks" },
  async (t) => {
    const root = tempRepo(t);
    write(root, "src/ok.ts", "export function fine() { return 1; }\nfine();\n");
    fs.symlinkSync("/dev/zero", path.join(root, ".gitignore"));
    mkfifo(path.join(root, ".codegraphignore"));
    sparse(path.join(root, "src/.gitignore"), 8 * 2 ** 30);
    fs.symlinkSync("/dev/zero", path.join(root, "package.json"));
    mkfifo(path.join(root, "tsconfig.json"));
    sparse(path.join(root, "go.mod"), 8 * 2 ** 30);
    mkfifo(path.join(root, "src/pipe.ts"));
    mkfifo(path.join(root, ".codegraph/text.bin"));
    fs.symlinkSync("/dev/zero", path.join(root, ".codegraph/index.bin"));
    mkfifo(path.join(root, ".codegraph/config"));
    for (const engine of ENGINES) {
      const status = await runBounded(["status", "--json", "--root", root, "--engine", engine], { maxRssMib: 600 });
      assertEnded(status, `${engine} status`);
      assert.equal(status.code, 0, status.stderr);
      const parsed = JSON.parse(status.stdout);
      assert.equal(parsed.files, 1);
      const reasons = Object.fromEntries(parsed.skipped.map((s) => [s.path, s.reason]));
      assert.match(reasons[".gitignore"], /symlink/);
      assert.match(reasons[".codegraphignore"], /not a regular file/);
      assert.match(reasons["src/.gitignore"], /read limit/);
      assert.match(reasons["src/pipe.ts"], /not a regular file/);
      const search = await runBounded(["search", "fine", "--json", "--root", root, "--engine", engine], { maxRssMib: 600 });
      assertEnded(search, `${engine} search`);
      assert.equal(JSON.parse(search.stdout).hits[0].path, "src/ok.ts");
      const context = await runBounded(["context", "--json", "--root", root, "--engine", engine], { maxRssMib: 600 });
      assertEnded(context, `${engine} context`);
      assert.equal(context.code, 2, "a config that is a FIFO is a clear usage error");
      assert.match(context.stderr, /\.codegraph\/config/);
    }
  },
);

test("a .codegraph that is a symlink is neither read nor written through", { skip: !unix && "needs symlinks" }, async (t) => {
  const root = tempRepo(t);
  const outside = tempRepo(t, "codegraph-outside-");
  write(root, "a.py", "def f():\n    return 1\n");
  fs.symlinkSync(outside, path.join(root, ".codegraph"));
  for (const engine of ENGINES) {
    const r = await runBounded(["index", "--json", "--root", root, "--engine", engine]);
    assertEnded(r, `${engine} index`);
    assert.equal(r.code, 0, r.stderr);
    assert.match(JSON.parse(r.stdout).snapshot.note, /symlink/);
    assert.deepStrictEqual(fs.readdirSync(outside), [], `${engine} wrote through the symlink`);
  }
});

test("secrets behind innocent names stay out of every answer", { skip: !unix && "needs symlinks" }, async (t) => {
  const root = tempRepo(t);
  write(root, ".env", "API_TOKEN=s3cret-token\nDB_URL=postgres://u:pw@h/db\n");
  fs.mkdirSync(path.join(root, "sub"));
  fs.symlinkSync("../.env", path.join(root, "sub/notes.ts"));
  write(root, ".env.js", "export const TOKEN = 'zzsecretzz';\n");
  write(root, "app.js", "import { TOKEN } from './.env.js';\nexport function use() { return TOKEN; }\n");
  for (const engine of ENGINES) {
    const file = await runBounded(["file", "sub/notes.ts", "--json", "--no-persist", "--root", root, "--engine", engine]);
    assertEnded(file, `${engine} file`);
    const page = JSON.parse(file.stdout);
    assert.equal(page.sensitive.redacted, true);
    assert.deepStrictEqual(page.sensitive.keys, ["API_TOKEN", "DB_URL"]);
    assert.equal(page.totalLines, 3);
    const mcp = await mcpCalls(
      root,
      engine,
      [
        ["get_file", { file: "sub/notes.ts" }],
        ["context", {}],
        ["packet_get", { target: ".env.js" }],
        ["explore", { query: "TOKEN", includeSource: true }],
        ["search", { query: "zzsecretzz" }],
      ],
      { args: ["--no-persist"] },
    );
    assertEnded(mcp, `${engine} mcp`);
    // The search answer repeats its query, so only the others are searched for the secrets.
    const shown = JSON.stringify([2, 3, 4, 5].map((id) => mcp.answers[id]));
    for (const secret of ["s3cret-token", "zzsecretzz", "postgres://"]) {
      assert.ok(!shown.includes(secret), `${engine}: ${secret} leaked`);
    }
    assert.equal(mcp.answers[6].result.structuredContent.total, 0);
  }
});

test("context --diff never runs a command the repository's git config names, on either engine", { skip: !unix && "uses sh" }, async (t) => {
  const root = tempRepo(t);
  const git = (...args) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: root });
  write(root, "a.py", "x = 1\n");
  write(root, ".gitattributes", "*.py filter=evil diff=evil\n");
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "one");
  for (const [key, what] of [
    ["core.fsmonitor", "fsmonitor"],
    ["core.pager", "pager"],
    ["diff.external", "external"],
    ["filter.evil.clean", "clean"],
    ["filter.evil.smudge", "smudge"],
    ["diff.evil.textconv", "textconv"],
  ]) {
    git("config", key, `touch ${root}/PWNED-${what}; cat`);
  }
  write(root, "a.py", "x = 2\n");
  for (const engine of ENGINES) {
    for (const diff of ["working-tree", "staged", "unstaged", "HEAD"]) {
      const r = await runBounded(["context", "--diff", diff, "--json", "--no-persist", "--root", root, "--engine", engine]);
      assertEnded(r, `${engine} context --diff ${diff}`);
      assert.equal(r.code, 0, r.stderr);
    }
  }
  assert.deepStrictEqual(
    fs.readdirSync(root).filter((n) => n.startsWith("PWNED")),
    [],
  );
});
