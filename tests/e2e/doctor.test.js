// `codegraph doctor` never throws: a malformed client config, a corrupt snapshot and an unusable
// cache directory are each reported in their own section while the rest still runs, and the exit
// code stays 0 because an engine works. An install made by `codegraph install` shows up as configured.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { copyFixture } = require("../fixture.js");

const bin = path.resolve(__dirname, "../../bin/codegraph.js");
const fixture = path.resolve(__dirname, "../fixtures/polyglot");

function doctor(args, env) {
  return spawnSync(process.execPath, [bin, "doctor", ...args], {
    encoding: "utf8",
    env: { ...process.env, CODEGRAPH_FORCE_WASM: "", ...env },
  });
}

test("doctor reports broken surroundings section by section and exits 0", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-doctor-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const home = path.join(dir, "home");
  fs.mkdirSync(path.join(home, ".codex"), { recursive: true });
  fs.writeFileSync(path.join(home, ".codex", "config.toml"), "[mcp_servers.codegraph\nthis is not toml");
  const root = path.join(dir, "repo");
  copyFixture(root);
  fs.mkdirSync(path.join(root, ".codegraph"));
  fs.writeFileSync(path.join(root, ".codegraph", "index.bin"), "CODEGRPH garbage");
  const notADir = path.join(dir, "file");
  fs.writeFileSync(notADir, "");
  const env = { HOME: home, USERPROFILE: home, CODEX_HOME: "", XDG_CACHE_HOME: path.join(notADir, "cache") };

  const r = doctor(["--json", "--root", root], env);
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  for (const section of ["package", "engine", "native", "languages", "wasm", "index", "clients"]) {
    assert.ok(section in report, section);
  }
  assert.equal(report.engine.ok, true);
  assert.equal(report.index.ok, true);
  assert.equal(report.index.snapshot.state, "rejected", "the corrupt snapshot is reported and rebuilt");
  assert.match(report.index.snapshot.note, /rebuilt/);
  const codex = report.clients.clients.find((c) => c.target === "codex" && c.scope === "user");
  assert.equal(codex.state, "unreadable config");
  assert.ok(codex.error);
  assert.equal(report.native.ok, true);
  assert.equal(report.native.update.restartRequired, false);

  const human = doctor(["--root", root], env);
  assert.equal(human.status, 0);
  for (const title of ["package", "engine", "native", "languages", "wasm", "index", "clients"]) {
    assert.match(human.stdout, new RegExp(`^${title}$`, "m"));
  }
  assert.match(human.stdout, /codex \(user\): unreadable config/);
});

test("a client configured by codegraph install is listed; bad flags are usage errors", (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "codegraph-doctor-home-"));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const env = { HOME: home, USERPROFILE: home, CODEX_HOME: "" };
  const install = spawnSync(process.execPath, [bin, "install", "--target", "codex", "--yes"], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  assert.equal(install.status, 0, install.stderr);
  const report = JSON.parse(doctor(["--json", "--root", fixture], env).stdout);
  const codex = report.clients.clients.find((c) => c.target === "codex" && c.scope === "user");
  assert.equal(codex.state, "configured by codegraph install");
  assert.equal(codex.path, path.join(home, ".codex", "config.toml"));
  assert.equal(report.index.snapshot, "none (run `codegraph init` or `codegraph index`)");
  const bad = doctor(["--bogus"], env);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /usage: codegraph doctor/);
});
