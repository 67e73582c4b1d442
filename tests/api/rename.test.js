// rename_preview round trip with real compilers: for declarations of every kind in the fixtures, a
// safe preview's edits are applied to a temporary copy, which must still compile — `tsc` for
// TypeScript, `cargo check --offline` for Rust, `python -m compileall` for Python — and whose
// re-index must resolve every former use to the renamed declaration and none to the old name.
// Both engines give the same preview. A conflicting rename is declined instead.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { openSession } = require("../../npm/dist/index.js");
const { applyEdits } = require("../../scripts/lib/apply-edits.js");

const REPO = path.resolve(__dirname, "..", "..");
const FIXTURES = path.join(REPO, "tests", "fixtures");
const TSC = path.join(REPO, "node_modules", ".bin", "tsc");

function copy(src) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-rename-"));
  fs.cpSync(src, dir, { recursive: true, filter: (p) => !/[\\/](\.codegraph|target)$/.test(p) });
  return dir;
}

function compiles(cmd, args, cwd) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, CARGO_TARGET_DIR: path.join(cwd, "target") },
  });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.slice(0, 2000) };
}

const CASES = [
  {
    fixture: "inference",
    compile: (dir) => compiles(TSC, ["--noEmit", "--target", "es2020", "--module", "commonjs", "ts/model.ts", "ts/use.ts"], dir),
    handles: [
      "ts/model.ts::Sink::next",
      "ts/model.ts::Options",
      "ts/model.ts::Options::onDone",
      "ts/model.ts::Service",
      "ts/model.ts::configure",
    ],
  },
  {
    fixture: "inference",
    compile: (dir) => compiles("cargo", ["check", "--offline", "-q"], path.join(dir, "rust")),
    handles: ["rust/src/lib.rs::Item", "rust/src/lib.rs::Item::name#2"],
  },
  {
    fixture: "polyglot",
    compile: (dir) => compiles("cargo", ["check", "--offline", "-q"], path.join(dir, "rust")),
    handles: [
      "rust/src/shapes/mod.rs::Shape::area",
      "rust/src/jobs.rs::spawn_job",
      "rust/src/shapes/circle.rs::Circle",
      "rust/src/shapes/circle.rs::Circle::radius",
    ],
  },
  {
    fixture: "polyglot",
    compile: (dir) => compiles("python3", ["-m", "compileall", "-q", "py"], dir),
    handles: ["py/shop/util/text.py::slugify", "py/shop/models.py::Order", "py/shop/models.py::Order::total"],
  },
];

for (const c of CASES) {
  test(`applied previews compile and re-index to the renamed declaration (${c.fixture}: ${c.handles[0].split("/")[0]})`, async () => {
    const source = path.join(FIXTURES, c.fixture);
    const baseline = copy(source);
    const before = c.compile(baseline);
    fs.rmSync(baseline, { recursive: true, force: true });
    assert.ok(before.ok, `the fixture compiles before any rename:\n${before.output}`);
    const native = openSession({ root: source, engine: "native", persist: false });
    const wasm = openSession({ root: source, engine: "wasm", persist: false });
    for (const handle of c.handles) {
      const name = handle.split("::").pop().replace(/#\d+$/, "");
      const newName = `${name}Renamed`;
      const preview = native.renamePreview({ handle, newName });
      assert.deepStrictEqual(wasm.renamePreview({ handle, newName }), preview, `${handle}: native = wasm`);
      assert.ok(preview.safe, `${handle}: ${preview.reasons.join("; ")}`);
      const formerUses = native.refs({ handle, limit: 2000 }).refs.filter((r) => !r.alias).length;
      const dir = copy(source);
      try {
        applyEdits(dir, preview.edits);
        const after = c.compile(dir);
        assert.ok(after.ok, `${handle} → ${newName} breaks the build:\n${after.output}`);
        const again = openSession({ root: dir, engine: "native", persist: false });
        const renamedHandle = handle.replace(/::[^:]+$/, `::${newName}`);
        const uses = again.refs({ handle: renamedHandle, limit: 2000 }).refs.filter((r) => !r.alias).length;
        assert.equal(uses, formerUses, `${renamedHandle}: every former use resolves to it`);
        const leftover = again.workspaceSymbols({ query: name, limit: 500 }).symbols.filter((s) => s.handle === handle);
        assert.deepEqual(leftover, [], `${handle} is gone`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
}

test("a method called on untyped values elsewhere is declined: those calls can't be proven either way", () => {
  const s = openSession({ root: path.join(FIXTURES, "inference"), engine: "native", persist: false });
  const r = s.renamePreview({ handle: "ts/model.ts::Client::send", newName: "post" });
  assert.equal(r.safe, false);
  assert.deepEqual(
    r.unsafeSites.map((u) => [u.kind, u.path, u.line]),
    [
      ["unresolvedSameName", "ts/use.ts", 29],
      ["unresolvedSameName", "ts/use.ts", 30],
      // `either.send()` on `Client | Other` is also Other's method, which is not renamed.
      ["sharedUse", "ts/use.ts", 68],
    ],
  );
  // The same-named method of an unrelated class is neither renamed nor a reason.
  assert.ok(!r.edits.some((e) => e.line === 34 && e.path === "ts/use.ts"));
});

test("a rename onto a sibling's name is declined, with the conflict named", () => {
  const s = openSession({ root: path.join(FIXTURES, "polyglot"), engine: "native", persist: false });
  const r = s.renamePreview({ handle: "rust/src/shapes/circle.rs::Circle::area", newName: "new" });
  assert.equal(r.safe, false);
  assert.ok(
    r.conflicts.some((c) => c.handle === "rust/src/shapes/circle.rs::Circle::new"),
    JSON.stringify(r.conflicts),
  );
});
