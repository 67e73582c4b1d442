// The loader on a packaged layout (scripts/pack.js output laid out as npm installs it): the platform
// package's addon is verified against build-manifest.json, copied into the native cache and loaded
// from there; every failure falls back with its reason and nothing unverified is ever loaded.
"use strict";
const { test, before } = require("node:test");
const assert = require("node:assert/strict");
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const { target, tmpdir, pack, install, doctor } = require("./helpers.js");
const { blake3File } = require("../../npm/dist/native-cache.js");

let staged;
let stageDir;
before(() => {
  stageDir = require("node:fs").mkdtempSync(path.join(require("node:os").tmpdir(), "codegraph-stage-"));
  staged = pack(stageDir, { noTarballs: true });
});
process.on("exit", () => stageDir && fs.rmSync(stageDir, { recursive: true, force: true }));

function setup(t) {
  const dir = tmpdir(t, "codegraph-loader-");
  const cli = install(path.join(dir, "app"), staged);
  const cache = path.join(dir, "cache");
  return {
    dir,
    cli,
    cache,
    env: { XDG_CACHE_HOME: cache },
    pkgNode: path.join(dir, "app/node_modules/@codegraph", target, `codegraph.${target}.node`),
  };
}

function nativeArtifact() {
  return staged.manifest.artifacts.find((a) => a.kind === "native" && a.target === target);
}

test("a verified addon is copied into the cache and loaded from there", (t) => {
  const { cli, cache, env } = setup(t);
  const r = doctor(cli, env);
  assert.equal(r.engine.kind, "native");
  const o = r.native.origin;
  assert.equal(o.mode, "cache");
  assert.equal(o.hash, nativeArtifact().blake3);
  assert.equal(o.packageName, `@codegraph/${target}`);
  assert.equal(o.updateSafeForCurrentProcess, true);
  assert.ok(o.loadedPath.startsWith(path.join(cache, "codegraph", "native-cache", "v1", target)), o.loadedPath);
  assert.equal(blake3File(o.loadedPath), o.hash);
  const again = doctor(cli, env);
  assert.equal(again.native.origin.loadedPath, o.loadedPath, "the second start uses the same entry");
});

test("a hash mismatch is never loaded: wasm, with the reason", (t) => {
  const { cli, env, pkgNode } = setup(t);
  fs.appendFileSync(pkgNode, Buffer.from([0]));
  const r = doctor(cli, env);
  assert.equal(r.engine.kind, "wasm");
  const failed = r.engine.attempts.find((a) => a.source.startsWith("platform package"));
  assert.match(failed.error, /blake3 mismatch .* not loaded/);
  assert.equal(r.native.origin, null);
});

test("an unwritable cache: loaded from the package, cacheError kept", (t) => {
  const { dir, cli } = setup(t);
  const file = path.join(dir, "not-a-dir");
  fs.writeFileSync(file, "");
  const r = doctor(cli, { XDG_CACHE_HOME: path.join(file, "cache") });
  assert.equal(r.native.origin.mode, "package");
  assert.match(r.native.origin.cacheError, /ENOTDIR|not a directory/);
  assert.equal(r.native.origin.updateSafeForCurrentProcess, false);
});

test("CODEGRAPH_NATIVE_CACHE=0 loads the verified package file", (t) => {
  const { cli, env, pkgNode } = setup(t);
  const r = doctor(cli, { ...env, CODEGRAPH_NATIVE_CACHE: "0" });
  assert.equal(r.native.origin.mode, "package");
  assert.equal(r.native.origin.loadedPath, pkgNode);
  assert.match(r.native.origin.cacheError, /disabled/);
});

test("a cache entry tampered with after the copy is detected and replaced", (t) => {
  const { cli, env } = setup(t);
  const first = doctor(cli, env).native.origin;
  const bytes = fs.readFileSync(first.loadedPath);
  bytes[bytes.length >> 1] ^= 0xff;
  fs.writeFileSync(first.loadedPath, bytes);
  assert.notEqual(blake3File(first.loadedPath), first.hash);
  const r = doctor(cli, env);
  assert.equal(r.native.origin.mode, "cache");
  assert.equal(blake3File(r.native.origin.loadedPath), first.hash, "the entry was rewritten from the package");
});

test("ten processes starting at once with an empty cache: all load, one valid entry", async (t) => {
  const { cli, cache, env } = setup(t);
  const runs = Array.from(
    { length: 10 },
    () =>
      new Promise((resolve) => {
        const p = spawn(process.execPath, [cli, "doctor", "--json"], {
          env: { ...process.env, CODEGRAPH_NATIVE_PATH: "", CODEGRAPH_FORCE_WASM: "", ...env },
        });
        let out = "";
        p.stdout.on("data", (d) => (out += d));
        p.on("close", (code) => resolve({ code, out }));
      }),
  );
  const results = await Promise.all(runs);
  for (const r of results) {
    assert.equal(r.code, 0);
    assert.equal(JSON.parse(r.out).native.origin.mode, "cache");
  }
  const targetDir = path.join(cache, "codegraph", "native-cache", "v1", target);
  const entries = fs.readdirSync(targetDir);
  assert.equal(entries.length, 1);
  const files = fs.readdirSync(path.join(targetDir, entries[0])).sort();
  assert.deepStrictEqual(files, [`codegraph.${target}.node`, "entry.json", "last-used"], "no temporary file left behind");
  assert.equal(blake3File(path.join(targetDir, entries[0], `codegraph.${target}.node`)), nativeArtifact().blake3);
});

test("CODEGRAPH_FORCE_WASM=1 loads wasm", (t) => {
  const { cli, env } = setup(t);
  const r = doctor(cli, { ...env, CODEGRAPH_FORCE_WASM: "1" });
  assert.equal(r.engine.kind, "wasm");
});

test("entries unused for 30 days are pruned; recent ones stay", (t) => {
  const { cli, cache, env } = setup(t);
  const root = path.join(cache, "codegraph", "native-cache", "v1");
  const old = path.join(root, target, "0.0.1-0123456789abcdef");
  const recent = path.join(root, "darwin-arm64", "0.0.2-0123456789abcdef");
  for (const d of [old, recent]) {
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, "last-used"), "");
  }
  const past = (Date.now() - 40 * 24 * 3600 * 1000) / 1000;
  fs.utimesSync(path.join(old, "last-used"), past, past);
  assert.equal(doctor(cli, env).native.origin.mode, "cache");
  assert.equal(fs.existsSync(old), false, "the 40-day-old entry is gone");
  assert.equal(fs.existsSync(recent), true);
});
