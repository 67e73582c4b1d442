// The hostile repository of core/tests/bad_input.rs, through both engines: binary, NUL and invalid
// UTF-8 files, a 5 MB single-line file, a minified bundle left out, 10,000-deep nesting in every language, a symlink loop and a
// symlink out of the root. Neither engine crashes or hangs, both report the same skipped files with
// reasons, answer identically, and refuse reads outside the root.
"use strict";
const { test } = require("node:test");
const { withoutClock } = require("./questions.js");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { openSession } = require("../../npm/dist/index.js");

function writeHostileRepo(root) {
  const src = path.join(root, "src");
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, "ok.ts"), "export function fine() { return 1; }\nfine();\n");
  fs.writeFileSync(path.join(src, "binary.js"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0xff, 0xfe]));
  fs.writeFileSync(path.join(src, "nul.py"), Buffer.from("def f():\n    return 1\0\n"));
  fs.writeFileSync(path.join(src, "latin1.rs"), Buffer.from([...Buffer.from("fn caf"), 0xe9, ...Buffer.from("() {}\n")]));
  const unit = "var a=b(c,d)+e[f]*g.h(i);";
  fs.writeFileSync(path.join(src, "bundle.js"), "export function big(){" + unit.repeat(Math.ceil((5 * 1024 * 1024) / unit.length)) + "}");
  fs.mkdirSync(path.join(src, "vendor"));
  fs.writeFileSync(path.join(src, "vendor", "jquery.min.js"), "function jq(){return 1}jq();\n");
  const n = 10000;
  const open = (c) => c.repeat(n);
  fs.writeFileSync(path.join(src, "deep.ts"), `export const x = ${open("[")}1${open("]")};\n`);
  fs.writeFileSync(path.join(src, "deep.py"), `x = ${open("(")}1${open(")")}\n`);
  fs.writeFileSync(path.join(src, "deep.rs"), `fn f() { let x = ${open("(")}1${open(")")}; }\n`);
  fs.writeFileSync(path.join(src, "deep.go"), `package p\nvar x = ${open("(")}1${open(")")}\n`);
  fs.writeFileSync(path.join(src, "Deep.java"), `class Deep { int x = ${open("(")}1${open(")")}; }\n`);
  fs.symlinkSync("..", path.join(src, "loop"));
  fs.symlinkSync("/etc/hostname", path.join(src, "outside.ts"));
}

function code(fn) {
  try {
    fn();
    return "OK";
  } catch (e) {
    return e.code;
  }
}

test("both engines survive hostile input and agree", { skip: process.platform === "win32" && "needs symlinks" }, (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-hostile-"));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  writeHostileRepo(root);
  const answers = {};
  for (const engine of ["native", "wasm"]) {
    const s = openSession({ root, engine });
    const status = s.status();
    const reasons = Object.fromEntries(status.skipped.map((x) => [x.path, x.reason]));
    assert.match(reasons["src/binary.js"], /NUL byte/);
    assert.match(reasons["src/nul.py"], /NUL byte/);
    assert.match(reasons["src/latin1.rs"], /invalid UTF-8 at byte 6/);
    assert.match(reasons["src/bundle.js"], /larger than the size cap/);
    assert.match(reasons["src/vendor/jquery.min.js"], /minified bundle/);
    assert.match(reasons["src/outside.ts"], /symlink/);
    assert.equal(status.files, 6);
    for (const file of ["../etc/passwd", "/etc/passwd", "src/outside.ts", "src/../../x"]) {
      assert.equal(
        code(() => s.getFile({ file })),
        "OUTSIDE_ROOT",
        `${engine} getFile ${file}`,
      );
    }
    assert.equal(
      code(() => s.getFile({ file: "src/binary.js" })),
      "UNREADABLE",
    );
    answers[engine] = {
      status: withoutClock(status),
      orient: s.orient(),
      fine: s.callers({ handle: "src/ok.ts::fine" }),
      deep: s.workspaceSymbols({ query: "x" }),
    };
  }
  assert.deepStrictEqual(answers.wasm, answers.native);
  // With the cap raised, the 5 MB bundle is parsed by both engines, identically.
  const big = ["native", "wasm"].map((engine) =>
    openSession({ root, engine, maxFileBytes: 10 * 1024 * 1024 }).workspaceSymbols({ query: "big" }),
  );
  assert.equal(big[0].symbols[0].handle, "src/bundle.js::big");
  assert.deepStrictEqual(big[1], big[0]);
});
