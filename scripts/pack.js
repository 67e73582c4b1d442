#!/usr/bin/env node
// Packaging: writes the per-platform package manifests (npm/platforms/<target>/package.json, committed)
// and stages the publishable packages in OUT (default target/pack):
//   OUT/codegraph/                 the main package: package.json with optionalDependencies on every
//                                  platform package, build-manifest.json (blake3, size and target of the
//                                  .wasm and of every .node), the CLI, library and wasm module
//   OUT/platforms/<target>/        one package per addon that was built (package.json + .node)
// then `npm pack`s each into OUT and prints the tarballs with their sizes. No postinstall scripts.
//   node scripts/pack.js [--out DIR] [--version V] [--artifacts DIR] [--no-tarballs]
//   node scripts/pack.js --check-platforms      (exit 1 when npm/platforms is out of date)
// --artifacts: a folder of codegraph.<target>.node files (the release workflow collects every
// platform's build there); default npm/native/, the local build.
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { parseArgs } = require("node:util");

const repo = path.resolve(__dirname, "..");
const { PLATFORMS, platformPackageName, nativeFileName, workspaceFileName, workspaceProfiles } = require(
  path.join(repo, "npm/dist/platforms.js"),
);
const { blake3File } = require(path.join(repo, "npm/dist/native-cache.js"));

const rootPkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));

function platformManifest(p, version) {
  const pkg = {
    name: platformPackageName(p.target),
    version,
    description: `The ${p.target} native addon of codegraph (installed by the codegraph package on this platform).`,
    license: rootPkg.license,
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    main: nativeFileName(p.target),
    files: [nativeFileName(p.target)],
    engines: rootPkg.engines,
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function writePlatforms(version, check) {
  const stale = [];
  for (const p of PLATFORMS) {
    const file = path.join(repo, "npm/platforms", p.target, "package.json");
    const text = platformManifest(p, version);
    const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
    if (current === text) continue;
    if (check) stale.push(path.relative(repo, file));
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
  }
  return stale;
}

function copyInto(dest, rel) {
  const from = path.join(repo, rel);
  if (!fs.existsSync(from)) throw new Error(`${rel} is missing: run scripts/build.sh first`);
  fs.cpSync(from, path.join(dest, rel), { recursive: true });
}

function npmPack(dir, out) {
  const json = execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [info] = JSON.parse(json);
  return {
    name: info.name,
    version: info.version,
    file: path.join(out, info.filename),
    size: info.size,
    unpackedSize: info.unpackedSize,
    files: info.files.map((f) => f.path).sort(),
  };
}

function main() {
  const { values } = parseArgs({
    options: {
      out: { type: "string", default: path.join(repo, "target/pack") },
      version: { type: "string", default: rootPkg.version },
      artifacts: { type: "string", default: path.join(repo, "npm/native") },
      "check-platforms": { type: "boolean" },
      "no-tarballs": { type: "boolean" },
    },
  });
  if (values["check-platforms"]) {
    const stale = writePlatforms(rootPkg.version, true);
    if (stale.length) {
      console.error(`out of date (run node scripts/pack.js): ${stale.join(", ")}`);
      process.exit(1);
    }
    console.log(`npm/platforms: ${PLATFORMS.length} package manifests up to date`);
    return;
  }
  const version = values.version;
  if (version === rootPkg.version) writePlatforms(version, false);
  const out = path.resolve(values.out);
  fs.rmSync(out, { recursive: true, force: true });
  const main = path.join(out, "codegraph");
  fs.mkdirSync(main, { recursive: true });

  // The main package: exactly the files package.json lists, plus the manifest.
  for (const rel of rootPkg.files) copyInto(main, rel.replace(/\/$/, ""));
  for (const rel of ["README.md", "LICENSE"]) if (fs.existsSync(path.join(repo, rel))) copyInto(main, rel);
  const wasmPath = "npm/wasm/codegraph_wasm_bg.wasm";
  const artifacts = [
    {
      kind: "wasm",
      target: "wasm32-unknown-unknown",
      path: wasmPath,
      blake3: blake3File(path.join(main, wasmPath)),
      size: fs.statSync(path.join(main, wasmPath)).size,
    },
  ];
  const built = [];
  for (const p of PLATFORMS) {
    // A release build under the package's name, or the development build the loader would pick.
    const file = [nativeFileName(p.target), ...workspaceProfiles().map((profile) => workspaceFileName(p.target, profile))]
      .map((name) => path.join(values.artifacts, name))
      .find((f) => fs.existsSync(f));
    if (!file) continue;
    const dir = path.join(out, "platforms", p.target);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), platformManifest(p, version));
    fs.copyFileSync(file, path.join(dir, nativeFileName(p.target)));
    artifacts.push({
      kind: "native",
      target: p.target,
      package: platformPackageName(p.target),
      path: nativeFileName(p.target),
      blake3: blake3File(file),
      size: fs.statSync(file).size,
    });
    built.push(dir);
  }
  const manifest = { name: rootPkg.name, version, artifacts };
  fs.writeFileSync(path.join(main, "build-manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const pkg = { ...rootPkg, version, files: [...rootPkg.files, "build-manifest.json"] };
  delete pkg.devDependencies;
  delete pkg.scripts;
  pkg.optionalDependencies = Object.fromEntries(PLATFORMS.map((p) => [platformPackageName(p.target), version]));
  fs.writeFileSync(path.join(main, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);

  console.log(
    `staged codegraph ${version} in ${path.relative(process.cwd(), out) || "."}: ${artifacts.map((a) => `${a.target} ${a.blake3.slice(0, 12)}`).join(", ")}`,
  );
  if (values["no-tarballs"]) return;
  const packed = [npmPack(main, out), ...built.map((dir) => npmPack(dir, out))];
  fs.writeFileSync(path.join(out, "pack.json"), `${JSON.stringify({ manifest, packed }, null, 2)}\n`);
  for (const p of packed) {
    console.log(
      `${path.relative(process.cwd(), p.file)}  ${(p.size / 1e6).toFixed(2)} MB packed, ${(p.unpackedSize / 1e6).toFixed(2)} MB unpacked, ${p.files.length} files`,
    );
  }
}

main();
