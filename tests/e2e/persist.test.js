// The persisted index through the CLI: two `codegraph index` processes on one root at once both
// succeed and leave one valid snapshot; the wasm engine writes the same format the native one reads;
// `.codegraph/` carries its own .gitignore.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { copyFixture } = require("../fixture.js");

const bin = path.resolve(__dirname, "../../bin/codegraph.js");

/** A private copy of the fixture, removed after the test. */
function tempFixture(t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-persist-"));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  return copyFixture(root);
}

function status(root, engine) {
  const r = spawnSync(process.execPath, [bin, "status", "--json", "--root", root, "--engine", engine], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("two concurrent index processes: both exit 0, one valid snapshot", async (t) => {
  const root = tempFixture(t);
  const run = () =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, "index", "--root", root], { stdio: ["ignore", "pipe", "pipe"] });
      let err = "";
      child.stderr.on("data", (d) => (err += d));
      child.on("exit", (code) => resolve({ code, err }));
    });
  const results = await Promise.all([run(), run()]);
  for (const r of results) assert.equal(r.code, 0, r.err);
  const after = status(root, "native");
  assert.equal(after.snapshot.state, "loaded");
  assert.equal(after.snapshot.readFiles, 0);
  assert.equal(after.files, 41);
  assert.deepStrictEqual(fs.readdirSync(path.join(root, ".codegraph")).sort(), [".gitignore", "index.bin"]);
  assert.match(fs.readFileSync(path.join(root, ".codegraph/.gitignore"), "utf8"), /^\*$/m);
});

test("the wasm engine persists the format the native engine reads, and back", (t) => {
  const root = tempFixture(t);
  assert.equal(status(root, "wasm").snapshot.written, true);
  const native = status(root, "native");
  assert.equal(native.snapshot.state, "loaded");
  assert.equal(native.snapshot.reusedFiles, 41);
  fs.appendFileSync(path.join(root, "py/shop/models.py"), "\n\ndef extra():\n    return 1\n");
  const nativeEdit = status(root, "native");
  assert.equal(nativeEdit.snapshot.readFiles, 1);
  assert.equal(nativeEdit.snapshot.written, true);
  const wasm = status(root, "wasm");
  assert.equal(wasm.snapshot.state, "loaded");
  assert.equal(wasm.snapshot.readFiles, 0);
});

test("--no-persist leaves the root untouched", (t) => {
  const root = tempFixture(t);
  const r = spawnSync(process.execPath, [bin, "orient", "--root", root, "--no-persist"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(fs.existsSync(path.join(root, ".codegraph")), false);
});

test("init, sync and uninit --force manage the snapshot folder", (t) => {
  const root = tempFixture(t);
  const cli = (...args) => spawnSync(process.execPath, [bin, ...args, "--root", root], { encoding: "utf8" });
  const init = cli("init");
  assert.equal(init.status, 0, init.stderr);
  assert.match(init.stdout, /written to \.codegraph\/index\.bin/);
  const sync = cli("sync", "--json");
  assert.equal(JSON.parse(sync.stdout).snapshot.readFiles, 0);
  const refused = cli("uninit");
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /--force/);
  assert.ok(fs.existsSync(path.join(root, ".codegraph/index.bin")));
  const removed = cli("uninit", "--force", "--json");
  assert.equal(removed.status, 0, removed.stderr);
  assert.equal(JSON.parse(removed.stdout).removed, true);
  assert.equal(fs.existsSync(path.join(root, ".codegraph")), false);
  assert.ok(fs.existsSync(path.join(root, "py/shop/models.py")), "nothing else is touched");
});
