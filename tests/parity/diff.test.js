// A diff spec reads git through the host: the native host runs git itself, the wasm host through
// Node. Both must see the same change set in a real repository and pack the same answer.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { copyFixture } = require("../fixture.js");

const { openSession } = require("../../npm/dist/index.js");

const fixture = path.resolve(__dirname, "../fixtures/polyglot");

test("context diff specs: native and wasm read the same change set through git", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-diff-"));
  copyFixture(root);
  const git = (...args) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false", ...args], {
      cwd: root,
      stdio: "pipe",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "base");
  fs.appendFileSync(path.join(root, "go/money/util.go"), "\n// unstaged\n");
  fs.appendFileSync(path.join(root, "py/shop/pricing.py"), "\n# staged\n");
  git("add", "py/shop/pricing.py");
  fs.writeFileSync(path.join(root, "ts/src/extra.ts"), "export const extra = 1;\n");
  const expected = {
    "working-tree": ["go/money/util.go", "py/shop/pricing.py", "ts/src/extra.ts"],
    staged: ["py/shop/pricing.py"],
    unstaged: ["go/money/util.go"],
    HEAD: ["go/money/util.go", "py/shop/pricing.py"],
  };
  const native = openSession({ root, engine: "native" });
  const wasm = openSession({ root, engine: "wasm" });
  for (const [diff, files] of Object.entries(expected)) {
    const a = native.context({ diff, budget: "4k", compress: "signatures" });
    const b = wasm.context({ diff, budget: "4k", compress: "signatures" });
    assert.deepStrictEqual(b, a, diff);
    const first = a.entries
      .filter((e) => e.reason === "diff")
      .map((e) => e.path)
      .sort();
    assert.deepStrictEqual(first, files, diff);
  }
  // Impact and review read the same change set down to declarations.
  fs.appendFileSync(path.join(root, "ts/src/util.ts"), "\nexport function added(): number {\n  return 1;\n}\n");
  for (const req of [{ base: "HEAD" }, { base: "HEAD", head: "STAGED" }, { base: "STAGED", head: "WORKTREE", depth: 3, format: "full" }]) {
    const a = native.impact(req);
    assert.deepStrictEqual(wasm.impact(req), a, JSON.stringify(req));
    assert.deepStrictEqual(
      wasm.review(req.head ? { base: req.base, head: req.head } : req),
      native.review(req.head ? { base: req.base, head: req.head } : req),
    );
  }
  assert.ok(native.impact({ base: "HEAD" }).changed.some((c) => c.handle === "ts/src/util.ts::added" && c.change === "added"));
  for (const s of [native, wasm]) {
    assert.throws(
      () => s.impact({ base: "--output=/tmp/x" }),
      (e) => e.code === "INVALID_ARGUMENT",
    );
    assert.throws(
      () => s.context({ diff: "--output=/tmp/x" }),
      (e) => e.code === "INVALID_ARGUMENT",
    );
    assert.throws(
      () => s.context({ diff: "no-such-ref" }),
      (e) => e.code === "INVALID_ARGUMENT" && /no-such-ref/.test(e.message),
    );
  }
  fs.rmSync(root, { recursive: true, force: true });
});
