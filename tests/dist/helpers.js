// Packaged layouts for the distribution tests: scripts/pack.js stages the real main package and the
// platform package of this machine; these helpers lay them out the way npm installs them.
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const repo = path.resolve(__dirname, "../..");
const { platformTarget } = require(path.join(repo, "npm/dist/loader.js"));
const target = platformTarget();

function tmpdir(t, prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs scripts/pack.js into `out`; returns the staged folders (and tarballs unless noTarballs). */
function pack(out, { version, noTarballs = false } = {}) {
  const args = [path.join(repo, "scripts/pack.js"), "--out", out];
  if (version) args.push("--version", version);
  if (noTarballs) args.push("--no-tarballs");
  execFileSync(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] });
  return {
    main: path.join(out, "codegraph"),
    platform: path.join(out, "platforms", target),
    manifest: JSON.parse(fs.readFileSync(path.join(out, "codegraph", "build-manifest.json"), "utf8")),
    packed: noTarballs ? null : JSON.parse(fs.readFileSync(path.join(out, "pack.json"), "utf8")).packed,
  };
}

/** Lays a staged main + platform package out as node_modules/codegraph and node_modules/@codegraph/<target>,
 *  with the main package's dependencies linked from this checkout's node_modules. Returns the CLI path. */
function install(dir, staged) {
  const nm = path.join(dir, "node_modules");
  fs.mkdirSync(path.join(nm, "@codegraph"), { recursive: true });
  fs.cpSync(staged.main, path.join(nm, "codegraph"), { recursive: true });
  fs.cpSync(staged.platform, path.join(nm, "@codegraph", target), { recursive: true });
  for (const name of fs.readdirSync(path.join(repo, "node_modules"))) {
    if (name.startsWith(".") || name === "@codegraph" || name === "codegraph") continue;
    fs.symlinkSync(path.join(repo, "node_modules", name), path.join(nm, name));
  }
  return path.join(nm, "codegraph", "bin", "codegraph.js");
}

/** Runs `codegraph doctor --json` with the given environment; returns the parsed report. */
function doctor(cli, env, extraArgs = []) {
  const r = spawnSync(process.execPath, [cli, "doctor", "--json", ...extraArgs], {
    encoding: "utf8",
    env: { ...process.env, CODEGRAPH_NATIVE_PATH: "", CODEGRAPH_FORCE_WASM: "", CODEGRAPH_NATIVE_CACHE: "", ...env },
  });
  if (r.status !== 0) throw new Error(`doctor exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

module.exports = { repo, target, tmpdir, pack, install, doctor };
