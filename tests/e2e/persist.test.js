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

test("both engines write the same bytes for the same files", (t) => {
  const root = tempFixture(t);
  // A file whose facts take several compressed blocks (over 64 KiB), packed alike on 32 and 64 bits.
  const big = Array.from({ length: 4000 }, (_, i) => `pub fn f${i}(a: u32) -> u32 { helper(a) + g${i}(a) }\n`);
  fs.writeFileSync(path.join(root, "big.rs"), big.join(""));
  const snapshot = path.join(root, ".codegraph/index.bin");
  const written = (engine) => {
    fs.rmSync(snapshot, { force: true });
    assert.equal(status(root, engine).snapshot.written, true);
    return fs.readFileSync(snapshot);
  };
  const wasm = written("wasm");
  const native = written("native");
  assert.ok(native.length > 0);
  assert.ok(wasm.equals(native), `wasm wrote ${wasm.length} bytes, native ${native.length}, not the same`);
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

/** The pid of a process that has exited (so no process has it, barring reuse within the test). */
function deadPid() {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

for (const engine of ["native", "wasm"]) {
  test(`${engine}: after a writer was killed mid-save, its lock is broken at once and its temp file removed`, (t) => {
    const root = tempFixture(t);
    // What `kill -9` during the save leaves: the lock (pid and time of a writer now gone) and the
    // half-written temporary file beside the snapshot.
    const dir = path.join(root, ".codegraph");
    fs.mkdirSync(dir);
    const pid = deadPid();
    fs.writeFileSync(path.join(dir, "lock"), `${pid} ${Date.now()}`);
    const stray = path.join(dir, `.index.bin.tmp-${pid}-1234`);
    fs.writeFileSync(stray, Buffer.alloc(1024 * 1024));
    const first = status(root, engine);
    assert.equal(first.snapshot.written, true, JSON.stringify(first.snapshot));
    assert.ok(!fs.existsSync(stray), "the stray temp file is removed");
    assert.ok(!fs.existsSync(path.join(dir, "lock")), "the lock is released");
    assert.equal(status(root, engine).snapshot.state, "loaded");
    // A live writer's lock is respected: nothing written, and said so in status.
    fs.rmSync(path.join(dir, "index.bin"));
    fs.writeFileSync(path.join(dir, "lock"), `${process.pid} ${Date.now()}`);
    assert.equal(status(root, engine).snapshot.written, false);
    fs.rmSync(path.join(dir, "lock"));
  });
}

test("a damaged snapshot or a lexical index that cannot be written is said on stderr, once", (t) => {
  const root = tempFixture(t);
  const run = (...args) => spawnSync(process.execPath, [bin, ...args, "--root", root], { encoding: "utf8" });
  assert.equal(run("index").status, 0);
  const snapshot = path.join(root, ".codegraph/index.bin");
  const bytes = fs.readFileSync(snapshot);
  bytes.fill(0x5a, 64, 4096);
  fs.writeFileSync(snapshot, bytes);
  const damaged = run("symbols", "slugify");
  assert.equal(damaged.status, 0, damaged.stderr);
  assert.match(damaged.stdout, /slugify/);
  assert.match(damaged.stderr, /codegraph symbols: note: ignored \.codegraph\/index\.bin: .*; rebuilt it/);
  // Rebuilt and written again: the next run says nothing.
  const again = run("symbols", "slugify");
  assert.equal(again.stderr, "");

  // The lexical index's file can't be replaced (a directory stands in its place).
  fs.rmSync(path.join(root, ".codegraph/text.bin"), { force: true });
  fs.mkdirSync(path.join(root, ".codegraph/text.bin/x"), { recursive: true });
  const search = run("search", "slugify");
  assert.equal(search.status, 0, search.stderr);
  assert.match(search.stderr, /codegraph search: note: .*text\.bin/);
});
