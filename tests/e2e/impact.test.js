// `codegraph impact` and `codegraph review` on a real git repository, through the CLI of both
// engines: the exit codes of the gate (0 held, 2 crossed, 1 the analysis could not run), the range
// form with WORKTREE edits, a hostile ref, and the review's risk for a deleted function still called.
"use strict";

const { test } = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const CLI = path.resolve(__dirname, "..", "..", "bin", "codegraph.js");

function env() {
  const e = { ...process.env };
  delete e.CODEGRAPH_FORCE_WASM;
  delete e.CODEGRAPH_NATIVE_PATH;
  return e;
}

function repo() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-impact-"));
  const write = (p, text) => {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), text);
  };
  const git = (...args) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false", ...args], {
      cwd: root,
      stdio: "pipe",
    });
  write("lib/__init__.py", "");
  write("lib/core.py", "def load(path):\n    return open(path).read()\n\n\ndef parse(text):\n    return text.split()\n");
  write("lib/a.py", "from lib.core import load\n\n\ndef run_a():\n    return load('a')\n");
  write("lib/b.py", "from lib.core import parse\n\n\ndef run_b():\n    return parse('b')\n");
  write("tests/test_a.py", "from lib.a import run_a\n\n\ndef test_a():\n    run_a()\n");
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "base");
  write("lib/core.py", "def load(path):\n    return open(path).read()\n");
  git("commit", "-qam", "drop parse");
  return { root, write };
}

function cli(root, engine, args) {
  const r = spawnSync(process.execPath, [CLI, ...args, "--root", root, "--no-persist", "--engine", engine], {
    env: env(),
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  return r;
}

for (const engine of ["native", "wasm"]) {
  test(`impact gate exit codes and review (${engine})`, () => {
    const { root, write } = repo();
    try {
      const gate = (n) => cli(root, engine, ["impact", "--files", "lib/core.py", "--fail-on", String(n), "--json"]);
      const crossed = gate(2);
      assert.equal(crossed.status, 2, crossed.stderr);
      const answer = JSON.parse(crossed.stdout);
      assert.deepEqual(answer.gate, {
        fail_on: 2,
        crossed: true,
        exit_code: 2,
        violations: [{ target: "lib/core.py", dependent_count: 2 }],
      });
      assert.equal(gate(3).status, 0);
      const human = cli(root, engine, ["impact", "--files", "lib/core.py", "--fail-on", "2"]);
      assert.equal(human.status, 2);
      assert.match(human.stdout, /gate crossed: lib\/core\.py has 2 dependents \(fail-on 2\)/);
      // The analysis could not run: 1, for a bad ref, a hostile one and a missing file alike.
      for (const args of [["--base", "no-such-ref"], ["--base", "--output=x"], ["--files", "nope.py"], []]) {
        const r = cli(root, engine, ["impact", ...args]);
        assert.equal(r.status, 1, `${args.join(" ")}: ${r.stderr}`);
        assert.match(r.stderr, /^codegraph impact: /);
      }
      assert.ok(!fs.existsSync(path.join(root, "x")));

      // The last commit removed `parse`, which lib/b.py still imports and calls.
      const range = JSON.parse(cli(root, engine, ["impact", "--base", "HEAD~1", "--head", "HEAD", "--json"]).stdout);
      assert.deepEqual(
        range.changed.map((c) => [c.handle, c.change]),
        [["lib/core.py::parse", "removed"]],
      );
      const broken = range.diagnostics.find((d) => d.kind === "removedStillReferenced");
      assert.deepEqual(
        broken.sites.map((s) => `${s.path}:${s.line}`),
        ["lib/b.py:1", "lib/b.py:5"],
      );
      const review = cli(root, engine, ["review", "--base", "HEAD~1", "--head", "HEAD"]);
      assert.equal(review.status, 0, review.stderr);
      assert.match(review.stdout, /risk high/);
      assert.match(review.stdout, /1\. restore `lib\/core\.py::parse`/);

      // An uncommitted edit of `load`'s body: run_a is impacted, with the test that reaches it.
      write("lib/core.py", "def load(path):\n    return open(path, encoding='utf-8').read()\n");
      const worktree = JSON.parse(cli(root, engine, ["impact", "--base", "HEAD", "--depth", "2", "--json"]).stdout);
      assert.deepEqual(
        worktree.changed.map((c) => [c.handle, c.change]),
        [["lib/core.py::load", "modifiedBody"]],
      );
      assert.deepEqual(
        worktree.impacted.map((i) => [i.handle, i.depth]),
        [
          ["lib/a.py::run_a", 1],
          ["tests/test_a.py::test_a", 2],
        ],
      );
      assert.equal(worktree.candidateTests[0].path, "tests/test_a.py");
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
}
